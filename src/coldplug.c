// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * coldplug.c - scan sysfs for CAPI devices, apply their names, sweep the
 * stale ones.
 *
 * The devices are read from SYS/class/capi/ and SYS/class/tty/capi*,
 * whose uevent files hold MAJOR, MINOR and DEVNAME.  This is not the
 * event path: it may allocate.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "coldplug.h"
#include "log.h"
#include "uevent.h"

struct units {
	unsigned int *v;
	size_t n, cap;
};

static int units_add(struct units *u, unsigned int unit)
{
	if (u->n == u->cap) {
		size_t cap = u->cap ? u->cap * 2 : 64;
		unsigned int *v = realloc(u->v, cap * sizeof(*v));

		if (!v)
			return -1;
		u->v = v;
		u->cap = cap;
	}
	u->v[u->n++] = unit;
	return 0;
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return (x > y) - (x < y);
}

static bool units_has(const struct units *u, unsigned int unit)
{
	return u->n && bsearch(&unit, u->v, u->n, sizeof(*u->v), cmp_uint);
}

/* Read SYS/class/CLASS/NAME/uevent into an event. */
static int read_device(int classfd, const char *class, const char *name,
		       struct capi_event *ev)
{
	const char *why = "";

	switch (uevent_read_sysfs(classfd, class, name, ev, &why)) {
	case UEVENT_OK:
		return 0;
	case UEVENT_BAD:
		log_limited(LOG_WARNING, "sysfs class/%s/%s: %s", class, name,
			    why);
		break;
	case UEVENT_IGNORE:
		break;
	}
	return -1;
}

struct found {
	struct units modern, prefix;
	bool control[2];	/* indexed by enum capi_scheme */
};

static void scan_class(struct tree *t, const char *sysdir, const char *class,
		       enum policy_owner owner, struct found *fd_,
		       struct coldplug_result *res)
{
	struct name_op ops[POLICY_MAX_OPS];
	struct capi_event ev;
	struct dirent *de;
	char path[4096];
	DIR *d;
	int dfd;

	snprintf(path, sizeof(path), "%s/class/%s", sysdir, class);
	d = opendir(path);
	if (!d)
		return;		/* driver not loaded: no class directory */
	dfd = dirfd(d);
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "capi", 4))
			continue;
		if (read_device(dfd, class, de->d_name, &ev) < 0)
			continue;
		if (ev.kind == CAPI_CONTROL) {
			fd_->control[ev.scheme] = true;
			res->controls++;
		} else {
			units_add(ev.scheme == CAPI_MODERN ? &fd_->modern :
				  &fd_->prefix, ev.unit);
			res->ttys++;
		}
		if (res->scheme < 0 || ev.scheme == CAPI_PREFIX)
			res->scheme = (int)ev.scheme;
		tree_apply_all(t, ops, policy_names(&ev, owner, ops));
	}
	closedir(d);
}

static void sweep_link(struct tree *t, const char *path, const char *target,
		       enum link_shape shape, struct coldplug_result *res)
{
	struct name_op op = { .kind = OP_UNLINK, .shape = shape };
	unsigned long before = t->changes;

	if (strlen(path) >= sizeof(op.path) ||
	    strlen(target) >= sizeof(op.target))
		return;		/* longer than any name we make */
	strcpy(op.path, path);
	strcpy(op.target, target);
	tree_apply(t, &op);
	if (t->changes != before || t->dry_run) {
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
static void sweep_legacy(struct tree *t, const struct found *f,
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
		if (units_has(&f->modern, unit) || units_has(&f->prefix, unit))
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
 * capi/N -> ../capiM links of pre-fix units that are gone.  Only the
 * numeric names we make: capi/modem -> ../capi3 is someone else's.
 */
static void sweep_prefix_dir(struct tree *t, const struct found *f,
			     struct coldplug_result *res)
{
	char target[TREE_LINK_MAX], path[300];
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
		if (policy_parse_dir_name(de->d_name, &unit) < 0 ||
		    units_has(&f->prefix, unit))
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
	struct found f = { 0 };

	res->controls = res->ttys = res->stale = 0;
	res->scheme = -1;

	/* Temporary links of an instance that was killed mid-operation. */
	res->stale += tree_sweep_tmp(t, "");
	res->stale += tree_sweep_tmp(t, "capi");
	res->stale += tree_sweep_tmp(t, "isdn");

	/* The control device first: pre-fix ttys need capi/ to be free. */
	scan_class(t, sysdir, "capi", owner, &f, res);
	scan_class(t, sysdir, "tty", owner, &f, res);
	if (f.modern.n)
		qsort(f.modern.v, f.modern.n, sizeof(unsigned int), cmp_uint);
	if (f.prefix.n)
		qsort(f.prefix.v, f.prefix.n, sizeof(unsigned int), cmp_uint);

	sweep_legacy(t, &f, owner, res);
	sweep_prefix_dir(t, &f, res);
	if (!f.control[CAPI_MODERN] && !f.control[CAPI_PREFIX] &&
	    (owner == OWN_ALL || dangling(t, "isdn/capi20")))
		sweep_link(t, "isdn/capi20", "../capi20", SHAPE_ISDN, res);

	free(f.modern.v);
	free(f.prefix.v);
	return 0;
}
