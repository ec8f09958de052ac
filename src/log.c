// SPDX-License-Identifier: GPL-2.0-or-later
/* log.c - see log.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "log.h"

/* Longest message, before escaping; longer ones are cut. */
#define LOG_LINE_MAX 1024

int log_max_level = LOG_INFO;
static const char *prog = "capi-devd";
static int journal;

void log_init(const char *progname)
{
	prog = progname;
	/* systemd sets JOURNAL_STREAM when stderr is connected to journald. */
	journal = getenv("JOURNAL_STREAM") != NULL;
}

char *log_escape(const char *s, size_t len, char *buf, size_t size)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, o = 0;

	if (size < 4) {
		if (size)
			buf[0] = '\0';
		return buf;
	}
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		char e[5];
		size_t n = 0;

		if (c == '\\' || c == '\n' || c == '\t' || c == '\r') {
			e[n++] = '\\';
			e[n++] = c == '\n' ? 'n' : c == '\t' ? 't' :
				 c == '\r' ? 'r' : '\\';
		} else if (c < 0x20 || c >= 0x7f) {
			e[n++] = '\\';
			e[n++] = 'x';
			e[n++] = hex[c >> 4];
			e[n++] = hex[c & 15];
		} else {
			e[n++] = (char)c;
		}
		/* Keep room for "..." and the NUL (o + 4 <= size holds). */
		if (o + n + 4 > size) {
			memcpy(buf + o, "...", 3);
			o += 3;
			break;
		}
		memcpy(buf + o, e, n);
		o += n;
	}
	buf[o] = '\0';
	return buf;
}

static void vlog(int level, const char *fmt, va_list ap)
{
	static const char *const names[] = {
		"emergency", "alert", "critical", "error",
		"warning", "notice", "info", "debug",
	};
	char raw[LOG_LINE_MAX], out[4 * LOG_LINE_MAX];
	int len;

	if (level > log_max_level)
		return;
	len = vsnprintf(raw, sizeof(raw), fmt, ap);
	if (len < 0)
		return;
	if ((size_t)len >= sizeof(raw))
		len = sizeof(raw) - 1;
	log_escape(raw, (size_t)len, out, sizeof(out));
	/*
	 * SIGPIPE is ignored (main.c): with the reader of stderr gone, the
	 * write fails with EPIPE and the line is dropped.
	 */
	if (journal)
		fprintf(stderr, "<%d>%s\n", level, out);
	else
		fprintf(stderr, "%s: %s: %s\n", prog, names[level & 7], out);
	clearerr(stderr);
}

void log_msg(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(level, fmt, ap);
	va_end(ap);
}

static time_t window;
static unsigned int sent;
static unsigned long suppressed;

void log_flush(bool force)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
	if (!force && now.tv_sec - window < LOG_INTERVAL)
		return;
	if (suppressed)
		log_msg(LOG_WARNING, "%lu more rate-limited message(s) "
			"suppressed (at most %d per %d s)", suppressed,
			LOG_BURST, LOG_INTERVAL);
	window = now.tv_sec;
	sent = 0;
	suppressed = 0;
}

void log_limited(int level, const char *fmt, ...)
{
	va_list ap;

	log_flush(false);
	if (sent >= LOG_BURST) {
		suppressed++;
		return;
	}
	sent++;
	va_start(ap, fmt);
	vlog(level, fmt, ap);
	va_end(ap);
}
