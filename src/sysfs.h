/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sysfs.h - the CAPI devices that are live: one scan of sysfs, one set of
 * live units.  Coldplug makes their names from it, --verify checks them.
 *
 * This is not the event path: it may allocate.  A scan that could not
 * read everything (a class directory unreadable, a device's uevent file
 * that cannot be opened or read or is not a regular file, no memory for
 * the set) fails as a whole, so that nobody takes a unit it missed for
 * gone; only a device whose entry is gone (ENOENT) is gone.  It still
 * hands every device it could read to fn.
 */
#ifndef CAPI_DEVD_SYSFS_H
#define CAPI_DEVD_SYSFS_H

#include <stdbool.h>
#include <stddef.h>
#include "event.h"

/* A set of tty units; any number of them, up to CAPI_UNIT_MAX + 1. */
struct unit_set {
	unsigned int *v;
	size_t n, cap;
};

/* What a scan found. */
struct sysfs_live {
	struct unit_set units[2];	/* indexed by enum capi_scheme */
	bool control[2];		/* indexed by enum capi_scheme */
	unsigned int controls, ttys;
};

/* Is the tty unit live, in either scheme? */
bool sysfs_live_has(const struct sysfs_live *l, unsigned int unit);
/* Is the unit live in this scheme? */
bool sysfs_live_has_in(const struct sysfs_live *l, enum capi_scheme scheme,
		       unsigned int unit);
void sysfs_live_free(struct sysfs_live *l);

/* Called for each live device, control device first; < 0 stops the scan. */
typedef int sysfs_fn(const struct capi_event *ev, void *arg);

/*
 * Read SYS/class/capi/ and then SYS/class/tty/capi*: each device's uevent
 * file (MAJOR, MINOR, DEVNAME) becomes an "add" event, is recorded in *l
 * and handed to fn.  A missing class directory is no device (the driver
 * is not loaded).  Returns 0, or -1 with errno set when the scan is not
 * complete (each file it could not read is logged); *l is to be freed
 * either way.
 */
int sysfs_scan(const char *sysdir, struct sysfs_live *l, sysfs_fn *fn,
	       void *arg);

#endif
