/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * coldplug.h - converge the dev tree with the CAPI devices in sysfs.
 *
 * Used at start, on SIGHUP and after lost events: makes every name the
 * present devices call for and removes the stale links we own.
 */
#ifndef CAPI_DEVD_COLDPLUG_H
#define CAPI_DEVD_COLDPLUG_H

#include "policy.h"
#include "tree.h"

struct coldplug_result {
	unsigned int controls;	/* control devices found */
	unsigned int ttys;	/* ttys found */
	unsigned int stale;	/* stale links removed */
};

/*
 * sysdir is the sysfs root ("/sys" or ROOT/sys).  Returns 0, or -1 with
 * errno set when the scan was not complete: then nothing was swept (the
 * names of the devices it could read were made, and *res counts them).
 */
int coldplug(struct tree *t, const char *sysdir, enum policy_owner owner,
	     struct coldplug_result *res);

#endif
