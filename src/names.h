/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * names.h - the CAPI names in a dev directory, as they are now: for
 * capi-devd --list and for the daemon's STATUS=.
 */
#ifndef CAPI_DEVD_NAMES_H
#define CAPI_DEVD_NAMES_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

/* The most names read; more (a hostile /dev) are counted, not kept. */
#define NAMES_MAX 2048

enum name_kind { NAME_NODE, NAME_LINK, NAME_DIR, NAME_OTHER };

struct name {
	char path[24];		/* under the dev directory: "capi/7" */
	enum name_kind kind;
	bool is_char;		/* a node: char (else block) */
	unsigned int major, minor;
	gid_t gid;
	mode_t mode;		/* permission bits */
	char target[64];	/* a link's target, escaped; cut with "..." */
	unsigned int order;	/* the sort key */
};

struct names {
	struct name *v;
	size_t n;
	size_t dropped;		/* beyond NAMES_MAX */
	unsigned int controls;	/* capi20 (or a pre-fix capi) as char 68:0 */
	unsigned int ttys;	/* capi/N present (a node or a link) */
};

/*
 * Read the names of the naming contract in the directory devfd:
 * capi20, isdn/capi20, capi (a pre-fix control node) or capi/N,
 * capi20.NN and the pre-fix capiN, each as it is (lstat: no symlink
 * followed), sorted.  Returns 0, or -1 (errno) when devfd cannot be read.
 * names_free() frees what it kept, on success or not.
 */
int names_read(int devfd, struct names *ns);
void names_free(struct names *ns);

/*
 * One line per name, for scripts: "PATH TYPE WHAT GROUP MODE", PATH
 * prefixed with shown; TYPE node, link, dir or other; WHAT a node's
 * "char:MAJOR:MINOR" (or block:), a link's target, else "-"; GROUP a
 * name or a number and MODE octal for nodes and directories, else "-".
 */
void names_print(const struct names *ns, const char *shown, FILE *out);

#endif
