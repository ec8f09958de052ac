// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * timing.c - the marks of src/timing.h, for bench/capi-devd-timed.
 *
 * Each mark is one CLOCK_MONOTONIC reading (the vDSO: no system call when
 * the clock source is the TSC) into a fixed array; nothing is allocated
 * or written until timing_dump() at exit, which prints one line per event:
 *
 *   SEQNUM WAKE RECV RECVD PARSED DONE      (nanoseconds)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "timing.h"

#define TIMING_EVENTS 65536

struct timing_rec {
	unsigned long long seqnum;
	long long t[TM_MARKS + 1];	/* the marks, then DONE */
};

static struct timing_rec recs[TIMING_EVENTS];
static struct timing_rec cur;
static unsigned int nrecs;
static unsigned long long lost;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void timing_mark(enum timing_mark m)
{
	cur.t[m] = now_ns();
}

void timing_done(unsigned long long seqnum)
{
	cur.t[TM_MARKS] = now_ns();
	cur.seqnum = seqnum;
	if (nrecs < TIMING_EVENTS)
		recs[nrecs++] = cur;
	else
		lost++;
}

void timing_dump(void)
{
	const char *path = getenv("CAPI_DEVD_TIMING");
	FILE *f;

	if (!path || !(f = fopen(path, "w")))
		return;
	for (unsigned int i = 0; i < nrecs; i++)
		fprintf(f, "%llu %lld %lld %lld %lld %lld\n", recs[i].seqnum,
			recs[i].t[TM_WAKE], recs[i].t[TM_RECV],
			recs[i].t[TM_RECVD], recs[i].t[TM_PARSED],
			recs[i].t[TM_MARKS]);
	if (lost)
		fprintf(f, "# %llu events over %d not kept\n", lost,
			TIMING_EVENTS);
	fclose(f);
}
