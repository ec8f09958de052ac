/* SPDX-License-Identifier: GPL-2.0-or-later */
/* devtmpfs.h - tell whether a directory is on devtmpfs. */
#ifndef CAPI_DEVD_DEVTMPFS_H
#define CAPI_DEVD_DEVTMPFS_H

#include <stdbool.h>
#include <stdio.h>

/* Which mount: by mount ID (statx), or by device number (fstat). */
struct mount_key {
	bool by_id;
	unsigned long long id;
	unsigned long long major, minor;
};

/*
 * 1 when dirfd is on a devtmpfs mount, 0 when on another file system,
 * -1 when it cannot be told (no such mount in the mountinfo file, usually
 * /proc/self/mountinfo, or that file unreadable).  *how says how it was
 * told, or why not, for the log.
 */
int devtmpfs_is(int dirfd, const char *mountinfo, const char **how);

/* The same for the lines of an open mountinfo file. */
int devtmpfs_mountinfo(FILE *f, const struct mount_key *k);

/* One mountinfo line: 1 devtmpfs, 0 another file system, -1 not k's. */
int devtmpfs_mountinfo_line(const char *line, const struct mount_key *k);

#endif
