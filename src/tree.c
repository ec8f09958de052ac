// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tree.c - apply names to a directory tree.
 *
 * Paths from the policy have at most one directory level ("capi/7",
 * "isdn/capi20").  The directory is opened with O_NOFOLLOW, so a symlink
 * planted at "capi" or "isdn" cannot lead us out of the dev root.
 *
 * Symlinks are made under a temporary name and renamed over the final
 * name, so a reader sees the old link or the new one, never neither.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "log.h"
#include "tree.h"

int tree_open(struct tree *t, const char *devdir)
{
	t->devfd = open(devdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (t->devfd < 0)
		return -1;
	t->shown = devdir;
	t->changes = 0;
	t->refused = 0;
	return 0;
}

void tree_close(struct tree *t)
{
	if (t->devfd >= 0)
		close(t->devfd);
	t->devfd = -1;
}

/*
 * Open the directory part of path (if any) and point *base at the last
 * component.  Returns the directory fd, t->devfd for a top-level name, or
 * -1.  With create, a missing directory is made (mode 0755).
 */
static int open_parent(struct tree *t, const char *path, bool create,
		       const char **base, char *dir, size_t dirsize)
{
	const char *slash = strchr(path, '/');
	int fd;

	if (!slash) {
		*base = path;
		return t->devfd;
	}
	if ((size_t)(slash - path) >= dirsize) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	*base = slash + 1;

	fd = openat(t->devfd, dir,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && create) {
		if (t->dry_run) {
			printf("mkdir %s/%s\n", t->shown, dir);
			errno = ENOENT;
			return -1;
		}
		if (mkdirat(t->devfd, dir, 0755) < 0 && errno != EEXIST)
			return -1;
		t->changes++;
		fd = openat(t->devfd, dir,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
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

	log_limited(LOG_ERR, "cannot %s %s/%s: %s", verb, t->shown, path,
		    strerror(e));
	return -1;
}

/* Remove base in dfd (path is how to name it); dry run prints instead. */
static int remove_at(struct tree *t, int dfd, const char *base,
		     const char *path)
{
	if (t->dry_run) {
		printf("rm %s/%s\n", t->shown, path);
		return 0;
	}
	if (unlinkat(dfd, base, 0) < 0 && errno != ENOENT)
		return failed(t, "remove", path);
	t->changes++;
	return 0;
}

static int set_perms(struct tree *t, int dfd, const char *base,
		     const char *path, const struct stat *st)
{
	if ((st->st_mode & 07777) != t->mode) {
		if (t->dry_run)
			printf("chmod %04o %s/%s\n", (unsigned int)t->mode,
			       t->shown, path);
		else if (fchmodat(dfd, base, t->mode, 0) < 0)
			return failed(t, "chmod", path);
		else
			t->changes++;
	}
	if (st->st_gid != t->gid) {
		if (t->dry_run)
			printf("chgrp %u %s/%s\n", (unsigned int)t->gid,
			       t->shown, path);
		else if (fchownat(dfd, base, (uid_t)-1, t->gid,
				  AT_SYMLINK_NOFOLLOW) < 0)
			return failed(t, "chgrp", path);
		else
			t->changes++;
	}
	return 0;
}

static int is_our_node(const struct stat *st, const struct name_op *op)
{
	return S_ISCHR(st->st_mode) &&
	       major(st->st_rdev) == op->major &&
	       minor(st->st_rdev) == op->minor;
}

/* Is the directory part of path (if any) a directory, not a symlink? */
static bool dir_is_real(const struct tree *t, const char *path)
{
	const char *slash = strchr(path, '/');
	char dir[POLICY_PATH_MAX];
	struct stat st;

	if (!slash)
		return true;
	if ((size_t)(slash - path) >= sizeof(dir))
		return false;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	return fstatat(t->devfd, dir, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       S_ISDIR(st.st_mode);
}

static bool perms_right(const struct tree *t, const struct stat *st)
{
	return (st->st_mode & 07777) == t->mode && st->st_gid == t->gid;
}

static int do_node(struct tree *t, const struct name_op *op)
{
	char dir[POLICY_PATH_MAX];
	const char *base;
	struct stat st;
	int dfd, ret = 0;

	/*
	 * Fast path, the common case under devtmpfs: the node is there and
	 * right, in a real directory (not through a symlink).
	 */
	if (dir_is_real(t, op->path) &&
	    fstatat(t->devfd, op->path, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    is_our_node(&st, op) && (!op->perms || perms_right(t, &st)))
		return 0;

	dfd = open_parent(t, op->path, true, &base, dir, sizeof(dir));
	if (dfd < 0) {
		if (t->dry_run && errno == ENOENT)
			return 0;
		if (errno == ENOTDIR || errno == ELOOP)
			return refuse(t, dir, "not a directory");
		return failed(t, "open the directory of", op->path);
	}

	if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (!is_our_node(&st, op)) {
			char what[64];

			if (S_ISCHR(st.st_mode))
				snprintf(what, sizeof(what),
					 "char %u:%u, not %u:%u",
					 major(st.st_rdev), minor(st.st_rdev),
					 op->major, op->minor);
			else
				snprintf(what, sizeof(what), "%s",
					 kind_of(st.st_mode));
			ret = refuse(t, op->path, what);
		} else if (op->perms) {
			ret = set_perms(t, dfd, base, op->path, &st);
		}
	} else if (errno != ENOENT) {
		ret = failed(t, "stat", op->path);
	} else if (t->dry_run) {
		printf("mknod %s/%s c %u %u\n", t->shown, op->path,
		       op->major, op->minor);
	} else {
		/* No devtmpfs made it (static /dev, replay, collision). */
		if (mknodat(dfd, base, S_IFCHR | t->mode,
			    makedev(op->major, op->minor)) < 0 &&
		    errno != EEXIST) {
			ret = failed(t, "mknod", op->path);
		} else {
			t->changes++;
			/* umask is 0; mknod may drop only the special bits. */
			if (fchownat(dfd, base, (uid_t)-1, t->gid,
				     AT_SYMLINK_NOFOLLOW) < 0)
				ret = failed(t, "chgrp", op->path);
			else if ((t->mode & 07000) &&
				 fchmodat(dfd, base, t->mode, 0) < 0)
				ret = failed(t, "chmod", op->path);
		}
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

	/* devtmpfs removes its own node before the event: usually no node. */
	if (fstatat(t->devfd, op->path, &st, AT_SYMLINK_NOFOLLOW) < 0 &&
	    errno == ENOENT)
		return 0;
	dfd = open_parent(t, op->path, false, &base, dir, sizeof(dir));
	if (dfd < 0)
		return 0;	/* no directory, no node */
	if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    is_our_node(&st, op)) {
		ret = remove_at(t, dfd, base, op->path);
		/* As devtmpfs does: an emptied directory goes too. */
		if (dfd != t->devfd && !t->dry_run &&
		    unlinkat(t->devfd, dir, AT_REMOVEDIR) == 0)
			t->changes++;
	}
	close_parent(t, dfd);
	return ret;
}

static int do_link(struct tree *t, const struct name_op *op)
{
	char dir[POLICY_PATH_MAX], tmp[POLICY_PATH_MAX + 16];
	char cur[POLICY_PATH_MAX + 1];
	const char *base;
	struct stat st;
	ssize_t len;
	int dfd, ret = 0;

	dfd = open_parent(t, op->path, true, &base, dir, sizeof(dir));
	if (dfd < 0) {
		if (t->dry_run && errno == ENOENT) {
			printf("ln -s %s %s/%s\n", op->target, t->shown,
			       op->path);
			return 0;
		}
		if (errno == ENOTDIR || errno == ELOOP)
			return refuse(t, dir, "not a directory");
		return failed(t, "open the directory of", op->path);
	}

	len = readlinkat(dfd, base, cur, sizeof(cur) - 1);
	if (len >= 0) {
		cur[len] = '\0';
		if (!strcmp(cur, op->target))
			goto out;	/* already right */
		if (!policy_link_is_ours(op->shape, cur)) {
			char what[POLICY_PATH_MAX + 32];

			snprintf(what, sizeof(what),
				 "a symlink to \"%s\"", cur);
			ret = refuse(t, op->path, what);
			goto out;
		}
	} else if (errno == EINVAL) {
		/* Something other than a symlink. */
		if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0)
			ret = refuse(t, op->path, kind_of(st.st_mode));
		else
			ret = failed(t, "stat", op->path);
		goto out;
	} else if (errno != ENOENT) {
		ret = failed(t, "read the symlink", op->path);
		goto out;
	}

	if (t->dry_run) {
		printf("ln -sf %s %s/%s\n", op->target, t->shown, op->path);
		goto out;
	}
	snprintf(tmp, sizeof(tmp), ".#capi-devd.%s", base);
	if (symlinkat(op->target, dfd, tmp) < 0) {
		if (errno != EEXIST ||
		    unlinkat(dfd, tmp, 0) < 0 ||
		    symlinkat(op->target, dfd, tmp) < 0) {
			ret = failed(t, "make the symlink", op->path);
			goto out;
		}
	}
	if (renameat(dfd, tmp, dfd, base) < 0) {
		ret = failed(t, "rename into place", op->path);
		unlinkat(dfd, tmp, 0);
		goto out;
	}
	t->changes++;
out:
	close_parent(t, dfd);
	return ret;
}

static int do_unlink(struct tree *t, const struct name_op *op)
{
	char dir[POLICY_PATH_MAX], cur[POLICY_PATH_MAX + 1];
	const char *base;
	ssize_t len;
	int dfd, ret = 0;

	dfd = open_parent(t, op->path, false, &base, dir, sizeof(dir));
	if (dfd < 0)
		return 0;
	len = readlinkat(dfd, base, cur, sizeof(cur) - 1);
	if (len >= 0) {
		cur[len] = '\0';
		/* Only the link this device had; another is someone else's. */
		if (!strcmp(cur, op->target))
			ret = remove_at(t, dfd, base, op->path);
	}
	close_parent(t, dfd);
	return ret;
}

static int do_dir(struct tree *t, const struct name_op *op)
{
	struct stat st;

	if (fstatat(t->devfd, op->path, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISDIR(st.st_mode))
			return 0;
		return refuse(t, op->path, kind_of(st.st_mode));
	}
	if (errno != ENOENT)
		return failed(t, "stat", op->path);
	if (t->dry_run) {
		printf("mkdir %s/%s\n", t->shown, op->path);
		return 0;
	}
	if (mkdirat(t->devfd, op->path, 0755) < 0 && errno != EEXIST)
		return failed(t, "make the directory", op->path);
	t->changes++;
	return 0;
}

static int do_rmdir(struct tree *t, const struct name_op *op)
{
	if (t->dry_run) {
		printf("rmdir --ignore-fail-on-non-empty %s/%s\n", t->shown,
		       op->path);
		return 0;
	}
	/* Fails harmlessly when missing, not empty, or not a directory. */
	if (unlinkat(t->devfd, op->path, AT_REMOVEDIR) == 0)
		t->changes++;
	return 0;
}

/*
 * Pre-fix kernels: devtmpfs made the control device as "capi", where
 * applications need a directory.  Move that node to "capi20", after
 * checking that it really is char 68:0.
 */
static int do_move_control(struct tree *t, const struct name_op *op)
{
	struct stat st, st20;

	if (fstatat(t->devfd, op->path, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : failed(t, "stat", op->path);
	if (S_ISDIR(st.st_mode))
		return 0;	/* already resolved */
	if (!S_ISCHR(st.st_mode) || major(st.st_rdev) != CAPI_CONTROL_MAJOR ||
	    minor(st.st_rdev) != CAPI_CONTROL_MINOR)
		return refuse(t, op->path, S_ISCHR(st.st_mode) ?
			      "a character device other than 68:0" :
			      kind_of(st.st_mode));

	if (fstatat(t->devfd, "capi20", &st20, AT_SYMLINK_NOFOLLOW) == 0) {
		if (!S_ISCHR(st20.st_mode) ||
		    st20.st_rdev != st.st_rdev)
			return refuse(t, "capi20", kind_of(st20.st_mode));
		/* capi20 is already the same device: drop the duplicate. */
		return remove_at(t, t->devfd, op->path, op->path);
	}
	if (t->dry_run) {
		printf("mv %s/%s %s/capi20\n", t->shown, op->path, t->shown);
		return 0;
	}
	if (renameat2(t->devfd, op->path, t->devfd, "capi20",
		      RENAME_NOREPLACE) < 0)
		return failed(t, "move", op->path);
	t->changes++;
	log_info("moved the pre-fix control node %s/%s to %s/capi20",
		 t->shown, op->path, t->shown);
	return 0;
}

int tree_apply(struct tree *t, const struct name_op *op)
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

int tree_apply_all(struct tree *t, const struct name_op *ops, int n)
{
	bool node_ok = true;
	int i, bad = 0;

	for (i = 0; i < n; i++) {
		/* Never point a link at a node that is not the device. */
		if (ops[i].kind == OP_LINK && !node_ok) {
			bad++;
			continue;
		}
		if (tree_apply(t, &ops[i]) == 0)
			continue;
		bad++;
		if (ops[i].kind == OP_NODE || ops[i].kind == OP_DIR ||
		    ops[i].kind == OP_MOVE_CONTROL)
			node_ok = false;
	}
	return bad;
}
