/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rules_conf.h - the group and mode of the CAPI nodes, from the one place
 * an administrator sets them: the permissions line of 50-capi.rules (the
 * line with OPTIONS+="static_node=capi20"), as udev reads the file.  So
 * udevd and capi-devd give the nodes the same group and mode.
 */
#ifndef CAPI_DEVD_RULES_CONF_H
#define CAPI_DEVD_RULES_CONF_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* A group name: letters, digits, '_', '.', '-', at most 32 bytes. */
#define RULES_GROUP_MAX 32

struct rules_conf {
	char group[RULES_GROUP_MAX + 1];	/* "": the line has none */
	mode_t mode;
	bool has_mode;
	char from[PATH_MAX];	/* the file read; "" when there is none */
};

/*
 * Take GROUP="..." and MODE="..." (or :=) from the first line of buf
 * (len bytes, NULs allowed) that is no comment and has
 * OPTIONS+="static_node=capi20".  Returns 1 when there is such a line
 * (each of its values filled in when it is there), 0 when there is none,
 * -1 when a value is not a group name or an octal mode up to 07777
 * (*why says which).
 */
int rules_conf_parse(const char *buf, size_t len, struct rules_conf *c,
		     const char **why);

/*
 * Read root's 50-capi.rules where udev looks, the first found deciding:
 * etc/udev/rules.d, run/udev/rules.d, then the directory the package
 * installs it in (UDEV_RULES_DIR).  root is "" for the real root.  c is
 * cleared; c->from names the file read.  A file masked by a symlink to
 * /dev/null counts as none.  Returns 0, or -1 when the file cannot be
 * used (logged).
 */
int rules_conf_read(const char *root, struct rules_conf *c);

#endif
