/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * capi-fuzz - a seed-reproducible random walk over the CAPI user surface,
 * from several processes and threads at once (issue 38).
 *
 * Runs inside the test VM with kernelcapi, capisim (nbchan >= 16), the
 * line disciplines N_PPP (ppp_async) and N_HDLC, and debugfs.
 *
 * Usage: capi-fuzz [-s SEED] [-n OPS] [-t SECONDS] [-p PROCS] [-T THREADS]
 *                  [-b BOUND] [-u TTYS] [-c CONTROLLER]
 *        capi-fuzz -D TEST[+TEST...] [-t SECONDS] [-c CONTROLLER]
 *
 *   SEED     the run's seed (default: from the clock; printed first)
 *   OPS      operations of each thread (default 400)
 *   SECONDS  the run ends after that long all the same (default 120)
 *   PROCS    application processes (default 3)
 *   THREADS  operation threads of each process (default 2)
 *   BOUND    seconds one operation may take before its thread is
 *            interrupted by a signal (default 40: a task that waits
 *            uninterruptibly behind an operation must be seen by the
 *            hung task detector, 10 to 20 s after it began to wait,
 *            before the signal frees it)
 *   TTYS     the tty units /dev/capi/0..TTYS-1 the operations aim at
 *            (default 6)
 *
 * Every process is a CAPI application (/dev/capi20, CAPIFLAG_HIGHJACKING:
 * each B3 connection gets a tty) with a pump thread that answers every
 * message the way an application must (DISCONNECT_B3_IND with
 * DISCONNECT_B3_RESP, DATA_B3_IND with DATA_B3_RESP, ...), and THREADS
 * threads that each run OPS operations chosen by their own generator,
 * seeded from SEED, the process and the thread: the same seed gives every
 * thread the same sequence of operations (their interleaving is the
 * scheduler's).  The operations (op_table[]): on /dev/capi20, calls made
 * and cleared, every ioctl, messages valid and malformed, more
 * applications registered and released with edge parameters; on the
 * ttys, open and close in any order, TCXONC, tcsetattr with each action,
 * tcflush, TIOCSETD N_TTY/N_PPP/N_HDLC, TIOCVHANGUP, reads and writes with
 * and without O_NONBLOCK; reads of the files of /proc/capi; capisim's faults
 * (debugfs: hangup, disconnect_b3, connect_b3, malform, sendqueuefull,
 * overrun, flood, stray, incoming calls) on the calls it lists.
 *
 * One more application, in the first process, keeps one "good" call whose
 * tty nobody else touches: it writes a known byte stream in raw mode, and
 * capisim's echo must bring every byte back in order, while the fuzzer
 * refuses its DATA_B3_REQs now and then (sendqueuefull).
 *
 * Bounds: a watchdog thread in each process signals (SIGUSR1, no
 * SA_RESTART) a thread whose operation took longer than its limit (BOUND,
 * 2 s for reads): the call returns EINTR, unless it sleeps
 * uninterruptibly, which the kernel's hung task detector reports (the
 * guest sets hung_task_timeout_secs 10 and hung_task_panic, below BOUND).
 * A thread still in its operation BOUND seconds after the signal fails
 * the run.  Each line of progress (stdout and /dev/kmsg, so that it is
 * on the console before a panic) names the seed and the operations done.
 *
 * -D runs directed tests instead, in the order given (open-churn first:
 * it wants minor 0), each a fixed sequence of the same operations for
 * one finding of issue 38:
 *   hang        finding 1: a tty with TCOOFF, a byte written and a
 *               tcsetattr(TCSADRAIN) waiting; capisim clears the B3
 *               connection, the application answers DISCONNECT_B3_RESP
 *               while its second thread sends LISTEN_REQ; then another
 *               application (a /dev/capi20 of its own) registers and
 *               closes.  Each of these must return within 5 s; once
 *               the drain is interrupted, everything must be done.
 *   open-churn  finding 2: open("/dev/capi/0") in a loop while capisim
 *               clears and sets up the B3 connection of minor 0 again and
 *               again (KASAN sees the use after free).
 *   reorder     finding 3: a raw tty writes a counting stream (4 MiB,
 *               in writes of 1-64 bytes) while its
 *               DATA_B3_REQs are refused (sendqueuefull) again and again;
 *               the echo must come back in order.
 *
 * Output is TAP; exit status 0 when all passed.  A failure prints
 * "capi-fuzz: FAIL seed S ops N: what" (and the run's progress lines say
 * how far it got before a panic).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/capi.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
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
#ifndef N_HDLC
#define N_HDLC 13
#endif

#define MAXPROCS	8
#define MAXTHREADS	8
#define MAXFDS		4	/* ttys a thread holds open at once */
#define MAXPLCI		16
#define READ_LIMIT_MS	2000
#define GOOD_BYTES	(32 * 1024)

/* -------- the run's parameters and shared state -------- */

static uint64_t seed;
static int nops = 400, seconds = 120, nprocs = 3, nthreads = 2, bound = 40;
static int nttys = 6;
static unsigned int ctrl = 1;
static char dbg[128];

/* per thread, what it does now, for the watchdog and the failure report */
struct slot {
	_Atomic long long since;	/* ms its operation began; 0: none */
	_Atomic int op;			/* op_table index */
	_Atomic int idx;		/* its operation number */
	_Atomic int signalled;
	_Atomic int told;		/* tell_slow() ran for this op */
	pthread_t tid;
};

/* shared by every process (MAP_SHARED) */
struct shared {
	_Atomic long ops;		/* operations done, all threads */
	_Atomic long per_op[64];	/* ... of each kind */
	_Atomic int good_unit;		/* the good call's tty, or -1 */
	_Atomic uint32_t good_ncci;	/* and its NCCI */
	_Atomic long good_streams;	/* its streams that came back whole */
	_Atomic int failed;
	_Atomic long long t_end;
	char why[256];
};
static struct shared *sh;

static void failf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void failf(const char *fmt, ...)
{
	char buf[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (atomic_exchange(&sh->failed, 1) == 0)
		snprintf(sh->why, sizeof(sh->why), "%s", buf);
	printf("# capi-fuzz: FAIL seed %llu ops %ld: %s\n",
	       (unsigned long long)seed, atomic_load(&sh->ops), buf);
	fflush(stdout);
}

/* -------- the generator: splitmix64, one per thread -------- */

struct rng {
	uint64_t s;
};

static uint64_t rnd(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned int below(struct rng *r, unsigned int n)
{
	return n ? rnd(r) % n : 0;
}

/* -------- one application: its /dev/capi20 and what it knows -------- */

struct app {
	int fd;
	uint16_t applid;
	_Atomic uint16_t msgnum;
	pthread_mutex_t lock;		/* plci[] */
	uint32_t plci[MAXPLCI];		/* 0: free */
	uint32_t ncci[MAXPLCI];		/* its B3 connection, or 0 */
	_Atomic int stop;
	bool good;			/* the good stream's application */
};

static void start_msg(struct app *a, struct msg *m, uint8_t cmd, uint8_t sub,
		      uint32_t adr)
{
	msg_head(m, a->applid, atomic_fetch_add(&a->msgnum, 1), cmd, sub, adr);
}

static int send_simple(struct app *a, uint8_t cmd, uint8_t sub, uint32_t adr)
{
	struct msg m;

	start_msg(a, &m, cmd, sub, adr);
	if (sub == REQ || cmd == C_CONNECT_B3)
		put8(&m, 0);	/* additional info / NCPI */
	return msg_write(a->fd, &m, 0);
}

static int listen_req(struct app *a, uint32_t cip)
{
	struct msg m;

	start_msg(a, &m, C_LISTEN, REQ, ctrl);
	put32(&m, 0);
	put32(&m, cip);
	put32(&m, 0);
	put8(&m, 0);
	put8(&m, 0);
	return msg_write(a->fd, &m, 0);
}

static int connect_req(struct app *a, unsigned int n)
{
	char num[16];
	struct msg m;
	int len, i;

	len = snprintf(num, sizeof(num), "%c55%05u", 0x80, n % 100000);
	start_msg(a, &m, C_CONNECT, REQ, ctrl);
	put16(&m, 2);
	put8(&m, len);
	memcpy(m.b + m.len, num, len);
	m.len += len;
	for (i = 0; i < 8; i++)	/* calling, subaddresses, B protocol ... */
		put8(&m, 0);
	return msg_write(a->fd, &m, 0);
}

static int app_open(struct app *a, int datablkcnt, int datablklen, bool hj)
{
	capi_register_params rp = { .level3cnt = MAXPLCI,
				    .datablkcnt = datablkcnt,
				    .datablklen = datablklen };
	unsigned int flags = CAPIFLAG_HIGHJACKING;
	int r;

	memset(a, 0, sizeof(*a));
	pthread_mutex_init(&a->lock, NULL);
	a->msgnum = 1;
	a->fd = open("/dev/capi20", O_RDWR);
	if (a->fd < 0)
		return -1;
	r = ioctl(a->fd, CAPI_REGISTER, &rp);
	if (r <= 0) {
		close(a->fd);
		return -1;
	}
	a->applid = r;
	if (hj && ioctl(a->fd, CAPI_SET_FLAGS, &flags))
		return -1;
	return 0;
}

static void app_plci_add(struct app *a, uint32_t plci)
{
	int i;

	pthread_mutex_lock(&a->lock);
	for (i = 0; i < MAXPLCI; i++)
		if (a->plci[i] == plci)
			goto out;
	for (i = 0; i < MAXPLCI; i++)
		if (!a->plci[i]) {
			a->plci[i] = plci;
			a->ncci[i] = 0;
			break;
		}
out:
	pthread_mutex_unlock(&a->lock);
}

static void app_plci_set(struct app *a, uint32_t adr, bool gone, bool b3)
{
	int i;

	pthread_mutex_lock(&a->lock);
	for (i = 0; i < MAXPLCI; i++)
		if (a->plci[i] && a->plci[i] == (adr & 0xffff)) {
			if (gone)
				a->plci[i] = 0;
			a->ncci[i] = b3 ? adr : 0;
		}
	pthread_mutex_unlock(&a->lock);
}

/* a PLCI of the application, or its NCCI with @b3; 0 when none */
static uint32_t app_pick(struct app *a, struct rng *r, bool b3)
{
	uint32_t v = 0;
	int i, k = below(r, MAXPLCI);

	pthread_mutex_lock(&a->lock);
	for (i = 0; i < MAXPLCI && !v; i++, k = (k + 1) % MAXPLCI)
		v = b3 ? a->ncci[k] : a->plci[k];
	pthread_mutex_unlock(&a->lock);
	return v;
}

/* Answer one message as an application must.  0 on timeout. */
static int app_pump(struct app *a, int ms)
{
	struct msg m, r;
	uint32_t adr;
	int got = msg_read_within(a->fd, &m, ms);

	if (got != 1)
		return got;
	adr = get32(m.b + 8);
	switch (m.b[4] << 8 | m.b[5]) {
	case C_CONNECT << 8 | CONF:
		if (!get16(m.b + 12))
			app_plci_add(a, adr);
		break;
	case C_CONNECT << 8 | IND:	/* an incoming call: take it */
		start_msg(a, &r, C_CONNECT, RESP, adr);
		put16(&r, 0);
		for (got = 0; got < 5; got++)
			put8(&r, 0);
		msg_write(a->fd, &r, 0);
		app_plci_add(a, adr);
		break;
	case C_CONNECT_ACTIVE << 8 | IND:
		send_simple(a, C_CONNECT_ACTIVE, RESP, adr);
		send_simple(a, C_CONNECT_B3, REQ, adr);
		break;
	case C_CONNECT_B3 << 8 | IND:
		start_msg(a, &r, C_CONNECT_B3, RESP, adr);
		put16(&r, 0);
		put8(&r, 0);
		msg_write(a->fd, &r, 0);
		break;
	case C_CONNECT_B3_ACTIVE << 8 | IND:
		send_simple(a, C_CONNECT_B3_ACTIVE, RESP, adr);
		app_plci_set(a, adr, false, true);
		break;
	case C_DISCONNECT_B3 << 8 | IND:
		app_plci_set(a, adr, false, false);
		send_simple(a, C_DISCONNECT_B3, RESP, adr);
		break;
	case C_DISCONNECT << 8 | IND:
		app_plci_set(a, adr, true, false);
		send_simple(a, C_DISCONNECT, RESP, adr);
		break;
	case C_DATA_B3 << 8 | IND:
		start_msg(a, &r, C_DATA_B3, RESP, adr);
		put16(&r, m.len >= 20 ? get16(m.b + 18) : 0);
		msg_write(a->fd, &r, 0);
		break;
	default:
		break;
	}
	return 1;
}

static void *pump_thread(void *arg)
{
	struct app *a = arg;

	while (!atomic_load(&a->stop))
		if (app_pump(a, 100) < 0 && errno != EINTR && errno != EPROTO)
			usleep(10000);
	return NULL;
}

/* -------- capisim's view: the calls it has, to aim faults at -------- */

struct simcall {
	uint32_t plci, ncci;
	unsigned int appl;
};

static int sim_calls(struct simcall *c, int max)
{
	char path[256], line[512], st[32], nc[32], appl[64];
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/connections", dbg);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (n < max && fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		if (sscanf(line, "%x %31s %31s %*s %63s", &c[n].plci, st, nc,
			   appl) != 4)
			continue;
		c[n].ncci = strtoul(nc, NULL, 16);	/* "-": 0 */
		c[n].appl = strtoul(appl, NULL, 10);
		n++;
	}
	fclose(f);
	return n;
}

/* -------- the operation threads -------- */

struct worker {
	struct app *app;
	struct rng rng;
	struct slot *slot;
	int fds[MAXFDS];
	int units[MAXFDS];
	int proc, thread;
};

typedef void (*op_fn)(struct worker *w);

static const char *const proc_files[] = {
	"/proc/capi/controller", "/proc/capi/contrstats",
	"/proc/capi/applications", "/proc/capi/applstats",
	"/proc/capi/capi20", "/proc/capi/capi20ncci", "/proc/capi/driver",
};

static int a_tty_fd(struct worker *w)
{
	int i, k = below(&w->rng, MAXFDS);

	for (i = 0; i < MAXFDS; i++, k = (k + 1) % MAXFDS)
		if (w->fds[k] >= 0)
			return w->fds[k];
	return -1;
}

static void op_tty_open(struct worker *w)
{
	int unit = below(&w->rng, nttys), k = below(&w->rng, MAXFDS);
	int flags = O_RDWR | O_NOCTTY | (below(&w->rng, 3) ? O_NONBLOCK : 0);
	struct termios t;
	char path[32];

	if (unit == atomic_load(&sh->good_unit))
		return;
	if (w->fds[k] >= 0)
		close(w->fds[k]);
	snprintf(path, sizeof(path), "/dev/capi/%d", unit);
	w->fds[k] = open(path, flags);
	w->units[k] = unit;
	/*
	 * No XON/XOFF from the echo and no local echo: a tty that the peer
	 * stops with a byte 0x13 keeps its close() waiting closing_wait
	 * (30 s) holding the tty lock, as any serial port would; and echo
	 * would send every echoed byte out again, for ever.
	 */
	if (w->fds[k] >= 0 && !tcgetattr(w->fds[k], &t)) {
		t.c_iflag &= ~(IXON | IXOFF);
		t.c_lflag &= ~(ECHO | ECHONL);
		tcsetattr(w->fds[k], TCSANOW, &t);
	}
}

static void op_tty_close(struct worker *w)
{
	int k = below(&w->rng, MAXFDS);

	if (w->fds[k] >= 0)
		close(w->fds[k]);
	w->fds[k] = -1;
}

static void op_tcxonc(struct worker *w)
{
	static const int act[] = { TCOOFF, TCOON, TCIOFF, TCION };
	int fd = a_tty_fd(w);

	if (fd >= 0)
		ioctl(fd, TCXONC, act[below(&w->rng, 4)]);
}

static void op_tcsetattr(struct worker *w)
{
	static const int act[] = { TCSANOW, TCSADRAIN, TCSAFLUSH };
	int fd = a_tty_fd(w), a = act[below(&w->rng, 3)];
	struct termios t;

	if (fd < 0 || tcgetattr(fd, &t))
		return;
	switch (below(&w->rng, 3)) {
	case 0:
		cfmakeraw(&t);
		break;
	case 1:
		t.c_lflag |= ICANON | ISIG;
		t.c_oflag ^= OPOST;
		t.c_iflag ^= ICRNL;
		break;
	default:
		cfsetspeed(&t, below(&w->rng, 2) ? B9600 : B115200);
		t.c_cflag ^= CLOCAL;
		break;
	}
	t.c_iflag &= ~(IXON | IXOFF);
	t.c_lflag &= ~(ECHO | ECHONL);
	tcsetattr(fd, a, &t);
}

static void op_tcflush(struct worker *w)
{
	static const int q[] = { TCIFLUSH, TCOFLUSH, TCIOFLUSH };
	int fd = a_tty_fd(w);

	if (fd >= 0)
		tcflush(fd, q[below(&w->rng, 3)]);
}

static void op_tcdrain(struct worker *w)
{
	int fd = a_tty_fd(w);

	if (fd >= 0)
		tcdrain(fd);
}

static void op_setd(struct worker *w)
{
	static const int disc[] = { N_TTY, N_PPP, N_HDLC };
	int fd = a_tty_fd(w), d = disc[below(&w->rng, 3)];

	if (fd >= 0)
		ioctl(fd, TIOCSETD, &d);
}

static void op_vhangup(struct worker *w)
{
	int fd = a_tty_fd(w);

	if (fd >= 0)
		ioctl(fd, TIOCVHANGUP);
}

static void op_tty_write(struct worker *w)
{
	unsigned char buf[3000];
	int fd = a_tty_fd(w), n = 1 + below(&w->rng, sizeof(buf)), i;

	if (fd < 0)
		return;
	/* printable: no flow control or signal characters in the echo */
	for (i = 0; i < n; i++)
		buf[i] = 0x20 + (n + i) % 0x5f;
	if (write(fd, buf, below(&w->rng, 4) ? 1 + n % 64 : n) < 0)
		return;
}

static void op_tty_read(struct worker *w)
{
	unsigned char buf[4096];
	int fd = a_tty_fd(w);

	if (fd >= 0 && read(fd, buf, 1 + below(&w->rng, sizeof(buf))) < 0)
		return;
}

static void op_nonblock(struct worker *w)
{
	int fd = a_tty_fd(w), fl;

	if (fd < 0 || (fl = fcntl(fd, F_GETFL)) < 0)
		return;
	fcntl(fd, F_SETFL, fl ^ O_NONBLOCK);
}

static void op_proc(struct worker *w)
{
	char buf[4096];
	int fd = open(proc_files[below(&w->rng, sizeof(proc_files) /
					 sizeof(proc_files[0]))], O_RDONLY);

	if (fd < 0)
		return;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
}

static void op_dial(struct worker *w)
{
	connect_req(w->app, below(&w->rng, 100000));
}

static void op_disconnect(struct worker *w)
{
	uint32_t plci = app_pick(w->app, &w->rng, false);

	if (plci)
		send_simple(w->app, C_DISCONNECT, REQ, plci);
}

static void op_b3(struct worker *w)
{
	uint32_t plci = app_pick(w->app, &w->rng, false);
	uint32_t ncci = app_pick(w->app, &w->rng, true);

	if (below(&w->rng, 2) && ncci)
		send_simple(w->app, C_DISCONNECT_B3, REQ, ncci);
	else if (plci)
		send_simple(w->app, C_CONNECT_B3, REQ, plci);
}

static void op_listen(struct worker *w)
{
	listen_req(w->app, below(&w->rng, 2) ? 0x1ffff : 0);
}

/* a message that is wrong in one way or another */
static void op_malformed(struct worker *w)
{
	static const uint8_t cmds[] = { C_ALERT, C_CONNECT, C_CONNECT_ACTIVE,
		C_DISCONNECT, C_LISTEN, C_INFO, C_CONNECT_B3,
		C_CONNECT_B3_ACTIVE, C_DISCONNECT_B3, C_DATA_B3, 0x41, 0xff,
		0x85, 0x87, 0x80 };
	static const uint8_t subs[] = { REQ, CONF, IND, RESP, 0x00, 0x84 };
	uint32_t adr = app_pick(w->app, &w->rng, below(&w->rng, 2));
	struct rng *r = &w->rng;
	struct msg m;
	unsigned int i, extra = 0, len = below(r, 40);

	if (!adr || below(r, 4) == 0)
		adr = (uint32_t)rnd(r);
	start_msg(w->app, &m, cmds[below(r, sizeof(cmds))],
		  subs[below(r, sizeof(subs))], adr);
	for (i = 0; i < len; i++)
		put8(&m, rnd(r));
	if (m.b[4] == C_DATA_B3 && m.b[5] == REQ && below(r, 2)) {
		/* DATA_B3_REQ whose data follow, or not, as its length says */
		extra = below(r, 3000);
		m.len = 12;
		put32(&m, 0);
		put16(&m, below(r, 2) ? extra : (uint16_t)rnd(r));
		put16(&m, rnd(r));
		put16(&m, 0);
		memset(m.b + m.len, 'd', extra);
	}
	m.b[0] = m.len;
	m.b[1] = m.len >> 8;
	switch (below(r, 4)) {
	case 0:		/* a length field that lies */
		m.b[0] = rnd(r);
		break;
	case 1:		/* shorter than a header */
		m.len = below(r, 12);
		break;
	default:
		break;
	}
	if (write(w->app->fd, m.b, m.len + extra) < 0)
		return;
}

static void op_ioctl(struct worker *w)
{
	struct rng *r = &w->rng;
	union {
		capi_ioctl_struct s;
		unsigned int u;
		char b[256];
	} d;
	static const unsigned long req[] = { CAPI_GET_MANUFACTURER,
		CAPI_GET_VERSION, CAPI_GET_SERIAL, CAPI_GET_PROFILE,
		CAPI_GET_ERRCODE, CAPI_INSTALLED, CAPI_GET_FLAGS,
		CAPI_SET_FLAGS, CAPI_CLR_FLAGS, CAPI_NCCI_OPENCOUNT,
		CAPI_NCCI_GETUNIT, CAPI_MANUFACTURER_CMD, CAPI_REGISTER,
		_IOR('C', 0x7f, int) };
	unsigned long q = req[below(r, sizeof(req) / sizeof(req[0]))];
	uint32_t ncci = app_pick(w->app, r, true);

	memset(&d, 0, sizeof(d));
	d.u = below(r, 4) ? ctrl : (uint32_t)rnd(r);
	if (q == CAPI_NCCI_OPENCOUNT || q == CAPI_NCCI_GETUNIT)
		d.u = ncci && below(r, 4) ? ncci : (uint32_t)rnd(r);
	if (q == CAPI_SET_FLAGS || q == CAPI_CLR_FLAGS) {
		d.u = CAPIFLAG_HIGHJACKING;
		if (q == CAPI_CLR_FLAGS && below(r, 2))
			q = CAPI_SET_FLAGS;	/* mostly on */
	}
	if (q == CAPI_MANUFACTURER_CMD || q == CAPI_REGISTER)
		for (unsigned int i = 0; i < sizeof(d.b); i++)
			d.b[i] = rnd(r);
	ioctl(w->app->fd, q, &d);
}

/* another application, registered with edge parameters, then released */
static void op_register(struct worker *w)
{
	static const int cnt[] = { 0, 1, 7, 8, 255, -1 };
	static const int len[] = { 0, 1, 128, 2048, 65535, 1 << 30, -1 };
	struct rng *r = &w->rng;
	struct app a;
	int c = cnt[below(r, 6)], l = len[below(r, 7)];
	capi_register_params rp = { .level3cnt = below(r, 3) ? 2 : 100000,
				    .datablkcnt = c, .datablklen = l };
	int fd = open("/dev/capi20", O_RDWR);

	if (fd < 0)
		return;
	if (ioctl(fd, CAPI_REGISTER, &rp) > 0) {
		a.fd = fd;
		a.applid = ioctl(fd, CAPI_REGISTER, &rp);	/* again */
		a.applid = 0;
		a.msgnum = 1;
		listen_req(&a, below(r, 2) ? 0x1ffff : 0);
		if (below(r, 2))
			connect_req(&a, below(r, 1000));
		usleep(below(r, 50000));
	}
	close(fd);
}

static void op_fault(struct worker *w)
{
	struct simcall c[64];
	struct rng *r = &w->rng;
	int n = sim_calls(c, 64), good = atomic_load(&sh->good_unit);
	struct simcall *k;
	unsigned int f = below(r, 10);

	if (f == 9) {
		dbg_write(dbg, "incoming", "%u 5550", below(r, 1000));
		return;
	}
	if (!n)
		return;
	k = &c[below(r, n)];
	/* the good call takes only refusals of its DATA_B3_REQs (its own) */
	if (good >= 0 && k->ncci && k->ncci == atomic_load(&sh->good_ncci))
		return;
	switch (f) {
	case 0:
		dbg_write(dbg, "hangup", "0x%x", k->plci);
		break;
	case 1:
		dbg_write(dbg, "disconnect_b3", "0x%x", k->ncci);
		break;
	case 2:
		dbg_write(dbg, "connect_b3", "0x%x", k->plci);
		break;
	case 3:
		dbg_write(dbg, "malform", "0x%x %s", k->ncci,
			  below(r, 3) ? (below(r, 2) ? "datalen" : "len") : "short");
		break;
	case 4:
		dbg_write(dbg, "sendqueuefull", "0x%x %u", k->ncci,
			  1 + below(r, 10));
		break;
	case 5:
		dbg_write(dbg, "overrun", "0x%x %u", k->ncci, 1 + below(r, 10));
		break;
	case 6:
		dbg_write(dbg, "flood", "0x%x %u %u", k->ncci,
			  1 + below(r, 200), 1 + below(r, 512));
		break;
	case 7:
		dbg_write(dbg, "stray", "%u 0x%x", k->appl,
			  (k->ncci & 0xffff) | 0x7fff0000);
		break;
	default:
		dbg_write(dbg, "stray", "%u 0x%x", k->appl, ctrl | 0xfe00);
		break;
	}
}

static const struct {
	const char *name;
	op_fn fn;
	int weight;
	bool quick;		/* bounded by READ_LIMIT_MS, not BOUND */
} op_table[] = {
	{ "tty-open", op_tty_open, 10, false },
	{ "tty-close", op_tty_close, 6, false },
	{ "tcxonc", op_tcxonc, 8, false },
	{ "tcsetattr", op_tcsetattr, 6, false },
	{ "tcflush", op_tcflush, 3, false },
	{ "tcdrain", op_tcdrain, 1, false },
	{ "tiocsetd", op_setd, 3, false },
	{ "tiocvhangup", op_vhangup, 2, false },
	{ "tty-write", op_tty_write, 10, false },
	{ "tty-read", op_tty_read, 6, true },
	{ "o_nonblock", op_nonblock, 2, false },
	{ "proc-read", op_proc, 3, false },
	{ "dial", op_dial, 4, false },
	{ "disconnect", op_disconnect, 2, false },
	{ "b3", op_b3, 3, false },
	{ "listen", op_listen, 1, false },
	{ "malformed", op_malformed, 3, false },
	{ "ioctl", op_ioctl, 3, false },
	{ "register", op_register, 2, false },
	{ "fault", op_fault, 8, false },
};
#define NOPS_KIND ((int)(sizeof(op_table) / sizeof(op_table[0])))

static int pick_op(struct rng *r)
{
	static int total;
	int i, k;

	if (!total)
		for (i = 0; i < NOPS_KIND; i++)
			total += op_table[i].weight;
	k = below(r, total);
	for (i = 0; k >= op_table[i].weight; i++)
		k -= op_table[i].weight;
	return i;
}

static void on_usr1(int sig)
{
	(void)sig;
}

static void *op_thread(void *arg)
{
	struct worker *w = arg;
	int i, op;

	for (i = 0; i < MAXFDS; i++)
		w->fds[i] = -1;
	for (i = 0; i < nops && now_ms() < atomic_load(&sh->t_end) &&
	     !atomic_load(&sh->failed); i++) {
		op = pick_op(&w->rng);
		atomic_store(&w->slot->op, op);
		atomic_store(&w->slot->idx, i);
		atomic_store(&w->slot->signalled, 0);
		atomic_store(&w->slot->told, 0);
		atomic_store(&w->slot->since, now_ms());
		op_table[op].fn(w);
		atomic_store(&w->slot->since, 0);
		atomic_fetch_add(&sh->ops, 1);
		atomic_fetch_add(&sh->per_op[op], 1);
	}
	for (i = 0; i < MAXFDS; i++) {
		if (w->fds[i] < 0)
			continue;
		atomic_store(&w->slot->since, now_ms());
		atomic_store(&w->slot->op, 1);	/* tty-close */
		close(w->fds[i]);
		atomic_store(&w->slot->since, 0);
	}
	return NULL;
}

static char task_state(pid_t tid, char *wchan, size_t size)
{
	char path[64], buf[512], *p;
	char st = '?';
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	f = fopen(path, "r");
	if (f) {
		if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')))
			st = p[2];
		fclose(f);
	}
	snprintf(path, sizeof(path), "/proc/self/task/%d/wchan", tid);
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
 * An operation that waits 8 s: where (wchan), on the console too, so that
 * the task that holds what a hung task waits for is named before a panic.
 */
static void tell_slow(int proc, int thread, pid_t tid, int op, int idx,
		      long long age)
{
	char wchan[64], line[200];
	char st = task_state(tid, wchan, sizeof(wchan));
	int fd, n;

	n = snprintf(line, sizeof(line),
		     "capi-fuzz: thread %d.%d (tid %d) in %s (op %d) for %lld s: state %c, wchan %s\n",
		     proc, thread, tid, op_table[op].name, idx, age / 1000, st,
		     wchan);
	fputs("# ", stdout);
	fputs(line, stdout);
	fflush(stdout);
	fd = open("/dev/kmsg", O_WRONLY);
	if (fd >= 0) {
		if (write(fd, line, n) < 0)
			n = 0;
		close(fd);
	}
}

/*
 * The watchdog of one process: a thread whose operation is over its
 * limit gets SIGUSR1 (again every second); one still in it BOUND s
 * later fails the run.
 */
struct watch {
	struct slot *slots;
	pid_t *tids;
	int n, proc;
	_Atomic int stop;
};

static void *watchdog_thread(void *arg)
{
	struct watch *wd = arg;
	char wchan[64];
	int i;

	while (!atomic_load(&wd->stop)) {
		usleep(200000);
		for (i = 0; i < wd->n; i++) {
			struct slot *s = &wd->slots[i];
			long long since = atomic_load(&s->since), age;
			int op = atomic_load(&s->op);
			long long limit = op_table[op].quick ? READ_LIMIT_MS :
					  bound * 1000LL;

			if (!since)
				continue;
			age = now_ms() - since;
			if (age >= 8000 && !atomic_exchange(&s->told, 1))
				tell_slow(wd->proc, i, wd->tids[i], op,
					  atomic_load(&s->idx), age);
			if (age < limit)
				continue;
			if (age >= limit + bound * 1000LL) {
				char st = task_state(wd->tids[i], wchan,
						     sizeof(wchan));

				failf("thread %d.%d: %s (its op %d) did not return %d s after SIGUSR1: state %c, wchan %s",
				      wd->proc, i, op_table[op].name,
				      atomic_load(&s->idx), bound, st, wchan);
				atomic_store(&s->since, 0);
				continue;
			}
			if (age >= limit + 1000LL * atomic_load(&s->signalled)) {
				atomic_fetch_add(&s->signalled, 1);
				pthread_kill(s->tid, SIGUSR1);
			}
		}
	}
	return NULL;
}

struct tidarg {
	struct worker *w;
	pid_t *tid;
};

static void *op_thread_start(void *arg)
{
	struct tidarg *t = arg;

	*t->tid = gettid();
	return op_thread(t->w);
}

/* One application process: its pump, THREADS operation threads. */
static int run_proc(int p)
{
	struct worker w[MAXTHREADS];
	struct slot slots[MAXTHREADS];
	struct tidarg ta[MAXTHREADS];
	pid_t tids[MAXTHREADS];
	struct watch wd = { .slots = slots, .tids = tids, .n = nthreads,
			    .proc = p };
	pthread_t pump, dog;
	struct app a;
	int i;

	if (app_open(&a, 7, 2048, true)) {
		failf("process %d: /dev/capi20 and CAPI_REGISTER: %s", p,
		      strerror(errno));
		return 1;
	}
	listen_req(&a, p == 0 ? 0x1ffff : 0);
	memset(slots, 0, sizeof(slots));
	memset(tids, 0, sizeof(tids));
	pthread_create(&pump, NULL, pump_thread, &a);
	for (i = 0; i < nthreads; i++) {
		w[i] = (struct worker){ .app = &a, .slot = &slots[i],
					.proc = p, .thread = i };
		w[i].rng.s = seed ^ ((uint64_t)(p + 1) << 40) ^
			     ((uint64_t)(i + 1) << 20);
		ta[i] = (struct tidarg){ &w[i], &tids[i] };
		pthread_create(&slots[i].tid, NULL, op_thread_start, &ta[i]);
	}
	pthread_create(&dog, NULL, watchdog_thread, &wd);
	for (i = 0; i < nthreads; i++)
		pthread_join(slots[i].tid, NULL);
	atomic_store(&wd.stop, 1);
	pthread_join(dog, NULL);
	atomic_store(&a.stop, 1);
	pthread_join(pump, NULL);
	close(a.fd);
	return 0;
}

/* -------- the good stream -------- */

static void pattern(unsigned char *b, size_t off, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = (off + i) * 131 + ((off + i) >> 8);
}

/* Dial one call on @a and wait for its B3 connection: its tty, or -1. */
static int dial_one(struct app *a, uint32_t *ncci_out, int ms)
{
	long long t0 = now_ms();
	uint32_t ncci = 0;
	int i;

	connect_req(a, 4242);
	while (!ncci && now_ms() - t0 < ms) {
		app_pump(a, 100);
		pthread_mutex_lock(&a->lock);
		for (i = 0; i < MAXPLCI; i++)
			if (a->ncci[i])
				ncci = a->ncci[i];
		pthread_mutex_unlock(&a->lock);
	}
	if (!ncci)
		return -1;
	*ncci_out = ncci;
	return ioctl(a->fd, CAPI_NCCI_GETUNIT, &ncci);
}

/*
 * A stream's writes not yet echoed whole, at most: each DATA_B3_REQ of up
 * to 2048 bytes is echoed as one DATA_B3_IND, and capisim holds back at
 * most 256 of them for a connection (and drops the rest, which would look like a
 * kernel that lost data).
 */
#define MAX_INFLIGHT	192

/* capisim's line for @ncci in connections: its counters, dropped too */
static void sim_show(uint32_t ncci)
{
	char path[256], line[512], want[16];
	FILE *f;

	snprintf(path, sizeof(path), "%s/connections", dbg);
	snprintf(want, sizeof(want), "0x%x", ncci);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (line[0] == '#' || strstr(line, want))
			diag("capisim: %.*s", (int)strcspn(line, "\n"), line);
	if (f)
		fclose(f);
}

/*
 * How a good stream writes: writes of 1 to @maxw bytes; every @gap_ms to
 * @gap_ms + @spread_ms, 1 to @refusals of its DATA_B3_REQs refused
 * (capisim's sendqueuefull), but only once some of the echo came back
 * since the last refusal.  The minor retries a refused request after a
 * delay that doubles up to 1 s (patch 9); once the writer waits for the
 * output to drain, nothing but that retry sends, and refusals re-armed
 * on a clock faster than 1 s would meet every retry, for good, as behind
 * a controller that never takes data again: the test's starvation, not
 * the kernel's.  While the stream flows the echo comes back all the time,
 * so the refusals keep their pace.
 */
struct stream_shape {
	unsigned int maxw, gap_ms, spread_ms, refusals;
};
static const struct stream_shape fuzz_shape = { 1024, 100, 300, 2 };
/*
 * Many small DATA_B3_REQs queued on the minor; one or two refused every
 * 80-120 ms (once some echo came back, which on a flowing stream it has:
 * the refusal_tally below says how often it had not), so that a retry
 * (20 ms, then 40) is refused too now and then while the writer sends
 * the next ones.
 */
static const struct stream_shape reorder_shape = { 64, 80, 40, 2 };
#define REORDER_BYTES	(4 * 1024 * 1024)

/*
 * The refusals a good stream armed, and those that waited for the echo
 * first (and how long in all): the reorder test's pace of refusals is its
 * chance to catch finding 3, and these figures show what the wait for the
 * echo took from it.
 */
struct refusal_tally {
	unsigned long armed, waited;
	long long waited_ms;
};

/*
 * Write @total bytes in raw mode to the tty of @unit, shaped by @sh_, and
 * read them back: 0 when every byte came back in order, 1 when one
 * differed, 2 when the echo stopped for BOUND seconds.
 */
static int good_stream(struct app *a, int unit, uint32_t ncci,
		       const struct stream_shape *sh_, size_t total,
		       struct rng *r, struct refusal_tally *tally)
{
	unsigned char out[1024], in[2048], want[2048];
	size_t sent = 0, got = 0, ends[MAX_INFLIGHT];
	unsigned int w = 0, done = 0;	/* writes made, writes echoed */
	long long idle = now_ms(), t_fault = 0;
	bool refused = false;	/* no echo since the last refusal */
	long long t_wait = 0;	/* a refusal due since then, waiting */
	struct termios t;
	struct pollfd p;
	char path[32];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/dev/capi/%d", unit);
	fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 || tcgetattr(fd, &t))
		return 2;
	cfmakeraw(&t);
	tcsetattr(fd, TCSANOW, &t);
	while (got < total && now_ms() - idle < bound * 1000LL) {
		app_pump(a, 0);
		if (now_ms() >= t_fault && refused) {
			if (!t_wait)
				t_wait = now_ms();
		} else if (now_ms() >= t_fault) {
			dbg_write(dbg, "sendqueuefull", "0x%x %u", ncci,
				  1 + below(r, sh_->refusals));
			refused = true;
			tally->armed++;
			if (t_wait) {
				tally->waited++;
				tally->waited_ms += now_ms() - t_wait;
				t_wait = 0;
			}
			t_fault = now_ms() + sh_->gap_ms + below(r, sh_->spread_ms);
		}
		p.fd = fd;
		p.events = POLLIN | (sent < total && sent - got < 8192 &&
				     w - done < MAX_INFLIGHT ? POLLOUT : 0);
		if (poll(&p, 1, 50) <= 0)
			continue;
		if (p.revents & POLLOUT) {
			n = 1 + below(r, sh_->maxw);
			if ((size_t)n > total - sent)
				n = total - sent;
			pattern(out, sent, n);
			n = write(fd, out, n);
			if (n > 0) {
				sent += n;
				ends[w++ % MAX_INFLIGHT] = sent;
			}
		}
		if (p.revents & POLLIN) {
			n = read(fd, in, sizeof(in));
			if (n > 0) {
				pattern(want, got, n);
				if (got + n > sent || memcmp(in, want, n)) {
					size_t i;

					for (i = 0; i < (size_t)n &&
					     in[i] == want[i]; i++)
						;
					diag("byte %zu of the echo is 0x%02x, sent 0x%02x (%zu sent)",
					     got + i, in[i], want[i], sent);
					sim_show(ncci);
					close(fd);
					return 1;
				}
				got += n;
				refused = false;
				while (done < w &&
				       ends[done % MAX_INFLIGHT] <= got)
					done++;
				idle = now_ms();
			}
		}
		if (p.revents & (POLLHUP | POLLERR))
			break;
	}
	if (got != total) {
		int outq = -1;

		/* where the rest is: the minor's output, or capisim's */
		if (ioctl(fd, TIOCOUTQ, &outq))
			outq = -1;
		diag("/dev/capi/%d (NCCI 0x%x): %zu bytes written, %zu back in order, %d in its output queue",
		     unit, ncci, sent, got, outq);
		sim_show(ncci);
	}
	close(fd);
	return got == total ? 0 : 2;
}

/* the good thread's refusals; read once it has been joined */
static struct refusal_tally good_tally;

static void *good_thread(void *arg)
{
	struct app *a = arg;
	struct rng r = { seed ^ 0x600d };
	uint32_t ncci;
	int unit, rc;

	unit = dial_one(a, &ncci, bound * 1000);
	if (unit < 0) {
		failf("good stream: no call with a tty");
		return NULL;
	}
	atomic_store(&sh->good_ncci, ncci);
	atomic_store(&sh->good_unit, unit);
	while (!atomic_load(&a->stop)) {
		rc = good_stream(a, unit, ncci, &fuzz_shape, GOOD_BYTES, &r,
				 &good_tally);
		if (rc == 0)
			atomic_fetch_add(&sh->good_streams, 1);
		if (rc == 1) {
			failf("good stream on /dev/capi/%d: the echo differs from what was sent",
			      unit);
			break;
		}
		if (rc == 2 && !atomic_load(&a->stop)) {
			failf("good stream on /dev/capi/%d: the echo stopped for %d s",
			      unit, bound);
			break;
		}
	}
	atomic_store(&sh->good_unit, -1);
	return NULL;
}

/* -------- progress -------- */

static void progress(const char *what)
{
	char line[160];
	int fd, n;

	n = snprintf(line, sizeof(line), "capi-fuzz: seed %llu ops %ld %s\n",
		     (unsigned long long)seed, atomic_load(&sh->ops), what);
	printf("# %s", line);
	fflush(stdout);
	fd = open("/dev/kmsg", O_WRONLY);
	if (fd >= 0) {
		if (write(fd, line, n) < 0)
			n = 0;
		close(fd);
	}
}

static int run_fuzz(void)
{
	pid_t pids[MAXPROCS];
	struct app good;
	pthread_t gt;
	long long t0 = now_ms(), t_next = 0;
	int i, st, live, bad = 0;

	if (app_open(&good, 7, 2048, true)) {
		fail("the good stream's application: %s", strerror(errno));
		return done_testing();
	}
	pthread_create(&gt, NULL, good_thread, &good);
	while (atomic_load(&sh->good_unit) < 0 && now_ms() - t0 < bound * 1000LL &&
	       !atomic_load(&sh->failed))
		usleep(50000);
	check(atomic_load(&sh->good_unit) >= 0,
	      "the good call is up: /dev/capi/%d", atomic_load(&sh->good_unit));
	for (i = 0; i < nprocs; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			_exit(run_proc(i));
	}
	do {
		for (i = live = 0; i < nprocs; i++) {
			if (pids[i] <= 0)
				continue;
			if (waitpid(pids[i], &st, WNOHANG) == pids[i]) {
				if (!WIFEXITED(st) || WEXITSTATUS(st))
					bad++;
				pids[i] = -pids[i];
			} else {
				live++;
			}
		}
		if (now_ms() >= t_next) {
			progress("running");
			t_next = now_ms() + 5000;
		}
		usleep(100000);
	} while (live && now_ms() < atomic_load(&sh->t_end) + 2 * bound * 1000LL);
	atomic_store(&good.stop, 1);
	pthread_join(gt, NULL);
	for (i = 0; i < nprocs; i++)
		if (pids[i] > 0) {
			failf("process %d did not end", i);
			kill(pids[i], SIGKILL);
		}
	progress(atomic_load(&sh->failed) ? "failed" : "done");
	diag("%.1f s, %d processes x %d threads; the good call echoed %ld x %d bytes intact",
	     (now_ms() - t0) / 1000.0, nprocs, nthreads,
	     atomic_load(&sh->good_streams), GOOD_BYTES);
	diag("  its refusals: %lu, %lu of them after waiting for the echo (%lld ms in all)",
	     good_tally.armed, good_tally.waited, good_tally.waited_ms);
	for (i = 0; i < NOPS_KIND; i++)
		diag("  %-12s %ld", op_table[i].name,
		     atomic_load(&sh->per_op[i]));
	check(!bad, "every application process ended well (%d did not)", bad);
	check(!atomic_load(&sh->failed), "seed %llu: %ld operations, %s",
	      (unsigned long long)seed, atomic_load(&sh->ops),
	      atomic_load(&sh->failed) ? sh->why : "no hang, the echo intact");
	close(good.fd);
	return done_testing();
}

/* -------- directed tests -------- */

/* the tty of a new call of @a, raw; its NCCI in @ncci; -1 when none */
static int directed_call(struct app *a, uint32_t *ncci, int *unit)
{
	char path[32];

	*unit = dial_one(a, ncci, bound * 1000);
	if (*unit < 0)
		return -1;
	snprintf(path, sizeof(path), "/dev/capi/%d", *unit);
	return open(path, O_RDWR | O_NOCTTY | O_NONBLOCK);
}

static void *drain_thread(void *arg)
{
	struct termios t;
	int fd = *(int *)arg;

	if (!tcgetattr(fd, &t))
		tcsetattr(fd, TCSADRAIN, &t);
	return NULL;
}

/* a system call of a directed test, in a thread: when it returned */
struct timed {
	struct app *a;
	uint32_t ncci;
	_Atomic long long done;
};

static void *listen_thread(void *arg)
{
	struct timed *t = arg;

	listen_req(t->a, 0);
	atomic_store(&t->done, now_ms());
	return NULL;
}

static void *resp_thread(void *arg)
{
	struct timed *t = arg;

	send_simple(t->a, C_DISCONNECT_B3, RESP, t->ncci);
	atomic_store(&t->done, now_ms());
	return NULL;
}

/* another process's application: registered, then released */
static void *open_close_thread(void *arg)
{
	capi_register_params rp = { .level3cnt = 1, .datablkcnt = 7,
				    .datablklen = 2048 };
	struct timed *t = arg;
	int fd = open("/dev/capi20", O_RDWR);

	if (fd >= 0 && ioctl(fd, CAPI_REGISTER, &rp) <= 0)
		diag("CAPI_REGISTER: %s", strerror(errno));
	close(fd);
	atomic_store(&t->done, now_ms());
	return NULL;
}

/* wait up to @ms from @t0 for @t: how long it took from @t0 (0 when
 * it was done before), or -1 */
static long long took(struct timed *t, long long t0, int ms)
{
	long long done;

	while (!atomic_load(&t->done) && now_ms() - t0 < ms)
		usleep(10000);
	done = atomic_load(&t->done);
	if (!done)
		return -1;
	return done > t0 ? done - t0 : 0;
}

/*
 * Finding 1, the reproducer.  Each step is a thread, so that a
 * step that hangs is a failed check: the drain is then interrupted
 * (SIGUSR1), which lets everything go on.
 */
static void directed_hang(void)
{
	struct timed resp = { 0 }, lis = { 0 }, oc = { 0 };
	pthread_t drain, t1, t2, t3;
	struct termios t;
	struct app a;
	struct msg m;
	uint32_t ncci;
	long long t0, t1_0, d;
	int fd, unit, ind = 0;

	if (app_open(&a, 7, 2048, true) ||
	    (fd = directed_call(&a, &ncci, &unit)) < 0) {
		fail("a call with a tty");
		return;
	}
	pass("a call with a tty: /dev/capi/%d, NCCI 0x%x", unit, ncci);
	tcgetattr(fd, &t);
	cfmakeraw(&t);
	tcsetattr(fd, TCSANOW, &t);
	check(ioctl(fd, TCXONC, TCOOFF) == 0, "TCXONC TCOOFF");
	check(write(fd, "x", 1) == 1, "one byte written, held back");
	pthread_create(&drain, NULL, drain_thread, &fd);
	usleep(500000);
	check(dbg_write(dbg, "disconnect_b3", "0x%x", ncci) == 0,
	      "capisim clears the B3 connection");
	t0 = now_ms();
	while (!ind && now_ms() - t0 < 10000)
		if (msg_read_within(a.fd, &m, 100) == 1 &&
		    m.b[4] == C_DISCONNECT_B3 && m.b[5] == IND)
			ind = 1;
	check(ind, "DISCONNECT_B3_IND");
	resp.a = lis.a = &a;
	resp.ncci = ncci;
	t0 = now_ms();
	pthread_create(&t1, NULL, resp_thread, &resp);
	usleep(200000);
	pthread_create(&t2, NULL, listen_thread, &lis);
	d = took(&lis, now_ms(), 5000);
	check(d >= 0, "the second thread's LISTEN_REQ returns (%lld ms)", d);
	/* its LISTEN_CONF is for kcapi's worker to deliver meanwhile */
	usleep(500000);
	t1_0 = now_ms();
	pthread_create(&t3, NULL, open_close_thread, &oc);
	d = took(&oc, t1_0, 5000);
	check(d >= 0, "another application registered and released in %lld ms (limit 5000)",
	      d);
	d = took(&resp, t0, 5000);
	check(d >= 0, "DISCONNECT_B3_RESP written in %lld ms (limit 5000)", d);
	/* the drain ends by itself once the hangup dropped the output */
	t0 = now_ms();
	pthread_kill(drain, SIGUSR1);
	pthread_join(drain, NULL);
	d = took(&resp, t0, 20000);
	check(d >= 0 && took(&oc, t0, 20000) >= 0,
	      "everything returns once the drain is interrupted");
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	pthread_join(t3, NULL);
	close(fd);
	close(a.fd);
}

/* finding 2 */
static void directed_open_churn(void)
{
	struct app a;
	uint32_t ncci;
	long long t_end;
	int fd, unit, opens = 0, ok = 0, churn = 0;
	struct simcall c[8];
	pid_t child;

	if (app_open(&a, 7, 2048, true) ||
	    (fd = directed_call(&a, &ncci, &unit)) < 0) {
		fail("a call with a tty");
		return;
	}
	close(fd);
	check(unit == 0, "the call's tty is /dev/capi/0 (is %d)", unit);
	child = fork();
	if (child == 0) {
		t_end = now_ms() + seconds * 1000LL;
		while (now_ms() < t_end) {
			fd = open("/dev/capi/0", O_RDWR | O_NOCTTY | O_NONBLOCK);
			opens++;
			if (fd >= 0) {
				ok++;
				close(fd);
			}
		}
		printf("# %d opens of /dev/capi/0, %d succeeded\n", opens, ok);
		_exit(0);
	}
	t_end = now_ms() + seconds * 1000LL;
	while (now_ms() < t_end) {
		int n = sim_calls(c, 8), i;

		for (i = 0; i < n; i++) {
			if (c[i].ncci)
				dbg_write(dbg, "disconnect_b3", "0x%x", c[i].ncci);
			else
				dbg_write(dbg, "connect_b3", "0x%x", c[i].plci);
		}
		churn++;
		while (app_pump(&a, 5) == 1)
			;
	}
	waitpid(child, NULL, 0);
	pass("%d rounds of B3 churn on minor 0 beside the opens", churn);
	close(a.fd);
}

/* finding 3 */
static void directed_reorder(void)
{
	struct app a;
	struct rng r = { seed };
	struct refusal_tally tally = { 0 };
	uint32_t ncci;
	int fd, unit, rc;

	if (app_open(&a, 7, 2048, true) ||
	    (fd = directed_call(&a, &ncci, &unit)) < 0) {
		fail("a call with a tty");
		return;
	}
	close(fd);
	rc = good_stream(&a, unit, ncci, &reorder_shape, REORDER_BYTES, &r,
			 &tally);
	diag("refusals: %lu, %lu of them after waiting for the echo (%lld ms in all)",
	     tally.armed, tally.waited, tally.waited_ms);
	check(rc == 0, "%d KiB written under send-queue-full come back in order (%s)",
	      REORDER_BYTES / 1024,
	      rc == 1 ? "differ" : rc == 2 ? "stopped" : "intact");
	close(a.fd);
}

/* the directed tests named in @list ("hang+reorder"), in that order */
static int run_directed(char *list)
{
	char *name, *save = NULL;

	for (name = strtok_r(list, "+", &save); name;
	     name = strtok_r(NULL, "+", &save)) {
		diag("capi-fuzz: directed test %s", name);
		if (!strcmp(name, "hang"))
			directed_hang();
		else if (!strcmp(name, "open-churn"))
			directed_open_churn();
		else if (!strcmp(name, "reorder"))
			directed_reorder();
		else
			fail("no directed test %s", name);
	}
	return done_testing();
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	char *directed = NULL;
	int opt;

	seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	while ((opt = getopt(argc, argv, "s:n:t:p:T:b:u:c:D:")) != -1) {
		switch (opt) {
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'n': nops = atoi(optarg); break;
		case 't': seconds = atoi(optarg); break;
		case 'p': nprocs = atoi(optarg); break;
		case 'T': nthreads = atoi(optarg); break;
		case 'b': bound = atoi(optarg); break;
		case 'u': nttys = atoi(optarg); break;
		case 'c': ctrl = atoi(optarg); break;
		case 'D': directed = optarg; break;
		default:
			fprintf(stderr, "usage: %s [-s SEED] [-n OPS] [-t SECONDS] [-p PROCS] [-T THREADS] [-b BOUND] [-u TTYS] [-c CONTROLLER] | -D hang+open-churn+reorder\n",
				argv[0]);
			return 2;
		}
	}
	if (nprocs < 1 || nprocs > MAXPROCS)
		nprocs = 3;
	if (nthreads < 1 || nthreads > MAXTHREADS)
		nthreads = 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* no SA_RESTART: the watchdog's signal ends a waiting system call */
	sigaction(SIGUSR1, &sa, NULL);
	snprintf(dbg, sizeof(dbg), "/sys/kernel/debug/capisim/ctr%u", ctrl);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		bail_out("mmap");
	sh->good_unit = -1;
	sh->t_end = now_ms() + seconds * 1000LL;
	if (directed)
		return run_directed(directed);
	progress("start");
	diag("capi-fuzz -s %llu -n %d -t %d -p %d -T %d -b %d -u %d: the same seed runs the same operations",
	     (unsigned long long)seed, nops, seconds, nprocs, nthreads, bound,
	     nttys);
	return run_fuzz();
}
