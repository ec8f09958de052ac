// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz-mountinfo.c - libFuzzer harness: the /proc/self/mountinfo parser
 * that tells whether the dev directory is on devtmpfs.  The first four
 * bytes are the key (by mount ID or by device number, and the numbers);
 * the rest is the mountinfo text.
 *
 * Invariants: the answer is -1, 0 or 1; 1 only when " - devtmpfs " is
 * in the text; 0 or 1 only when " - " is (a mount line at all); and the
 * answer is that of the first line of the key, read line by line.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "devtmpfs.h"
#include "invariants.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The answer of the first line (up to a NUL, as the parser reads it). */
static int first_line_answer(const char *text, size_t len,
			     const struct mount_key *k)
{
	const char *p = text, *end = text + len, *nl;
	char line[512];
	int r;

	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if ((size_t)(nl - p) >= sizeof(line))
			return -2;	/* too long to check here */
		memcpy(line, p, (size_t)(nl - p));
		line[nl - p] = '\0';
		r = devtmpfs_mountinfo_line(line, k);
		if (r >= 0)
			return r;
	}
	return -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mount_key k = { 0 };
	const char *text = (const char *)data + 4;
	size_t len;
	FILE *f;
	int r, want;

	if (size < 5)
		return 0;
	k.by_id = data[0] & 1;
	k.id = data[1];
	k.major = data[2];
	k.minor = data[3];
	len = size - 4;
	f = fmemopen((void *)text, len, "r");
	if (!f)
		return 0;
	r = devtmpfs_mountinfo(f, &k);
	fclose(f);
	CHECK(r >= -1 && r <= 1, "answer %d", r);
	if (r >= 0)
		CHECK(memmem(text, len, " - ", 3), "an answer without \" - \"");
	if (r == 1)
		CHECK(memmem(text, len, " - devtmpfs ", 12), "devtmpfs from nowhere");
	want = first_line_answer(text, len, &k);
	if (want != -2 && !memchr(text, '\0', len))
		CHECK(r == want, "answer %d, line by line %d", r, want);
	return 0;
}
