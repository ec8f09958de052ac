/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devname.h - the parser of modules.devname, which depmod writes and
 * capi-devd reads for its static node.  The file is input like any
 * other: it may hold anything.
 */
#ifndef CAPI_DEVD_DEVNAME_H
#define CAPI_DEVD_DEVNAME_H

#include <stddef.h>

/* The most of modules.devname that is read; a longer one is refused. */
#define DEVNAME_FILE_MAX 8192

/*
 * Does the text buf (len bytes, NULs allowed) list name as a char device?
 * A line is "MODULE NAME TYPEMAJOR:MINOR"; "#" starts a comment; a line
 * of another shape is skipped.  The first line that lists name decides:
 * returns 1 when it is char major:minor, -1 when it is another device
 * (or a number out of range), 0 when no line lists name.
 */
int devname_lists(const char *buf, size_t len, const char *name,
		  unsigned int major, unsigned int minor);

#endif
