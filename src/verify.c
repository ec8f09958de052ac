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
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include "event.h"
#include "log.h"
#include "mend.h"
#include "number.h"
#include "policy.h"
#include "sysfs.h"
#include "verify.h"

/* devices.txt lines are short; a longer one is read in pieces, ignored. */
#define SPEC_LINE_MAX 512
/* A deviation before escaping; escaped, a byte takes at most four. */
#define DEVIATION_MAX 1024
/* devices.txt is about 150 KiB; a larger file is not it. */
#define SPEC_FILE_MAX (4u << 20)

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

/* Where the parse of the 68 char block stands. */
struct spec_state {
	bool in_block, gap, have_last;
	unsigned int last;
};

/* Is this the "68 char" header line?  A number is never wrapped. */
static bool block_start(const char *p)
{
	const char *end = p + strlen(p);
	unsigned int major;

	if (number_scan(&p, end, CAPI_MAJOR_MAX, &major) < 0 ||
	    major != CAPI_CONTROL_MAJOR || (*p != ' ' && *p != '\t'))
		return false;
	p += strspn(p, " \t");
	return !strncmp(p, "char", 4) && (!p[4] || isspace((unsigned char)p[4]));
}

/* One line inside the block: 1 at its end, 0 read on, -1 with *why. */
static int spec_entry(struct spec *s, struct spec_state *st, const char *p,
		      const char **why)
{
	unsigned int minor;
	const char *q;
	char name[64];

	if (*p == '\n' || *p == '\0')
		return 1;	/* the block's list ends at a blank line */
	if (!strncmp(p, "...", 3)) {
		st->gap = true;
		return 0;
	}
	if (*p < '0' || *p > '9')
		return 0;
	q = p;
	if (number_scan(&q, p + strlen(p), CAPI_UNIT_MAX, &minor) < 0) {
		*why = "a minor out of range in the 68 char block";
		return -1;
	}
	if (sscanf(q, " = %63s", name) != 1)
		return 0;
	if (minor >= SPEC_MAX || strncmp(name, "/dev/", strlen("/dev/")) ||
	    strlen(name) >= sizeof(s->name[0]) ||
	    (st->have_last && minor <= st->last)) {
		*why = "unexpected entry in the 68 char block";
		return -1;
	}
	snprintf(s->name[minor], sizeof(s->name[minor]), "%s", name);
	if (st->gap && (!st->have_last || fill_range(s, st->last, minor, name))) {
		*why = "cannot expand a \"...\" range";
		return -1;
	}
	st->gap = false;
	st->last = minor;
	st->have_last = true;
	s->n = minor + 1;
	return 0;
}

/*
 * Open the spec as modules.devname is opened: without blocking (a FIFO
 * cannot hang us), and only a regular file, of a size devices.txt can
 * have (/dev/zero would be read for ever).
 */
static FILE *spec_open(const char *path, const char **why)
{
	struct stat st;
	FILE *f;
	int fd;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		*why = strerror(errno);
		return NULL;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (unsigned long long)st.st_size > SPEC_FILE_MAX) {
		*why = S_ISREG(st.st_mode) ? "larger than 4 MiB" :
		       "not a regular file";
		close(fd);
		return NULL;
	}
	f = fdopen(fd, "r");
	if (!f) {
		*why = strerror(errno);
		close(fd);
	}
	return f;
}

int spec_parse(const char *path, struct spec *s, const char **why)
{
	struct spec_state st = { 0 };
	char line[SPEC_LINE_MAX];
	unsigned long long read = 0;
	int r = 0;
	FILE *f;

	memset(s, 0, sizeof(*s));
	f = spec_open(path, why);
	if (!f)
		return -1;
	while (r == 0 && fgets(line, sizeof(line), f)) {
		/* A file that grows while read is read no further. */
		read += strlen(line);
		if (read > SPEC_FILE_MAX) {
			*why = "larger than 4 MiB";
			r = -1;
			break;
		}
		const char *p = line + strspn(line, " \t");

		if (st.in_block)
			r = spec_entry(s, &st, p, why);
		else
			st.in_block = block_start(p);
	}
	fclose(f);
	if (r < 0)
		return -1;
	if (!st.in_block || !s->n || !s->name[0][0]) {
		*why = "no \"68 char\" block with a minor 0 entry";
		return -1;
	}
	return 0;
}

static bool is_symlink(int dfd, const char *name)
{
	struct stat st;

	return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       S_ISLNK(st.st_mode);
}

struct checker {
	const char *devdir;
	const struct spec *spec;
	int devfd;
	gid_t gid;
	mode_t mode;
	int deviations;
	int cannot;		/* names that could not be compared */
	bool modern;		/* the device checked: its names the rules' */
};

/*
 * A name --verify cannot look at (a directory an ordinary user may not
 * read or search): not a deviation, nor OK: "could not compare", exit 2.
 */
static void cannot_compare(struct checker *c, const char *dir,
			   const char *name, int e)
{
	char raw[DEVIATION_MAX], out[DEVIATION_MAX * 4];
	int len;

	c->cannot++;
	len = snprintf(raw, sizeof(raw), "%s/%s%s%s", c->devdir, dir,
		       *dir && *name ? "/" : "", name);
	if (len < 0)
		len = 0;
	if ((size_t)len >= sizeof(raw))
		len = sizeof(raw) - 1;
	fprintf(stderr, "capi-devd: cannot compare %s: %s\n",
		log_escape(raw, (size_t)len, out, sizeof(out)), strerror(e));
}

/* EACCES, EPERM: what is there cannot be told, only that it may exist. */
static bool unreadable(int e)
{
	return e == EACCES || e == EPERM;
}

static void deviation(struct checker *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The MEND: line after a deviation at devdir/dir/name ("" parts left out). */
static void mend(const struct checker *c, enum mend m, const char *dir,
		 const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s%s%s%s%s", c->devdir,
		 *dir ? "/" : "", dir, *name ? "/" : "", name);
	mend_print(m, path, c->modern);
}

/* One line each: names read from the tree are escaped as in the log. */
static void deviation(struct checker *c, const char *fmt, ...)
{
	char raw[DEVIATION_MAX], out[DEVIATION_MAX * 4];
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

/*
 * The stat of what is at name itself (a node: no symlink followed, in a
 * directory that is no symlink either), or of what it resolves to (a
 * link).  Returns 0, or -1 after a deviation.
 */
static int stat_name(struct checker *c, const char *name, bool node,
		     const char *what, struct stat *st)
{
	const char *slash = strchr(name, '/');
	char dir[64];
	int fd = c->devfd, ret;

	if (node && slash && (size_t)(slash - name) < sizeof(dir)) {
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - name), name);
		fd = openat(c->devfd, dir, O_RDONLY | O_DIRECTORY |
			    O_NOFOLLOW | O_CLOEXEC);
		/* capi/ a symlink: check_dir() reports it, once. */
		if (fd < 0 && is_symlink(c->devfd, dir))
			return -1;
		if (fd < 0 && unreadable(errno)) {
			cannot_compare(c, dir, "", errno);
			return -1;
		}
		name = slash + 1;
	}
	ret = fd < 0 ? -1 : fstatat(fd, name, st,
				    node ? AT_SYMLINK_NOFOLLOW : 0);
	if (ret < 0 && unreadable(errno))
		cannot_compare(c, fd == c->devfd ? "" : dir, name, errno);
	else if (ret < 0) {
		deviation(c, "%s/%s%s%s: %s (%s)", c->devdir,
			  fd == c->devfd ? "" : dir, fd == c->devfd ? "" : "/",
			  name, strerror(errno), what);
		mend(c, MEND_RESCAN, fd == c->devfd ? "" : dir, name);
	} else if (node && S_ISLNK(st->st_mode)) {
		deviation(c, "%s/%s%s%s: symlink, expected a character device "
			  "(%s)", c->devdir, fd == c->devfd ? "" : dir,
			  fd == c->devfd ? "" : "/", name, what);
		mend(c, MEND_REMOVE, fd == c->devfd ? "" : dir, name);
		ret = -1;
	}
	if (fd >= 0 && fd != c->devfd)
		close(fd);
	return ret;
}

/*
 * Does the node at name (in a directory that is no symlink: stat_name()
 * checked) carry an access ACL?  Asked of that very inode, through an
 * O_PATH descriptor and /proc/self/fd.
 */
static bool has_acl(const struct checker *c, const char *name)
{
	char proc[32];
	bool acl;
	int fd;

	fd = openat(c->devfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return false;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	acl = getxattr(proc, "system.posix_acl_access", NULL, 0) >= 0;
	close(fd);
	return acl;
}

/* A directory of the contract (capi/ of a pre-fix kernel) must be one. */
static void expect_dir(struct checker *c, const char *name, const char *what)
{
	struct stat st;

	if (fstatat(c->devfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (unreadable(errno))
			cannot_compare(c, "", name, errno);
		else {
			deviation(c, "%s/%s: %s (%s)", c->devdir, name,
				  strerror(errno), what);
			mend(c, MEND_RESCAN, "", name);
		}
	} else if (S_ISLNK(st.st_mode)) {
		return;		/* check_dir() reports it, once */
	} else if (!S_ISDIR(st.st_mode)) {
		deviation(c, "%s/%s: %s, expected a directory (%s)",
			  c->devdir, name, S_ISCHR(st.st_mode) ?
			  "a character device" : S_ISREG(st.st_mode) ?
			  "a regular file" : "not a directory", what);
		mend(c, MEND_REMOVE, "", name);
	}
}

/*
 * A node name must be char major:minor itself, a link name must resolve
 * to it; check perms when asked.
 */
static void expect_dev(struct checker *c, const char *name, unsigned int maj,
		       unsigned int min, bool node, bool perms, const char *what)
{
	struct stat st;

	if (stat_name(c, name, node, what, &st) < 0)
		return;
	if (!S_ISCHR(st.st_mode) || major(st.st_rdev) != maj ||
	    minor(st.st_rdev) != min) {
		deviation(c, "%s/%s: resolves to %s %u:%u, not char %u:%u (%s)",
			  c->devdir, name, S_ISCHR(st.st_mode) ? "char" :
			  "a non-device", major(st.st_rdev),
			  minor(st.st_rdev), maj, min, what);
		mend(c, MEND_REMOVE, "", name);
		return;
	}
	if (!perms)
		return;
	if (st.st_uid != 0) {
		deviation(c, "%s/%s: owner uid %u, not root", c->devdir, name,
			  (unsigned int)st.st_uid);
		mend(c, MEND_RESCAN, "", name);
	}
	if (st.st_gid != c->gid) {
		deviation(c, "%s/%s: group %u, not %u", c->devdir, name,
			  (unsigned int)st.st_gid, (unsigned int)c->gid);
		mend(c, MEND_RESCAN, "", name);
	}
	if ((st.st_mode & 07777) != c->mode) {
		deviation(c, "%s/%s: mode %04o, not %04o", c->devdir, name,
			  (unsigned int)(st.st_mode & 07777),
			  (unsigned int)c->mode);
		mend(c, MEND_RESCAN, "", name);
	}
	if (has_acl(c, name)) {
		deviation(c, "%s/%s: has an ACL (getfacl(1)): capi-devd(8) "
			  "gives a node none, and its mode does not say who "
			  "may open it", c->devdir, name);
		mend(c, MEND_ACL, "", name);
	}
}


/* A name of our grammar in the dev tree: parse it, or say it is none. */
typedef int parse_fn(const char *name, unsigned int *unit);

/*
 * Every capi20.* in the dev root and every entry of capi/ must be a name
 * we make (policy_parse_*) of a live unit.
 */
static void check_dir(struct checker *c, const struct sysfs_live *l,
		      const char *dir, const char *prefix, parse_fn *parse)
{
	struct dirent *de;
	unsigned int unit;
	DIR *d;
	int fd;

	/* Not through a symlink: capi-devd makes capi/ a directory. */
	fd = openat(c->devfd, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
	if (fd < 0 && is_symlink(c->devfd, dir)) {
		deviation(c, "%s/%s: a symlink, not the directory capi-devd(8) "
			  "makes", c->devdir, dir);
		mend(c, MEND_REMOVE, dir, "");
	} else if (fd < 0 && errno != ENOENT && errno != ENOTDIR)
		cannot_compare(c, strcmp(dir, ".") ? dir : "", "", errno);
	d = fd < 0 ? NULL : fdopendir(fd);
	while (d && (errno = 0, de = readdir(d))) {
		if (de->d_name[0] == '.' ||
		    strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		if (parse(de->d_name, &unit) < 0) {
			deviation(c, "%s/%s%s: exists, but is no name "
				  "capi-devd(8) gives a tty", c->devdir,
				  *prefix ? "" : "capi/", de->d_name);
			mend(c, MEND_REMOVE_ONLY, *prefix ? "" : "capi",
			     de->d_name);
		} else if (!sysfs_live_has(l, unit)) {
			deviation(c, "%s/%s%s: exists, but no tty %u is live",
				  c->devdir, *prefix ? "" : "capi/",
				  de->d_name, unit);
			mend(c, MEND_STALE, *prefix ? "" : "capi",
			     de->d_name);
		}
	}
	if (d && errno)
		cannot_compare(c, strcmp(dir, ".") ? dir : "", "", errno);
	if (d)
		closedir(d);
	else if (fd >= 0)
		close(fd);
}

/* No capi20.NN and no capi/N may exist for a unit that is gone. */
static void check_gone(struct checker *c, const struct sysfs_live *l)
{
	check_dir(c, l, ".", POLICY_LEGACY_PREFIX, policy_parse_legacy_name);
	check_dir(c, l, "capi", "", policy_parse_dir_name);
}

/* What a name is for, in a deviation. */
static const char *purpose(const struct capi_event *ev,
			   const struct name_op *op)
{
	switch (op->shape) {
	case SHAPE_ISDN:
		return "libcapi20's fallback name of the control device";
	case SHAPE_PREFIX_TTY:
		return "per-connection tty";
	case SHAPE_LEGACY:
		return "devices.txt name";
	case SHAPE_NONE:
		break;
	}
	return ev->kind == CAPI_CONTROL ? "control device" : "tty node";
}

/* devices.txt lists tty unit u at minor u + 1. */
static void check_spec_name(struct checker *c, unsigned int unit)
{
	struct tty_names n;

	policy_tty_names(unit, CAPI_MODERN, &n);
	if (unit + 1 < c->spec->n &&
	    strcmp(c->spec->name[unit + 1] + strlen("/dev/"), n.legacy)) {
		deviation(c, "devices.txt names tty %u %s, capi-devd(8) /dev/%s",
			  unit, c->spec->name[unit + 1], n.legacy);
		mend_print(MEND_NONE_SPEC, "", false);
	}
}

/*
 * One live device: every name the daemon makes for it when it owns all
 * names (policy_names(), OWN_ALL) must resolve to it.
 */
static int check_device(const struct capi_event *ev, void *arg)
{
	struct name_op ops[POLICY_MAX_OPS];
	struct checker *c = arg;
	int i, n = policy_names(ev, OWN_ALL, ops);

	c->modern = ev->scheme == CAPI_MODERN;
	if (ev->kind == CAPI_TTY)
		check_spec_name(c, ev->unit);
	for (i = 0; i < n; i++)
		if (ops[i].kind == OP_DIR)
			expect_dir(c, ops[i].path,
				   "the directory of the per-connection ttys");
		else if (ops[i].kind == OP_NODE || ops[i].kind == OP_LINK)
			expect_dev(c, ops[i].path, ev->major, ev->minor,
				   ops[i].kind == OP_NODE,
				   ops[i].kind == OP_NODE && ops[i].perms,
				   purpose(ev, &ops[i]));
	return 0;
}

static int check_all(struct checker *c, const char *sysdir)
{
	struct sysfs_live l;

	/* The spec's control name must be ours. */
	if (strcmp(c->spec->name[0], "/dev/capi20")) {
		deviation(c, "devices.txt names the control device %s, "
			  "capi-devd(8) /dev/capi20", c->spec->name[0]);
		mend_print(MEND_NONE_SPEC, "", false);
	}
	if (sysfs_scan(sysdir, &l, check_device, c) < 0) {
		fprintf(stderr, "capi-devd: cannot scan %s: %s\n", sysdir,
			strerror(errno));
		sysfs_live_free(&l);
		return -1;
	}
	check_gone(c, &l);
	if (c->cannot) {
		printf("verify: could not compare %d name(s) (see above)%s\n",
		       c->cannot, c->deviations ? "; deviations as listed" :
		       "");
		sysfs_live_free(&l);
		return -1;
	}
	if (c->deviations)
		printf("verify: %d deviation(s)\n", c->deviations);
	else
		printf("verify: OK: %s, %u tty(s), names as devices.txt "
		       "(%u entries) and capi-devd(8) say\n",
		       l.controls ? "control device" : "no control device",
		       l.ttys, c->spec->n);
	sysfs_live_free(&l);
	return c->deviations;
}

int verify_run(const char *devdir, const char *sysdir, const char *spec_path,
	       gid_t gid, mode_t mode)
{
	struct spec spec;
	struct checker c = {
		.devdir = devdir, .spec = &spec, .gid = gid, .mode = mode,
		.modern = true,
	};
	const char *why;
	int ret;

	if (spec_parse(spec_path, &spec, &why) < 0) {
		fprintf(stderr, "capi-devd: cannot use %s: %s (pass "
			"--devices-txt=FILE; it is Documentation/admin-guide/"
			"devices.txt in the kernel source)\n", spec_path, why);
		return -1;
	}
	/* Never through a symlink: the daemon refuses such a dev root. */
	c.devfd = open(devdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (c.devfd < 0 && is_symlink(AT_FDCWD, devdir)) {
		deviation(&c, "%s: symlink, expected a directory", devdir);
		mend_print(MEND_NONE_ROOT, "", false);
		printf("verify: %d deviation(s)\n", c.deviations);
		return c.deviations;
	}
	if (c.devfd < 0) {
		fprintf(stderr, "capi-devd: cannot open %s: %s\n", devdir,
			strerror(errno));
		return -1;
	}
	ret = check_all(&c, sysdir);
	close(c.devfd);
	return ret;
}
