/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * policy.h - the naming policy: one event in, the names out.
 *
 * Pure: no I/O, no globals, no allocation.  The same event and owner
 * always give the same list of operations; tree.c carries them out.
 */
#ifndef CAPI_DEVD_POLICY_H
#define CAPI_DEVD_POLICY_H

#include <stdbool.h>
#include "event.h"

#define POLICY_MAX_OPS 8	/* at most 32: name_op.needs is a bit mask */
#define POLICY_PATH_MAX 32

/* Who owns which names; see OWNERSHIP in capi-devd(8). */
enum policy_owner {
	OWN_ALL,	/* no udevd (--source=kernel, --replay): every name */
	OWN_PREFIX,	/* udevd runs (--source=udev): only pre-fix names */
};

enum op_kind {
	OP_MOVE_CONTROL,	/* pre-fix: move the char 68:0 node "capi" to "capi20" */
	OP_DIR,			/* make directory path */
	OP_NODE,		/* char node path = devnum; make it if missing */
	OP_LINK,		/* symlink path -> target, atomically */
	OP_UNLINK,		/* remove symlink path if it points at target,
				   and (major:minor given) not at another
				   device than major:minor */
	OP_NODE_GONE,		/* remove node path if it is still char devnum */
	OP_RMDIR,		/* remove directory path if it is empty */
};

/*
 * What a symlink of ours at a name looks like; a symlink of that shape
 * is ours to replace, anything else at the name is foreign.
 */
enum link_shape {
	SHAPE_NONE,
	SHAPE_LEGACY,		/* capi20.NN -> capi/M */
	SHAPE_ISDN,		/* isdn/capi20 -> ../capi20 */
	SHAPE_PREFIX_TTY,	/* capi/N -> ../capiM */
};

/*
 * The ordering contract: the ops of a list are carried out in order, and
 * an op is skipped when one it needs failed.  Each OP_LINK needs every
 * OP_MOVE_CONTROL, OP_DIR and OP_NODE before it, so that no link is made
 * to a node that is not the device or into a directory that is not one.
 */
struct name_op {
	enum op_kind kind;
	unsigned int needs;	/* bit i: ops[i] of the list must succeed */
	enum link_shape shape;
	bool perms;		/* OP_NODE: set group and mode even if it exists */
	unsigned int major, minor;
	char path[POLICY_PATH_MAX];	/* relative to the dev root */
	char target[POLICY_PATH_MAX];
};

/* Fill ops[] for ev; returns how many (0 means none of our business). */
int policy_names(const struct capi_event *ev, enum policy_owner owner,
		 struct name_op ops[POLICY_MAX_OPS]);

/* Does a symlink target have the shape of one we make? */
bool policy_link_is_ours(enum link_shape shape, const char *target);

/* The legacy devices.txt names of the ttys: "capi20." and the unit, %02u. */
#define POLICY_LEGACY_PREFIX "capi20."
#define POLICY_LEGACY_PREFIX_LEN (sizeof(POLICY_LEGACY_PREFIX) - 1)

/* Every name of tty unit N in a scheme; policy.c's one place for them. */
struct tty_names {
	char legacy[POLICY_PATH_MAX];	/* capi20.NN */
	char dirent[POLICY_PATH_MAX];	/* capi/N: the node, or a link */
	char node[POLICY_PATH_MAX];	/* capi/N modern, capiN pre-fix */
	char target[POLICY_PATH_MAX];	/* pre-fix: capi/N -> ../capiN */
};
void policy_tty_names(unsigned int unit, enum capi_scheme scheme,
		      struct tty_names *n);

/* The legacy devices.txt name of tty unit N: "capi20.%02u". */
int policy_legacy_name(unsigned int unit, char *buf, unsigned long size);

/*
 * The other way: the unit of a name exactly as we make it, or -1.
 * "capi20.07" is unit 7; "capi20.7", "capi20.007" and "capi20.+7" are
 * names of nobody.  policy_parse_dir_name() does the same for "N" in capi/.
 */
int policy_parse_legacy_name(const char *name, unsigned int *unit);
int policy_parse_dir_name(const char *name, unsigned int *unit);

#endif
