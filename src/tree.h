/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tree.h - carry out naming operations on a dev directory.
 *
 * Every operation works relative to an open directory descriptor of the
 * dev root and never follows a symlink on the way, so nothing is ever
 * made outside that directory.  Only symlinks of our own shape are
 * replaced or removed; anything else standing at a name is reported and
 * left alone.  What is changed or removed is checked through a file
 * descriptor or under a private temporary name, never by a path that a
 * concurrent writer could swap between the check and the act; only in a
 * directory that nobody but root can write, where no such writer is, do
 * operations go straight at the names.  No node of ours is open to
 * another user at any moment: it is born with owner root, our group and
 * mode, or with no access until they are set, and carries no ACL.
 */
#ifndef CAPI_DEVD_TREE_H
#define CAPI_DEVD_TREE_H

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>
#include "policy.h"

/* Symlink targets are read into buffers of this size; ours are far shorter. */
#define TREE_LINK_MAX 256
/* ".#capi-devd.PID.RANDOM." */
#define TREE_TMP_PREFIX ".#capi-devd."

/*
 * A directory of the dev root kept open for the direct path while only
 * root can write it (capi/, isdn/); see "The direct path" in tree.c.
 */
#define TREE_DIRS 2
struct tree_dir {
	char name[8];
	int fd;			/* -1: not open */
	dev_t dev;		/* what fd is: still at name in the dev root? */
	ino_t ino;
	bool emptied;		/* a node in it went: tree_tidy() tries rmdir */
	bool born_ours;		/* a node made in it has our group at once */
	bool checked;		/* still_there() held in this event */
};

struct tree {
	int devfd;		/* the dev root, O_DIRECTORY */
	dev_t dev;		/* what devfd is: still at its name? */
	ino_t ino;
	const char *shown;	/* how to print the dev root in messages */
	gid_t gid;
	mode_t mode;
	bool dry_run;
	bool kernel_nodes;	/* devtmpfs: nodes come and go with the kernel */
	bool keep_nodes;	/* devtmpfs or not, nobody can tell: never
				   remove a node (it may be the kernel's) */
	const char *fs_how;	/* how kernel_nodes was told, or why not */
	unsigned long changes;	/* operations that changed the disk */
	unsigned long refused;	/* names left alone: foreign or unsafe */
	unsigned long failed;	/* operations that failed (an error logged) */
	char tmp[48];		/* prefix of our temporary names, per process */
	bool root_only;		/* only root can write the dev root */
	bool born_ours;		/* a node made in the dev root has our group */
	gid_t fsgid;		/* the group that what we make is born with */
	bool nodes_there;	/* the last node we looked for was there */
	struct tree_dir dirs[TREE_DIRS];
	struct {		/* the last node a link's removal looked at */
		bool valid;
		bool found;
		int dfd;
		char name[16];
		struct stat st;
	} seen;
	unsigned int our_dirs;	/* capi/ (1), isdn/ (2): made by us, or a
				   name of ours removed from it since we
				   started: ours to remove when empty
				   (OP_RMDIR) */
};

/*
 * Open devdir, never following a symlink (a symlink there fails with
 * ELOOP), and tell whether it is devtmpfs.  Returns 0, or -1 (errno).
 */
int tree_open(struct tree *t, const char *devdir);
void tree_close(struct tree *t);

/*
 * Is the directory at the dev root's name (not following a symlink) no
 * longer the one t has open: moved away, or replaced?
 */
bool tree_moved(const struct tree *t);

/*
 * Carry out one operation; returns 1 when it changed the disk (in a dry
 * run: printed a change), 0 when all was as it should be, -1 when it was
 * refused or failed.
 */
int tree_apply(struct tree *t, const struct name_op *op);

/*
 * Carry out a list in order; an op whose op->needs names one that failed
 * is not carried out.  Returns how many failed or were not carried out.
 */
int tree_apply_all(struct tree *t, const struct name_op *ops, int n);

/*
 * After a batch of events (and a scan, and a replay): remove the kept
 * directories that a removal may have emptied, as devtmpfs does.
 */
void tree_tidy(struct tree *t);

/*
 * readlinkat() into buf, NUL-terminated.  A target that does not fit in
 * size - 1 bytes fails with ENAMETOOLONG (buf then holds its start): a
 * truncated target is never taken for one of ours.
 */
ssize_t tree_readlink(int dfd, const char *name, char *buf, size_t size);

/*
 * Remove the temporary links that a process no longer running left in
 * directory dir ("" for the dev root); returns how many went.
 */
unsigned int tree_sweep_tmp(struct tree *t, const char *dir);

#endif
