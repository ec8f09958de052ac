// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * coldplug.c - scan sysfs for CAPI devices, apply their names, sweep the
 * stale ones.
 *
 * The devices come from sysfs_scan(); the stale links are swept only
 * after a scan that read everything.  This is not the event path: it
 * may allocate.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "apply.h"
#include "coldplug.h"
#include "log.h"
#include "sysfs.h"
#include "uevent.h"

struct scan {
	struct tree *t;
	enum policy_owner owner;
};

/* The names of one live device, as the daemon applies an add event. */
static int apply_found(const struct capi_event *ev, void *arg)
{
	struct scan *sc = arg;

	apply_event(sc->t, sc->owner, ev);
	return 0;
}

static void sweep_link(struct tree *t, const char *path, const char *target,
		       enum link_shape shape, struct coldplug_result *res)
{
	struct name_op op = { .kind = OP_UNLINK, .shape = shape };

	if (strlen(path) >= sizeof(op.path) ||
	    strlen(target) >= sizeof(op.target))
		return;		/* longer than any name we make */
	strcpy(op.path, path);
	strcpy(op.target, target);
	if (tree_apply(t, &op) == 1) {
		res->stale++;
		log_info("removed stale link %s/%s", t->shown, path);
	}
}

/* Is path a symlink whose target does not resolve inside the dev root? */
static bool dangling(struct tree *t, const char *path)
{
	struct stat st;

	return fstatat(t->devfd, path, &st, 0) < 0 && errno == ENOENT;
}

/*
 * capi20.NN links whose unit is gone.  With udevd running, the modern
 * ones belong to the rules: we only take those that no longer resolve.
 */
static void sweep_legacy(struct tree *t, const struct sysfs_live *f,
			 enum policy_owner owner, struct coldplug_result *res)
{
	char target[TREE_LINK_MAX];
	struct dirent *de;
	unsigned int unit;
	DIR *d;
	int fd;

	fd = openat(t->devfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d))) {
		if (policy_parse_legacy_name(de->d_name, &unit) < 0)
			continue;
		if (sysfs_live_has(f, unit))
			continue;
		if (tree_readlink(t->devfd, de->d_name, target,
				  sizeof(target)) < 0 ||
		    !policy_link_is_ours(SHAPE_LEGACY, target))
			continue;
		if (owner == OWN_PREFIX && !dangling(t, de->d_name))
			continue;
		sweep_link(t, de->d_name, target, SHAPE_LEGACY, res);
	}
	closedir(d);
}

/*
 * Is the node at capi/N (st) one capi-devd made for tty N on a tree
 * where nodes are made here (not devtmpfs): char MAJOR:N of a major the
 * CAPI tty driver can have, our group and mode, owner root, one name?
 */
static bool our_tty_node(const struct tree *t, const struct stat *st,
			 unsigned int unit)
{
	return S_ISCHR(st->st_mode) && st->st_nlink == 1 &&
	       minor(st->st_rdev) == unit &&
	       uevent_tty_major_ok(major(st->st_rdev)) &&
	       st->st_uid == 0 && st->st_gid == t->gid &&
	       (st->st_mode & 07777) == t->mode;
}

/*
 * A node capi/N of ours for a tty that is gone: removed on a tree where
 * nodes are made here (on devtmpfs they are the kernel's), or else the
 * unit, back on another major, would find it in its place.
 */
static void sweep_node(struct tree *t, int fd, const char *name,
		       unsigned int unit, struct coldplug_result *res)
{
	struct name_op op = { .kind = OP_NODE_GONE };
	struct stat st;

	if (t->kernel_nodes || t->keep_nodes ||
	    fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !our_tty_node(t, &st, unit))
		return;
	op.major = major(st.st_rdev);
	op.minor = minor(st.st_rdev);
	snprintf(op.path, sizeof(op.path), "capi/%u", unit);
	if (tree_apply(t, &op) == 1) {
		res->stale++;
		log_info("removed stale node %s/%s (char %u:%u)", t->shown,
			 op.path, op.major, op.minor);
	}
}

/*
 * capi/N -> ../capiM links of pre-fix units that are gone, and capi/N
 * nodes of ours of modern units that are gone (without udevd).  Only the numeric names
 * we make: capi/modem -> ../capi3 is someone else's.
 */
static void sweep_prefix_dir(struct tree *t, const struct sysfs_live *f,
			     enum policy_owner owner,
			     struct coldplug_result *res)
{
	char target[TREE_LINK_MAX], path[sizeof("capi/") + NAME_MAX];
	struct dirent *de;
	unsigned int unit;
	DIR *d;
	int fd;

	fd = openat(t->devfd, "capi",
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while ((de = readdir(d))) {
		if (policy_parse_dir_name(de->d_name, &unit) < 0)
			continue;
		/* With udevd, a modern capi/N is the rules' (OWNERSHIP). */
		if (owner == OWN_ALL && !sysfs_live_has_in(f, CAPI_MODERN, unit))
			sweep_node(t, fd, de->d_name, unit, res);
		if (sysfs_live_has_in(f, CAPI_PREFIX, unit))
			continue;
		if (tree_readlink(fd, de->d_name, target, sizeof(target)) < 0 ||
		    !policy_link_is_ours(SHAPE_PREFIX_TTY, target))
			continue;
		snprintf(path, sizeof(path), "capi/%s", de->d_name);
		sweep_link(t, path, target, SHAPE_PREFIX_TTY, res);
	}
	closedir(d);
}

int coldplug(struct tree *t, const char *sysdir, enum policy_owner owner,
	     struct coldplug_result *res)
{
	struct scan sc = { t, owner };
	struct sysfs_live f;
	int ret, e;

	res->controls = res->ttys = res->stale = 0;

	/* Temporary links of an instance that was killed mid-operation. */
	res->stale += tree_sweep_tmp(t, "");
	res->stale += tree_sweep_tmp(t, "capi");
	res->stale += tree_sweep_tmp(t, "isdn");

	/* A unit the scan missed would look gone: sweep only after a full one. */
	ret = sysfs_scan(sysdir, &f, apply_found, &sc);
	res->controls = f.controls;
	res->ttys = f.ttys;
	if (ret < 0) {
		e = errno;
		sysfs_live_free(&f);
		errno = e;
		return -1;
	}
	sweep_legacy(t, &f, owner, res);
	sweep_prefix_dir(t, &f, owner, res);
	if (!f.control[CAPI_MODERN] && !f.control[CAPI_PREFIX] &&
	    (owner == OWN_ALL || dangling(t, "isdn/capi20")))
		sweep_link(t, "isdn/capi20", "../capi20", SHAPE_ISDN, res);
	sysfs_live_free(&f);
	return 0;
}
