// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * devtmpfs.c - tell whether a directory is on devtmpfs.
 *
 * On devtmpfs the kernel makes a device's node before it announces the
 * device and removes it before it announces the removal; the nodes are
 * the kernel's.  A daemon that lags behind the kernel must then never
 * remove a node on a remove event: by the time it reads the event, the
 * unit may have been made again, with the same device number, and the
 * node it would remove is the new device's.
 *
 * statx() gives the mount ID of the directory; /proc/self/mountinfo names
 * the file system of that mount.  Called once, at startup.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "devtmpfs.h"

/* "ID PARENT MAJ:MIN ROOT POINT OPTIONS [TAGS...] - FSTYPE SOURCE SUPER" */
static int line_fstype_is(const char *line, unsigned long long id,
			  const char *fstype)
{
	unsigned long long got;
	const char *sep;
	char *end;
	size_t n = strlen(fstype);

	got = strtoull(line, &end, 10);
	if (end == line || *end != ' ' || got != id)
		return -1;	/* not this mount */
	sep = strstr(end, " - ");
	if (!sep)
		return 0;
	sep += 3;
	return strncmp(sep, fstype, n) == 0 && sep[n] == ' ';
}

int devtmpfs_is(int dirfd, const char *mountinfo)
{
	struct statx stx;
	char *line = NULL;
	size_t size = 0;
	int ret = -1;
	FILE *f;

	if (statx(dirfd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW,
		  STATX_MNT_ID, &stx) < 0 || !(stx.stx_mask & STATX_MNT_ID))
		return -1;
	f = fopen(mountinfo, "re");
	if (!f)
		return -1;
	while (ret < 0 && getline(&line, &size, f) > 0)
		ret = line_fstype_is(line, stx.stx_mnt_id, "devtmpfs");
	free(line);
	fclose(f);
	return ret;
}
