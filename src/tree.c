// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tree.c - apply names to a directory tree.
 *
 * Paths from the policy have at most one directory level ("capi/7",
 * "isdn/capi20").  The directory is opened with O_NOFOLLOW, so a symlink
 * planted at "capi" or "isdn" cannot lead us out of the dev root.
 *
 * Symlinks are made under a temporary name and renamed into place, so a
 * reader sees the old link or the new one, never neither.
 *
 * Another writer may change the dev root while we work (see CONCURRENT
 * WRITERS in capi-devd(8)).  So we act on what we checked:
 *  - group and mode are set through an O_PATH|O_NOFOLLOW descriptor of
 *    the node that fstat() checked, never by name;
 *  - an entry is removed by renaming it to our temporary name first,
 *    checking what arrived there, and then unlinking it or putting it
 *    back;
 *  - a link replaces an old one by RENAME_EXCHANGE, and the old entry is
 *    checked after the exchange, and exchanged back if it is not ours.
 * Temporary names are ".#capi-devd.PID.RANDOM.NAME": per process and not
 * guessable; coldplug sweeps those of processes that are gone.
 * Where only root can write, none of this is needed: see "The direct
 * path" below.
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/fsuid.h>
#include <sys/xattr.h>
#include "log.h"
#include "devtmpfs.h"
#include "tree.h"

/* Our prefix and a name of the policy, or a stale temporary name. */
#define TMP_NAME_MAX 128
/* The permission bits of a mode, as --mode gives them. */
#define MODE_BITS 07777
/* The directories we make: capi/ and isdn/. */
#define DIR_MODE 0755
#define O_DIR_NOFOLLOW (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
/* POSIX ACLs, as the kernel keeps them: an entry's own, a directory's default. */
#define ACL_ACCESS "system.posix_acl_access"
#define ACL_DEFAULT "system.posix_acl_default"
/* The switch that makes every operation take the careful path. */
#define CAREFUL_ENV "CAPI_DEVD_TREE"

/* A change to the disk: counted, and 1 is what tree_apply() says of it. */
static int changed(struct tree *t)
{
	t->changes++;
	return 1;
}

/* Dry run: print what would be done instead; that, too, is a change. */
static int dry(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int dry(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	return 1;
}

/*
 * Split path into its directory part (at most one level; "" for a
 * top-level name) and its last component; NULL when dir cannot hold it.
 */
static const char *split_path(const char *path, char *dir, size_t dirsize)
{
	const char *slash = strchr(path, '/');

	if (!slash) {
		dir[0] = '\0';
		return path;
	}
	if ((size_t)(slash - path) >= dirsize) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	return slash + 1;
}

/*
 * The direct path.  The careful steps below (rename aside, O_PATH checks,
 * exchange and check) close the windows that another writer could use.
 * Where only root can make, rename or remove entries in a directory,
 * nobody but root writes there, and root is not raced against: there an
 * operation goes straight at its name (mknodat, symlinkat, unlinkat after
 * one check) and keeps the directory open between events.  Each
 * directory's owner, mode and default ACL are checked once, when its fd
 * is opened; a directory that anyone else can write, or with a default
 * ACL, takes the careful path, and so does everything under a dev root
 * that anyone else can write.  A kept directory is used only while it is
 * still the one at its name (still_there(), once an event); one that was
 * removed or moved away (by devtmpfs, by us, by root) is opened again by
 * name.  CAREFUL_ENV=careful takes the careful path everywhere, so that
 * the two can be compared (test/two-paths.sh).
 */
/*
 * A default ACL of a directory is inherited by every entry made in it: a
 * node made there would carry an ACL nobody asked for.
 */
static bool has_default_acl(int fd)
{
	return fgetxattr(fd, ACL_DEFAULT, NULL, 0) >= 0;
}

/*
 * May the direct path act in directory fd (*st: its stat)?  Only root can
 * write it (its group bits are an ACL's mask: no named entry writes
 * either), and it has no default ACL for a node made there to inherit.
 */
static bool direct_ok(int fd, struct stat *st)
{
	return fstat(fd, st) == 0 && S_ISDIR(st->st_mode) && st->st_uid == 0 &&
	       !(st->st_mode & (S_IWGRP | S_IWOTH)) && !has_default_acl(fd);
}

/*
 * Is a node made in the directory of stat *st born with our group: the
 * directory's own when it is set-group-ID, else our fsgid?  Then mknod
 * gives it owner root, our group and its mode at once, and there is no
 * moment when another group has it.  Else it is made with no access for
 * anyone, then given its group, then its mode.
 */
static bool born_ours(const struct tree *t, const struct stat *st)
{
	return ((st->st_mode & S_ISGID) ? st->st_gid : t->fsgid) == t->gid;
}

/*
 * The fsgid is our group, once, when we may set it (CAP_SETGID), so
 * that nodes are born with it (born_ours()).
 */
static void set_fsgid(struct tree *t)
{
	setfsgid(t->gid);
	t->fsgid = (gid_t)setfsgid((gid_t)-1);
}

/* Our directories are root's, as devtmpfs and udevd make theirs. */
static int make_dir(const struct tree *t, int dfd, const char *name)
{
	int ret, e;

	if (t->fsgid == getegid())
		return mkdirat(dfd, name, DIR_MODE);
	setfsgid(getegid());
	ret = mkdirat(dfd, name, DIR_MODE);
	e = errno;
	setfsgid(t->fsgid);
	errno = e;
	return ret;
}

/*
 * A directory we made carries no ACL inherited from its parent: neither
 * its own nor a default one that its nodes would inherit.
 */
static void drop_dir_acls(int fd)
{
	fremovexattr(fd, ACL_ACCESS);
	fremovexattr(fd, ACL_DEFAULT);
}

/*
 * Remove the access ACL of what proc (/proc/self/fd/N of an O_PATH fd,
 * never a symlink) is: that very inode.  Returns 0 (also when there was
 * none, or the file system has none), or -1 (errno).
 */
static int drop_acl(const char *proc)
{
	if (removexattr(proc, ACL_ACCESS) == 0 || errno == ENODATA ||
	    errno == EOPNOTSUPP)
		return 0;
	return -1;
}

/* The direct path makes nodes with their mode: only under umask 0. */
static bool umask_is_zero(void)
{
	mode_t m = umask(0);

	umask(m);
	return m == 0;
}

static void direct_open(struct tree *t)
{
	const char *how = getenv(CAREFUL_ENV);
	struct stat st;
	int i;

	t->fsgid = getegid();
	if (!t->dry_run)
		set_fsgid(t);
	if (how && !strcmp(how, "careful"))
		log_info(CAREFUL_ENV "=careful: every operation on %s takes "
			 "the careful path", t->shown);
	t->root_only = !(how && !strcmp(how, "careful")) && !t->dry_run &&
		       umask_is_zero() && direct_ok(t->devfd, &st);
	t->born_ours = t->root_only && born_ours(t, &st);
	t->nodes_there = false;
	for (i = 0; i < TREE_DIRS; i++)
		t->dirs[i].fd = -1;
}

/* Forget the kept fd of directory dir: it is gone or not what we expect. */
static void direct_drop(struct tree *t, const char *dir)
{
	int i;

	for (i = 0; i < TREE_DIRS; i++) {
		if (t->dirs[i].fd >= 0 && !strcmp(t->dirs[i].name, dir)) {
			close(t->dirs[i].fd);
			t->dirs[i].fd = -1;
		}
	}
}

static void direct_close(struct tree *t)
{
	int i;

	for (i = 0; i < TREE_DIRS; i++)
		if (t->dirs[i].fd >= 0)
			direct_drop(t, t->dirs[i].name);
}

/*
 * The dev root itself is opened without following a symlink: a dev
 * directory that is one (a chroot's /dev -> /elsewhere, or one planted by
 * the owner of --root) is refused, never followed (ELOOP).
 */
int tree_open(struct tree *t, const char *devdir)
{
	unsigned long long rnd;
	int fs;

	struct stat st;

	t->devfd = open(devdir, O_DIR_NOFOLLOW);
	if (t->devfd < 0)
		return -1;
	if (fstat(t->devfd, &st) < 0) {
		close(t->devfd);
		t->devfd = -1;
		return -1;
	}
	t->dev = st.st_dev;
	t->ino = st.st_ino;
	t->shown = devdir;
	fs = devtmpfs_is(t->devfd, "/proc/self/mountinfo", &t->fs_how);
	t->kernel_nodes = fs == 1;
	t->keep_nodes = fs < 0;
	t->changes = 0;
	t->refused = 0;
	t->failed = 0;
	t->our_dirs = 0;
	/* Without entropy yet (early boot), still different per start. */
	if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != sizeof(rnd)) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		rnd = ((unsigned long long)ts.tv_sec << 30) ^
		      (unsigned long long)ts.tv_nsec ^
		      (unsigned long long)(uintptr_t)&ts;
	}
	snprintf(t->tmp, sizeof(t->tmp), TREE_TMP_PREFIX "%ld.%016llx.",
		 (long)getpid(), rnd);
	direct_open(t);
	return 0;
}

bool tree_moved(const struct tree *t)
{
	struct stat st;

	return fstatat(AT_FDCWD, t->shown, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	       st.st_dev != t->dev || st.st_ino != t->ino;
}

void tree_close(struct tree *t)
{
	if (t->devfd >= 0)
		direct_close(t);
	if (t->devfd >= 0)
		close(t->devfd);
	t->devfd = -1;
}

/* The bit of our_dirs for directory dir; 0 for another. */
static unsigned int dir_bit(const char *dir)
{
	return !strcmp(dir, "capi") ? 1 : !strcmp(dir, "isdn") ? 2 : 0;
}

/*
 * Open the directory part of path (if any) and point *base at the last
 * component.  Returns the directory fd, t->devfd for a top-level name, or
 * -1.  With create, a missing directory is made (mode 0755); a dry run
 * prints that and fails with ENOENT.
 */
static int open_parent(struct tree *t, const char *path, bool create,
		       const char **base, char *dir, size_t dirsize)
{
	int fd;

	*base = split_path(path, dir, dirsize);
	if (!*base)
		return -1;
	if (!dir[0])
		return t->devfd;
	fd = openat(t->devfd, dir, O_DIR_NOFOLLOW);
	if (fd < 0 && errno == ENOENT && create) {
		if (t->dry_run) {
			dry("mkdir %s/%s\n", t->shown, dir);
			errno = ENOENT;
			return -1;
		}
		if (make_dir(t, t->devfd, dir) < 0) {
			if (errno != EEXIST)
				return -1;
			return openat(t->devfd, dir, O_DIR_NOFOLLOW);
		}
		t->our_dirs |= dir_bit(dir);
		changed(t);
		fd = openat(t->devfd, dir, O_DIR_NOFOLLOW);
		if (fd >= 0)
			drop_dir_acls(fd);
	}
	return fd;
}

static void close_parent(struct tree *t, int fd)
{
	if (fd >= 0 && fd != t->devfd)
		close(fd);
}

static const char *kind_of(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFREG: return "a regular file";
	case S_IFDIR: return "a directory";
	case S_IFLNK: return "a symlink";
	case S_IFCHR: return "a character device";
	case S_IFBLK: return "a block device";
	case S_IFIFO: return "a FIFO";
	case S_IFSOCK: return "a socket";
	}
	return "something";
}

static int refuse(struct tree *t, const char *path, const char *what)
{
	t->refused++;
	log_limited(LOG_WARNING, "%s/%s is %s, not ours: left alone",
		    t->shown, path, what);
	return -1;
}

static int failed(struct tree *t, const char *verb, const char *path)
{
	int e = errno;

	t->failed++;
	log_limited(LOG_ERR, "cannot %s %s/%s: %s", verb, t->shown, path,
		    strerror(e));
	return -1;
}

/* open_parent() failed: what stands at the directory's name is not one. */
static int parent_failed(struct tree *t, const char *dir, const char *path)
{
	if (errno == ENOTDIR || errno == ELOOP)
		return refuse(t, dir, "not a directory");
	return failed(t, "open the directory of", path);
}

ssize_t tree_readlink(int dfd, const char *name, char *buf, size_t size)
{
	ssize_t len = readlinkat(dfd, name, buf, size);

	if (len < 0)
		return -1;
	if ((size_t)len >= size) {
		buf[size - 1] = '\0';
		errno = ENAMETOOLONG;
		return -1;
	}
	buf[len] = '\0';
	return len;
}

static int refuse_link(struct tree *t, const char *path, const char *cur,
		       bool long_target)
{
	char what[TREE_LINK_MAX + 32];

	snprintf(what, sizeof(what), "a symlink to \"%s\"%s", cur,
		 long_target ? "..." : "");
	return refuse(t, path, what);
}

/* Our prefix, then base, cut to size (a name of the policy always fits). */
static void tmp_name(const struct tree *t, const char *base, char *buf,
		     size_t size)
{
	size_t p = strlen(t->tmp), b = strnlen(base, size - p - 1);

	memcpy(buf, t->tmp, p);
	memcpy(buf + p, base, b);
	buf[p + b] = '\0';
}

/* What an entry must be to be removed: a check on name in dfd. */
typedef bool ours_fn(const struct tree *t, int dfd, const char *name,
		     const struct name_op *op);

/*
 * op's char node, under one name only: a node hard-linked elsewhere
 * (st_nlink > 1) is someone else's too, and a chmod or a removal here
 * would reach, or leave, the other name.
 */
static bool is_our_node(const struct stat *st, const struct name_op *op)
{
	return S_ISCHR(st->st_mode) && st->st_nlink == 1 &&
	       major(st->st_rdev) == op->major &&
	       minor(st->st_rdev) == op->minor;
}

/* A symlink to exactly op->target. */
static bool is_link_to(const struct tree *t, int dfd, const char *name,
		       const struct name_op *op)
{
	char cur[TREE_LINK_MAX];
	(void)t;

	return tree_readlink(dfd, name, cur, sizeof(cur)) >= 0 &&
	       !strcmp(cur, op->target);
}

/* A symlink of op's shape, or of any of our shapes without op. */
static bool is_our_link(const struct tree *t, int dfd, const char *name,
			const struct name_op *op)
{
	char cur[TREE_LINK_MAX];
	(void)t;

	if (tree_readlink(dfd, name, cur, sizeof(cur)) < 0)
		return false;
	if (op)
		return policy_link_is_ours(op->shape, cur);
	return policy_link_is_ours(SHAPE_LEGACY, cur) ||
	       policy_link_is_ours(SHAPE_ISDN, cur) ||
	       policy_link_is_ours(SHAPE_PREFIX_TTY, cur);
}

/* The char node of op's device number. */
static bool is_node_of(const struct tree *t, int dfd, const char *name,
		       const struct name_op *op)
{
	struct stat st;
	(void)t;

	return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       is_our_node(&st, op);
}

/* A char node of another device than op's. */
static bool other_device(const struct stat *st, const struct name_op *op)
{
	return S_ISCHR(st->st_mode) && (major(st->st_rdev) != op->major ||
					minor(st->st_rdev) != op->minor);
}

/*
 * Our own node of op's unit left at another major: the CAPI tty driver
 * came back at another major while we were not running, and the old one
 * may be another driver's now.  Char, one name, owner root, our group
 * and mode, the unit's minor: we made it, it goes, and the unit's node
 * is made.  Not where nodes are the kernel's, or may be (devtmpfs, or
 * nobody can tell), not where the group and mode are not ours to give,
 * and never the control device, which has one number.
 */
static bool our_old_node(const struct tree *t, const struct stat *st,
			 const struct name_op *op)
{
	return !t->kernel_nodes && !t->keep_nodes && op->perms &&
	       op->major != CAPI_CONTROL_MAJOR && S_ISCHR(st->st_mode) &&
	       st->st_nlink == 1 && st->st_uid == 0 && st->st_gid == t->gid &&
	       (st->st_mode & MODE_BITS) == t->mode &&
	       minor(st->st_rdev) == op->minor &&
	       major(st->st_rdev) != op->major;
}

static bool is_our_old_node(const struct tree *t, int dfd, const char *name,
			    const struct name_op *op)
{
	struct stat st;

	return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       our_old_node(t, &st, op);
}

/*
 * Remove base in dfd (path is how to name it) if ours() says so.  There
 * is no "unlink if it is still what I checked" in Linux, so the entry is
 * first renamed to our temporary name, where nobody else puts anything,
 * checked there, and then unlinked, or put back when it is not ours (it
 * was swapped in since the caller's check).  Dry run prints instead.
 * Returns 1 removed, 0 nothing there, -1 refused or failed.
 */
static int remove_checked(struct tree *t, int dfd, const char *base,
			  const char *path, ours_fn *ours,
			  const struct name_op *op)
{
	char tmp[TMP_NAME_MAX];

	if (t->dry_run)
		return ours(t, dfd, base, op) ? dry("rm %s/%s\n", t->shown, path) : 0;
	tmp_name(t, base, tmp, sizeof(tmp));
	if (renameat2(dfd, base, dfd, tmp, RENAME_NOREPLACE) < 0)
		return errno == ENOENT ? 0 : failed(t, "remove", path);
	if (ours(t, dfd, tmp, op)) {
		if (unlinkat(dfd, tmp, 0) < 0)
			return failed(t, "remove", path);
		return changed(t);
	}
	/*
	 * Put it back.  If the name was taken meanwhile, exchange: when what
	 * took it is ours to remove, we are done; otherwise it is left at
	 * our temporary name, with a warning.  When someone else removed it
	 * from our temporary name, nothing is left anywhere.
	 */
	if (renameat2(dfd, tmp, dfd, base, RENAME_NOREPLACE) == 0)
		return refuse(t, path, "something swapped in meanwhile");
	if (errno == ENOENT) {
		log_limited(LOG_WARNING, "%s/%s vanished while being removed: "
			    "someone else removed it", t->shown, path);
		return 0;
	}
	if (errno != EEXIST ||
	    renameat2(dfd, tmp, dfd, base, RENAME_EXCHANGE) < 0 ||
	    !ours(t, dfd, tmp, op) || unlinkat(dfd, tmp, 0) < 0) {
		t->refused++;
		log_limited(LOG_WARNING, "%s/%s changed while being removed: "
			    "an entry that is not ours is left at %s/%.*s%s",
			    t->shown, path, t->shown,
			    (int)(strlen(path) - strlen(base)), path, tmp);
		return -1;
	}
	return refuse(t, path, "something swapped in meanwhile");
}

/*
 * Set group and mode of the node that fd (O_PATH, never a symlink) was
 * opened on and st describes.  There is no fchmod() for O_PATH: the mode
 * goes through /proc/self/fd, which reaches exactly that inode.  Without
 * /proc we refuse rather than chmod by name.
 */
static int set_group(struct tree *t, int fd, const char *path,
		     struct stat *st)
{
	if (st->st_gid == t->gid && st->st_uid == 0)
		return 0;
	if (t->dry_run && st->st_uid == 0)
		return dry("chgrp %u %s/%s\n", (unsigned int)t->gid, t->shown,
			   path);
	if (t->dry_run)
		return dry("chown 0:%u %s/%s\n", (unsigned int)t->gid,
			   t->shown, path);
	/* No rule asks for another owner: a node of ours is root's. */
	if (fchownat(fd, "", 0, t->gid, AT_EMPTY_PATH) < 0 ||
	    fstat(fd, st) < 0)
		return failed(t, "chown", path);
	return changed(t);
}

static int set_mode(struct tree *t, int fd, const char *path,
		    const struct stat *st, bool made)
{
	char proc[32];

	if ((st->st_mode & MODE_BITS) == t->mode && !made)
		return 0;
	if (t->dry_run)
		return dry("chmod %04o %s/%s\n", (unsigned int)t->mode,
			   t->shown, path);
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (drop_acl(proc) == 0 &&
	    ((st->st_mode & MODE_BITS) == t->mode || chmod(proc, t->mode) == 0))
		return changed(t);
	if (errno == ENOENT && access("/proc/self/fd", F_OK) < 0) {
		t->failed++;
		log_limited(LOG_ERR, "cannot chmod %s/%s: /proc is not "
			    "mounted, and without it no mode is set safely",
			    t->shown, path);
		return -1;
	}
	return failed(t, "chmod", path);
}

/*
 * Returns 1 changed, 0 already right, -1 failed.  A node we made, or
 * whose mode we set, loses an access ACL first (one inherited from a
 * default ACL of its directory): the mode's group bits would otherwise
 * become the ACL's mask and open it to every user the ACL names.
 */
static int set_perms(struct tree *t, int fd, const char *path,
		     struct stat *st, bool made)
{
	unsigned long changes = t->changes;
	int g, m;

	g = set_group(t, fd, path, st);
	if (g < 0)
		return -1;
	/* After the chgrp, which may drop a setgid bit. */
	m = set_mode(t, fd, path, st, made);
	/*
	 * One change, as on the direct path: a node's group and mode set,
	 * or none more for a node made (its mknod was counted).
	 */
	if (!t->dry_run)
		t->changes = changes + (!made && (g | m) > 0);
	return m < 0 ? -1 : (g | m);
}

/* Open base in dfd as O_PATH, not following a symlink, and fstat it. */
static int open_entry(int dfd, const char *base, struct stat *st)
{
	int fd = openat(dfd, base, O_PATH | O_NOFOLLOW | O_CLOEXEC);

	if (fd >= 0 && fstat(fd, st) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Is the directory part of path (if any) a directory, not a symlink? */
static bool dir_is_real(const struct tree *t, const char *path)
{
	char dir[POLICY_PATH_MAX];
	struct stat st;

	if (!split_path(path, dir, sizeof(dir)))
		return false;
	return !dir[0] ||
	       (fstatat(t->devfd, dir, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		S_ISDIR(st.st_mode));
}

/* Owner root (as udevd's static_node gives it), our group and mode. */
static bool perms_right(const struct tree *t, const struct stat *st)
{
	return (st->st_mode & MODE_BITS) == t->mode && st->st_gid == t->gid &&
	       st->st_uid == 0;
}

/*
 * Check what is there: the fast path, the common case under devtmpfs,
 * is a node that is right, in a real directory (not through a symlink).
 */
static bool node_is_right(const struct tree *t, const struct name_op *op)
{
	struct stat st;

	return dir_is_real(t, op->path) &&
	       fstatat(t->devfd, op->path, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       is_our_node(&st, op) && (!op->perms || perms_right(t, &st));
}

/*
 * Make it: mknod base in dfd when nothing is there (no devtmpfs made it:
 * static /dev, replay, collision).  Then *fd is an O_PATH descriptor of
 * what is at base now, ours or not, and *st its stat.  Returns 1 made
 * (or would be, in a dry run, with *fd -1), 0 something was there, -1.
 */
static int make_node(struct tree *t, int dfd, const char *base,
		     const struct name_op *op, int *fd, struct stat *st)
{
	int made = 0;

	*fd = open_entry(dfd, base, st);
	if (*fd >= 0 || errno != ENOENT)
		goto opened;
	if (t->kernel_nodes) {
		/* devtmpfs makes a node before the add: the device is gone. */
		log_debug("%s/%s: no node, the device is gone again",
			  t->shown, op->path);
		return -1;
	}
	if (t->dry_run)
		return dry("mknod %s/%s c %u %u\n", t->shown, op->path,
			   op->major, op->minor);
	/* No access for anyone until group and mode are set (set_perms()). */
	if (mknodat(dfd, base, S_IFCHR, makedev(op->major, op->minor)) == 0)
		made = changed(t);
	else if (errno != EEXIST)
		return failed(t, "mknod", op->path);
	*fd = open_entry(dfd, base, st);
opened:
	return *fd < 0 ? failed(t, "open", op->path) : made;
}

/* A node at op's name that is not op's device. */
static int refuse_node(struct tree *t, const struct name_op *op,
		       const struct stat *st)
{
	char what[64];

	if (S_ISCHR(st->st_mode) && st->st_nlink > 1)
		snprintf(what, sizeof(what), "char %u:%u with %lu hard links",
			 major(st->st_rdev), minor(st->st_rdev),
			 (unsigned long)st->st_nlink);
	else if (S_ISCHR(st->st_mode))
		snprintf(what, sizeof(what), "char %u:%u, not %u:%u",
			 major(st->st_rdev), minor(st->st_rdev), op->major,
			 op->minor);
	else
		snprintf(what, sizeof(what), "%s", kind_of(st->st_mode));
	return refuse(t, op->path, what);
}

/* A direct path's answer when it cannot tell: take the careful path. */
#define CAREFUL (-2)

/*
 * Is the kept directory still the one at its name in the dev root?  One
 * renamed out of it (by root: only root writes here) must not get our
 * next node, nor lose one of its own, nor answer for its name: before a
 * change in it, and before a lookup that found nothing there is
 * believed, its name is looked at again, never through a symlink.  A
 * lookup that found the node right changes nothing and needs no look.
 */
static bool still_there(const struct tree *t, const struct tree_dir *d)
{
	struct stat st;

	return fstatat(t->devfd, d->name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       st.st_dev == d->dev && st.st_ino == d->ino;
}

/*
 * The kept fd of directory dir ("" for the dev root), when only root can
 * write it: DIR_KEPT only one kept open already, DIR_OPEN also one that
 * is opened and checked now, DIR_MAKE also one made now.  -1: take the
 * careful path.
 */
enum dir_how { DIR_KEPT, DIR_OPEN, DIR_MAKE };

static int direct_dir(struct tree *t, const char *dir, enum dir_how how)
{
	struct tree_dir *slot = NULL;
	struct stat st;
	int i, fd;

	if (!t->root_only || t->dry_run)
		return -1;
	if (!dir[0])
		return t->devfd;
	for (i = 0; i < TREE_DIRS; i++) {
		if (t->dirs[i].fd >= 0 && !strcmp(t->dirs[i].name, dir))
			return t->dirs[i].fd;
		if (t->dirs[i].fd < 0 && !slot)
			slot = &t->dirs[i];
	}
	if (how == DIR_KEPT || !slot || strlen(dir) >= sizeof(slot->name))
		return -1;
	fd = openat(t->devfd, dir, O_DIR_NOFOLLOW);
	/* Made here too: in a dev root that only root writes, nobody races. */
	if (fd < 0 && errno == ENOENT && how == DIR_MAKE &&
	    make_dir(t, t->devfd, dir) == 0) {
		t->our_dirs |= dir_bit(dir);
		changed(t);
		fd = openat(t->devfd, dir, O_DIR_NOFOLLOW);
	}
	if (fd < 0)
		return -1;
	if (!direct_ok(fd, &st)) {
		close(fd);
		return -1;
	}
	strcpy(slot->name, dir);
	slot->fd = fd;
	slot->dev = st.st_dev;
	slot->ino = st.st_ino;
	slot->emptied = false;
	slot->born_ours = born_ours(t, &st);
	slot->checked = false;
	return fd;
}

/*
 * May we act in dfd, the kept fd of directory dir (see still_there())?
 * When not, it is dropped and the careful path goes by name.
 */
static bool direct_here(struct tree *t, int dfd, const char *dir)
{
	int i;

	if (dfd == t->devfd)
		return true;
	for (i = 0; i < TREE_DIRS; i++) {
		if (t->dirs[i].fd != dfd)
			continue;
		/* Once an event: root, who alone writes here, is not raced. */
		if (t->dirs[i].checked || still_there(t, &t->dirs[i])) {
			t->dirs[i].checked = true;
			return true;
		}
	}
	direct_drop(t, dir);
	return false;
}

/* A new event: its first change in a kept directory looks at its name. */
static void direct_event(struct tree *t)
{
	int i;

	for (i = 0; i < TREE_DIRS; i++)
		t->dirs[i].checked = false;
	t->seen.valid = false;
}

/* Is a node made in dfd (direct_dir()) born with our group? */
static bool direct_born_ours(const struct tree *t, int dfd)
{
	int i;

	if (dfd == t->devfd)
		return t->born_ours;
	for (i = 0; i < TREE_DIRS; i++)
		if (t->dirs[i].fd == dfd)
			return t->dirs[i].born_ours;
	return false;
}

/*
 * Make the node where only root writes: born with our group, or with no
 * access for anyone, then given owner and group, then its mode.  Returns
 * 1 made, -1 made but its group or mode failed (logged), 0 not made
 * (errno; EEXIST: something is at its name).
 */
static int direct_mknod(struct tree *t, int dfd, const char *base,
			const struct name_op *op)
{
	dev_t dev = makedev(op->major, op->minor);

	if (direct_born_ours(t, dfd))
		return mknodat(dfd, base, S_IFCHR | t->mode, dev) == 0 ?
		       changed(t) : 0;
	if (mknodat(dfd, base, S_IFCHR, dev) < 0)
		return 0;
	changed(t);
	if (fchownat(dfd, base, 0, t->gid, AT_SYMLINK_NOFOLLOW) < 0)
		return failed(t, "chgrp", op->path);
	if (fchmodat(dfd, base, t->mode, 0) < 0)
		return failed(t, "chmod", op->path);
	return 1;
}

/* Mark kept directory dir: a node in it went, it may be empty now. */
static void direct_emptied(struct tree *t, const char *dir)
{
	int i;

	for (i = 0; i < TREE_DIRS; i++)
		if (t->dirs[i].fd >= 0 && !strcmp(t->dirs[i].name, dir))
			t->dirs[i].emptied = true;
}

/*
 * As devtmpfs does, an emptied directory goes too: on the direct path
 * once per batch of events (tree.h), not once per node removed.
 */
void tree_tidy(struct tree *t)
{
	int i;

	for (i = 0; i < TREE_DIRS; i++) {
		if (t->dirs[i].fd < 0 || !t->dirs[i].emptied)
			continue;
		t->dirs[i].emptied = false;
		if (still_there(t, &t->dirs[i]) &&
		    unlinkat(t->devfd, t->dirs[i].name, AT_REMOVEDIR) == 0) {
			direct_drop(t, t->dirs[i].name);
			changed(t);
		}
	}
}

/*
 * Does the link that op removes lead to another device than the removed
 * one?  A removal takes a link only when it points at the removed device
 * (or at nothing): its target is looked at in the dev root, never through
 * a symlink but our own capi/N -> ../capiM.  A sweep's op names no
 * device (major 0): its unit is gone, and so is any such question.
 * Where only root writes, what capi/N is stays in t->seen for the
 * removal of that node, the next op (node_gone_direct()).
 */
static bool leads_elsewhere(struct tree *t, const struct name_op *op)
{
	char cur[TREE_LINK_MAX];
	const char *name = op->target + strlen("../");	/* ../capiM */
	struct stat st;
	int dfd = t->devfd, fd = -1;
	bool found;

	if (!op->major || (op->shape != SHAPE_LEGACY &&
			   op->shape != SHAPE_PREFIX_TTY))
		return false;
	if (op->shape == SHAPE_LEGACY) {			/* capi/N */
		name = op->target + strlen("capi/");
		dfd = direct_dir(t, "capi", DIR_OPEN);
		if (dfd < 0 || !direct_here(t, dfd, "capi"))
			dfd = fd = openat(t->devfd, "capi", O_DIR_NOFOLLOW);
		if (dfd < 0)
			return false;
	}
	found = fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
	if (fd < 0 && dfd != t->devfd &&
	    strlen(name) < sizeof(t->seen.name)) {
		t->seen.valid = true;
		t->seen.found = found;
		t->seen.dfd = dfd;
		strcpy(t->seen.name, name);
		t->seen.st = st;
	}
	if (found && S_ISLNK(st.st_mode) &&
	    tree_readlink(dfd, name, cur, sizeof(cur)) >= 0 &&
	    policy_link_is_ours(SHAPE_PREFIX_TTY, cur))
		found = fstatat(t->devfd, cur + strlen("../"), &st,
				AT_SYMLINK_NOFOLLOW) == 0;
	if (fd >= 0)
		close(fd);
	return found && other_device(&st, op);
}

/*
 * Group and mode of the node at base in dfd where only root writes, so
 * by name: 0 right, 1 set, -1 failed; CAREFUL when it is not op's node
 * (errno ENOENT when nothing is there).  A chgrp drops the special bits,
 * which the mode of the direct path never has.  Before a chmod, an access
 * ACL goes (set_perms()), by name too: the path the dev root was opened
 * by, which only root can change.
 */
static int node_check(struct tree *t, int dfd, const char *dir,
		      const char *base, const struct name_op *op)
{
	struct stat st;

	if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return CAREFUL;
	if (!is_our_node(&st, op)) {
		errno = EEXIST;
		return CAREFUL;
	}
	if (!op->perms || perms_right(t, &st))
		return 0;
	if (!direct_here(t, dfd, dir))
		return CAREFUL;
	if ((st.st_uid != 0 || st.st_gid != t->gid) &&
	    fchownat(dfd, base, 0, t->gid, AT_SYMLINK_NOFOLLOW) < 0)
		return failed(t, "set owner and group of", op->path);
	if ((st.st_mode & MODE_BITS) != t->mode) {
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "%s/%s", t->shown, op->path);
		if (lremovexattr(path, ACL_ACCESS) < 0 && errno != ENODATA &&
		    errno != EOPNOTSUPP)
			return failed(t, "remove the ACL of", op->path);
		if (fchmodat(dfd, base, t->mode, 0) < 0)
			return failed(t, "set the mode of", op->path);
	}
	return changed(t);
}

/*
 * do_node() where only root writes.  Where someone else makes the nodes
 * (devtmpfs, or the last node we looked for was there) look first; else
 * make the node first (umask is 0: it gets its mode) and look only when
 * its name is taken.  Returns as do_node(), or CAREFUL.
 */
static int node_direct(struct tree *t, const struct name_op *op)
{
	char dir[POLICY_PATH_MAX];
	const char *base = split_path(op->path, dir, sizeof(dir));
	int dfd, ret;

	if (!base || (t->mode & ~(mode_t)0777) ||
	    (dfd = direct_dir(t, dir, DIR_MAKE)) < 0)
		return CAREFUL;
	if (!t->kernel_nodes && !t->nodes_there) {
		if (!direct_here(t, dfd, dir))
			return CAREFUL;
		ret = direct_mknod(t, dfd, base, op);
		if (ret)
			return ret;
		if (errno != EEXIST) {
			direct_drop(t, dir);
			return CAREFUL;
		}
	}
	ret = node_check(t, dfd, dir, base, op);
	t->nodes_there = ret != CAREFUL || errno != ENOENT;
	return ret;
}

/* do_node_gone() where only root writes, devtmpfs aside. */
static int node_gone_direct(struct tree *t, const struct name_op *op)
{
	char dir[POLICY_PATH_MAX];
	const char *base = split_path(op->path, dir, sizeof(dir));
	struct stat st;
	bool found;
	int dfd;

	if (!base || (dfd = direct_dir(t, dir, DIR_KEPT)) < 0)
		return CAREFUL;
	if (t->seen.valid && t->seen.dfd == dfd &&
	    !strcmp(t->seen.name, base)) {
		found = t->seen.found;
		st = t->seen.st;
	} else {
		found = fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0;
	}
	t->seen.valid = false;

	if (found && !is_our_node(&st, op))
		return 0;
	/* Nothing there, or something to remove: in the right directory? */
	if (!direct_here(t, dfd, dir))
		return CAREFUL;
	if (!found)
		return 0;
	if (unlinkat(dfd, base, 0) < 0)
		return errno == ENOENT ? 0 : failed(t, "remove", op->path);
	changed(t);
	if (dfd != t->devfd)
		direct_emptied(t, dir);
	return 1;
}

/* do_link() where only root writes: the link made, or already there. */
static int link_direct(struct tree *t, const struct name_op *op)
{
	char dir[POLICY_PATH_MAX];
	const char *base = split_path(op->path, dir, sizeof(dir));
	int dfd;

	if (!base || (dfd = direct_dir(t, dir, DIR_MAKE)) < 0 ||
	    !direct_here(t, dfd, dir))
		return CAREFUL;
	if (symlinkat(op->target, dfd, base) == 0)
		return changed(t);
	if (errno == EEXIST && is_link_to(t, dfd, base, op))
		return 0;
	if (errno == ENOENT)
		direct_drop(t, dir);
	return CAREFUL;
}

/* do_unlink() where only root writes: only the link this device had. */
static int unlink_direct(struct tree *t, const struct name_op *op)
{
	char dir[POLICY_PATH_MAX], cur[TREE_LINK_MAX];
	const char *base = split_path(op->path, dir, sizeof(dir));
	bool found;
	int dfd;

	if (!base || (dfd = direct_dir(t, dir, DIR_KEPT)) < 0)
		return CAREFUL;
	found = tree_readlink(dfd, base, cur, sizeof(cur)) >= 0;

	if (found && strcmp(cur, op->target))
		return 0;
	/* Nothing there, or the link to remove: in the right directory? */
	if (!direct_here(t, dfd, dir))
		return CAREFUL;
	if (!found || leads_elsewhere(t, op))
		return 0;
	if (unlinkat(dfd, base, 0) < 0)
		return errno == ENOENT ? 0 : failed(t, "remove", op->path);
	return changed(t);
}

static int do_node(struct tree *t, const struct name_op *op)
{
	char dir[POLICY_PATH_MAX];
	const char *base;
	struct stat st;
	int dfd, fd, ret, p;

	ret = node_direct(t, op);
	if (ret != CAREFUL)
		return ret;
	if (node_is_right(t, op))
		return 0;
	dfd = open_parent(t, op->path, true, &base, dir, sizeof(dir));
	if (dfd < 0)
		return t->dry_run && errno == ENOENT ? 1 :
		       parent_failed(t, dir, op->path);
	ret = make_node(t, dfd, base, op, &fd, &st);
	if (fd >= 0 && our_old_node(t, &st, op)) {
		close(fd);
		fd = -1;
		ret = remove_checked(t, dfd, base, op->path, is_our_old_node,
				     op);
		if (ret == 1) {
			log_info("removed %s/%s (char %u:%u): ours, from before "
				 "the CAPI tty driver came back at major %u",
				 t->shown, op->path, major(st.st_rdev),
				 minor(st.st_rdev), op->major);
			ret = make_node(t, dfd, base, op, &fd, &st);
		} else {
			ret = -1;
		}
	}
	if (fd >= 0) {
		if (!is_our_node(&st, op)) {
			ret = refuse_node(t, op, &st);
		} else if (op->perms || ret == 1) {
			p = set_perms(t, fd, op->path, &st, ret == 1);
			ret = p < 0 ? -1 : (ret | p);
		}
		close(fd);
	}
	close_parent(t, dfd);
	return ret;
}

static int do_node_gone(struct tree *t, const struct name_op *op)
{
	char dir[POLICY_PATH_MAX];
	const char *base;
	struct stat st;
	int dfd, ret = 0;

	/*
	 * devtmpfs removes its own node before the event.  A node there now
	 * is the kernel's too: the unit was made again, with the same
	 * device number, after the event we are reading.  When nobody can
	 * tell whether this is devtmpfs, no node is removed either.
	 */
	if (t->kernel_nodes || t->keep_nodes)
		return 0;
	ret = node_gone_direct(t, op);
	if (ret != CAREFUL)
		return ret;
	ret = 0;
	if (fstatat(t->devfd, op->path, &st, AT_SYMLINK_NOFOLLOW) < 0 &&
	    errno == ENOENT)
		return 0;
	dfd = open_parent(t, op->path, false, &base, dir, sizeof(dir));
	if (dfd < 0)
		return 0;	/* no directory, no node */
	if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    is_our_node(&st, op)) {
		ret = remove_checked(t, dfd, base, op->path, is_node_of, op);
		/* As devtmpfs does: an emptied directory goes too. */
		if (dfd != t->devfd && !t->dry_run && ret >= 0 &&
		    unlinkat(t->devfd, dir, AT_REMOVEDIR) == 0)
			ret = changed(t);
	}
	close_parent(t, dfd);
	return ret;
}

/* Unlink our temporary name tmp if it (still) is our link to op->target. */
static void drop_tmp(struct tree *t, int dfd, const char *tmp,
		     const struct name_op *op)
{
	struct stat st;

	if (is_link_to(t, dfd, tmp, op)) {
		unlinkat(dfd, tmp, 0);
		return;
	}
	if (fstatat(dfd, tmp, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		t->refused++;
		log_limited(LOG_WARNING, "%s/%s: %s is at our temporary name "
			    "%s, not ours: left alone", t->shown, op->path,
			    kind_of(st.st_mode), tmp);
	}
}

/* What is at a link's name: check it before making the link. */
enum { LINK_NONE, LINK_OURS, LINK_RIGHT };

/* Returns LINK_*, or -1 when what is there is refused or unreadable. */
static int link_state(struct tree *t, int dfd, const char *base,
		      const struct name_op *op)
{
	char cur[TREE_LINK_MAX];
	struct stat st;

	if (tree_readlink(dfd, base, cur, sizeof(cur)) >= 0) {
		if (!strcmp(cur, op->target))
			return LINK_RIGHT;
		if (!policy_link_is_ours(op->shape, cur))
			return refuse_link(t, op->path, cur, false);
		return LINK_OURS;
	}
	switch (errno) {
	case ENOENT:
		return LINK_NONE;
	case ENAMETOOLONG:
		/* Longer than any of ours: not ours, whatever it starts with. */
		return refuse_link(t, op->path, cur, true);
	case EINVAL:
		/* Something other than a symlink, or one swapped in since. */
		if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0)
			break;
		if (S_ISLNK(st.st_mode) &&
		    tree_readlink(dfd, base, cur, sizeof(cur)) >= 0)
			return refuse_link(t, op->path, cur, false);
		return refuse(t, op->path, kind_of(st.st_mode));
	}
	return failed(t, "read the symlink", op->path);
}

/*
 * Make the link under our temporary name and rename it into place.  An
 * old link of ours is replaced by swapping the new one in and checking
 * the old entry after the swap, where it is out of anyone else's reach:
 * what we delete is then what we checked.  What was swapped in meanwhile
 * goes back.
 */
static int place_link(struct tree *t, int dfd, const char *base,
		      const struct name_op *op, bool exists)
{
	char tmp[TMP_NAME_MAX];

	tmp_name(t, base, tmp, sizeof(tmp));
	/* Never removed when taken: nobody but us has a reason to use it. */
	if (symlinkat(op->target, dfd, tmp) < 0)
		return failed(t, "make the symlink", op->path);
	if (!exists) {
		if (renameat2(dfd, tmp, dfd, base, RENAME_NOREPLACE) == 0)
			return changed(t);
		if (errno != EEXIST)
			goto fail;
	}
	if (renameat2(dfd, tmp, dfd, base, RENAME_EXCHANGE) < 0)
		goto fail;
	if (!is_our_link(t, dfd, tmp, op)) {
		if (renameat2(dfd, tmp, dfd, base, RENAME_EXCHANGE) < 0 &&
		    errno == ENOENT)
			renameat2(dfd, tmp, dfd, base, RENAME_NOREPLACE);
		drop_tmp(t, dfd, tmp, op);
		return refuse(t, op->path, "something swapped in meanwhile");
	}
	changed(t);
	if (unlinkat(dfd, tmp, 0) < 0)
		return failed(t, "remove the old link", op->path);
	return 1;
fail:
	failed(t, "rename into place", op->path);
	drop_tmp(t, dfd, tmp, op);
	return -1;
}

static int do_link(struct tree *t, const struct name_op *op)
{
	char dir[POLICY_PATH_MAX];
	const char *base;
	int dfd, state;

	state = link_direct(t, op);
	if (state != CAREFUL)
		return state;
	dfd = open_parent(t, op->path, true, &base, dir, sizeof(dir));
	if (dfd < 0) {
		if (t->dry_run && errno == ENOENT)
			return dry("ln -s %s %s/%s\n", op->target, t->shown,
				   op->path);
		return parent_failed(t, dir, op->path);
	}
	/*
	 * Nothing there, the common case: make the link in place.  That
	 * replaces nothing, so it needs no check; EEXIST means something
	 * is there, which the full path below checks.
	 */
	if (!t->dry_run && symlinkat(op->target, dfd, base) == 0) {
		close_parent(t, dfd);
		return changed(t);
	}
	if (!t->dry_run && errno != EEXIST) {
		state = failed(t, "make the symlink", op->path);
		close_parent(t, dfd);
		return state;
	}
	state = link_state(t, dfd, base, op);
	if (state == LINK_RIGHT)
		state = 0;
	else if (state >= 0 && t->dry_run)
		state = dry("ln -sf %s %s/%s\n", op->target, t->shown,
			    op->path);
	else if (state >= 0)
		state = place_link(t, dfd, base, op, state == LINK_OURS);
	close_parent(t, dfd);
	return state;
}

static int do_unlink(struct tree *t, const struct name_op *op)
{
	char dir[POLICY_PATH_MAX];
	const char *base;
	int dfd, ret;

	ret = unlink_direct(t, op);
	if (ret != CAREFUL)
		return ret;
	ret = 0;
	dfd = open_parent(t, op->path, false, &base, dir, sizeof(dir));
	if (dfd < 0)
		return 0;
	/*
	 * Only the link this device had; another is someone else's, and so
	 * is one that leads to another device of the same name.
	 */
	if (is_link_to(t, dfd, base, op) && !leads_elsewhere(t, op))
		ret = remove_checked(t, dfd, base, op->path, is_link_to, op);
	close_parent(t, dfd);
	return ret;
}

static int do_dir(struct tree *t, const struct name_op *op)
{
	struct stat st;
	int fd;

	if (fstatat(t->devfd, op->path, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISDIR(st.st_mode))
			return 0;
		return refuse(t, op->path, kind_of(st.st_mode));
	}
	if (errno != ENOENT)
		return failed(t, "stat", op->path);
	if (t->dry_run)
		return dry("mkdir %s/%s\n", t->shown, op->path);
	if (make_dir(t, t->devfd, op->path) < 0)
		return errno == EEXIST ? 0 : failed(t, "make the directory",
						     op->path);
	t->our_dirs |= dir_bit(op->path);
	fd = openat(t->devfd, op->path, O_DIR_NOFOLLOW);
	if (fd >= 0) {
		drop_dir_acls(fd);
		close(fd);
	}
	return changed(t);
}

/*
 * Only a directory we made, or emptied of our own names: an empty one
 * that someone else made, and we never used, stays.
 */
static int do_rmdir(struct tree *t, const struct name_op *op)
{
	if (!(t->our_dirs & dir_bit(op->path)))
		return 0;
	if (t->dry_run)
		return dry("rmdir --ignore-fail-on-non-empty %s/%s\n",
			   t->shown, op->path);
	/* Fails harmlessly when missing, not empty, or not a directory. */
	if (unlinkat(t->devfd, op->path, AT_REMOVEDIR) < 0)
		return 0;
	t->our_dirs &= ~dir_bit(op->path);
	return changed(t);
}

/*
 * Pre-fix kernels: devtmpfs made the control device as "capi", where
 * applications need a directory.  Move that node to "capi20", after
 * checking that it really is char 68:0.  The move goes through our
 * temporary name, where what arrived is checked to be the very inode we
 * checked before it goes on to "capi20"; anything else is put back.
 */
static const struct name_op control_node = {
	.major = CAPI_CONTROL_MAJOR, .minor = CAPI_CONTROL_MINOR,
};

/*
 * Move op->path, whose stat was *st, to "capi20" through our temporary
 * name: it goes on only when what arrived there is that very inode.
 */
static int move_checked(struct tree *t, const struct name_op *op,
			const struct stat *st)
{
	char tmp[TMP_NAME_MAX];
	struct stat st2;

	tmp_name(t, op->path, tmp, sizeof(tmp));
	if (renameat2(t->devfd, op->path, t->devfd, tmp,
		      RENAME_NOREPLACE) < 0)
		return errno == ENOENT ? 0 : failed(t, "move", op->path);
	if (fstatat(t->devfd, tmp, &st2, AT_SYMLINK_NOFOLLOW) == 0 &&
	    st2.st_dev == st->st_dev && st2.st_ino == st->st_ino) {
		if (renameat2(t->devfd, tmp, t->devfd, "capi20",
			      RENAME_NOREPLACE) == 0) {
			log_info("moved the pre-fix control node %s/%s to "
				 "%s/capi20", t->shown, op->path, t->shown);
			return changed(t);
		}
		failed(t, "move", op->path);
	}
	if (renameat2(t->devfd, tmp, t->devfd, op->path,
		      RENAME_NOREPLACE) < 0) {
		t->refused++;
		log_limited(LOG_WARNING, "%s/%s changed while being moved: "
			    "what came is left at %s/%s", t->shown, op->path,
			    t->shown, tmp);
		return -1;
	}
	return refuse(t, op->path, "something swapped in meanwhile");
}

/*
 * Pre-fix kernels: devtmpfs made the control device as "capi", where
 * applications need a directory.  Move that node to "capi20", after
 * checking that it really is char 68:0; anything else is left alone.
 */
static int do_move_control(struct tree *t, const struct name_op *op)
{
	struct stat st, st2;

	if (fstatat(t->devfd, op->path, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : failed(t, "stat", op->path);
	if (S_ISDIR(st.st_mode))
		return 0;	/* already resolved */
	if (!is_our_node(&st, &control_node))
		return refuse(t, op->path, S_ISCHR(st.st_mode) ?
			      "a character device other than 68:0" :
			      kind_of(st.st_mode));

	if (fstatat(t->devfd, "capi20", &st2, AT_SYMLINK_NOFOLLOW) == 0) {
		if (!S_ISCHR(st2.st_mode) ||
		    st2.st_rdev != st.st_rdev)
			return refuse(t, "capi20", kind_of(st2.st_mode));
		/* capi20 is already the same device: drop the duplicate. */
		return remove_checked(t, t->devfd, op->path, op->path,
				      is_node_of, &control_node);
	}
	if (t->dry_run)
		return dry("mv %s/%s %s/capi20\n", t->shown, op->path,
			   t->shown);
	return move_checked(t, op, &st);
}

/* Is name one of our temporary names, of a process that is gone? */
static bool stale_tmp(const char *name)
{
	const char *p = name + strlen(TREE_TMP_PREFIX);
	char *end;
	long pid;
	int i;

	if (strncmp(name, TREE_TMP_PREFIX, strlen(TREE_TMP_PREFIX)) ||
	    *p < '1' || *p > '9')
		return false;
	errno = 0;
	pid = strtol(p, &end, 10);
	if (errno || *end != '.' || pid > 0x7fffffffL)
		return false;
	for (i = 1; i <= 16; i++)
		if (!strchr("0123456789abcdef", end[i]) || !end[i])
			return false;
	if (end[17] != '.' || !end[18] || strlen(end + 18) >= POLICY_PATH_MAX)
		return false;
	/* Our pid: an earlier process; we have nothing in flight here. */
	return pid == (long)getpid() ||
	       (kill((pid_t)pid, 0) < 0 && errno == ESRCH);
}

unsigned int tree_sweep_tmp(struct tree *t, const char *dir)
{
	char path[POLICY_PATH_MAX + 256];
	struct dirent *de;
	unsigned int n = 0;
	DIR *d;
	int fd;

	fd = openat(t->devfd, *dir ? dir : ".", O_DIR_NOFOLLOW);
	if (fd < 0)
		return 0;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return 0;
	}
	while ((de = readdir(d))) {
		/* Only symlinks of our shape: nothing else is ours. */
		if (!stale_tmp(de->d_name) || !is_our_link(t, fd, de->d_name, NULL))
			continue;
		snprintf(path, sizeof(path), "%s%s%s", dir, *dir ? "/" : "",
			 de->d_name);
		if (remove_checked(t, fd, de->d_name, path, is_our_link,
				   NULL) == 1) {
			n++;
			log_info("removed stale temporary link %s/%s",
				 t->shown, path);
		}
	}
	closedir(d);
	return n;
}

static int apply_op(struct tree *t, const struct name_op *op)
{
	switch (op->kind) {
	case OP_MOVE_CONTROL: return do_move_control(t, op);
	case OP_DIR: return do_dir(t, op);
	case OP_NODE: return do_node(t, op);
	case OP_LINK: return do_link(t, op);
	case OP_UNLINK: return do_unlink(t, op);
	case OP_NODE_GONE: return do_node_gone(t, op);
	case OP_RMDIR: return do_rmdir(t, op);
	}
	return -1;
}

/* A dry run counts the changes it printed, as a real one those it made. */
static int apply_one(struct tree *t, const struct name_op *op)
{
	char dir[POLICY_PATH_MAX];
	int ret = apply_op(t, op);

	if (ret == 1 && (op->kind == OP_UNLINK || op->kind == OP_NODE_GONE) &&
	    split_path(op->path, dir, sizeof(dir)))
		t->our_dirs |= dir_bit(dir);
	if (ret == 1 && t->dry_run)
		t->changes++;
	return ret;
}

int tree_apply(struct tree *t, const struct name_op *op)
{
	direct_event(t);
	return apply_one(t, op);
}

int tree_apply_all(struct tree *t, const struct name_op *ops, int n)
{
	unsigned int failed_ops = 0;
	int i, bad = 0;

	direct_event(t);
	for (i = 0; i < n; i++) {
		/* Never point a link at a node that is not the device. */
		if (ops[i].needs & failed_ops) {
			bad++;
			continue;
		}
		if (apply_one(t, &ops[i]) < 0) {
			bad++;
			failed_ops |= 1u << i;
		}
	}
	return bad;
}
