// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz-policy.c - libFuzzer harness: the naming policy, fed any event at
 * all (not only what the parser lets through): whatever the numbers, no
 * operation leaves the dev root and no link target climbs out of it.
 */
#include <stdint.h>
#include "invariants.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct capi_event ev;
	uint32_t w[4] = { 0 };
	char name[32];

	memcpy(w, data, size < sizeof(w) ? size : sizeof(w));
	ev.action = (w[0] & 1) ? CAPI_REMOVE : CAPI_ADD;
	ev.kind = (w[0] & 2) ? CAPI_TTY : CAPI_CONTROL;
	ev.scheme = (w[0] & 4) ? CAPI_PREFIX : CAPI_MODERN;
	/* Units as the parser allows them, and beyond. */
	ev.unit = (w[0] & 8) ? w[1] : w[1] % (CAPI_UNIT_MAX + 1);
	ev.major = w[2];
	ev.minor = w[3];
	ev.seqnum = 0;
	check_policy(&ev);
	/* The legacy name is always one of ours. */
	policy_legacy_name(ev.unit, name, sizeof(name));
	CHECK(!strncmp(name, "capi20.", 7) && !strchr(name, '/'), "%s", name);
	return 0;
}
