/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timing.h - where a live event's time goes, for the VM benchmark only.
 *
 * The daemon marks the moments of each kernel event: woken by poll(),
 * recvmmsg() begun and returned (both at once for a datagram an earlier
 * call took), the uevent checked and parsed, the tree
 * operations done.  Only bench/capi-devd-timed is built with
 * CAPI_DEVD_TIMING (bench/timing.c keeps the marks in a fixed array and
 * writes them out at exit); in capi-devd the hooks are empty and cost
 * nothing.
 */
#ifndef CAPI_DEVD_TIMING_H
#define CAPI_DEVD_TIMING_H

enum timing_mark {
	TM_WAKE,	/* poll() returned with events to read */
	TM_RECV,	/* recvmmsg() called */
	TM_RECVD,	/* recvmmsg() returned */
	TM_PARSED,	/* the datagram checked and parsed into an event */
	TM_MARKS
};

#ifdef CAPI_DEVD_TIMING
void timing_mark(enum timing_mark m);
/* The event of the marks so far is applied: keep them under its seqnum. */
void timing_done(unsigned long long seqnum);
/* Write what was kept to $CAPI_DEVD_TIMING (a path), if set. */
void timing_dump(void);
#else
static inline void timing_mark(enum timing_mark m) { (void)m; }
static inline void timing_done(unsigned long long seqnum) { (void)seqnum; }
static inline void timing_dump(void) { }
#endif

#endif
