/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * number.h - decimal numbers read from files the daemon does not trust
 * (ROOT/proc/devices, modules.devname, devices.txt): digits only, no
 * sign, no blank before them, and refused (never wrapped) above a
 * maximum, where sscanf("%u") would wrap 4294967364 to 68.
 */
#ifndef CAPI_DEVD_NUMBER_H
#define CAPI_DEVD_NUMBER_H

#include <stddef.h>

/*
 * Read the digits at *p (at most end - *p bytes) as a number from 0 to
 * max into *out and advance *p past them.  Returns 0, or -1 when no digit
 * is there or the number is above max (then *p and *out are unchanged).
 */
int number_scan(const char **p, const char *end, unsigned int max,
		unsigned int *out);

#endif
