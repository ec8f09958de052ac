// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sysfs.c - scan sysfs for the live CAPI devices.
 *
 * The devices are read from SYS/class/capi/ and SYS/class/tty/capi*,
 * whose uevent files hold MAJOR, MINOR and DEVNAME; uevent.c validates
 * them as it validates every other input.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "log.h"
#include "sysfs.h"
#include "uevent.h"

#define UNIT_SET_FIRST 64	/* units room for at first; doubled as needed */

static int unit_set_add(struct unit_set *u, unsigned int unit)
{
	if (u->n == u->cap) {
		size_t cap = u->cap ? u->cap * 2 : UNIT_SET_FIRST;
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

bool sysfs_live_has_in(const struct sysfs_live *l, enum capi_scheme scheme,
		       unsigned int unit)
{
	const struct unit_set *u = &l->units[scheme];

	return u->n && bsearch(&unit, u->v, u->n, sizeof(*u->v), cmp_uint);
}

bool sysfs_live_has(const struct sysfs_live *l, unsigned int unit)
{
	return sysfs_live_has_in(l, CAPI_MODERN, unit) ||
	       sysfs_live_has_in(l, CAPI_PREFIX, unit);
}

void sysfs_live_free(struct sysfs_live *l)
{
	free(l->units[CAPI_MODERN].v);
	free(l->units[CAPI_PREFIX].v);
	memset(l, 0, sizeof(*l));
}

static int record(struct sysfs_live *l, const struct capi_event *ev)
{
	if (ev->kind == CAPI_CONTROL) {
		l->control[ev->scheme] = true;
		l->controls++;
		return 0;
	}
	if (unit_set_add(&l->units[ev->scheme], ev->unit) < 0)
		return -1;
	l->ttys++;
	return 0;
}

/* Read SYS/class/CLASS/NAME/uevent into an event; -1 when it is none. */
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

static int scan_class(const char *sysdir, const char *class,
		      struct sysfs_live *l, sysfs_fn *fn, void *arg)
{
	char path[PATH_MAX];
	struct capi_event ev;
	struct dirent *de;
	int ret = 0, e;
	DIR *d;

	snprintf(path, sizeof(path), "%s/class/%s", sysdir, class);
	d = opendir(path);
	if (!d)
		return errno == ENOENT ? 0 : -1;	/* ENOENT: no driver */
	for (;;) {
		errno = 0;
		de = readdir(d);
		if (!de) {
			ret = errno ? -1 : 0;
			break;
		}
		if (strncmp(de->d_name, "capi", strlen("capi")) ||
		    read_device(dirfd(d), class, de->d_name, &ev) < 0)
			continue;
		if (record(l, &ev) < 0 || fn(&ev, arg) < 0) {
			ret = -1;
			break;
		}
	}
	e = errno;
	closedir(d);
	errno = e;
	return ret;
}

static void sort_units(struct unit_set *u)
{
	if (u->n)
		qsort(u->v, u->n, sizeof(*u->v), cmp_uint);
}

int sysfs_scan(const char *sysdir, struct sysfs_live *l, sysfs_fn *fn,
	       void *arg)
{
	memset(l, 0, sizeof(*l));
	/* The control device first: pre-fix ttys need capi/ to be free. */
	if (scan_class(sysdir, "capi", l, fn, arg) < 0 ||
	    scan_class(sysdir, "tty", l, fn, arg) < 0) {
		if (!errno)
			errno = EIO;
		return -1;
	}
	sort_units(&l->units[CAPI_MODERN]);
	sort_units(&l->units[CAPI_PREFIX]);
	return 0;
}
