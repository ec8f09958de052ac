/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * source.h - event sources: the kernel's uevent netlink group, the udev
 * monitor, and a replay file.
 *
 * A source hands out validated events one at a time.  Overflow (events
 * lost in the socket) is reported so that the caller can rescan.
 */
#ifndef CAPI_DEVD_SOURCE_H
#define CAPI_DEVD_SOURCE_H

#include <stdio.h>
#include <stdlib.h>
#include "event.h"
#include "uevent.h"

enum source_result {
	SRC_EVENT,	/* *ev holds a CAPI event */
	SRC_NONE,	/* not a CAPI event; read on */
	SRC_DRAINED,	/* nothing more to read now */
	SRC_BAD,	/* bad input, logged; nothing to do */
	SRC_OVERFLOW,	/* events were lost: rescan */
	SRC_EOF,	/* replay: input ended */
	SRC_ERROR,	/* unrecoverable; errno set */
};

struct source_stats {
	unsigned long events, ignored, bad, overflows, foreign;
};

/*
 * Count a parser verdict and turn it into a source result: SRC_EVENT,
 * SRC_NONE (ignored) or SRC_BAD (the caller logs why).
 */
static inline enum source_result source_verdict(enum uevent_verdict v,
						struct source_stats *st)
{
	switch (v) {
	case UEVENT_OK:
		st->events++;
		return SRC_EVENT;
	case UEVENT_IGNORE:
		st->ignored++;
		return SRC_NONE;
	case UEVENT_BAD:
		break;
	}
	st->bad++;
	return SRC_BAD;
}

/*
 * Every source has one shape: read() hands out the next event (a live
 * source returns SRC_DRAINED when fd has nothing more to read; a replay
 * reads until SRC_EOF and has fd -1), close() releases it.
 */
struct source {
	int fd;
	const char *name;	/* "kernel", "udev" or "replay" */
	enum source_result (*read)(struct source *s, struct capi_event *ev,
				   struct source_stats *st);
	void (*close)(struct source *s);
	void *priv;		/* the source's own state */
};

/* Each returns 0, or -1 with errno set. */
/* Kernel netlink (no udevd). */
int kernel_source_open(struct source *s, int rcvbuf);
/* The udev monitor: events after udevd has applied its rules. */
int udev_source_open(struct source *s, int rcvbuf);
/* A recording, below; path "-" is stdin. */
int replay_source_open_as(struct source *s, const char *path);

/*
 * A recorded "udevadm monitor --kernel --property" stream.  Lines are read
 * into a fixed buffer: a line over REPLAY_LINE_MAX bytes makes its record
 * bad (the rest of it is read and dropped), and a line over
 * REPLAY_LINE_ABORT bytes (--replay=/dev/zero) ends the replay with an
 * error: that is no uevent recording.
 */
#define REPLAY_LINE_MAX 4096
#define REPLAY_LINE_ABORT (1024 * 1024)
/* Input is read(2) in blocks of this size and cut into lines with memchr. */
#define REPLAY_BLOCK 16384
struct replay_source {
	int fd;			/* 0 for "-" (stdin) */
	const char *name;
	size_t pos, end;	/* the unread part of block */
	char line[REPLAY_LINE_MAX + 1];
	char block[REPLAY_BLOCK];
	unsigned long lineno, record_line;
};
int replay_source_open(struct replay_source *r, const char *path);
enum source_result replay_source_read(struct replay_source *r,
				      struct capi_event *ev,
				      struct source_stats *st);
void replay_source_close(struct replay_source *r);
/* How a replay source opened by replay_source_open_as() names its input. */
const char *replay_name(const struct source *s);

#endif
