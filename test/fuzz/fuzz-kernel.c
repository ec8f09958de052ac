// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz-kernel.c - libFuzzer harness: the kernel netlink datagram parser. */
#include <stdint.h>
#include "invariants.h"
#include "uevent.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	uevent_set_tty_major(FUZZ_TTY_MAJOR, NULL);
	return 0;
}

/* The last NUL-delimited "KEY=value" after the header, as (ptr, len). */
static const char *last_value(const char *buf, size_t len, const char *key,
			      size_t *vlen)
{
	const char *p, *end = buf + len, *nul, *found = NULL;
	size_t kl = strlen(key);

	nul = memchr(buf, '\0', len);
	for (p = nul ? nul + 1 : end; p < end; p = nul + 1) {
		nul = memchr(p, '\0', (size_t)(end - p));
		if (!nul)
			nul = end;
		if ((size_t)(nul - p) > kl && !memcmp(p, key, kl) &&
		    p[kl] == '=') {
			found = p + kl + 1;
			*vlen = (size_t)(nul - found);
		}
	}
	return found;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data, *why = NULL;
	const char *dn, *maj, *min;
	size_t dnl = 0, majl = 0, minl = 0;
	struct capi_event ev;

	/* A refused record yields no event, so no operation at all. */
	if (uevent_parse_kernel(buf, size, &ev, &why) != UEVENT_OK)
		return 0;
	dn = last_value(buf, size, "DEVNAME", &dnl);
	maj = last_value(buf, size, "MAJOR", &majl);
	min = last_value(buf, size, "MINOR", &minl);
	check_event(&ev, dn, dnl, maj, majl, min, minl);
	check_policy(&ev);
	return 0;
}
