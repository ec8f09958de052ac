/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * invariants.h - what the fuzz harnesses assert about every event the
 * parser accepts and every operation the policy makes of it.
 *
 *  - an accepted record is well-formed: its last DEVNAME, MAJOR and MINOR
 *    are exactly the canonical name and numbers of the event (nothing cut
 *    at a NUL, nothing trimmed), a tty is unit N at minor N < 256 of the
 *    tty driver's major on add, the control device is 68:0; so no
 *    operation is ever made for a record the parser should have refused;
 *  - no operation's path leaves the dev root: relative, at most one
 *    directory level, no "." or ".." component, only [a-z0-9./];
 *  - no link target is absolute or climbs with "..": resolved from the
 *    link's directory it stays inside the dev root.
 */
#ifndef CAPI_DEVD_FUZZ_INVARIANTS_H
#define CAPI_DEVD_FUZZ_INVARIANTS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "event.h"
#include "policy.h"

#define FUZZ_TTY_MAJOR 240u

#define CHECK(cond, ...) do { \
	if (!(cond)) { \
		fprintf(stderr, "invariant broken: %s: ", #cond); \
		fprintf(stderr, __VA_ARGS__); \
		fputc('\n', stderr); \
		abort(); \
	} \
} while (0)

static inline void canonical_name(const struct capi_event *ev, char *buf,
				  size_t size)
{
	if (ev->kind == CAPI_CONTROL)
		snprintf(buf, size, "%s",
			 ev->scheme == CAPI_MODERN ? "capi20" : "capi");
	else
		snprintf(buf, size, ev->scheme == CAPI_MODERN ? "capi/%u" :
			 "capi%u", ev->unit);
}

/* Compare a value given as (ptr, len) with a C string, byte for byte. */
static inline int value_is(const char *v, size_t len, const char *want)
{
	return v && len == strlen(want) && !memcmp(v, want, len);
}

/* The accepted event against the raw values the record held last. */
static inline void check_event(const struct capi_event *ev,
			       const char *devname, size_t dnlen,
			       const char *major, size_t majlen,
			       const char *minor, size_t minlen)
{
	char want[32];

	canonical_name(ev, want, sizeof(want));
	CHECK(value_is(devname, dnlen, want), "DEVNAME is not %s", want);
	snprintf(want, sizeof(want), "%u", ev->major);
	CHECK(value_is(major, majlen, want), "MAJOR is not %s", want);
	snprintf(want, sizeof(want), "%u", ev->minor);
	CHECK(value_is(minor, minlen, want), "MINOR is not %s", want);
	if (ev->kind == CAPI_CONTROL) {
		CHECK(ev->major == CAPI_CONTROL_MAJOR && ev->minor == 0,
		      "control device %u:%u", ev->major, ev->minor);
		CHECK(ev->unit == 0, "control unit %u", ev->unit);
	} else {
		CHECK(ev->minor == ev->unit && ev->minor < CAPI_TTY_MINORS,
		      "tty %u at minor %u", ev->unit, ev->minor);
		CHECK(ev->major != CAPI_CONTROL_MAJOR, "tty of major 68");
		CHECK(ev->action == CAPI_REMOVE || ev->major == FUZZ_TTY_MAJOR,
		      "tty add of major %u", ev->major);
	}
}

static inline void check_path(const char *path, const char *what)
{
	const char *p;
	int slashes = 0;

	CHECK(path[0] && path[0] != '/', "%s \"%s\" is not relative", what,
	      path);
	for (p = path; *p; p++) {
		CHECK((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		      *p == '.' || *p == '/', "%s \"%s\": bad character", what,
		      path);
		if (*p == '/')
			slashes++;
	}
	CHECK(slashes <= 1, "%s \"%s\" is deeper than one level", what, path);
	CHECK(strcmp(path, ".") && strcmp(path, "..") &&
	      strncmp(path, "./", 2) && strncmp(path, "../", 3) &&
	      !strstr(path, "/./") && !strstr(path, "/../") &&
	      strcmp(path + strlen(path) - (strlen(path) >= 2 ? 2 : 0), "/.") &&
	      strcmp(path + strlen(path) - (strlen(path) >= 3 ? 3 : 0), "/..") &&
	      path[strlen(path) - 1] != '/', "%s \"%s\" has a . or .. part",
	      what, path);
}

/* Resolve target from the directory of path; depth must stay >= 0. */
static inline void check_target(const char *path, const char *target)
{
	const char *p = target, *slash;
	int depth = strchr(path, '/') ? 1 : 0;

	CHECK(target[0] && target[0] != '/', "target \"%s\" of %s is absolute",
	      target, path);
	while (*p) {
		size_t len;

		slash = strchr(p, '/');
		len = slash ? (size_t)(slash - p) : strlen(p);
		CHECK(len > 0, "target \"%s\" has an empty part", target);
		if (len == 2 && !memcmp(p, "..", 2))
			depth--;
		else if (!(len == 1 && *p == '.'))
			depth++;
		CHECK(depth >= 0, "target \"%s\" of %s climbs out of the root",
		      target, path);
		p = slash ? slash + 1 : p + len;
	}
	/* Only one level up from a subdirectory, and only to our names. */
	CHECK(strncmp(target, "../", 3) || !strncmp(target + 3, "capi", 4),
	      "target \"%s\" of %s", target, path);
}

static inline void check_ops(const struct name_op *ops, int n)
{
	int i;

	CHECK(n >= 0 && n <= POLICY_MAX_OPS, "%d ops", n);
	for (i = 0; i < n; i++) {
		check_path(ops[i].path, "path");
		if (ops[i].kind == OP_LINK || ops[i].kind == OP_UNLINK)
			check_target(ops[i].path, ops[i].target);
	}
}

static inline void check_policy(const struct capi_event *ev)
{
	struct name_op ops[POLICY_MAX_OPS];

	check_ops(ops, policy_names(ev, OWN_ALL, ops));
	check_ops(ops, policy_names(ev, OWN_PREFIX, ops));
}

#endif
