// SPDX-License-Identifier: GPL-2.0-or-later
/* log.c - see log.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "log.h"

int log_max_level = LOG_INFO;
static const char *prog = "capi-devd";
static int journal;

void log_init(const char *progname)
{
	prog = progname;
	/* systemd sets JOURNAL_STREAM when stderr is connected to journald. */
	journal = getenv("JOURNAL_STREAM") != NULL;
}

static void vlog(int level, const char *fmt, va_list ap)
{
	static const char *const names[] = {
		"emergency", "alert", "critical", "error",
		"warning", "notice", "info", "debug",
	};

	if (level > log_max_level)
		return;
	if (journal)
		fprintf(stderr, "<%d>", level);
	else
		fprintf(stderr, "%s: %s: ", prog, names[level & 7]);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void log_msg(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(level, fmt, ap);
	va_end(ap);
}

void log_limited(int level, const char *fmt, ...)
{
	static time_t window;
	static unsigned int sent;
	static unsigned long suppressed;
	struct timespec now;
	va_list ap;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
	if (now.tv_sec - window >= LOG_INTERVAL) {
		if (suppressed)
			log_msg(LOG_WARNING, "%lu similar messages suppressed",
				suppressed);
		window = now.tv_sec;
		sent = 0;
		suppressed = 0;
	}
	if (sent >= LOG_BURST) {
		suppressed++;
		return;
	}
	sent++;
	va_start(ap, fmt);
	vlog(level, fmt, ap);
	va_end(ap);
}
