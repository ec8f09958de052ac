/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * log.h - messages to stderr, with syslog priority prefixes when stderr
 * is the journal, and a rate limit for messages caused by outside input.
 *
 * Every message is escaped as a whole before it is written: a control
 * character or a byte outside printable ASCII in it (from a symlink
 * target, a file name in sysfs, a path given on the command line) comes
 * out as a C escape (\n, \t, \r, \\, \xNN), so one message is always one
 * line and no input can forge another.
 */
#ifndef CAPI_DEVD_LOG_H
#define CAPI_DEVD_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <syslog.h>

extern int log_max_level;

void log_init(const char *progname);
void log_msg(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * Like log_msg(), but at most LOG_BURST messages per LOG_INTERVAL seconds
 * go out; the number suppressed is reported by log_flush().
 */
void log_limited(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * Report the messages log_limited() suppressed: once their window has
 * closed, or at once with force.  No timer: the daemon calls it on every
 * event and at exit.
 */
void log_flush(bool force);

/*
 * Escape the first len bytes of s into buf (always NUL-terminated) as
 * described above; returns buf.  A result that does not fit ends in "...".
 */
char *log_escape(const char *s, size_t len, char *buf, size_t size);

#define LOG_BURST 10
#define LOG_INTERVAL 5

#define log_err(...) log_msg(LOG_ERR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARNING, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) \
	do { if (log_max_level >= LOG_DEBUG) log_msg(LOG_DEBUG, __VA_ARGS__); } while (0)

#endif
