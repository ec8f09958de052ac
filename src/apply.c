// SPDX-License-Identifier: GPL-2.0-or-later
/* apply.c - from an event to the dev tree: the policy, then the tree. */
#include "apply.h"
#include "log.h"

int apply_event(struct tree *t, enum policy_owner owner,
		const struct capi_event *ev)
{
	struct name_op ops[POLICY_MAX_OPS];
	int n = policy_names(ev, owner, ops);

	log_debug("%s %s %s unit %u (%u:%u) seqnum %llu: %d operation(s)",
		  ev->action == CAPI_ADD ? "add" : "remove",
		  ev->scheme == CAPI_MODERN ? "modern" : "pre-fix",
		  ev->kind == CAPI_CONTROL ? "control" : "tty", ev->unit,
		  ev->major, ev->minor, ev->seqnum, n);
	return tree_apply_all(t, ops, n);
}
