/* SPDX-License-Identifier: GPL-2.0-or-later */
/* modload.h - load the CAPI driver with libkmod when it is not there. */
#ifndef CAPI_DEVD_MODLOAD_H
#define CAPI_DEVD_MODLOAD_H

#include <stdbool.h>

/*
 * If SYS/class/capi is missing, load "kernelcapi" (6.1) or "capi" (older
 * kernels).  Returns 0 when the driver is there (or was loaded, or would
 * be with dry_run), -1 with a logged reason otherwise.
 */
int modload_capi(const char *sysdir, bool dry_run);

#endif
