/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * log.h - messages to stderr, with syslog priority prefixes when stderr
 * is the journal, and a rate limit for messages caused by outside input.
 */
#ifndef CAPI_DEVD_LOG_H
#define CAPI_DEVD_LOG_H

#include <syslog.h>

extern int log_max_level;

void log_init(const char *progname);
void log_msg(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * Like log_msg(), but at most LOG_BURST messages per LOG_INTERVAL seconds
 * go out; the number suppressed is reported once the window reopens.
 */
void log_limited(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define LOG_BURST 10
#define LOG_INTERVAL 5

#define log_err(...) log_msg(LOG_ERR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARNING, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) \
	do { if (log_max_level >= LOG_DEBUG) log_msg(LOG_DEBUG, __VA_ARGS__); } while (0)

#endif
