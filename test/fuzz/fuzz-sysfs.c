// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz-sysfs.c - libFuzzer harness: the sysfs uevent file parser, from the
 * bytes of SYS/class/CLASS/NAME/uevent to the event and the policy's
 * operations.  The first byte picks the class (capi or tty); the rest is
 * the file, at most a page, as the scanner reads it.
 *
 * Besides invariants.h: an accepted file is always an "add" (the file
 * cannot override the scanner's ACTION, DEVPATH or SUBSYSTEM: issue 16,
 * break 5), and a file with a NUL byte is never accepted.
 */
#include <stdint.h>
#include "invariants.h"
#include "log.h"
#include "uevent.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	uevent_set_tty_major(FUZZ_TTY_MAJOR, NULL);
	log_max_level = -1;
	return 0;
}

/* The value of the last "KEY=" line of the file, as (ptr, len). */
static const char *last_value(const char *buf, size_t size, const char *key,
			      size_t *vlen)
{
	const char *p, *end = buf + size, *nl, *found = NULL;
	size_t kl = strlen(key);

	for (p = buf; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if ((size_t)(nl - p) > kl && !memcmp(p, key, kl) &&
		    p[kl] == '=') {
			found = p + kl + 1;
			*vlen = (size_t)(nl - found);
		}
	}
	return found;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data + 1, *why = NULL;
	const char *class, *name, *dn, *maj, *min;
	size_t len, dnl = 0, majl = 0, minl = 0;
	struct capi_event ev;

	if (size < 1)
		return 0;
	class = data[0] & 1 ? "tty" : "capi";
	name = data[0] & 1 ? "capi!7" : "capi20";
	len = size - 1 < UEVENT_SYSFS_MAX - 1 ? size - 1 : UEVENT_SYSFS_MAX - 1;
	if (uevent_parse_sysfs(buf, len, class, name, &ev, &why) != UEVENT_OK)
		return 0;
	CHECK(ev.action == CAPI_ADD, "a sysfs device that is not an add");
	CHECK(!memchr(buf, '\0', len), "a file with a NUL accepted");
	CHECK((ev.kind == CAPI_TTY) == (data[0] & 1), "a %s device in class %s",
	      ev.kind == CAPI_TTY ? "tty" : "control", class);
	dn = last_value(buf, len, "DEVNAME", &dnl);
	maj = last_value(buf, len, "MAJOR", &majl);
	min = last_value(buf, len, "MINOR", &minl);
	check_event(&ev, dn, dnl, maj, majl, min, minl);
	check_policy(&ev);
	return 0;
}
