/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mend.h - for each deviation --verify finds, the one command that mends
 * it, printed on the line after it as "MEND: COMMAND".
 */
#ifndef CAPI_DEVD_MEND_H
#define CAPI_DEVD_MEND_H

#include <stdbool.h>

enum mend {
	/* A name capi-devd makes is missing, wrong or stale: its rescan. */
	MEND_RESCAN,
	/* The same for a name the rules own (a modern name, with udevd). */
	MEND_RULES,
	/* Something capi-devd never touches is at a name: remove it, rescan. */
	MEND_REMOVE,
	/* A name of no tty capi-devd leaves alone: remove it. */
	MEND_REMOVE_ONLY,
	/* A name of a tty that is gone: the rescan's, or the rules' to remove. */
	MEND_STALE,
	/* A node with an ACL: drop the ACL. */
	MEND_ACL,
	/* devices.txt and the contract disagree: no command mends that. */
	MEND_NONE_SPEC,
	/* The dev root is a symlink: no command of ours mends that. */
	MEND_NONE_ROOT,
};

/* Whether udevd runs (ROOT/run/udev/control): the rules own modern names. */
void mend_set_udevd(bool udevd);

/*
 * The mend of a deviation at path (as --verify printed it), on its own
 * line; a modern name (modern) is the rules' when udevd runs.
 */
void mend_print(enum mend m, const char *path, bool modern);

#endif
