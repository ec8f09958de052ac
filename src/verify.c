// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * verify.c - capi-devd --verify.
 *
 * The spec is read, not assumed: the "68 char" block of devices.txt lists
 * the control device at minor 0 and the application names at minors 1..,
 * with "..." standing for the numbered names between two entries.  The
 * live devices come from sysfs; the live names from the dev tree.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "event.h"
#include "log.h"
#include "policy.h"
#include "uevent.h"
#include "verify.h"

/* Split "/dev/capi20.07" into prefix "/dev/capi20." and number 7, width 2. */
static int split_number(const char *name, size_t *plen, unsigned long *num,
			int *width)
{
	size_t len = strlen(name), i = len;

	while (i > 0 && isdigit((unsigned char)name[i - 1]))
		i--;
	if (i == len)
		return -1;
	*plen = i;
	*num = strtoul(name + i, NULL, 10);
	*width = (int)(len - i);
	return 0;
}

static int fill_range(struct spec *s, unsigned int from, unsigned int to,
		      const char *to_name)
{
	const char *a = s->name[from];
	unsigned long na, nb;
	size_t pa, pb;
	int wa, wb;
	unsigned int m;

	if (split_number(a, &pa, &na, &wa) < 0 ||
	    split_number(to_name, &pb, &nb, &wb) < 0 || pa != pb ||
	    strncmp(a, to_name, pa) || nb - na != to - from)
		return -1;
	for (m = from + 1; m < to; m++)
		snprintf(s->name[m], sizeof(s->name[m]), "%.*s%0*lu", (int)pa,
			 a, wa, na + (m - from));
	return 0;
}

int spec_parse(const char *path, struct spec *s, const char **why)
{
	char line[512];
	bool in_block = false, gap = false;
	unsigned int last = 0;
	bool have_last = false;
	FILE *f;

	memset(s, 0, sizeof(*s));
	f = fopen(path, "re");
	if (!f) {
		*why = strerror(errno);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned int minor;
		char name[64];
		const char *p = line;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!in_block) {
			unsigned int major;
			char kind[8];

			if (sscanf(p, "%u %7s", &major, kind) == 2 &&
			    major == 68 && !strcmp(kind, "char"))
				in_block = true;
			continue;
		}
		if (*p == '\n' || *p == '\0')
			break;		/* the block's list ends at a blank line */
		if (!strncmp(p, "...", 3)) {
			gap = true;
			continue;
		}
		if (sscanf(p, "%u = %63s", &minor, name) != 2)
			continue;
		if (minor >= SPEC_MAX || strncmp(name, "/dev/", 5) ||
		    strlen(name) >= sizeof(s->name[0]) ||
		    (have_last && minor <= last)) {
			*why = "unexpected entry in the 68 char block";
			fclose(f);
			return -1;
		}
		snprintf(s->name[minor], sizeof(s->name[minor]), "%s", name);
		if (gap && (!have_last || fill_range(s, last, minor, name))) {
			*why = "cannot expand a \"...\" range";
			fclose(f);
			return -1;
		}
		gap = false;
		last = minor;
		have_last = true;
		s->n = minor + 1;
	}
	fclose(f);
	if (!in_block || !s->n || !s->name[0][0]) {
		*why = "no \"68 char\" block with a minor 0 entry";
		return -1;
	}
	return 0;
}

struct checker {
	const char *devdir;
	int devfd;
	gid_t gid;
	mode_t mode;
	int deviations;
};

static void deviation(struct checker *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* One line each: names read from the tree are escaped as in the log. */
static void deviation(struct checker *c, const char *fmt, ...)
{
	char raw[1024], out[4096];
	va_list ap;
	int len;

	c->deviations++;
	va_start(ap, fmt);
	len = vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	if (len < 0)
		len = 0;
	if ((size_t)len >= sizeof(raw))
		len = sizeof(raw) - 1;
	printf("DEVIATION: %s\n", log_escape(raw, (size_t)len, out,
						sizeof(out)));
}

/* name must resolve to char major:minor; check perms when asked. */
static void expect_dev(struct checker *c, const char *name, unsigned int maj,
		       unsigned int min, bool perms, const char *what)
{
	struct stat st;

	if (fstatat(c->devfd, name, &st, 0) < 0) {
		deviation(c, "%s/%s: %s (%s)", c->devdir, name,
			  strerror(errno), what);
		return;
	}
	if (!S_ISCHR(st.st_mode) || major(st.st_rdev) != maj ||
	    minor(st.st_rdev) != min) {
		deviation(c, "%s/%s: resolves to %s %u:%u, not char %u:%u (%s)",
			  c->devdir, name, S_ISCHR(st.st_mode) ? "char" :
			  "a non-device", major(st.st_rdev),
			  minor(st.st_rdev), maj, min, what);
		return;
	}
	if (!perms)
		return;
	if (st.st_uid != 0)
		deviation(c, "%s/%s: owner uid %u, not root", c->devdir, name,
			  (unsigned int)st.st_uid);
	if (st.st_gid != c->gid)
		deviation(c, "%s/%s: group %u, not %u", c->devdir, name,
			  (unsigned int)st.st_gid, (unsigned int)c->gid);
	if ((st.st_mode & 07777) != c->mode)
		deviation(c, "%s/%s: mode %04o, not %04o", c->devdir, name,
			  (unsigned int)(st.st_mode & 07777),
			  (unsigned int)c->mode);
}

struct live {
	bool control;
	unsigned int n;
	unsigned int unit[1024];
	unsigned int major[1024], minor[1024];
	bool prefix[1024];
};

static void read_class(const char *sysdir, const char *class, struct live *l)
{
	char path[4096];
	struct capi_event ev;
	struct dirent *de;
	const char *why;
	DIR *d;

	snprintf(path, sizeof(path), "%s/class/%s", sysdir, class);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "capi", 4) ||
		    uevent_read_sysfs(dirfd(d), class, de->d_name, &ev,
				      &why) != UEVENT_OK)
			continue;
		if (ev.kind == CAPI_CONTROL) {
			l->control = true;
		} else if (l->n < sizeof(l->unit) / sizeof(l->unit[0])) {
			l->unit[l->n] = ev.unit;
			l->major[l->n] = ev.major;
			l->minor[l->n] = ev.minor;
			l->prefix[l->n] = ev.scheme == CAPI_PREFIX;
			l->n++;
		}
	}
	closedir(d);
}

static bool live_has(const struct live *l, unsigned int unit)
{
	unsigned int i;

	for (i = 0; i < l->n; i++)
		if (l->unit[i] == unit)
			return true;
	return false;
}

/* A name of our grammar in the dev tree: parse it, or say it is none. */
typedef int parse_fn(const char *name, unsigned int *unit);

/*
 * Every capi20.* in the dev root and every entry of capi/ must be a name
 * we make (policy_parse_*) of a live unit.
 */
static void check_dir(struct checker *c, const struct live *l,
		      const char *dir, const char *prefix, parse_fn *parse)
{
	struct dirent *de;
	unsigned int unit;
	DIR *d;
	int fd;

	fd = openat(c->devfd, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d = fd < 0 ? NULL : fdopendir(fd);
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.' ||
		    strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		if (parse(de->d_name, &unit) < 0)
			deviation(c, "%s/%s%s: exists, but is no name "
				  "capi-devd(8) gives a tty", c->devdir,
				  *prefix ? "" : "capi/", de->d_name);
		else if (!live_has(l, unit))
			deviation(c, "%s/%s%s: exists, but no tty %u is live",
				  c->devdir, *prefix ? "" : "capi/",
				  de->d_name, unit);
	}
	if (d)
		closedir(d);
	else if (fd >= 0)
		close(fd);
}

/* No capi20.NN and no capi/N may exist for a unit that is gone. */
static void check_gone(struct checker *c, const struct live *l)
{
	check_dir(c, l, ".", POLICY_LEGACY_PREFIX, policy_parse_legacy_name);
	check_dir(c, l, "capi", "", policy_parse_dir_name);
}

int verify_run(const char *devdir, const char *sysdir, const char *spec_path,
	       const char *group, mode_t mode)
{
	struct checker c = { .devdir = devdir, .mode = mode };
	struct live *l;
	struct spec spec;
	const char *why;
	struct group *gr;
	char *end;
	unsigned int i;

	if (spec_parse(spec_path, &spec, &why) < 0) {
		fprintf(stderr, "capi-devd: cannot use %s: %s (pass "
			"--devices-txt=FILE; it is Documentation/admin-guide/"
			"devices.txt in the kernel source)\n", spec_path, why);
		return -1;
	}
	c.gid = (gid_t)strtoul(group, &end, 10);
	if (*end || end == group) {
		gr = getgrnam(group);
		if (!gr) {
			fprintf(stderr, "capi-devd: group \"%s\" does not exist\n",
				group);
			return -1;
		}
		c.gid = gr->gr_gid;
	}
	c.devfd = open(devdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c.devfd < 0) {
		fprintf(stderr, "capi-devd: cannot open %s: %s\n", devdir,
			strerror(errno));
		return -1;
	}
	l = calloc(1, sizeof(*l));
	if (!l) {
		close(c.devfd);
		return -1;
	}
	read_class(sysdir, "capi", l);
	read_class(sysdir, "tty", l);

	/* The spec's control name must be ours. */
	if (strcmp(spec.name[0], "/dev/capi20"))
		deviation(&c, "devices.txt names the control device %s, "
			  "capi-devd(8) /dev/capi20", spec.name[0]);
	if (l->control) {
		expect_dev(&c, "capi20", CAPI_CONTROL_MAJOR, CAPI_CONTROL_MINOR,
			   true, "control device");
		expect_dev(&c, "isdn/capi20", CAPI_CONTROL_MAJOR,
			   CAPI_CONTROL_MINOR, false,
			   "libcapi20's fallback name of the control device");
	}
	for (i = 0; i < l->n; i++) {
		char legacy[POLICY_PATH_MAX], dirent[POLICY_PATH_MAX];
		char node[POLICY_PATH_MAX];
		unsigned int u = l->unit[i];

		policy_legacy_name(u, legacy, sizeof(legacy));
		snprintf(dirent, sizeof(dirent), "capi/%u", u);
		snprintf(node, sizeof(node), l->prefix[i] ? "capi%u" : "capi/%u",
			 u);
		/* devices.txt lists unit u at minor u + 1. */
		if (u + 1 < spec.n && strcmp(spec.name[u + 1] + 5, legacy))
			deviation(&c, "devices.txt names tty %u %s, "
				  "capi-devd(8) /dev/%s", u,
				  spec.name[u + 1], legacy);
		expect_dev(&c, node, l->major[i], l->minor[i], true, "tty node");
		if (l->prefix[i])
			expect_dev(&c, dirent, l->major[i], l->minor[i], false,
				   "per-connection tty");
		expect_dev(&c, legacy, l->major[i], l->minor[i], false,
			   "devices.txt name");
	}
	check_gone(&c, l);
	if (c.deviations)
		printf("verify: %d deviation(s)\n", c.deviations);
	else
		printf("verify: OK: %s, %u tty(s), names as devices.txt "
		       "(%u entries) and capi-devd(8) say\n",
		       l->control ? "control device" : "no control device",
		       l->n, spec.n);
	free(l);
	close(c.devfd);
	return c.deviations;
}
