// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz-replay.c - libFuzzer harness: the replay reader, from the bytes of
 * a recording to the events and the policy's operations.
 */
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>
#include "invariants.h"
#include "log.h"
#include "source.h"
#include "uevent.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	uevent_set_tty_major(FUZZ_TTY_MAJOR, NULL);
	log_max_level = -1;	/* quiet: bad records are the norm here */
	return 0;
}

/*
 * The value of the last KEY= line among lines first..last (1-based) of
 * the input, as the reader would see it (a trailing "\r" dropped).
 */
static const char *last_value(const char *buf, size_t size,
			      unsigned long first, unsigned long last,
			      const char *key, size_t *vlen)
{
	const char *p = buf, *end = buf + size, *nl, *found = NULL;
	size_t kl = strlen(key);
	unsigned long line = 1;

	for (; p < end && line <= last; p = nl + 1, line++) {
		size_t len;

		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		len = (size_t)(nl - p);
		while (len && p[len - 1] == '\r')
			len--;
		if (line >= first && len > kl && !memcmp(p, key, kl) &&
		    p[kl] == '=') {
			found = p + kl + 1;
			*vlen = len - kl - 1;
		}
	}
	return found;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct replay_source r;	/* a 4 KiB line buffer, a block */
	struct source_stats st = { 0 };
	enum source_result res;
	struct capi_event ev;
	int n = 0;

	if (!size)
		return 0;
	/* The reader takes a descriptor: a memfd holding the input. */
	memset(&r, 0, sizeof(r));
	r.fd = memfd_create("fuzz", MFD_CLOEXEC);
	if (r.fd < 0)
		return 0;
	if (write(r.fd, data, size) != (ssize_t)size ||
	    lseek(r.fd, 0, SEEK_SET) != 0) {
		close(r.fd);
		return 0;
	}
	r.name = "fuzz";
	while ((res = replay_source_read(&r, &ev, &st)) != SRC_EOF &&
	       res != SRC_ERROR && n++ < 10000) {
		const char *dn, *maj, *min;
		size_t dnl = 0, majl = 0, minl = 0;

		if (res != SRC_EVENT)
			continue;
		dn = last_value((const char *)data, size, r.record_line,
				r.lineno, "DEVNAME", &dnl);
		maj = last_value((const char *)data, size, r.record_line,
				 r.lineno, "MAJOR", &majl);
		min = last_value((const char *)data, size, r.record_line,
				 r.lineno, "MINOR", &minl);
		check_event(&ev, dn, dnl, maj, majl, min, minl);
		check_policy(&ev);
	}
	CHECK(st.events + st.ignored + st.bad <= (unsigned long)n + 1,
	      "counts");
	replay_source_close(&r);
	return 0;
}
