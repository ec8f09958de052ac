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
	r->in = NULL;
}

/*
 * Read one line into r->line without its end of line; NULs are kept (the
 * parser refuses them).  Returns its length, REPLAY_LINE_MAX + 1 for a
 * longer line, -1 at the end of input (errno 0) or on an error (errno
 * set; EFBIG for a line over REPLAY_LINE_ABORT).
 */
static ssize_t read_line(struct replay_source *r)
{
	size_t len = 0, total = 0;
	int c;

	errno = 0;
	while ((c = getc_unlocked(r->in)) != EOF) {
		if (c == '\n')
			break;
		if (++total > REPLAY_LINE_ABORT) {
			errno = EFBIG;
			return -1;
		}
		if (len < REPLAY_LINE_MAX)
			r->line[len++] = (char)c;
	}
	if (c == EOF) {
		if (ferror(r->in)) {
			if (!errno)
				errno = EIO;
			return -1;
		}
		if (total == 0) {
			errno = 0;
			return -1;
		}
	}
	if (total > REPLAY_LINE_MAX)
		return REPLAY_LINE_MAX + 1;
	while (len > 0 && r->line[len - 1] == '\r')
		len--;
	return (ssize_t)len;
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
		len = read_line(r);
		if (len < 0) {
			if (errno == EFBIG)
				log_err("%s:%lu: a line of more than %d bytes: "
					"not a uevent recording", r->name,
					r->lineno + 1, REPLAY_LINE_ABORT);
			if (errno)
				return SRC_ERROR;
			if (!any)
				return SRC_EOF;
			break;		/* last record without a blank line */
		}
		r->lineno++;
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

static enum source_result replay_read(struct source *s, struct capi_event *ev,
				      struct source_stats *st)
{
	return replay_source_read(s->priv, ev, st);
}

static void replay_close(struct source *s)
{
	replay_source_close(s->priv);
	free(s->priv);
	s->priv = NULL;
}

int replay_source_open_as(struct source *s, const char *path)
{
	struct replay_source *r = malloc(sizeof(*r));

	s->fd = -1;
	s->name = "replay";
	s->read = replay_read;
	s->close = replay_close;
	s->priv = r;
	if (!r)
		return -1;
	if (replay_source_open(r, path) < 0) {
		free(r);
		s->priv = NULL;
		return -1;
	}
	return 0;
}

const char *replay_name(const struct source *s)
{
	const struct replay_source *r = s->priv;

	return r ? r->name : "replay";
}
