// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * send-uevent.c - send forged uevents to the kernel's uevent group from
 * user space, as an attacker would.  capi-devd must drop them (the sender
 * is not port 0), and a flood must overflow a small receive buffer.
 * Usage: send-uevent COUNT UNIT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/netlink.h>

int main(int argc, char **argv)
{
	struct sockaddr_nl to = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	char msg[512];
	int fd, i, len, count, unit;

	if (argc != 3) {
		fprintf(stderr, "usage: send-uevent COUNT UNIT\n");
		return 2;
	}
	count = atoi(argv[1]);
	unit = atoi(argv[2]);
	len = snprintf(msg, sizeof(msg),
		       "add@/devices/virtual/tty/capi!%d%cACTION=add%c"
		       "DEVPATH=/devices/virtual/tty/capi!%d%cSUBSYSTEM=tty%c"
		       "MAJOR=240%cMINOR=%d%cDEVNAME=capi/%d%cSEQNUM=1",
		       unit, 0, 0, unit, 0, 0, 0, unit, 0, unit, 0);
	fd = socket(AF_NETLINK, SOCK_DGRAM, NETLINK_KOBJECT_UEVENT);
	if (fd < 0) {
		perror("send-uevent: socket");
		return 1;
	}
	for (i = 0; i < count; i++) {
		if (sendto(fd, msg, (size_t)len + 1, 0, (struct sockaddr *)&to,
			   sizeof(to)) < 0) {
			perror("send-uevent: sendto");
			return 1;
		}
	}
	close(fd);
	return 0;
}
