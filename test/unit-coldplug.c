// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * unit-coldplug.c - a coldplug whose sysfs scan fails removes nothing.
 *
 * Linked with -Wl,--wrap=realloc: the library's realloc() calls come
 * here, and fail with ENOMEM while fail_realloc is set.  Before the fix,
 * a live unit that did not fit in the set was taken for gone and its
 * link swept.  And with -Wl,--wrap=openat: opening a sysfs uevent file
 * fails with fail_open (EMFILE, ENOMEM) while that is set; before the
 * fix (issue 16, break 2) that unit, too, was swept, and nothing logged.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "coldplug.h"
#include "tap.h"
#include "uevent.h"

void *__real_realloc(void *p, size_t size);
void *__wrap_realloc(void *p, size_t size);

static int fail_realloc;
static int fail_open;

int __real_openat(int dfd, const char *path, int flags, ...);
int __wrap_openat(int dfd, const char *path, int flags, ...);

int __wrap_openat(int dfd, const char *path, int flags, ...)
{
	size_t len = strlen(path);
	va_list ap;
	mode_t mode;

	if (fail_open && len >= 7 && !strcmp(path + len - 7, "/uevent")) {
		errno = fail_open;
		return -1;
	}
	va_start(ap, flags);
	mode = (mode_t)va_arg(ap, int);
	va_end(ap);
	return __real_openat(dfd, path, flags, mode);
}

void *__wrap_realloc(void *p, size_t size)
{
	if (fail_realloc) {
		errno = ENOMEM;
		return NULL;
	}
	return __real_realloc(p, size);
}

static char root[] = "/tmp/unit-coldplug.XXXXXX";

static void put(const char *path, const char *text)
{
	char full[256];
	FILE *f;

	snprintf(full, sizeof(full), "%s/%s", root, path);
	f = fopen(full, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(full);
		exit(99);
	}
}

static void run(const char *cmd)
{
	char full[512];

	snprintf(full, sizeof(full), "cd %s && %s", root, cmd);
	if (system(full)) {
		fprintf(stderr, "failed: %s\n", full);
		exit(99);
	}
}

static bool is_link(const char *name)
{
	char full[256];
	struct stat st;

	snprintf(full, sizeof(full), "%s/dev/%s", root, name);
	return lstat(full, &st) == 0 && S_ISLNK(st.st_mode);
}

static int converge(struct coldplug_result *res)
{
	char dev[64], sys[64];
	struct tree t = { .gid = 0, .mode = 0660 };
	int ret;

	snprintf(dev, sizeof(dev), "%s/dev", root);
	snprintf(sys, sizeof(sys), "%s/sys", root);
	if (tree_open(&t, dev) < 0) {
		perror(dev);
		exit(99);
	}
	ret = coldplug(&t, sys, OWN_ALL, res);
	tree_close(&t);
	return ret;
}

int main(void)
{
	struct coldplug_result res;
	int ret, e;

	if (!mkdtemp(root)) {
		perror(root);
		return 99;
	}
	run("mkdir -p dev sys/class/capi/capi20 'sys/class/tty/capi!5' && "
	    "ln -s capi/5 dev/capi20.05 && ln -s capi/6 dev/capi20.06");
	put("sys/class/capi/capi20/uevent", "MAJOR=68\nMINOR=0\nDEVNAME=capi20\n");
	put("sys/class/tty/capi!5/uevent", "MAJOR=240\nMINOR=5\nDEVNAME=capi/5\n");
	uevent_set_tty_major(240, NULL);

	fail_realloc = 1;
	ret = converge(&res);
	e = errno;
	fail_realloc = 0;
	is_int(ret, -1, "no memory for the live units: the coldplug fails");
	is_int(e, ENOMEM, "and says ENOMEM");
	check(is_link("capi20.05"), "the link of live tty 5 is kept");
	check(is_link("capi20.06"), "even the stale capi20.06 is kept: no sweep");

	ret = converge(&res);
	is_int(ret, 0, "with memory, the coldplug succeeds");
	check(is_link("capi20.05"), "the link of live tty 5 is kept");
	check(!is_link("capi20.06"), "the stale capi20.06 is swept");
	is_int(res.ttys, 1, "one tty found");
	is_int(res.stale, 1, "one stale link removed");

	/* A live unit whose uevent file cannot be opened is not gone. */
	run("ln -s capi/6 dev/capi20.06");
	fail_open = EMFILE;
	ret = converge(&res);
	e = errno;
	fail_open = 0;
	is_int(ret, -1, "uevent files cannot be opened (EMFILE): the coldplug fails");
	is_int(e, EMFILE, "and says EMFILE");
	check(is_link("capi20.05"), "the link of live tty 5 is kept");
	check(is_link("capi20.06"), "even the stale capi20.06 is kept: no sweep");
	fail_open = ENOMEM;
	ret = converge(&res);
	fail_open = 0;
	is_int(ret, -1, "ENOMEM on open: the coldplug fails");
	check(is_link("capi20.05"), "the link of live tty 5 is kept");

	run("cd / && rm -rf -- \"$OLDPWD\"");
	return done_testing();
}
