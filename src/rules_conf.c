// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rules_conf.c - the group and mode of the CAPI nodes from 50-capi.rules.
 *
 * udevd needs the values literally in the rules: static_node= applies
 * only a rule's literal GROUP= and MODE=.  So the rules file is the one
 * configuration, and capi-devd reads its permissions line rather than
 * have the administrator write the same values twice.  The file is input
 * like any other: read without blocking, inside the root, bounded
 * (rootfile.c), and every value checked before it is used.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "log.h"
#include "rootfile.h"
#include "rules_conf.h"

#define RULES_NAME "50-capi.rules"
#define STATIC_KEY "static_node=capi20"

/* The line of buf that starts at p and ends before end (or a newline). */
static size_t line_len(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	return (size_t)((nl ? nl : end) - p);
}

static bool has(const char *line, size_t len, const char *what)
{
	size_t n = strlen(what);

	for (size_t i = 0; i + n <= len; i++)
		if (!memcmp(line + i, what, n))
			return true;
	return false;
}

/*
 * The value of KEY="..." or KEY:="..." in line, KEY at the start or
 * after a blank or a comma (so ENV{GROUP}= is no match), copied to out
 * (size bytes).  Returns 1 found, 0 not there, -1 too long or unclosed.
 */
static int value_of(const char *line, size_t len, const char *key,
		    char *out, size_t size)
{
	size_t k = strlen(key);

	for (size_t i = 0; i + k < len; i++) {
		size_t j = i + k, v;

		if (memcmp(line + i, key, k) ||
		    (i && line[i - 1] != ' ' && line[i - 1] != '\t' &&
		     line[i - 1] != ','))
			continue;
		if (j < len && line[j] == ':')
			j++;
		if (j + 1 >= len || line[j] != '=' || line[j + 1] != '"')
			continue;
		j += 2;
		for (v = 0; j + v < len && line[j + v] != '"'; v++)
			if (v + 1 >= size)
				return -1;
		if (j + v >= len)
			return -1;
		memcpy(out, line + j, v);
		out[v] = '\0';
		return 1;
	}
	return 0;
}

static bool group_ok(const char *g)
{
	if (!*g)
		return false;
	for (; *g; g++)
		if (!((*g >= 'a' && *g <= 'z') || (*g >= 'A' && *g <= 'Z') ||
		      (*g >= '0' && *g <= '9') || *g == '_' || *g == '.' ||
		      *g == '-'))
			return false;
	return true;
}

/* Octal digits only, up to 07777. */
static bool mode_ok(const char *m, mode_t *out)
{
	unsigned int v = 0;

	if (!*m || strlen(m) > 5)
		return false;
	for (; *m; m++) {
		if (*m < '0' || *m > '7')
			return false;
		v = v * 8 + (unsigned int)(*m - '0');
	}
	if (v > 07777)
		return false;
	*out = (mode_t)v;
	return true;
}

int rules_conf_parse(const char *buf, size_t len, struct rules_conf *c,
		     const char **why)
{
	const char *p = buf, *end = buf + len;
	char mode[8];

	for (; p < end; p += line_len(p, end) + 1) {
		size_t n = line_len(p, end), s = 0;
		int r;

		while (s < n && (p[s] == ' ' || p[s] == '\t'))
			s++;
		if (s == n || p[s] == '#' || !has(p, n, STATIC_KEY))
			continue;
		r = value_of(p, n, "GROUP", c->group, sizeof(c->group));
		*why = "its GROUP= is no group name (letters, digits, _ . -, "
		       "up to 32)";
		if (r < 0 || (r > 0 && !group_ok(c->group)))
			return -1;
		r = value_of(p, n, "MODE", mode, sizeof(mode));
		*why = "its MODE= is no octal mode up to 07777";
		if (r < 0 || (r > 0 && !mode_ok(mode, &c->mode)))
			return -1;
		c->has_mode = r > 0;
		return 1;
	}
	return 0;
}

/*
 * Open dir/50-capi.rules under root.  Returns the fd; -1 with errno
 * ENOENT when it is not there, -2 when it is masked (a symlink to
 * /dev/null); -1 with another errno when it cannot be opened (ELOOP: a
 * symlink to anything else).
 */
static int rules_open(const char *root, const char *dir, char *rel,
		      size_t size, char path[PATH_MAX])
{
	char target[16];
	ssize_t n;
	int fd;

	if (snprintf(rel, size, "%s/%s", dir, RULES_NAME) >= (int)size ||
	    snprintf(path, PATH_MAX, "%s/%s", root, rel) >= PATH_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = rootfile_open(root, rel);
	if (fd >= 0 || errno != ELOOP)
		return fd;
	n = readlink(path, target, sizeof(target) - 1);
	if (n == 9 && !memcmp(target, "/dev/null", 9))
		return -2;
	errno = ELOOP;
	return -1;
}

int rules_conf_read(const char *root, struct rules_conf *c)
{
	static const char *const dirs[] = {
		"etc/udev/rules.d", "run/udev/rules.d", UDEV_RULES_DIR + 1,
	};
	char rel[PATH_MAX], buf[ROOTFILE_MAX];
	const char *why;
	ssize_t len;
	int fd = -1, r;

	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		fd = rules_open(root, dirs[i], rel, sizeof(rel), c->from);
		if (fd != -1 || errno != ENOENT)
			break;
	}
	if (fd == -2 || (fd < 0 && errno == ENOENT)) {
		log_debug("no %s%s: the default group and mode", RULES_NAME,
			  fd == -2 ? " (masked)" : "");
		c->from[0] = '\0';
		return 0;
	}
	if (fd < 0 && errno == ELOOP) {
		log_err("%s is a symlink: capi-devd reads the rules only from "
			"a regular file (or a mask, a symlink to /dev/null)",
			c->from);
		return -1;
	}
	len = rootfile_read(fd, buf, sizeof(buf), &why);
	if (fd >= 0)
		close(fd);
	if (len < 0 || (r = rules_conf_parse(buf, (size_t)len, c, &why)) < 0) {
		log_err("cannot take the group and mode from %s: %s", c->from,
			why);
		return -1;
	}
	if (r == 0)
		log_warn("%s has no line with OPTIONS+=\"%s\": the default "
			 "group and mode", c->from, STATIC_KEY);
	return 0;
}
