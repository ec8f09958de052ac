/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tap.h - the TAP verbs of test/tap.sh for the C tests and the guest's
 * test programs, with the same words and meaning:
 *   check(cond, fmt, ...)   one test: passes when cond is true; returns cond
 *   pass(fmt, ...)          one test that passed
 *   fail(fmt, ...)          one test that failed
 *   diag(fmt, ...)          a "# " line
 *   is_str, is_int          check() that says what it got and wanted
 *   done_testing()          the plan; the exit status: 0 when none failed
 *   bail_out(fmt, ...)      "Bail out! ..." with errno's text: the test
 *                           cannot go on; exit status 2
 * Each line is flushed: a caller may read the output while it runs.
 */
#ifndef CAPI_DEVD_TAP_H
#define CAPI_DEVD_TAP_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_n, tap_failed;

static inline bool tap_vline(bool cond, const char *fmt, va_list ap)
{
	tap_n++;
	if (!cond)
		tap_failed++;
	printf("%s %d - ", cond ? "ok" : "not ok", tap_n);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
	return cond;
}

__attribute__((format(printf, 2, 3)))
static inline bool check(bool cond, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vline(cond, fmt, ap);
	va_end(ap);
	return cond;
}

#define pass(...) check(true, __VA_ARGS__)
#define fail(...) check(false, __VA_ARGS__)

__attribute__((format(printf, 1, 2)))
static inline void diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

#define is_str(got, want, ...) do { \
	const char *g_ = (got), *w_ = (want); \
	if (!check(!strcmp(g_, w_), __VA_ARGS__)) \
		diag("got \"%s\", want \"%s\"", g_, w_); \
} while (0)

#define is_int(got, want, ...) do { \
	long g_ = (long)(got), w_ = (long)(want); \
	if (!check(g_ == w_, __VA_ARGS__)) \
		diag("got %ld, want %ld", g_, w_); \
} while (0)

static inline int done_testing(void)
{
	printf("1..%d\n", tap_n);
	fflush(stdout);
	return tap_failed ? 1 : 0;
}

__attribute__((format(printf, 1, 2), noreturn))
static inline void bail_out(const char *fmt, ...)
{
	int e = errno;
	va_list ap;

	printf("Bail out! ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" (%s)\n", strerror(e));
	exit(2);
}

#endif
