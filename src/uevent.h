/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * uevent.h - turn KEY=VALUE properties into a validated struct capi_event.
 *
 * The collector holds fixed-size copies of the few properties we read, so
 * parsing allocates nothing.  Sources feed it one property at a time and
 * then ask for a verdict.
 */
#ifndef CAPI_DEVD_UEVENT_H
#define CAPI_DEVD_UEVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "event.h"

/* Longest property value we keep; longer values make the record bad. */
#define UEVENT_VALUE_MAX 1024

struct uevent_fields {
	char action[16];
	char devpath[UEVENT_VALUE_MAX];
	char subsystem[32];
	char devname[CAPI_DEVNAME_MAX];
	char major[12];
	char minor[12];
	char seqnum[24];
	unsigned int have;	/* bit set of UF_*: kept */
	unsigned int seen;	/* bit set of UF_*: given */
	bool repeated;		/* a key we read was given twice */
	bool overlong;		/* a value was longer than we keep */
	bool nul;		/* a key or value held a NUL byte */
};

enum uevent_verdict {
	UEVENT_OK,	/* a CAPI event: *ev is filled in */
	UEVENT_IGNORE,	/* valid, but not about a CAPI device, or no naming work */
	UEVENT_BAD,	/* malformed: *why says what is wrong */
};

/*
 * The CAPI tty driver's major: a tty record may make only a node of that
 * driver, unit N at minor N, N below CAPI_TTY_MINORS.  Either given
 * (--tty-major; 0 = not given), or looked up on demand in proc_devices
 * (ROOT/proc/devices): the "capi!" (or "capi/") line for modern names,
 * the "capi" line for pre-fix names.  Unknown: tty adds are refused.
 */
void uevent_set_tty_major(unsigned int major, const char *proc_devices);
/*
 * Can major be the CAPI tty driver's?  A dynamic char major (234-254,
 * 384-511), or 191, the fixed one of early pre-fix kernels.
 */
bool uevent_tty_major_ok(unsigned int major);

void uevent_reset(struct uevent_fields *f);
/* Record one property; key and value need not be NUL-terminated. */
void uevent_add(struct uevent_fields *f, const char *key, size_t keylen,
		const char *val, size_t vallen);
/* Split "KEY=VALUE" and record it; returns 0, or -1 if it is no such line. */
int uevent_add_line(struct uevent_fields *f, const char *line, size_t len);
enum uevent_verdict uevent_finish(const struct uevent_fields *f,
				  struct capi_event *ev, const char **why);

/*
 * Read a small file of sysfs or procfs (at most size - 1 bytes, then a
 * NUL) relative to dirfd without blocking: opened O_NONBLOCK|O_NOFOLLOW,
 * read only when fstat says it is a regular file.  Returns the length,
 * or -1 with *why set ("cannot be opened", "is not a regular file",
 * "cannot be read") and errno (ENOENT: there is no such file; 0 when
 * fstat worked but it is not a regular file).
 */
ssize_t uevent_read_file(int dirfd, const char *path, char *buf,
			 size_t size, const char **why);

/* A sysfs uevent file is at most a page. */
#define UEVENT_SYSFS_MAX 4096

/*
 * The uevent file of a device in sysfs, CLASS/NAME/uevent (MAJOR, MINOR,
 * DEVNAME), as if it were an "add" event.  ACTION, DEVPATH, SUBSYSTEM and
 * SEQNUM are the scanner's: the file's own lines for them are ignored.
 */
enum uevent_verdict uevent_parse_sysfs(const char *buf, size_t len,
				       const char *class, const char *name,
				       struct capi_event *ev, const char **why);

/*
 * Parse one kernel netlink datagram ("action@devpath\0KEY=VALUE\0...").
 * The caller has already checked that the kernel sent it.
 */
enum uevent_verdict uevent_parse_kernel(const char *buf, size_t len,
					struct capi_event *ev,
					const char **why);

#endif
