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

/*
 * Read SYS/class/CLASS/NAME/uevent: 1 into an event, 0 no device of ours
 * (gone: ENOENT), -1 when it could not be read or its record is refused
 * (logged; errno set): then nobody can tell the unit from a gone one,
 * and what exists of it must stay.
 */
static int read_device(int classfd, const char *class, const char *name,
		       struct capi_event *ev)
{
	char path[NAME_MAX + sizeof("/uevent")], buf[UEVENT_SYSFS_MAX];
	const char *why = "";
	ssize_t len;
	int e;

	snprintf(path, sizeof(path), "%s/uevent", name);
	len = uevent_read_file(classfd, path, buf, sizeof(buf), &why);
	if (len < 0) {
		e = errno;
		/* The device went away since readdir(): it is gone. */
		if (e == ENOENT || e == ENOTDIR)
			return 0;
		log_limited(LOG_ERR, "sysfs class/%s/%s: uevent %s%s%s", class,
			    name, why, e ? ": " : "", e ? strerror(e) : "");
		errno = e ? e : EIO;
		return -1;
	}
	switch (uevent_parse_sysfs(buf, (size_t)len, class, name, ev, &why)) {
	case UEVENT_OK:
		return 1;
	case UEVENT_BAD:
		log_limited(LOG_WARNING, "sysfs class/%s/%s: %s: the scan is "
			    "not complete", class, name, why);
		errno = EINVAL;
		return -1;
	case UEVENT_IGNORE:
		break;
	}
	return 0;
}

/*
 * Every capi* entry of SYS/class/CLASS.  An entry that cannot be read
 * does not stop the scan (the others' names are made), but fails it.
 */
static int scan_class(const char *sysdir, const char *class,
		      struct sysfs_live *l, sysfs_fn *fn, void *arg)
{
	char path[PATH_MAX];
	struct capi_event ev;
	struct dirent *de;
	int ret = 0, e = 0, r;
	DIR *d;

	snprintf(path, sizeof(path), "%s/class/%s", sysdir, class);
	d = opendir(path);
	if (!d)
		return errno == ENOENT ? 0 : -1;	/* ENOENT: no driver */
	for (;;) {
		errno = 0;
		de = readdir(d);
		if (!de) {
			if (errno)
				ret = -1, e = errno;
			break;
		}
		if (strncmp(de->d_name, "capi", strlen("capi")))
			continue;
		r = read_device(dirfd(d), class, de->d_name, &ev);
		if (r < 0)
			ret = -1, e = errno;
		if (r <= 0)
			continue;
		if (record(l, &ev) < 0 || fn(&ev, arg) < 0) {
			ret = -1, e = errno;
			break;
		}
	}
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
	int ret, e;

	memset(l, 0, sizeof(*l));
	/* The control device first: pre-fix ttys need capi/ to be free. */
	ret = scan_class(sysdir, "capi", l, fn, arg);
	e = errno;
	/* The ttys even when that failed: their names are made all the same. */
	if (scan_class(sysdir, "tty", l, fn, arg) < 0 && ret == 0) {
		ret = -1;
		e = errno;
	}
	if (ret < 0) {
		errno = e ? e : EIO;
		return -1;
	}
	sort_units(&l->units[CAPI_MODERN]);
	sort_units(&l->units[CAPI_PREFIX]);
	return 0;
}
