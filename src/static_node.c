// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * static_node.c - the static /dev/capi20, for systems without udevd.
 *
 * depmod lists in modules.devname the nodes of modules that have a
 * "devname:" alias and a char-major alias (kernelcapi: "kernelcapi capi20
 * c68:0").  kmod-static-nodes makes each such node before the module is
 * loaded, so that the first open of the node loads it.  It makes it
 * root:root 0600.  With udevd, 50-capi.rules gives it our group and mode
 * (OPTIONS+="static_node=capi20", applied when udevd starts).  Without
 * udevd nobody would: only root could open /dev/capi20, and for everyone
 * else the driver would never load.  So at start-up capi-devd does what
 * the rule does, and makes the node when nothing made it: from the
 * running kernel's modules.devname, as kmod-static-nodes would.
 *
 * The node is set up through tree_apply(): an O_PATH|O_NOFOLLOW
 * descriptor of what is at the name, checked to be char 68:0, never a
 * symlink followed.  A node we make starts as 0600, so the group has no
 * access before the group is ours.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <limits.h>
#include <unistd.h>
#include "devname.h"
#include "event.h"
#include "log.h"
#include "rootfile.h"
#include "static_node.h"

#define STATIC_NAME "capi20"
/* Until the group and mode are ours: root only, as kmod makes it. */
#define STATIC_FIRST_MODE 0600

/*
 * Does root's modules.devname list capi20 as char 68:0?  Returns 1 yes,
 * 0 no (or no such file, or one refused: logged), -1 it lists capi20 as
 * another device.
 */
static int devname_lists_capi20(const char *root, const char *release)
{
	char rel[PATH_MAX], buf[ROOTFILE_MAX];
	const char *why;
	ssize_t len;
	int fd, ret;

	if (snprintf(rel, sizeof(rel), "lib/modules/%s/modules.devname",
		     release) >= (int)sizeof(rel))
		return 0;
	fd = rootfile_open(root, rel);
	if (fd < 0 && errno == ENOENT) {
		log_debug("no static node: no %s/%s", root, rel);
		return 0;
	}
	len = rootfile_read(fd, buf, sizeof(buf), &why);
	if (fd >= 0)
		close(fd);
	if (len < 0) {
		log_warn("no static node: %s/%s: %s", root, rel, why);
		return 0;
	}
	ret = devname_lists(buf, (size_t)len, STATIC_NAME,
			    CAPI_CONTROL_MAJOR, 0);
	if (ret < 0)
		log_warn("%s/%s lists %s as another device than char %u:0: "
			 "no static node", root, rel, STATIC_NAME,
			 CAPI_CONTROL_MAJOR);
	return ret;
}

/* Make the node if nothing is at its name; 1 made, 0 there, -1 failed. */
static int make_static(struct tree *t)
{
	struct stat st;

	if (fstatat(t->devfd, STATIC_NAME, &st, AT_SYMLINK_NOFOLLOW) == 0 ||
	    errno != ENOENT)
		return 0;
	if (t->dry_run) {
		printf("mknod %s/%s c %u 0\n", t->shown, STATIC_NAME,
		       CAPI_CONTROL_MAJOR);
		return 1;
	}
	if (mknodat(t->devfd, STATIC_NAME, S_IFCHR | STATIC_FIRST_MODE,
		    makedev(CAPI_CONTROL_MAJOR, 0)) < 0) {
		if (errno == EEXIST)	/* the driver came meanwhile */
			return 0;
		log_err("cannot make the static node %s/%s: %s", t->shown,
			STATIC_NAME, strerror(errno));
		return -1;
	}
	t->changes++;
	log_info("made the static node %s/%s (char %u:0, from "
		 "modules.devname)", t->shown, STATIC_NAME, CAPI_CONTROL_MAJOR);
	return 1;
}

int static_node_apply(struct tree *t, const char *root)
{
	struct name_op op = {
		.kind = OP_NODE, .perms = true,
		.major = CAPI_CONTROL_MAJOR, .minor = 0, .path = STATIC_NAME,
	};
	struct utsname u;
	int made, ret;

	if (uname(&u) < 0 || devname_lists_capi20(root, u.release) <= 0)
		return 0;
	made = make_static(t);
	if (made < 0 || (made && t->dry_run))
		return made;
	ret = tree_apply(t, &op);
	if (ret > 0)
		log_info("static node %s/%s: group %u, mode %04o: the first "
			 "open loads the CAPI driver", t->shown, STATIC_NAME,
			 (unsigned int)t->gid, (unsigned int)t->mode);
	return ret < 0 ? -1 : (made | ret);
}
