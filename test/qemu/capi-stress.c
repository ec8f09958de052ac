/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * capi-stress - many processes abuse the CAPI ttys at once while capisim
 * floods them and misbehaves; nothing may hang, lose promised data or
 * keep memory.
 *
 * Runs inside the test VM with kernelcapi, capisim (nbchan >= CALLS + 1),
 * ppp_async (N_PPP) and debugfs.  Linked statically:
 *
 *	gcc -static -O2 -Wall -o capi-stress capi-stress.c
 *
 * Usage: capi-stress [-n CALLS] [-t SECONDS] [-b BOUND] [-c CONTROLLER]
 *   CALLS    echo calls with a tty each (default 8, at least 6)
 *   SECONDS  how long the abuse runs (default 40)
 *   BOUND    seconds any one system call may take (default 40: close()
 *            of a tty whose output is stopped (TCOOFF) waits up to the
 *            port's closing_wait, 30 s, for it to drain, as on any tty)
 *
 * One application (this process) places CALLS echo calls on capisim with
 * CAPIFLAG_HIGHJACKING, so that each has a tty /dev/capi/N, and answers
 * its control messages all along.  Each call gets a worker process:
 *   good     writes a known byte stream and reads it back (raw mode):
 *            every byte must come back, in order (the echo promises it)
 *   noread   writes, never reads; capisim floods it
 *   slow     reads a few bytes at a time with pauses, under a flood
 *   ldisc    switches n_tty <-> N_PPP, TCOOFF/TCOON, writes, reads
 *            (TCOON before each switch: TIOCSETD waits, with no limit,
 *            for the output to drain, as on every tty)
 *   reopen   opens, writes, TCOOFF, closes, again and again (also
 *            TIOCVHANGUP now and then)
 *   hangup   writes and reads while the network hangs the call up
 *            (debugfs hangup) and the application dials it again
 * The rest of the calls get the roles again in this order.  Meanwhile
 * the application injects faults through debugfs: floods, stray
 * indications (DATA_B3_IND for no NCCI, DISCONNECT_IND for no PLCI),
 * malformed DATA_B3_INDs and "send queue full".
 *
 * Every worker arms alarm(BOUND) around each system call: one that does
 * not return in time ends the worker with status 3 ("stuck").  At the end,
 * once the good streams are over (all back, or BOUND seconds without a
 * byte), the workers are stopped (SIGTERM, then BOUND seconds to exit); one
 * that is still there is reported with its state and wchan (D: in the
 * kernel, uninterruptible).  Then every call is cleared and capisim must
 * list no connection and hold no data.
 *
 * Checks known to fail on the current kernel series are listed in
 * known_failing[] with the reason: their "not ok" is a TODO until the
 * fix lands, and an "ok" of one of them (TODO passed) tells that its
 * entry can go.  Output is TAP; exit status 0 when all passed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/capi.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "../tap.h"
#include "capimsg.h"

#ifndef N_PPP
#define N_PPP 3
#endif

#define MAXCALLS	32
#define GOOD_BYTES	(48 * 1024)

/*
 * Checks that fail on the current kernel series, by id, and why.  The
 * lead removes an entry once the fix is merged (see the file comment).
 */
static const struct {
	const char *id, *why;
} known_failing[] = {
	/* { "id", "why" }, */
	{ NULL, NULL },
};

static const char *todo_of(const char *id)
{
	unsigned int i;

	for (i = 0; known_failing[i].id; i++)
		if (!strcmp(known_failing[i].id, id))
			return known_failing[i].why;
	return NULL;
}

/* check() whose failure is a TODO when @id is a known failing check */
__attribute__((format(printf, 3, 4)))
static bool check_id(const char *id, bool cond, const char *fmt, ...)
{
	const char *why = todo_of(id);
	va_list ap;

	tap_n++;
	if (!cond && !why)
		tap_failed++;
	printf("%s %d - [%s] ", cond ? "ok" : "not ok", tap_n, id);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (why)
		printf(" # TODO %s", why);
	putchar('\n');
	fflush(stdout);
	return cond;
}

enum role { GOOD, NOREAD, SLOW, LDISC, REOPEN, HANGUP, NROLES };
static const char * const role_name[] = {
	"good", "noread", "slow", "ldisc", "reopen", "hangup",
};

struct call {
	enum role role;
	uint32_t plci, ncci;
	int unit;
	pid_t pid;
	int status;
	bool b3;		/* B3 connection up */
	bool gone;		/* released, to be dialled again (hangup role) */
	long long told;		/* the system call last reported */
};

static struct call calls[MAXCALLS];
/*
 * Shared between the application and the workers: the tty unit of each
 * call (a redial changes it), and since when its worker is in a system
 * call (0: it is not), for the watchdog; for a good worker, when its echo
 * last brought bytes back and whether its stream is over.
 */
struct shared {
	int unit;
	long long since;
	char name[16];
	long long progress;
	int done;
};
static volatile struct shared *units;
static int ncalls = 8, seconds = 40, bound = 40;
static int me = -1;		/* the worker's call, in a worker */
static unsigned int ctrl = 1;
static int capifd;
static uint16_t applid, msgnum = 1;
static char dbg[128];
static volatile sig_atomic_t stop;
static const char *cur_syscall = "?";
static unsigned long n_stray_data, n_stray_plci, n_flood, n_hangup,
	n_malform, n_sqfull, n_redial;

/* -------- bounded system calls (workers) -------- */

static void on_alarm(int sig)
{
	char msg[128];
	int n;

	(void)sig;
	n = snprintf(msg, sizeof(msg), "# worker %d (%s): %s did not return within %d s\n",
		     me, me >= 0 ? role_name[calls[me].role] : "-",
		     cur_syscall, bound);
	if (write(2, msg, n) < 0)
		_exit(3);
	_exit(3);
}

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

/* a system call that took long, but returned: a figure */
static void slow_call(const char *name, long long ms)
{
	printf("# worker %d (%s): %s took %lld.%01lld s\n", me,
	       role_name[calls[me].role], name, ms / 1000, ms % 1000 / 100);
	fflush(stdout);
}

#define BOUNDED(nm_, expr) ({ \
	__typeof__(expr) r_; \
	long long t_ = now_ms(); \
	cur_syscall = (nm_); \
	strncpy((char *)units[me].name, (nm_), sizeof(units[me].name) - 1); \
	units[me].since = t_; \
	alarm(bound); \
	r_ = (expr); \
	alarm(0); \
	units[me].since = 0; \
	if (now_ms() - t_ > 5000) \
		slow_call((nm_), now_ms() - t_); \
	r_; \
})

static int tty_open(struct call *c, int flags)
{
	char path[64];

	snprintf(path, sizeof(path), "/dev/capi/%d", units[c - calls].unit);
	return BOUNDED("open", open(path, O_RDWR | O_NOCTTY | flags));
}

static void tty_raw(int fd)
{
	struct termios t;

	if (BOUNDED("tcgetattr", tcgetattr(fd, &t)) == 0) {
		cfmakeraw(&t);
		BOUNDED("tcsetattr", tcsetattr(fd, TCSANOW, &t));
	}
}

static void pattern(unsigned char *b, size_t off, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = (off + i) * 131 + ((off + i) >> 8);
}

/*
 * good: the echo must return every byte written, in order.  Exit 0 when
 * it did, 1 when data was lost or changed, 2 when it could not run.
 */
static int worker_good(struct call *c)
{
	unsigned char out[512], in[1024], want[1024];
	size_t sent = 0, got = 0;
	long long idle = now_ms();
	struct pollfd p;
	ssize_t n;
	int fd;

	fd = tty_open(c, O_NONBLOCK);
	if (fd < 0)
		return 2;
	tty_raw(fd);
	while (got < GOOD_BYTES && now_ms() - idle < bound * 1000LL) {
		p.fd = fd;
		p.events = POLLIN | (sent < GOOD_BYTES && sent - got < 4096 ?
				     POLLOUT : 0);
		if (BOUNDED("poll", poll(&p, 1, 200)) <= 0)
			continue;
		if (p.revents & POLLOUT) {
			n = GOOD_BYTES - sent < sizeof(out) ?
			    GOOD_BYTES - sent : sizeof(out);
			pattern(out, sent, n);
			n = BOUNDED("write", write(fd, out, n));
			if (n > 0)
				sent += n;
		}
		if (p.revents & POLLIN) {
			n = BOUNDED("read", read(fd, in, sizeof(in)));
			if (n > 0) {
				pattern(want, got, n);
				if (got + n > sent || memcmp(in, want, n)) {
					fprintf(stderr, "good: byte %zu..%zu differs\n",
						got, got + n);
					return 1;
				}
				got += n;
				idle = now_ms();
				units[me].progress = idle;
			}
		}
		if (p.revents & (POLLHUP | POLLERR))
			break;
	}
	printf("# good /dev/capi/%d: %zu of %d bytes written, %zu back\n",
	       c->unit, sent, GOOD_BYTES, got);
	fflush(stdout);
	units[me].done = 1;
	/* finish cleanly, then wait for the stop */
	BOUNDED("close", close(fd));
	while (!stop)
		pause();
	return got == GOOD_BYTES ? 0 : 1;
}

static void worker_abuse(struct call *c)
{
	unsigned char buf[2048];
	unsigned int i = 0;
	int fd, disc, off;

	memset(buf, 'x', sizeof(buf));
	fd = tty_open(c, O_NONBLOCK);
	if (fd >= 0)
		tty_raw(fd);
	while (!stop) {
		i++;
		if (fd < 0) {
			usleep(100000);
			fd = tty_open(c, O_NONBLOCK);
			if (fd >= 0)
				tty_raw(fd);
			continue;
		}
		switch (c->role) {
		case NOREAD:
			BOUNDED("write", write(fd, buf, 1 + i % sizeof(buf)));
			usleep(20000);
			break;
		case SLOW:
			if (i % 4 == 0)
				BOUNDED("write", write(fd, buf, 64));
			BOUNDED("read", read(fd, buf, 7));
			usleep(50000);
			break;
		case LDISC:
			/*
			 * TIOCSETD waits, with no limit, for the output to
			 * drain (tty_ioctl(): tty_wait_until_sent(tty, 0)),
			 * as on any tty: output stopped by this worker's own
			 * TCOOFF would never drain.  Restart it first.
			 */
			BOUNDED("TCOON", tcflow(fd, TCOON));
			disc = i % 2 ? N_PPP : N_TTY;
			BOUNDED("TIOCSETD", ioctl(fd, TIOCSETD, &disc));
			if (i % 3)
				BOUNDED("TCOOFF", tcflow(fd, TCOOFF));
			BOUNDED("write", write(fd, buf, 100));
			BOUNDED("read", read(fd, buf, sizeof(buf)));
			usleep(10000);
			break;
		case REOPEN:
			BOUNDED("write", write(fd, buf, 300));
			if (i % 2)
				BOUNDED("TCOOFF", tcflow(fd, TCOOFF));
			if (i % 7 == 0)
				BOUNDED("TIOCVHANGUP", ioctl(fd, TIOCVHANGUP));
			BOUNDED("close", close(fd));
			fd = -1;
			off = i % 3 ? O_NONBLOCK : 0;
			fd = tty_open(c, off);
			if (fd >= 0 && off == 0) {
				/* blocking: bounded by alarm() all the same */
				BOUNDED("write", write(fd, buf, 10));
				BOUNDED("close", close(fd));
				fd = tty_open(c, O_NONBLOCK);
			}
			break;
		default:	/* HANGUP */
			if (BOUNDED("write", write(fd, buf, 200)) < 0 &&
			    errno == EIO) {
				BOUNDED("close", close(fd));
				fd = -1;
				break;
			}
			BOUNDED("read", read(fd, buf, sizeof(buf)));
			usleep(20000);
			break;
		}
	}
	if (fd >= 0)
		BOUNDED("close", close(fd));
}

static pid_t start_worker(struct call *c)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	me = c - calls;
	signal(SIGALRM, on_alarm);
	signal(SIGTERM, on_term);
	close(capifd);
	if (c->role == GOOD)
		_exit(worker_good(c));
	worker_abuse(c);
	_exit(0);
}

/* -------- the application -------- */

static void start_msg(struct msg *m, uint8_t cmd, uint8_t sub, uint32_t adr)
{
	msg_head(m, applid, msgnum++, cmd, sub, adr);
}

static int send_msg(struct msg *m)
{
	return msg_write(capifd, m, 0);
}

static void send_simple(uint8_t cmd, uint8_t sub, uint32_t adr)
{
	struct msg m;

	start_msg(&m, cmd, sub, adr);
	if (sub == REQ)
		put8(&m, 0);	/* additional info / NCPI */
	send_msg(&m);
}

static void connect_req(int i)
{
	char num[16];
	struct msg m;
	int n;

	n = snprintf(num, sizeof(num), "%c556%04d", 0x80, i);
	start_msg(&m, C_CONNECT, REQ, ctrl);
	put16(&m, 2);
	put8(&m, n);
	memcpy(m.b + m.len, num, n);
	m.len += n;
	for (n = 0; n < 8; n++)	/* calling, subaddresses, B protocol ... */
		put8(&m, 0);
	send_msg(&m);
}

static struct call *by_plci(uint32_t adr)
{
	int i;

	for (i = 0; i < ncalls; i++)
		if (calls[i].plci == (adr & 0xffff))
			return &calls[i];
	return NULL;
}

static int connecting = -1;	/* the call being dialled */

/* One message for the application: answer it.  0 on timeout. */
static int pump(int ms)
{
	struct call *c;
	struct msg m;
	uint32_t adr;

	if (msg_read_within(capifd, &m, ms) != 1)
		return 0;
	adr = get32(m.b + 8);
	c = by_plci(adr);
	switch (m.b[4] << 8 | m.b[5]) {
	case C_CONNECT << 8 | CONF:
		if (connecting >= 0 && !get16(m.b + 12))
			calls[connecting].plci = adr;
		break;
	case C_CONNECT_ACTIVE << 8 | IND:
		send_simple(C_CONNECT_ACTIVE, RESP, adr);
		if (c) {
			start_msg(&m, C_CONNECT_B3, REQ, c->plci);
			put8(&m, 0);
			send_msg(&m);
		}
		break;
	case C_CONNECT_B3 << 8 | CONF:
		if (c && !get16(m.b + 12))
			c->ncci = adr;
		break;
	case C_CONNECT_B3_ACTIVE << 8 | IND:
		send_simple(C_CONNECT_B3_ACTIVE, RESP, adr);
		if (c) {
			c->ncci = adr;
			c->b3 = true;
		}
		break;
	case C_DISCONNECT_B3 << 8 | IND:
		send_simple(C_DISCONNECT_B3, RESP, adr);
		if (c)
			c->b3 = false;
		break;
	case C_DISCONNECT << 8 | IND:
		send_simple(C_DISCONNECT, RESP, adr);
		if (c) {
			c->gone = true;
			c->b3 = false;
			c->plci = 0;
		}
		break;
	case C_DATA_B3 << 8 | IND:
		/* stray DATA_B3_IND for no NCCI: answered like any */
		start_msg(&m, C_DATA_B3, RESP, adr);
		put16(&m, get16(m.b + 18));
		send_msg(&m);
		break;
	default:
		break;
	}
	return 1;
}

/* Dial call @i and bring its B3 connection up; 0 when it is. */
static int dial(int i)
{
	struct call *c = &calls[i];
	long long t0 = now_ms();

	c->plci = c->ncci = 0;
	c->b3 = c->gone = false;
	connecting = i;
	connect_req(i);
	while (!c->b3 && now_ms() - t0 < bound * 1000LL)
		pump(100);
	connecting = -1;
	if (!c->b3)
		return -1;
	c->unit = ioctl(capifd, CAPI_NCCI_GETUNIT, &c->ncci);
	units[i].unit = c->unit;
	return c->unit < 0 ? -1 : 0;
}

/* One fault, chosen by @k, on a call that is not the good one. */
static void inject(unsigned int k)
{
	struct call *c = &calls[1 + k % (ncalls - 1)];

	if (!c->b3 || c->role == GOOD)
		return;
	switch (k % 8) {
	case 0:
	case 1:
	case 2:
		if (!dbg_write(dbg, "flood", "0x%x %u %u", c->ncci, 200 + k % 300,
			       16 + k % 1000))
			n_flood++;
		break;
	case 3:
		if (!dbg_write(dbg, "stray", "%u 0x%x", applid,
			       (c->ncci & 0xffff) | 0x7fff0000))
			n_stray_data++;
		if (!dbg_write(dbg, "stray", "%u 0x%x", applid, ctrl | 0xfe00))
			n_stray_plci++;
		break;
	case 4:
		if (!dbg_write(dbg, "malform", "0x%x %s", c->ncci,
			       k % 3 ? "datalen" : "short"))
			n_malform++;
		break;
	case 5:
		if (!dbg_write(dbg, "sendqueuefull", "0x%x %u", c->ncci, 3))
			n_sqfull++;
		break;
	default:
		if (c->role == HANGUP && !dbg_write(dbg, "hangup", "0x%x", c->plci))
			n_hangup++;
		break;
	}
}

static char proc_state(pid_t pid, char *wchan, size_t size)
{
	char path[64], buf[512], *p;
	char st = '?';
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (f) {
		if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')))
			st = p[2];
		fclose(f);
	}
	snprintf(path, sizeof(path), "/proc/%d/wchan", pid);
	wchan[0] = '\0';
	f = fopen(path, "r");
	if (f) {
		if (!fgets(wchan, size, f))
			wchan[0] = '\0';
		fclose(f);
	}
	return st;
}

/*
 * A worker in one system call for 10 s: its state (D: uninterruptible),
 * where it waits (wchan, and the kernel stack when /proc has it), once
 * per system call.
 */
static void watch_workers(void)
{
	char wchan[128], path[64], line[256];
	long long now = now_ms(), since;
	struct call *c;
	char st;
	FILE *f;
	int i, n;

	for (i = 0; i < ncalls; i++) {
		c = &calls[i];
		since = units[i].since;
		if (c->pid <= 0 || !since || now - since < 10000 ||
		    c->told == since)
			continue;
		c->told = since;
		st = proc_state(c->pid, wchan, sizeof(wchan));
		diag("worker %d (%s, pid %d) in %s for %lld s: state %c, wchan %s",
		     i, role_name[c->role], c->pid, units[i].name,
		     (now - since) / 1000, st, wchan);
		snprintf(path, sizeof(path), "/proc/%d/stack", c->pid);
		f = fopen(path, "r");
		for (n = 0; f && n < 16 && fgets(line, sizeof(line), f); n++)
			diag("  %.*s", (int)strcspn(line, "\n"), line);
		if (f)
			fclose(f);
	}
}

int main(int argc, char **argv)
{
	unsigned int flags = CAPIFLAG_HIGHJACKING, k = 0;
	capi_register_params rp = { 0 };
	int i, opt, r, up, stuck = 0, lost = 0, hung = 0;
	long long t_end, t_next = 0;
	char wchan[128];
	struct msg m;

	while ((opt = getopt(argc, argv, "n:t:b:c:")) != -1) {
		switch (opt) {
		case 'n': ncalls = atoi(optarg); break;
		case 't': seconds = atoi(optarg); break;
		case 'b': bound = atoi(optarg); break;
		case 'c': ctrl = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: %s [-n CALLS] [-t SECONDS] [-b BOUND] [-c CONTROLLER]\n",
				argv[0]);
			return 2;
		}
	}
	if (ncalls < NROLES || ncalls > MAXCALLS)
		ncalls = 8;
	snprintf(dbg, sizeof(dbg), "/sys/kernel/debug/capisim/ctr%u", ctrl);
	setvbuf(stdout, NULL, _IOLBF, 0);
	units = mmap(NULL, MAXCALLS * sizeof(*units), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (units == MAP_FAILED) {
		fail("mmap of the shared unit table");
		return done_testing();
	}

	capifd = open("/dev/capi20", O_RDWR);
	rp.level3cnt = ncalls;
	rp.datablkcnt = 7;
	rp.datablklen = 2048;
	r = capifd < 0 ? -1 : ioctl(capifd, CAPI_REGISTER, &rp);
	if (!check(r > 0, "CAPI_REGISTER: ApplID %d", r))
		return done_testing();
	applid = r;
	check(ioctl(capifd, CAPI_SET_FLAGS, &flags) == 0,
	      "CAPI_SET_FLAGS CAPIFLAG_HIGHJACKING");
	start_msg(&m, C_LISTEN, REQ, ctrl);
	put32(&m, 0);
	put32(&m, 0);		/* no incoming calls */
	put32(&m, 0);
	put8(&m, 0);
	put8(&m, 0);
	send_msg(&m);
	pump(1000);

	for (i = up = 0; i < ncalls; i++) {
		calls[i].role = i % NROLES;
		if (!dial(i))
			up++;
	}
	if (!check(up == ncalls, "%d echo calls with a tty each", up))
		return done_testing();
	for (i = 0; i < ncalls; i++) {
		calls[i].pid = start_worker(&calls[i]);
		diag("call %d: /dev/capi/%d NCCI 0x%x, %s, pid %d", i,
		     calls[i].unit, calls[i].ncci, role_name[calls[i].role],
		     calls[i].pid);
	}

	/* the abuse: faults every 100 ms, calls of the hangup role redialled */
	t_end = now_ms() + seconds * 1000LL;
	while (now_ms() < t_end) {
		pump(20);
		if (now_ms() >= t_next) {
			inject(k++);
			watch_workers();
			t_next = now_ms() + 100;
		}
		for (i = 0; i < ncalls; i++) {
			if (!calls[i].gone || calls[i].role != HANGUP)
				continue;
			r = calls[i].unit;
			if (!dial(i)) {
				n_redial++;
				if (calls[i].unit != r)
					diag("call %d: now /dev/capi/%d", i,
					     calls[i].unit);
			}
		}
		for (i = 0; i < ncalls; i++) {
			if (!calls[i].pid || waitpid(calls[i].pid,
						     &calls[i].status,
						     WNOHANG) != calls[i].pid)
				continue;
			if (calls[i].role != GOOD || !WIFEXITED(calls[i].status) ||
			    WEXITSTATUS(calls[i].status)) {
				diag("worker %d (%s) ended early, status 0x%x", i,
				     role_name[calls[i].role], calls[i].status);
			}
			calls[i].pid = -calls[i].pid;
		}
	}
	diag("injected: %lu floods, %lu stray DATA_B3_IND, %lu stray DISCONNECT_IND, %lu malformed, %lu send-queue-full, %lu remote hangups (%lu redialled)",
	     n_flood, n_stray_data, n_stray_plci, n_malform, n_sqfull,
	     n_hangup, n_redial);
	diag("capisim counters: stray_resp %ld, stray_ind %ld",
	     dbg_number(dbg, "counters", "stray_resp"),
	     dbg_number(dbg, "counters", "stray_ind"));

	/*
	 * The good streams may outlast the abuse (a KASAN kernel under TCG
	 * echoes a few KiB a second): let them finish while their echo
	 * makes progress, each pause bounded by BOUND, before the workers
	 * are stopped.  A good worker ends its stream by itself (all bytes
	 * back, or BOUND seconds without any).
	 */
	t_end = now_ms();
	for (;;) {
		long long last = t_end;

		for (i = r = 0; i < ncalls; i++) {
			if (calls[i].role != GOOD || calls[i].pid <= 0 ||
			    units[i].done)
				continue;
			if (waitpid(calls[i].pid, &calls[i].status, WNOHANG) ==
			    calls[i].pid) {
				calls[i].pid = -calls[i].pid;
				continue;
			}
			r++;
			if (units[i].progress > last)
				last = units[i].progress;
		}
		if (!r || now_ms() - last >= bound * 1000LL)
			break;
		pump(50);
		watch_workers();
	}
	diag("good streams over %lld.%01lld s after the abuse (%d still going)",
	     (now_ms() - t_end) / 1000, (now_ms() - t_end) % 1000 / 100, r);

	/* stop the workers; each must be gone within BOUND seconds */
	for (i = 0; i < ncalls; i++)
		if (calls[i].pid > 0)
			kill(calls[i].pid, SIGTERM);
	t_end = now_ms() + bound * 1000LL;
	for (;;) {
		for (i = r = 0; i < ncalls; i++) {
			if (calls[i].pid <= 0)
				continue;
			if (waitpid(calls[i].pid, &calls[i].status, WNOHANG) ==
			    calls[i].pid)
				calls[i].pid = -calls[i].pid;
			else
				r++;
		}
		if (!r || now_ms() >= t_end)
			break;
		pump(50);
		watch_workers();
	}
	for (i = 0; i < ncalls; i++) {
		if (calls[i].pid > 0) {
			char st = proc_state(calls[i].pid, wchan, sizeof(wchan));

			diag("worker %d (%s, pid %d) still there: state %c, wchan %s",
			     i, role_name[calls[i].role], calls[i].pid, st,
			     wchan);
			hung++;
			continue;
		}
		if (WIFEXITED(calls[i].status) &&
		    WEXITSTATUS(calls[i].status) == 3)
			stuck++;
		if (calls[i].role == GOOD && (!WIFEXITED(calls[i].status) ||
					      WEXITSTATUS(calls[i].status)))
			lost++;
	}
	check_id("no-hang", !hung,
		 "every worker ended within %d s of SIGTERM (%d did not)",
		 bound, hung);
	check_id("syscall-bound", !stuck,
		 "every system call returned within %d s (%d workers stuck)",
		 bound, stuck);
	check_id("echo-intact", !lost,
		 "the well-behaved connections got all %d bytes back intact",
		 GOOD_BYTES);

	/* clear every call; capisim must be left with nothing */
	for (i = 0; i < ncalls; i++)
		if (calls[i].plci && !calls[i].gone) {
			start_msg(&m, C_DISCONNECT, REQ, calls[i].plci);
			put8(&m, 0);
			send_msg(&m);
		}
	t_end = now_ms() + bound * 1000LL;
	while (now_ms() < t_end && dbg_lines(dbg, "connections") > 0)
		pump(100);
	while (pump(200))
		;
	check_id("cleared", dbg_lines(dbg, "connections") == 0,
		 "every call cleared: %d connections left",
		 dbg_lines(dbg, "connections"));
	check_id("nothing-held", dbg_number(dbg, "../echo_bytes", NULL) == 0,
		 "capisim holds no data: echo_bytes %ld",
		 dbg_number(dbg, "../echo_bytes", NULL));
	close(capifd);
	return done_testing();
}
