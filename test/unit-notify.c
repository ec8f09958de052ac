// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * unit-notify.c - the readiness datagrams, received as systemd would:
 * on an abstract socket ('@name') and on a path socket.
 */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include "notify.h"
#include "tap.h"

/* A datagram socket bound to addr ('@' for abstract), as NOTIFY_SOCKET. */
static int listener(const char *addr)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len = strlen(addr);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	memcpy(sa.sun_path, addr, len);
	if (addr[0] == '@')
		sa.sun_path[0] = '\0';
	else
		len++;
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa,
			   (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
				       len)) < 0) {
		printf("Bail out! cannot bind %s: %s\n", addr, strerror(errno));
		exit(1);
	}
	return fd;
}

static void on_alarm(int sig)
{
	static const char msg[] = "not ok - notify_send() blocked on a peer "
				  "that does not read\nBail out!\n";

	(void)sig;
	if (write(STDOUT_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(2);
	_exit(1);
}

/*
 * A peer that does not read (issue 16, break 6): its queue is filled to
 * the brim, then notify_send() must return at once (-EAGAIN), not block
 * in unix_wait_for_peer.  An alarm ends the test if it blocks.
 */
static void deaf_peer(const char *addr)
{
	int fd = listener(addr), i, r = 0;

	setenv("NOTIFY_SOCKET", addr, 1);
	signal(SIGALRM, on_alarm);
	alarm(5);
	for (i = 0; i < 100000 && (r = notify_send("STATUS=filling")) == 1; i++)
		;
	is_int(r, -EAGAIN, "a peer that does not read: its queue fills (%d "
	       "datagrams), then -EAGAIN", i);
	is_int(notify_send("READY=1"), -EAGAIN,
	       "and once it is full, -EAGAIN at once: never blocks");
	alarm(0);
	close(fd);
}

static void received(int fd, const char *want, const char *desc)
{
	char buf[2048];
	ssize_t n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);

	buf[n > 0 ? n : 0] = '\0';
	is_str(buf, want, "%s", desc);
}

int main(void)
{
	char abs[64], dir[] = "/tmp/unit-notify.XXXXXX", path[128];
	char longname[200], big[1500];
	int fd;

	unsetenv("NOTIFY_SOCKET");
	is_int(notify_send("READY=1"), 0, "no NOTIFY_SOCKET: nothing sent");
	is_int(notify_wanted(), 0, "no NOTIFY_SOCKET: no manager to tell");
	setenv("NOTIFY_SOCKET", "", 1);
	is_int(notify_send("READY=1"), 0, "empty NOTIFY_SOCKET: nothing sent");
	is_int(notify_wanted(), 0, "empty NOTIFY_SOCKET: no manager to tell");

	snprintf(abs, sizeof(abs), "@capi-devd-unit-notify/%d", (int)getpid());
	fd = listener(abs);
	setenv("NOTIFY_SOCKET", abs, 1);
	is_int(notify_wanted(), 1, "NOTIFY_SOCKET set: a manager to tell");
	is_int(notify_send("READY=1"), 1, "abstract socket: sent");
	received(fd, "READY=1", "abstract socket: READY=1 arrives whole");
	is_int(notify_sendf("STATUS=source %s: %lu events", "kernel", 42UL), 1,
	       "abstract socket: STATUS sent");
	received(fd, "STATUS=source kernel: 42 events",
		 "abstract socket: STATUS= formatted");
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	notify_sendf("STATUS=%s", big + 7);
	/* "STATUS=" and the first 1016 x: 1023 bytes and the NUL. */
	memcpy(big, "STATUS=", 7);
	big[1023] = '\0';
	received(fd, big, "a long STATUS= is cut at 1 KiB, not lost");
	close(fd);

	if (!mkdtemp(dir)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	snprintf(path, sizeof(path), "%s/notify", dir);
	fd = listener(path);
	setenv("NOTIFY_SOCKET", path, 1);
	is_int(notify_send("STOPPING=1"), 1, "path socket: sent");
	received(fd, "STOPPING=1", "path socket: STOPPING=1 arrives");
	close(fd);
	unlink(path);
	is_int(notify_send("READY=1"), -ENOENT,
	       "path socket gone: -ENOENT, no crash");
	deaf_peer(path);
	unlink(path);
	rmdir(dir);

	setenv("NOTIFY_SOCKET", "relative/notify", 1);
	is_int(notify_send("READY=1"), -EAFNOSUPPORT,
	       "neither a path nor '@name': refused");
	memset(longname, 'a', sizeof(longname) - 1);
	longname[0] = '/';
	longname[sizeof(longname) - 1] = '\0';
	setenv("NOTIFY_SOCKET", longname, 1);
	is_int(notify_send("READY=1"), -EINVAL, "a path too long: refused");
	return done_testing();
}
