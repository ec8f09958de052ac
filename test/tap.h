/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tap.h - a few TAP helpers for the unit tests. */
#ifndef CAPI_DEVD_TAP_H
#define CAPI_DEVD_TAP_H

#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

#define ok(cond, ...) do { \
	tap_n++; \
	if (cond) { \
		printf("ok %d - ", tap_n); \
	} else { \
		tap_failed++; \
		printf("not ok %d - ", tap_n); \
	} \
	printf(__VA_ARGS__); \
	putchar('\n'); \
} while (0)

#define is_str(got, want, ...) do { \
	const char *g_ = (got), *w_ = (want); \
	ok(!strcmp(g_, w_), __VA_ARGS__); \
	if (strcmp(g_, w_)) \
		printf("#   got \"%s\", want \"%s\"\n", g_, w_); \
} while (0)

#define is_int(got, want, ...) do { \
	long g_ = (long)(got), w_ = (long)(want); \
	ok(g_ == w_, __VA_ARGS__); \
	if (g_ != w_) \
		printf("#   got %ld, want %ld\n", g_, w_); \
} while (0)

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
