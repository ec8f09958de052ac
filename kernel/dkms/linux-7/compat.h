/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kernel/dkms/linux-7/compat.h - what changed in the kernel API between
 * 6.12, whose CAPI code (drivers/isdn/capi with capi-devd's series and
 * capisim) the DKMS tree for 7.x kernels is, and the 7.x kernels it is
 * built for.  kernel/dkms/Kbuild has the compiler include it before each
 * file of that tree (-include), so the 6.12 code stays as the series
 * leaves it.  Each change is keyed by the version that made it.
 *
 * Copyright (C) 2026 capi-devd developers
 */
#ifndef CAPI_DKMS_COMPAT_H
#define CAPI_DKMS_COMPAT_H

/*
 * Nothing here includes more than linux/version.h: the file comes before
 * each source file's own #define pr_fmt and #include lines, and the
 * macros below need their kernel declarations only where they are used.
 */
#include <linux/version.h>

/* 6.15 removed del_timer() and del_timer_sync(): timer_delete*() */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 15, 0)
#define del_timer(t)		timer_delete(t)
#define del_timer_sync(t)	timer_delete_sync(t)
#endif

/* 6.16 renamed from_timer() timer_container_of() */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 16, 0)
#define from_timer(var, t, field)	timer_container_of(var, t, field)
#endif

#endif /* CAPI_DKMS_COMPAT_H */
