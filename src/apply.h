/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * apply.h - one event in, its names carried out: the one path from an
 * event to the dev tree, for the daemon's events and coldplug's devices.
 */
#ifndef CAPI_DEVD_APPLY_H
#define CAPI_DEVD_APPLY_H

#include "event.h"
#include "policy.h"
#include "tree.h"

/* Log the event (debug), then carry out policy_names(); returns failures. */
int apply_event(struct tree *t, enum policy_owner owner,
		const struct capi_event *ev);

#endif
