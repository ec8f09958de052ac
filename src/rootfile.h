/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rootfile.h - small configuration files under the root, read as
 * hostile input: modules.devname (static_node.c) and 50-capi.rules
 * (rules_conf.c).
 */
#ifndef CAPI_DEVD_ROOTFILE_H
#define CAPI_DEVD_ROOTFILE_H

#include <sys/types.h>

/* The most that is read of such a file; a longer one is refused. */
#define ROOTFILE_MAX 8192

/*
 * Open root's rel (a path relative to root; root "" is the real root)
 * without blocking (a FIFO there cannot hang us) and with every symlink
 * on the way resolved inside root, never above it (RESOLVE_IN_ROOT): a
 * link to /dev/zero reaches root's dev/zero, a character device, which
 * rootfile_read() refuses.  A kernel without openat2() (before 5.6)
 * gets O_NOFOLLOW on the last name only.  Returns the fd, or -1 (errno).
 */
int rootfile_open(const char *root, const char *rel);

/*
 * Read fd (or fail when fd is -1, with errno from the open) into buf: a
 * regular file of fewer than size (ROOTFILE_MAX) bytes.  Returns its
 * length, or -1 with *why (for the log).
 */
ssize_t rootfile_read(int fd, char *buf, size_t size, const char **why);

#endif
