// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * names.c - the CAPI names in a dev directory, read as they are.
 *
 * Every name is looked at with fstatat(AT_SYMLINK_NOFOLLOW) and
 * readlinkat(); a directory is opened with O_NOFOLLOW: nothing is
 * followed and nothing changed.  A link's target is whatever is there,
 * so it is escaped before anyone sees it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "event.h"
#include "log.h"
#include "names.h"

/* The sort order: the control names, the ttys, then their links. */
enum { ORD_CONTROL, ORD_ISDN, ORD_PREFIX_CONTROL, ORD_TTY, ORD_PREFIX_TTY,
       ORD_LINK };
#define ORD(kind, n) ((unsigned int)(kind) << 24 | (n))

/* A decimal number of 1 to 7 digits (capi20.00: leading zeros too). */
static int number(const char *s, unsigned int *out)
{
	unsigned int v = 0;
	size_t i;

	for (i = 0; s[i]; i++) {
		if (s[i] < '0' || s[i] > '9' || i == 7)
			return -1;
		v = v * 10 + (unsigned int)(s[i] - '0');
	}
	*out = v;
	return i ? 0 : -1;
}

static int add(struct names *ns, int dfd, const char *dir, const char *name,
	       unsigned int order)
{
	struct name *nm;
	struct stat st;
	char raw[256];
	ssize_t len;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -1;
	if (ns->n == NAMES_MAX) {
		ns->dropped++;
		return 0;
	}
	if (ns->n % 64 == 0) {
		nm = realloc(ns->v, (ns->n + 64) * sizeof(*nm));
		if (!nm)
			return -1;
		ns->v = nm;
	}
	nm = &ns->v[ns->n++];
	memset(nm, 0, sizeof(*nm));
	snprintf(nm->path, sizeof(nm->path), "%s%s", dir, name);
	nm->order = order;
	nm->gid = st.st_gid;
	nm->mode = st.st_mode & 07777;
	if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {
		nm->kind = NAME_NODE;
		nm->is_char = S_ISCHR(st.st_mode);
		nm->major = major(st.st_rdev);
		nm->minor = minor(st.st_rdev);
	} else if (S_ISLNK(st.st_mode)) {
		nm->kind = NAME_LINK;
		len = readlinkat(dfd, name, raw, sizeof(raw));
		log_escape(raw, len < 0 ? 0 : (size_t)len, nm->target,
			   sizeof(nm->target));
	} else {
		nm->kind = S_ISDIR(st.st_mode) ? NAME_DIR : NAME_OTHER;
	}
	if (order == ORD(ORD_CONTROL, 0) || order == ORD(ORD_PREFIX_CONTROL, 0))
		ns->controls += nm->kind == NAME_NODE && nm->is_char &&
				nm->major == CAPI_CONTROL_MAJOR && !nm->minor;
	if (order >> 24 == ORD_TTY)
		ns->ttys++;
	return 0;
}

/* Each entry of dirfd whose name is prefix and a number. */
static int add_numbered(struct names *ns, int dirfd, const char *dir,
			const char *prefix, int kind)
{
	size_t plen = strlen(prefix);
	struct dirent *de;
	unsigned int n;
	DIR *d;
	int fd, ret = 0;

	fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -1;
	}
	while (ret == 0 && (de = readdir(d)))
		/* capi20, the control node, is listed as such. */
		if (!strncmp(de->d_name, prefix, plen) &&
		    strcmp(de->d_name, "capi20") &&
		    number(de->d_name + plen, &n) == 0)
			ret = add(ns, dirfd, dir, de->d_name,
				  ORD((unsigned int)kind, n));
	closedir(d);
	return ret;
}

/* The directory name under devfd, never through a symlink; -1 if none. */
static int subdir(int devfd, const char *name)
{
	return openat(devfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		      O_CLOEXEC);
}

static int by_order(const void *a, const void *b)
{
	const struct name *x = a, *y = b;

	return (x->order > y->order) - (x->order < y->order);
}

int names_read(int devfd, struct names *ns)
{
	int fd, ret;

	memset(ns, 0, sizeof(*ns));
	ret = add(ns, devfd, "", "capi20", ORD(ORD_CONTROL, 0));
	fd = subdir(devfd, "isdn");
	if (ret == 0 && fd >= 0)
		ret = add(ns, fd, "isdn/", "capi20", ORD(ORD_ISDN, 0));
	if (fd >= 0)
		close(fd);
	fd = subdir(devfd, "capi");
	if (ret == 0 && fd >= 0)
		ret = add_numbered(ns, fd, "capi/", "", ORD_TTY);
	else if (ret == 0)	/* a pre-fix control node, or nothing */
		ret = add(ns, devfd, "", "capi", ORD(ORD_PREFIX_CONTROL, 0));
	if (fd >= 0)
		close(fd);
	if (ret == 0)
		ret = add_numbered(ns, devfd, "", "capi20.", ORD_LINK);
	if (ret == 0)
		ret = add_numbered(ns, devfd, "", "capi", ORD_PREFIX_TTY);
	if (ret == 0 && ns->n)
		qsort(ns->v, ns->n, sizeof(*ns->v), by_order);
	return ret;
}

void names_free(struct names *ns)
{
	free(ns->v);
	ns->v = NULL;
	ns->n = 0;
}

/* The escaped target as one field: a blank becomes \x20. */
static void one_field(const char *s, char *out, size_t size)
{
	size_t k = 0;

	for (; *s && k + 5 < size; s++) {
		if (*s == ' ') {
			memcpy(out + k, "\\x20", 4);
			k += 4;
		} else {
			out[k++] = *s;
		}
	}
	out[k] = '\0';
}

static const char *const kinds[] = { "node", "link", "dir", "other" };

void names_print(const struct names *ns, const char *shown, FILE *out)
{
	for (size_t i = 0; i < ns->n; i++) {
		const struct name *nm = &ns->v[i];
		char what[80] = "-", grp[32] = "-", mode[8] = "-";
		struct group *gr;

		if (nm->kind == NAME_NODE)
			snprintf(what, sizeof(what), "%s:%u:%u",
				 nm->is_char ? "char" : "block", nm->major,
				 nm->minor);
		else if (nm->kind == NAME_LINK)
			one_field(nm->target, what, sizeof(what));
		if (nm->kind == NAME_NODE || nm->kind == NAME_DIR) {
			gr = getgrgid(nm->gid);
			snprintf(grp, sizeof(grp), "%s", gr ? gr->gr_name : "");
			if (!gr || strpbrk(grp, " \t\n\\") || !*grp)
				snprintf(grp, sizeof(grp), "%u",
					 (unsigned int)nm->gid);
			snprintf(mode, sizeof(mode), "%04o",
				 (unsigned int)nm->mode);
		}
		fprintf(out, "%s/%s %s %s %s %s\n", shown, nm->path,
			kinds[nm->kind], what, grp, mode);
	}
	if (ns->dropped)
		fprintf(out, "# %zu more names not listed\n", ns->dropped);
}
