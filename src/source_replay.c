// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * source_replay.c - uevents recorded by "udevadm monitor --kernel
 * --property": KEY=VALUE lines, a record per blank-line-separated block;
 * any other line (the "KERNEL[...] add ..." headers) is ignored.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "log.h"
#include "source.h"
#include "uevent.h"

int replay_source_open(struct replay_source *r, const char *path)
{
	r->pos = r->end = 0;
	r->lineno = r->record_line = 0;
	if (!strcmp(path, "-")) {
		r->fd = STDIN_FILENO;
		r->name = "<stdin>";
		return 0;
	}
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	r->name = path;
	return r->fd >= 0 ? 0 : -1;
}

void replay_source_close(struct replay_source *r)
{
	if (r->fd > STDIN_FILENO)
		close(r->fd);
	r->fd = -1;
}

/*
 * Refill the block: bytes read, 0 at the end of input, -1 (errno).  EINTR
 * is returned, not retried: a signal (SIGTERM) ends a blocked replay.
 */
static ssize_t refill(struct replay_source *r)
{
	ssize_t n = read(r->fd, r->block, sizeof(r->block));

	r->pos = 0;
	r->end = n > 0 ? (size_t)n : 0;
	return n;
}

/* Append the next take bytes of the block to r->line, up to its size. */
static void keep(struct replay_source *r, size_t *len, size_t take)
{
	size_t room = REPLAY_LINE_MAX - *len;

	if (take > room)
		take = room;
	memcpy(r->line + *len, r->block + r->pos, take);
	*len += take;
}

/*
 * Read one line into r->line without its end of line; NULs are kept (the
 * parser refuses them).  Returns its length, REPLAY_LINE_MAX + 1 for a
 * longer line, -1 at the end of input (errno 0) or on an error (errno
 * set; EFBIG for a line over REPLAY_LINE_ABORT).
 */
static ssize_t read_line(struct replay_source *r)
{
	size_t len = 0, total = 0, take;
	const char *nl = NULL;
	ssize_t n;

	while (!nl) {
		if (r->pos == r->end) {
			n = refill(r);
			if (n < 0)
				return -1;
			if (n == 0)
				break;
		}
		nl = memchr(r->block + r->pos, '\n', r->end - r->pos);
		take = nl ? (size_t)(nl - (r->block + r->pos)) :
			    r->end - r->pos;
		if (total + take > REPLAY_LINE_ABORT) {
			errno = EFBIG;
			return -1;
		}
		keep(r, &len, take);
		total += take;
		r->pos += take + (nl ? 1 : 0);
	}
	errno = 0;
	if (!nl && total == 0)
		return -1;
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
