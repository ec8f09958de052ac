/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * event.h - one CAPI device event, as the naming policy sees it.
 *
 * Every event source (kernel netlink, udev monitor, replay file, sysfs
 * coldplug) turns its input into a struct capi_event through uevent.c, so
 * the policy and the tree code never see raw input.
 */
#ifndef CAPI_DEVD_EVENT_H
#define CAPI_DEVD_EVENT_H

#include <stdbool.h>
#include <sys/types.h>

/* Longest DEVNAME we accept; "capi/1048575" is 12 bytes. */
#define CAPI_DEVNAME_MAX 32
/* Largest tty unit: the kernel's MINORMASK. */
#define CAPI_UNIT_MAX 1048575u
/*
 * The CAPI tty driver has minors 0 to ttyminors - 1, and the kernel caps
 * its ttyminors parameter at CAPINC_MAX_PORTS, 256 (drivers/isdn/capi/
 * capi.c, since 2.6).  Tty unit N is minor N (minor_start 0).
 */
#define CAPI_TTY_MINORS 256u
/* The largest major number; larger ones are no device of Linux. */
#define CAPI_MAJOR_MAX 4095u
/* The control device is char 68:0 in both naming schemes. */
#define CAPI_CONTROL_MAJOR 68u
#define CAPI_CONTROL_MINOR 0u

enum capi_action {
	CAPI_ADD,	/* "add", and "change" (idempotent re-apply) */
	CAPI_REMOVE,	/* "remove" */
};

enum capi_kind {
	CAPI_CONTROL,	/* the control device: capi20 (modern) or capi (pre-fix) */
	CAPI_TTY,	/* an NCCI tty: capi/N (modern) or capiN (pre-fix) */
};

enum capi_scheme {
	CAPI_MODERN,	/* kernels since 3.15: capi20, capi/N */
	CAPI_PREFIX,	/* kernels 2.6.6 - 3.14: capi, capiN */
};

struct capi_event {
	enum capi_action action;
	enum capi_kind kind;
	enum capi_scheme scheme;
	unsigned int unit;		/* tty unit N; 0 for the control device */
	unsigned int major, minor;
	unsigned long long seqnum;	/* 0 when the source gave none */
};

#endif
