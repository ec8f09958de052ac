/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * modsig.h - why the kernel refused to load a module for its signature,
 * and what the user does about it (Secure Boot and DKMS's own key).
 */
#ifndef CAPI_DEVD_MODSIG_H
#define CAPI_DEVD_MODSIG_H

#include <stdbool.h>

/*
 * Is the kernel locked down (SYS/kernel/security/lockdown selects
 * "integrity" or "confidentiality", as Debian's kernel does under Secure
 * Boot)?  False when that cannot be read.
 */
bool modsig_locked_down(const char *sysdir);

/*
 * The advice for a module load that failed with errno err, or NULL when
 * err is not the kernel refusing the module's signature: EKEYREJECTED or
 * ENOKEY (module.sig_enforce), or EPERM on a locked-down kernel.
 */
const char *modsig_advice(int err, bool locked_down);

#endif
