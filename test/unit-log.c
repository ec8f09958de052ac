// SPDX-License-Identifier: GPL-2.0-or-later
/* unit-log.c - escaping of logged strings, the rate limiter's summary. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "log.h"
#include "tap.h"

static void esc(const char *in, size_t len, size_t size, const char *want)
{
	char buf[256];

	is_str(log_escape(in, len, buf, size), want, "escape \"%s\"", want);
}

int main(void)
{
	char path[] = "/tmp/unit-log.XXXXXX", out[4096];
	int fd, saved, i;
	ssize_t n;

	esc("capi/7", 6, 256, "capi/7");
	esc("a\nb", 3, 256, "a\\nb");
	esc("x\r\t\\y", 5, 256, "x\\r\\t\\\\y");
	esc("\x1b[31m\x7f\xff", 7, 256, "\\x1b[31m\\x7f\\xff");
	esc("a\0b", 3, 256, "a\\x00b");
	esc("abcdefghij", 10, 8, "abcd...");
	esc("\n\n\n\n", 4, 8, "\\n\\n...");

	/* The log itself: one line per message, whatever the arguments. */
	fd = mkstemp(path);
	saved = dup(2);
	dup2(fd, 2);
	log_init("unit-log");
	log_msg(LOG_WARNING, "target \"%s\"", "x\nunit-log: error: forged");
	for (i = 0; i < LOG_BURST + 5; i++)
		log_limited(LOG_WARNING, "bad %d", i);
	log_flush(false);	/* the window is still open: nothing yet */
	fflush(stderr);
	n = pread(fd, out, sizeof(out) - 1, 0);
	out[n > 0 ? n : 0] = '\0';
	check(!strstr(out, "suppressed"), "no summary while the window is open");
	log_flush(true);	/* as at exit */
	fflush(stderr);
	dup2(saved, 2);
	n = pread(fd, out, sizeof(out) - 1, 0);
	out[n > 0 ? n : 0] = '\0';
	close(fd);
	unlink(path);
	check(strstr(out, "unit-log: warning: target \"x\\nunit-log: error: forged\"\n") != NULL,
	      "a newline in an argument is escaped");
	check(!strstr(out, "\nunit-log: error: forged"), "no forged line");
	check(strstr(out, "unit-log: warning: 5 more rate-limited message(s) suppressed (at most 10 per 5 s)\n") != NULL,
	      "the summary is flushed at exit");
	return done_testing();
}
