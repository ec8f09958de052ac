// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz-devname.c - libFuzzer harness: the modules.devname parser that
 * tells whether the running kernel lists the static node capi20 as
 * char 68:0.  The input is the file's text.
 *
 * Invariants: the answer is -1, 0 or 1; 1 only when "capi20", "68" and
 * ":0" are in the text (a leading zero is no other number); -1 or 1 only when "capi20" is; and when no line names
 * capi20 (answer 0), a line "kernelcapi capi20 c68:0" added after the
 * text makes the answer 1.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "devname.h"
#include "invariants.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char entry[] = "\nkernelcapi capi20 c68:0\n";
	const char *text = (const char *)data;
	char *more;
	int r;

	r = devname_lists(text, size, "capi20", 68, 0);
	CHECK(r >= -1 && r <= 1, "answer %d", r);
	if (r != 0)
		CHECK(memmem(text, size, "capi20", 6), "an answer without capi20");
	if (r == 1)
		CHECK(memmem(text, size, "68", 2) && memmem(text, size, ":0", 2),
		      "char 68:0 from nowhere");
	if (r != 0)
		return 0;
	more = malloc(size + sizeof(entry) - 1);
	if (!more)
		return 0;
	memcpy(more, text, size);
	memcpy(more + size, entry, sizeof(entry) - 1);
	r = devname_lists(more, size + sizeof(entry) - 1, "capi20", 68, 0);
	CHECK(r == 1, "the entry added after the text gives %d", r);
	free(more);
	return 0;
}
