// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * replay-floor.c - the least a namer must do for the devtmpfs-like replay
 * of bench/replay-bench.sh, with nothing else around it.
 *
 *   replay-floor DEVDIR ROUNDS [links|nodes]
 *
 * Per round, for the 256 units, an add then a remove of each:
 *   links (the devtmpfs-like replay): an add is a symlink at a temporary
 *     name renamed to DEVDIR/capi20.NN (-> capi/N), a remove one unlink;
 *   nodes (the static tree, where the namer makes the nodes): an add is
 *     mknod DEVDIR/capi/N (char 240:N, mode 0660), its chgrp (group 20)
 *     and the symlink DEVDIR/capi20.NN made at its name; a remove unlinks
 *     both.  DEVDIR/capi must exist.
 * Prints "floor: EVENTS events cpu_ns NS wall_ns NS" with the CPU time of
 * the loop (CLOCK_PROCESS_CPUTIME_ID) and its wall time.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#define UNITS 256
#define TTY_MAJOR 240
#define TTY_GROUP 20	/* replay-bench.sh's --group for the static tree */

static char name[UNITS][16], target[UNITS][16];

static int links_round(int dfd)
{
	int n;

	for (n = 0; n < UNITS; n++)
		if (symlinkat(target[n], dfd, ".#floor.tmp") < 0 ||
		    renameat(dfd, ".#floor.tmp", dfd, name[n]) < 0)
			return -1;
	for (n = 0; n < UNITS; n++)
		if (unlinkat(dfd, name[n], 0) < 0)
			return -1;
	return 0;
}

static int nodes_round(int dfd)
{
	int n;

	for (n = 0; n < UNITS; n++)
		if (mknodat(dfd, target[n], S_IFCHR | 0660,
			    makedev(TTY_MAJOR, n)) < 0 ||
		    fchownat(dfd, target[n], (uid_t)-1, TTY_GROUP,
			     AT_SYMLINK_NOFOLLOW) < 0 ||
		    symlinkat(target[n], dfd, name[n]) < 0)
			return -1;
	for (n = 0; n < UNITS; n++)
		if (unlinkat(dfd, name[n], 0) < 0 ||
		    unlinkat(dfd, target[n], 0) < 0)
			return -1;
	return 0;
}

static long long ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 3 ? argv[3] : "links";
	int (*round)(int) = strcmp(mode, "nodes") ? links_round : nodes_round;
	long long c0, w0;
	int dfd, rounds, r, n;

	if (argc < 3 || argc > 4 || (rounds = atoi(argv[2])) < 1 ||
	    (strcmp(mode, "links") && strcmp(mode, "nodes"))) {
		fprintf(stderr, "usage: replay-floor DEVDIR ROUNDS [links|nodes]\n");
		return 2;
	}
	dfd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		perror(argv[1]);
		return 1;
	}
	umask(0);
	for (n = 0; n < UNITS; n++) {
		snprintf(name[n], sizeof(name[n]), "capi20.%02d", n);
		snprintf(target[n], sizeof(target[n]), "capi/%d", n);
	}
	c0 = ns(CLOCK_PROCESS_CPUTIME_ID);
	w0 = ns(CLOCK_MONOTONIC);
	for (r = 0; r < rounds; r++) {
		if (round(dfd) < 0) {
			perror("floor");
			return 1;
		}
	}
	printf("floor: %d events cpu_ns %lld wall_ns %lld\n",
	       rounds * 2 * UNITS, ns(CLOCK_PROCESS_CPUTIME_ID) - c0,
	       ns(CLOCK_MONOTONIC) - w0);
	return 0;
}
