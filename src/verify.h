/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * verify.h - check a live dev tree against devices.txt and the naming
 * contract of capi-devd(8).
 */
#ifndef CAPI_DEVD_VERIFY_H
#define CAPI_DEVD_VERIFY_H

#include <sys/types.h>

#define SPEC_MAX 64

/* The major-68 block of devices.txt: minor -> "/dev/NAME". */
struct spec {
	unsigned int n;			/* entries, minors 0..n-1 */
	char name[SPEC_MAX][40];
};

/* Parse the "68 char" block; returns 0 or -1 with a message in *why. */
int spec_parse(const char *path, struct spec *s, const char **why);

/*
 * Print each deviation on its own line on stdout; returns the number of
 * deviations, or -1 when the check could not run at all.
 */
int verify_run(const char *devdir, const char *sysdir, const char *spec_path,
	       gid_t gid, mode_t mode);

#endif
