// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * watch-names.c - print every name created in or moved into a directory,
 * one a line, for test/replay-foreign.sh to see the temporary names that
 * capi-devd uses.  Prints "ready" first; stops after MILLISECONDS or at
 * SIGTERM.
 * Usage: watch-names DIR MILLISECONDS
 */
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/inotify.h>

int main(int argc, char **argv)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	struct pollfd p;
	ssize_t len;
	char *e;

	if (argc != 3) {
		fprintf(stderr, "usage: watch-names DIR MILLISECONDS\n");
		return 2;
	}
	p.fd = inotify_init1(IN_CLOEXEC);
	p.events = POLLIN;
	if (p.fd < 0 || inotify_add_watch(p.fd, argv[1],
					  IN_CREATE | IN_MOVED_TO) < 0) {
		perror(argv[1]);
		return 2;
	}
	signal(SIGTERM, SIG_DFL);
	printf("ready\n");
	fflush(stdout);
	while (poll(&p, 1, atoi(argv[2])) > 0) {
		len = read(p.fd, buf, sizeof(buf));
		if (len <= 0)
			break;
		for (e = buf; e < buf + len;
		     e += sizeof(struct inotify_event) +
			  ((struct inotify_event *)e)->len) {
			struct inotify_event *ev = (struct inotify_event *)e;

			if (ev->len)
				printf("%s\n", ev->name);
		}
		fflush(stdout);
	}
	return 0;
}
