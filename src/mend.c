// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mend.c - the command that mends a deviation of --verify.
 *
 * capi-devd's rescan (SIGHUP: systemctl reload) makes what is missing,
 * gives nodes their group and mode and replaces or removes links of its
 * own shape, for the names it owns; with udevd the rules own the modern
 * names, and udevadm trigger has them applied again.  What capi-devd
 * never touches (a file, a foreign link, another device at a name) must
 * go first.  A path comes from the tree and may hold anything: it is
 * quoted for the shell and escaped like every line of output.
 */
#include <stdio.h>
#include <string.h>
#include "log.h"
#include "mend.h"

#define RESCAN "systemctl reload capi-devd"
#define TRIGGER "udevadm trigger --action=add --subsystem-match=capi " \
		"--subsystem-match=tty --sysname-match='capi*'"

static bool udevd;

void mend_set_udevd(bool on)
{
	udevd = on;
}

/*
 * path in single quotes, a quote in it as '"'"' (no backslash, which the
 * escape below would double), then escaped.
 */
static const char *quoted(const char *path, char *out, size_t size)
{
	char raw[1024];
	size_t n = 0;

	raw[n++] = '\'';
	for (; *path && n + 6 < sizeof(raw); path++) {
		if (*path == '\'') {
			memcpy(raw + n, "'\"'\"'", 5);
			n += 5;
		} else {
			raw[n++] = *path;
		}
	}
	raw[n++] = '\'';
	return log_escape(raw, n, out, size);
}

void mend_print(enum mend m, const char *path, bool modern)
{
	char q[4096];

	switch (m) {
	case MEND_RESCAN:
	case MEND_RULES:
		puts(m == MEND_RULES || (udevd && modern) ? "MEND: " TRIGGER :
		     "MEND: " RESCAN);
		break;
	case MEND_REMOVE:
		printf("MEND: rm -- %s && %s\n", quoted(path, q, sizeof(q)),
		       udevd && modern ? TRIGGER : RESCAN);
		break;
	case MEND_STALE:
		if (!(udevd && modern)) {
			puts("MEND: " RESCAN);
			break;
		}
		/* udevd removed the names of the remove it saw; not this. */
		/* fall through */
	case MEND_REMOVE_ONLY:
		printf("MEND: rm -- %s\n", quoted(path, q, sizeof(q)));
		break;
	case MEND_ACL:
		printf("MEND: setfacl -b -- %s\n", quoted(path, q, sizeof(q)));
		break;
	case MEND_NONE_SPEC:
		puts("MEND: none: devices.txt and capi-devd(8) disagree; check "
		     "that --devices-txt is the kernel's devices.txt");
		break;
	case MEND_NONE_ROOT:
		puts("MEND: none: capi-devd never writes through a symlink; "
		     "give the real directory (--root)");
		break;
	}
}
