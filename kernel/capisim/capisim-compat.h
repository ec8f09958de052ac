/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * capisim-compat.h - what differs between the kernels capisim is built for
 *
 * capisim.c is one source for every kernel of capi-devd's series (6.1 and
 * 6.12 today), in the tree and out of it (DKMS).  Each difference between
 * those kernels that capisim meets is settled here, by kernel version, so
 * that capisim.c itself has none.
 *
 * Copyright (C) 2026 capi-devd developers
 */
#ifndef CAPISIM_COMPAT_H
#define CAPISIM_COMPAT_H

#include <linux/fs.h>
#include <linux/version.h>

/*
 * The llseek of capisim's debugfs files: none, lseek() fails with ESPIPE.
 * 6.12 removed no_llseek: a NULL llseek means the same there, and in 6.1
 * already (do_dentry_open() clears FMODE_LSEEK), but 6.1's capisim keeps
 * the no_llseek it was written and tested with.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 12, 0)
#define CAPISIM_NO_LLSEEK	no_llseek
#else
#define CAPISIM_NO_LLSEEK	NULL
#endif

#endif /* CAPISIM_COMPAT_H */
