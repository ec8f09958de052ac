// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * modsig.c - why the kernel refused to load a module for its signature.
 *
 * DKMS signs the modules it builds (kernelcapi-dkms's kernelcapi among them)
 * with a key of its own, /var/lib/dkms/mok.pub.  Until that key is
 * enrolled as a machine owner key, a kernel that checks signatures
 * refuses them: with module.sig_enforce the load fails with EKEYREJECTED
 * (ENOKEY where the key is unknown), and Debian's kernel under Secure
 * Boot, locked down, fails it with EPERM.  An EPERM alone says nothing
 * (capi-devd --load-driver runs with every privilege from the unit), so
 * it counts only when the kernel is locked down.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "modsig.h"

bool modsig_locked_down(const char *sysdir)
{
	char path[4096], buf[128];
	ssize_t n;
	int fd;

	if (snprintf(path, sizeof(path), "%s/kernel/security/lockdown",
		     sysdir) >= (int)sizeof(path))
		return false;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	/* "none [integrity] confidentiality": the brackets mark the mode. */
	return strstr(buf, "[integrity]") || strstr(buf, "[confidentiality]");
}

const char *modsig_advice(int err, bool locked_down)
{
	if (err != EKEYREJECTED && err != ENOKEY &&
	    !(err == EPERM && locked_down))
		return NULL;
	return "the kernel does not trust the module's signature (Secure "
	       "Boot): enroll the key DKMS signs with, \"mokutil --import "
	       "/var/lib/dkms/mok.pub\", then reboot and confirm it in "
	       "MokManager";
}
