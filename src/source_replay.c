// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * source_replay.c - uevents recorded by "udevadm monitor --kernel
 * --property": KEY=VALUE lines, a record per blank-line-separated block;
 * any other line (the "KERNEL[...] add ..." headers) is ignored.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "log.h"
#include "source.h"
#include "uevent.h"

/* Longer lines make their record bad. */
#define REPLAY_LINE_MAX 4096

int replay_source_open(struct replay_source *r, const char *path)
{
	memset(r, 0, sizeof(*r));
	if (!strcmp(path, "-")) {
		r->in = stdin;
		r->name = "<stdin>";
		return 0;
	}
	r->in = fopen(path, "re");
	r->name = path;
	return r->in ? 0 : -1;
}

void replay_source_close(struct replay_source *r)
{
	if (r->in && r->in != stdin)
		fclose(r->in);
	free(r->line);
	r->line = NULL;
}

enum source_result replay_source_read(struct replay_source *r,
				      struct capi_event *ev,
				      struct source_stats *st)
{
	struct uevent_fields f;
	bool any = false, toolong = false;
	enum uevent_verdict v;
	enum source_result res;
	const char *why;
	ssize_t len;

	uevent_reset(&f);
	for (;;) {
		errno = 0;
		len = getline(&r->line, &r->cap, r->in);
		if (len < 0) {
			if (errno)
				return SRC_ERROR;
			if (!any)
				return SRC_EOF;
			break;		/* last record without a blank line */
		}
		r->lineno++;
		while (len > 0 && (r->line[len - 1] == '\n' ||
				   r->line[len - 1] == '\r'))
			len--;
		if (len == 0) {
			if (any)
				break;
			continue;
		}
		if (len > REPLAY_LINE_MAX) {
			if (!any)
				r->record_line = r->lineno;
			any = true;
			toolong = true;
			continue;
		}
		if (uevent_add_line(&f, r->line, (size_t)len) == 0 && !any) {
			any = true;
			r->record_line = r->lineno;
		}
	}

	if (toolong) {
		v = UEVENT_BAD;
		why = "over-long line";
	} else {
		v = uevent_finish(&f, ev, &why);
	}
	res = source_verdict(v, st);
	if (res != SRC_BAD)
		return res;
	log_limited(LOG_WARNING, "%s:%lu: bad record: %s", r->name,
		    r->record_line, why);
	return SRC_BAD;
}
