/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * static_node.h - the static /dev/capi20, whose first open loads the
 * CAPI driver, with the group and mode of the other CAPI nodes.
 */
#ifndef CAPI_DEVD_STATIC_NODE_H
#define CAPI_DEVD_STATIC_NODE_H

#include "tree.h"

/*
 * When ROOT/lib/modules/RELEASE/modules.devname (RELEASE: the running
 * kernel's) has the driver's static node capi20 as char 68:0: make
 * t's capi20 if nothing is there, and give the char 68:0 node at that
 * name t's group and mode.  root is "" for the real root.  Returns 1
 * when it changed the tree, 0 when there was nothing to do, -1 when
 * it failed or found something else at the name (logged).
 */
int static_node_apply(struct tree *t, const char *root);

#endif
