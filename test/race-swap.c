// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * race-swap.c - a concurrent writer in a dev root, for test/race.sh: swap
 * names as fast as possible while capi-devd works on them.
 *
 * Usage: race-swap DIR MILLISECONDS NAME:PARK[:BAIT]...
 * Each pair of names (relative to DIR) is exchanged atomically
 * (RENAME_EXCHANGE), over and over, until the time is up or SIGTERM.
 * When one of the two is missing: with BAIT, a symlink to BAIT is made at
 * the missing name (the daemon removed our bait, as it may); without, the
 * entry that is left moves to the other name, so it comes and goes.
 * Prints "ready" on stdout when it starts, the number of swaps at the end.
 *
 * When the time is up it stops swapping but does not exit: it waits for
 * SIGTERM (or its parent's death), so that the caller's kill reaches this
 * process.  A process that has exited and been reaped frees its pid, and
 * on a busy machine (pid_max 32768, a kernel build beside) another
 * process soon has it: a kill by pid then hits that one instead.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

struct pair {
	char *name, *park, *bait;
};

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	struct pair *p;
	sigset_t term, old;
	long long end, swaps = 0;
	int dfd, i, n;

	if (argc < 4) {
		fprintf(stderr, "usage: race-swap DIR MS NAME:PARK[:BAIT]...\n");
		return 2;
	}
	dfd = open(argv[1], O_RDONLY | O_DIRECTORY);
	if (dfd < 0) {
		perror(argv[1]);
		return 2;
	}
	end = now_ms() + atoll(argv[2]);
	n = argc - 3;
	p = calloc((size_t)n, sizeof(*p));
	if (!p)
		return 2;
	for (i = 0; i < n; i++) {
		p[i].name = argv[i + 3];
		p[i].park = strchr(p[i].name, ':');
		if (!p[i].park) {
			fprintf(stderr, "race-swap: %s: no PARK\n", p[i].name);
			return 2;
		}
		*p[i].park++ = '\0';
		p[i].bait = strchr(p[i].park, ':');
		if (p[i].bait)
			*p[i].bait++ = '\0';
	}
	signal(SIGTERM, on_term);
	/* Never outlive the test that started us, whatever happens to it. */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() == 1)
		return 2;
	printf("ready\n");
	fflush(stdout);

	while (!stop && now_ms() < end) {
		for (i = 0; i < n; i++) {
			if (renameat2(dfd, p[i].name, dfd, p[i].park,
				      RENAME_EXCHANGE) == 0) {
				swaps++;
				continue;
			}
			if (errno != ENOENT)
				continue;
			if (p[i].bait) {
				symlinkat(p[i].bait, dfd, p[i].name);
				symlinkat(p[i].bait, dfd, p[i].park);
			} else if (renameat2(dfd, p[i].name, dfd, p[i].park,
					     RENAME_NOREPLACE) < 0) {
				renameat2(dfd, p[i].park, dfd, p[i].name,
					  RENAME_NOREPLACE);
			}
		}
	}
	printf("%lld\n", swaps);
	fflush(stdout);
	/* Time is up: wait to be stopped (SIGALRM ends it after an hour). */
	alarm(3600);
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigprocmask(SIG_BLOCK, &term, &old);
	while (!stop)
		sigsuspend(&old);
	return 0;
}
