// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * capi-probe.c - how long a CAPI tty waits for its devices.txt name.
 *
 *   capi-probe [-d DEV] [-s SEQ-FILE] LATENCY-FILE
 *
 * Listens to the kernel's uevent group (as the daemons do, at the same
 * moment) and watches DEV (default /dev) with inotify.  For every add of
 * a tty capi/N it takes the time it read the uevent; when DEV/capi20.NN
 * next appears (created, or renamed into place), the difference is one
 * latency, written in microseconds to LATENCY-FILE, one a line (and with
 * -s, "SEQNUM READ_NS NAMED_NS" to SEQ-FILE: the add's uevent SEQNUM and
 * the two CLOCK_MONOTONIC readings, for vm-bench's breakdown).  It runs
 * until SIGTERM or SIGINT, then prints one line:
 *
 *   probe: adds A removes R named K unresolved U unnamed N dangling D
 *          converge_ms C first_to_last_ms T overflows O
 *
 * unresolved: names that did not resolve to their tty when they appeared
 * (made after the tty had gone); unnamed: adds that no name answered (a
 * namer may rightly skip the add of a tty that is already gone);
 * dangling: capi20.NN names in DEV at the end whose tty is gone or which
 * do not resolve to it; converge_ms: from the last CAPI tty uevent to the
 * last change of a capi20.NN name after it (0 if none came after).
 * The probe runs SCHED_FIFO when it may, so its clock readings are not
 * late behind the daemon it watches; it does no work of its own between
 * events.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <linux/netlink.h>

#define MAX_UNITS 4096
#define QLEN 16		/* adds of one unit the daemon may be behind by */

/*
 * A daemon that falls behind may get the add of round r+1 of unit N before
 * it has named round r's: its names come in the order of the adds, so each
 * name that appears answers the oldest add of its unit still waiting.
 */
struct unit {
	bool live;			/* added and not removed */
	dev_t dev;
	unsigned int head, len;		/* the adds waiting for a name */
	long long t_add[QLEN];		/* ns, CLOCK_MONOTONIC */
	unsigned long long seq[QLEN];	/* their SEQNUMs */
};

static struct unit units[MAX_UNITS];
static const char *devdir = "/dev";
static int devfd = -1;
static FILE *latf, *seqf;
static unsigned long adds, removes, named, unresolved, unnamed, overflows;
static long long t_first, t_last_uevent, t_last_name;
static volatile sig_atomic_t stop;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void on_signal(int sig)
{
	stop = sig;
}

/* "capi20.NN" (N as the contract prints it) -> N, or -1. */
static int legacy_unit(const char *name)
{
	char *end;
	long n;

	if (strncmp(name, "capi20.", 7) || !name[7] || name[7] == '-')
		return -1;
	n = strtol(name + 7, &end, 10);
	if (*end || n < 0 || n >= MAX_UNITS)
		return -1;
	return (int)n;
}

static bool resolves(int n)
{
	char name[32];
	struct stat st;

	snprintf(name, sizeof(name), "capi20.%02d", n);
	return fstatat(devfd, name, &st, 0) == 0 && S_ISCHR(st.st_mode) &&
	       st.st_rdev == units[n].dev;
}

/* A capi20.NN name appeared at t: the answer to unit n's oldest add. */
static void name_appeared(int n, long long t)
{
	struct unit *u = &units[n];

	if (!u->len)
		return;		/* not ours to time: no add waits */
	named++;
	if (!resolves(n))
		unresolved++;	/* made after its tty had gone */
	fprintf(latf, "%lld\n", (t - u->t_add[u->head]) / 1000);
	if (seqf)
		fprintf(seqf, "%llu %lld %lld\n", u->seq[u->head],
			u->t_add[u->head], t);
	u->head = (u->head + 1) % QLEN;
	u->len--;
}

static void uevent(char *buf, size_t len, long long t)
{
	const char *action = NULL, *subsys = NULL, *devname = NULL;
	unsigned int maj = 0, min = 0;
	unsigned long long seq = 0;
	size_t off = strnlen(buf, len) + 1;	/* "add@/devices/..." */
	struct unit *u;
	char *end;
	long n;

	while (off < len) {
		char *kv = buf + off;

		off += strnlen(kv, len - off) + 1;
		if (!strncmp(kv, "ACTION=", 7))
			action = kv + 7;
		else if (!strncmp(kv, "SUBSYSTEM=", 10))
			subsys = kv + 10;
		else if (!strncmp(kv, "DEVNAME=", 8))
			devname = kv + 8;
		else if (!strncmp(kv, "MAJOR=", 6))
			maj = (unsigned int)strtoul(kv + 6, NULL, 10);
		else if (!strncmp(kv, "MINOR=", 6))
			min = (unsigned int)strtoul(kv + 6, NULL, 10);
		else if (!strncmp(kv, "SEQNUM=", 7))
			seq = strtoull(kv + 7, NULL, 10);
	}
	if (!action || !subsys || !devname || strcmp(subsys, "tty") ||
	    strncmp(devname, "capi/", 5))
		return;
	n = strtol(devname + 5, &end, 10);
	if (*end || end == devname + 5 || n < 0 || n >= MAX_UNITS)
		return;
	u = &units[n];
	if (!t_first)
		t_first = t;
	t_last_uevent = t;
	if (!strcmp(action, "add")) {
		adds++;
		if (u->len == QLEN) {	/* QLEN adds behind: give one up */
			fprintf(latf, "unnamed %ld\n", n);
			unnamed++;
			u->head = (u->head + 1) % QLEN;
			u->len--;
		}
		u->live = true;
		u->dev = makedev(maj, min);
		u->t_add[(u->head + u->len) % QLEN] = t;
		u->seq[(u->head + u->len) % QLEN] = seq;
		u->len++;
	} else if (!strcmp(action, "remove")) {
		removes++;
		u->live = false;
	}
}

static void read_uevents(int nl)
{
	char buf[8192];
	ssize_t len;

	while ((len = recv(nl, buf, sizeof(buf) - 1, MSG_DONTWAIT)) >= 0 ||
	       errno == ENOBUFS) {
		if (len < 0) {
			overflows++;
			continue;
		}
		buf[len] = '\0';
		uevent(buf, (size_t)len, now_ns());
	}
}

static void read_inotify(int in)
{
	char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t len;
	long long t;
	int n;

	while ((len = read(in, buf, sizeof(buf))) > 0) {
		char *p = buf;

		t = now_ns();
		while (p < buf + len) {
			struct inotify_event *ev = (struct inotify_event *)p;

			p += sizeof(*ev) + ev->len;
			if (ev->mask & IN_Q_OVERFLOW) {
				overflows++;
				continue;
			}
			if (!ev->len || (n = legacy_unit(ev->name)) < 0)
				continue;
			t_last_name = t;
			if (ev->mask & (IN_CREATE | IN_MOVED_TO))
				name_appeared(n, t);
		}
	}
}

/* capi20.NN names left at the end that name no live tty. */
static unsigned long dangling(void)
{
	unsigned long d = 0;
	struct dirent *de;
	DIR *dir = opendir(devdir);
	int n;

	if (!dir)
		return ULONG_MAX;
	while ((de = readdir(dir))) {
		n = legacy_unit(de->d_name);
		if (n < 0)
			continue;
		if (!units[n].live || !resolves(n)) {
			fprintf(stderr, "probe: dangling %s/%s\n", devdir,
				de->d_name);
			d++;
		}
	}
	closedir(dir);
	return d;
}

int main(int argc, char **argv)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	struct sched_param sp = { .sched_priority = 10 };
	struct sigaction act = { .sa_handler = on_signal };
	struct pollfd pfd[2];
	int nl, in, c, rcvbuf = 64 << 20, n;

	while ((c = getopt(argc, argv, "d:s:")) != -1) {
		if (c == 'd') {
			devdir = optarg;
		} else if (c == 's') {
			seqf = fopen(optarg, "w");
			if (!seqf) {
				perror(optarg);
				return 1;
			}
		} else {
			optind = argc;	/* usage */
			break;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "usage: capi-probe [-d DEV] [-s SEQ-FILE] LATENCY-FILE\n");
		return 2;
	}
	latf = fopen(argv[optind], "w");
	if (!latf) {
		perror(argv[optind]);
		return 1;
	}
	sigaction(SIGTERM, &act, NULL);
	sigaction(SIGINT, &act, NULL);
	sched_setscheduler(0, SCHED_FIFO, &sp);

	nl = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);
	if (nl < 0 || bind(nl, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("probe: uevent socket");
		return 1;
	}
	if (setsockopt(nl, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		setsockopt(nl, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	devfd = open(devdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (devfd < 0 || in < 0 ||
	    inotify_add_watch(in, devdir, IN_CREATE | IN_MOVED_TO | IN_ATTRIB |
			      IN_DELETE | IN_MOVED_FROM) < 0) {
		perror("probe: inotify");
		return 1;
	}
	pfd[0] = (struct pollfd){ .fd = nl, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = in, .events = POLLIN };
	printf("probe: ready\n");
	fflush(stdout);

	while (!stop) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			perror("probe: poll");
			return 1;
		}
		/* The uevent first: a name that came with it is matched. */
		read_uevents(nl);
		read_inotify(in);
	}
	read_uevents(nl);
	read_inotify(in);
	for (n = 0; n < MAX_UNITS; n++) {
		if (units[n].len)
			fprintf(latf, "unnamed %d x%u\n", n, units[n].len);
		unnamed += units[n].len;
	}
	fclose(latf);
	if (seqf)
		fclose(seqf);
	printf("probe: adds %lu removes %lu named %lu unresolved %lu unnamed %lu "
	       "dangling %lu converge_ms %lld first_to_last_ms %lld "
	       "overflows %lu\n",
	       adds, removes, named, unresolved, unnamed, dangling(),
	       t_last_name > t_last_uevent ?
			(t_last_name - t_last_uevent) / 1000000 : 0,
	       (t_last_uevent - t_first) / 1000000, overflows);
	return 0;
}
