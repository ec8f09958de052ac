// SPDX-License-Identifier: GPL-2.0-or-later
/* devname.c - see devname.h.  No allocation: the text is parsed in place. */
#include <string.h>
#include "event.h"
#include "devname.h"
#include "number.h"

static const char *skip_blank(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

/* The word at *p, up to a blank or the end; *p goes past it. */
static size_t word(const char **p, const char *end)
{
	const char *s = *p;

	while (*p < end && **p != ' ' && **p != '\t')
		(*p)++;
	return (size_t)(*p - s);
}

/* One line, without its newline: as devname_lists(), per line. */
static int devname_line(const char *p, const char *end, const char *name,
			unsigned int major, unsigned int minor)
{
	unsigned int maj, min;
	const char *w;
	size_t n;
	char type;

	p = skip_blank(p, end);
	if (p == end || *p == '#' || !word(&p, end))
		return 0;		/* blank, comment */
	p = skip_blank(p, end);
	w = p;
	n = word(&p, end);
	if (n != strlen(name) || memcmp(w, name, n))
		return 0;		/* another name, or none */
	p = skip_blank(p, end);
	if (p == end)
		return 0;		/* no device: not an entry */
	type = *p++;
	if (number_scan(&p, end, CAPI_MAJOR_MAX, &maj) < 0 || p == end ||
	    *p++ != ':' || number_scan(&p, end, CAPI_UNIT_MAX, &min) < 0 ||
	    skip_blank(p, end) != end)
		return -1;		/* our name, a device we cannot read */
	return type == 'c' && maj == major && min == minor ? 1 : -1;
}

int devname_lists(const char *buf, size_t len, const char *name,
		  unsigned int major, unsigned int minor)
{
	const char *p = buf, *end = buf + len, *nl;
	int ret = 0;

	while (ret == 0 && p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		ret = devname_line(p, nl, name, major, minor);
		p = nl + 1;
	}
	return ret;
}
