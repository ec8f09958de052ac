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
 * /proc/self/mountinfo names the file system of each mount.  The mount
 * of the directory is found by the mount ID that statx() gives (Linux
 * 5.8 and later), or else by the device number that fstat() gives, which
 * is the third field of the mount's line: every mount of one devtmpfs
 * has the same.  Called once, at startup.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "devtmpfs.h"

/* Plain decimal at *p, then sep; advances *p past sep.  -1 if not. */
static int field_number(const char **p, char sep, unsigned long long *out)
{
	const char *s = *p;
	unsigned long long v = 0;

	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (v > (~0ULL - 9) / 10)
			return -1;
		v = v * 10 + (unsigned long long)(*s - '0');
	}
	if (*s != sep)
		return -1;
	*out = v;
	*p = s + 1;
	return 0;
}

/* Is this line's mount the one k names? */
static bool line_is_mount(const char *line, const struct mount_key *k)
{
	unsigned long long id, parent, maj, min;
	const char *p = line;

	if (field_number(&p, ' ', &id) < 0 ||
	    field_number(&p, ' ', &parent) < 0 ||
	    field_number(&p, ':', &maj) < 0 || field_number(&p, ' ', &min) < 0)
		return false;
	if (k->by_id)
		return id == k->id;
	return maj == k->major && min == k->minor;
}

/* "ID PARENT MAJ:MIN ROOT POINT OPTIONS [TAGS...] - FSTYPE SOURCE SUPER" */
int devtmpfs_mountinfo_line(const char *line, const struct mount_key *k)
{
	static const char fstype[] = "devtmpfs ";
	const char *sep;

	if (!line_is_mount(line, k))
		return -1;	/* not this mount */
	/* Spaces in the other fields are escaped (\040): " - " is the end. */
	sep = strstr(line, " - ");
	if (!sep)
		return -1;	/* not a mountinfo line */
	return strncmp(sep + 3, fstype, sizeof(fstype) - 1) == 0;
}

int devtmpfs_mountinfo(FILE *f, const struct mount_key *k)
{
	char *line = NULL;
	size_t size = 0;
	int ret = -1;

	while (ret < 0 && getline(&line, &size, f) > 0)
		ret = devtmpfs_mountinfo_line(line, k);
	free(line);
	return ret;
}

/* The key of dirfd's mount: its mount ID, or else its device number. */
static int mount_key_of(int dirfd, struct mount_key *k, const char **how)
{
	struct statx stx;
	struct stat st;

	if (statx(dirfd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW,
		  STATX_MNT_ID, &stx) == 0 && (stx.stx_mask & STATX_MNT_ID)) {
		k->by_id = true;
		k->id = stx.stx_mnt_id;
		*how = "mount ID";
		return 0;
	}
	if (fstat(dirfd, &st) < 0)
		return -1;
	k->by_id = false;
	k->major = major(st.st_dev);
	k->minor = minor(st.st_dev);
	*how = "device number (no statx mount ID)";
	return 0;
}

int devtmpfs_is(int dirfd, const char *mountinfo, const char **how)
{
	struct mount_key k;
	int ret;
	FILE *f;

	*how = "no stat";
	if (mount_key_of(dirfd, &k, how) < 0)
		return -1;
	f = fopen(mountinfo, "re");
	if (!f) {
		*how = "mount table unreadable";
		return -1;
	}
	ret = devtmpfs_mountinfo(f, &k);
	fclose(f);
	if (ret < 0)
		*how = "no such mount in the mount table";
	return ret;
}
