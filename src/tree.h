/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tree.h - carry out naming operations on a dev directory.
 *
 * Every operation works relative to an open directory descriptor of the
 * dev root and never follows a symlink on the way, so nothing is ever
 * made outside that directory.  Only symlinks of our own shape are
 * replaced or removed; anything else standing at a name is reported and
 * left alone.
 */
#ifndef CAPI_DEVD_TREE_H
#define CAPI_DEVD_TREE_H

#include <stdbool.h>
#include <sys/types.h>
#include "policy.h"

struct tree {
	int devfd;		/* the dev root, O_DIRECTORY */
	const char *shown;	/* how to print the dev root in messages */
	gid_t gid;
	mode_t mode;
	bool dry_run;
	unsigned long changes;	/* operations that changed the disk */
	unsigned long refused;	/* names left alone: foreign or unsafe */
};

int tree_open(struct tree *t, const char *devdir);
void tree_close(struct tree *t);

/* Carry out one operation; returns 0, or -1 when it was refused or failed. */
int tree_apply(struct tree *t, const struct name_op *op);

/* Carry out a list; returns how many failed. */
int tree_apply_all(struct tree *t, const struct name_op *ops, int n);

#endif
