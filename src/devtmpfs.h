/* SPDX-License-Identifier: GPL-2.0-or-later */
/* devtmpfs.h - tell whether a directory is on devtmpfs. */
#ifndef CAPI_DEVD_DEVTMPFS_H
#define CAPI_DEVD_DEVTMPFS_H

/*
 * 1 when dirfd is on a devtmpfs mount, 0 when on another file system,
 * -1 when it cannot be told (no STATX_MNT_ID, no such mount in the
 * mountinfo file, usually /proc/self/mountinfo).
 */
int devtmpfs_is(int dirfd, const char *mountinfo);

#endif
