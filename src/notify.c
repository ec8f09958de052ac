// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * notify.c - READY=1 and STATUS= to the service manager, without libsystemd.
 *
 * One datagram per message, on a socket opened for it: the daemon sends
 * a handful at start and then at most one a second while events come, so
 * keeping a descriptor open would buy nothing.
 *
 * Never blocking: a peer that does not read (its queue full) must not
 * stop the daemon from handling events and signals.  Such a message is
 * dropped (EAGAIN); the next STATUS= says it all again.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include "notify.h"

int notify_send(const char *msg)
{
	const char *addr = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct iovec iov = { .iov_base = (void *)msg, .iov_len = strlen(msg) };
	struct msghdr mh = { .msg_name = &sa, .msg_iov = &iov,
			     .msg_iovlen = 1 };
	size_t len;
	int fd, r = 1;

	if (!addr || !*addr)
		return 0;
	if (addr[0] != '/' && addr[0] != '@')
		return -EAFNOSUPPORT;
	len = strlen(addr);
	/* A path needs room for its NUL; an abstract name has none. */
	if (len > sizeof(sa.sun_path) - (addr[0] == '/'))
		return -EINVAL;
	memcpy(sa.sun_path, addr, len);
	if (addr[0] == '@')
		sa.sun_path[0] = '\0';
	mh.msg_namelen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
				     len + (addr[0] == '/'));

	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
		r = -errno;
	close(fd);
	return r;
}

bool notify_wanted(void)
{
	const char *addr = getenv("NOTIFY_SOCKET");

	return addr && *addr;
}

int notify_sendf(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return notify_send(buf);
}
