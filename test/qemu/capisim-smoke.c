/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * capisim-smoke - drive the capisim test controller through /dev/capi20.
 *
 * Runs inside the test VM, with kernelcapi and capisim loaded and debugfs
 * mounted.  Uses the raw /dev/capi20 interface (ioctl, read, write), so it
 * needs no CAPI library and can be linked statically:
 *
 *	gcc -static -O2 -Wall -o capisim-smoke capisim-smoke.c
 *
 * Usage: capisim-smoke [-d DEV] [-c CONTROLLER] [-n CALLS] [-D DEBUGFS_DIR]
 *                      [-T TTY_PREFIX] [-k | -U]
 *   DEV          control device (default /dev/capi20)
 *   CONTROLLER   CAPI controller number (default 1)
 *   CALLS        simultaneous outgoing calls with a tty each (default 2)
 *   DEBUGFS_DIR  default /sys/kernel/debug/capisim/ctrCONTROLLER
 *   TTY_PREFIX   tty of unit N is TTY_PREFIX N (default /dev/capi/)
 *   -k           after the echo checks, exit with the calls up (kernelcapi
 *                releases the application: capisim must drop its calls)
 *   -U           after the echo checks, try to unload capisim: kernelcapi
 *                holds the module for this application, so that must fail
 *                (EWOULDBLOCK) and the calls must survive
 *
 * Checks: registration and profile; LISTEN; CALLS outgoing calls with a B3
 * connection and a tty (CAPIFLAG_HIGHJACKING) each, data written to each
 * tty read back from it; the CAPI Info values of bad requests (wrong PLCI
 * and NCCI, malformed message, channels exhausted, NCCI exhausted, a
 * request that does not exist); an incoming call from debugfs answered
 * with a remote B3 connection and cleared by a remote hangup; local
 * disconnection of everything.  Then calls switched between two more
 * applications (see switch_tests()).  Output is TAP; exit status 0 when
 * all passed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/capi.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "../tap.h"
#include "capimsg.h"

#define CMD(c, s)	(((c) << 8) | (s))
#define MAXCALLS 255

static int capifd;
static unsigned int ctrl = 1;
static uint16_t applid, msgnum;
static const char *debugfs_dir;
static const char *tty_prefix = "/dev/capi/";

/* -------- messages -------- */

static void putstruct(struct msg *m, const void *s, uint8_t len)
{
	put8(m, len);
	memcpy(m->b + m->len, s, len);
	m->len += len;
}

static void start(struct msg *m, uint8_t cmd, uint8_t sub, uint32_t adr)
{
	msg_head(m, applid, msgnum++, cmd, sub, adr);
}

/* Send; returns 0 or the CAPI error code of a failed write. */
static int send_msg(struct msg *m)
{
	uint16_t err = 0;

	if (!msg_write(capifd, m, 0))
		return 0;
	if (errno != EIO)
		bail_out("write to the control device");
	ioctl(capifd, CAPI_GET_ERRCODE, &err);
	return err ? err : -1;
}

static void send_simple(uint8_t cmd, uint8_t sub, uint32_t adr)
{
	struct msg m;

	start(&m, cmd, sub, adr);
	send_msg(&m);
}

/*
 * How long something that must come may take: the guest runs under TCG,
 * maybe beside a kernel build on the host, and slowness must not fail a
 * check.  Silence checks (quiet()) keep their short waits.
 */
#define WAIT_MS	10000

/* Next message within @ms milliseconds; 0 on timeout. */
static int recv_msg_within(struct msg *m, int ms)
{
	int r = msg_read_within(capifd, m, ms);

	if (r < 0)
		bail_out("read from the control device");
	return r;
}

/* Next message within WAIT_MS; 0 on timeout. */
static int recv_msg(struct msg *m)
{
	return recv_msg_within(m, WAIT_MS);
}

/* The next message must be CMD/SUB; returns its address or 0xffffffff. */
static uint32_t expect(struct msg *m, uint8_t cmd, uint8_t sub,
		       const char *what)
{
	if (!recv_msg(m)) {
		check(0, "%s: got nothing", what);
		return 0xffffffff;
	}
	if (m->b[4] != cmd || m->b[5] != sub) {
		check(0, "%s: got command 0x%02x/0x%02x, want 0x%02x/0x%02x",
		      what, m->b[4], m->b[5], cmd, sub);
		return 0xffffffff;
	}
	return get32(m->b + 8);
}

/* Expect a "address, Info" confirmation with @info. */
static uint32_t expect_conf(uint8_t cmd, uint16_t info, const char *what)
{
	struct msg m;
	uint32_t adr = expect(&m, cmd, CONF, what);
	uint16_t got;

	if (adr == 0xffffffff)
		return adr;
	got = get16(m.b + 12);
	check(got == info, "%s: Info 0x%04x (want 0x%04x)", what, got, info);
	return got == info ? adr : 0xffffffff;
}

/* -------- calls -------- */

struct call {
	uint32_t plci, ncci;
	int unit, tty;
};

static struct call calls[MAXCALLS];

static void listen_req(uint32_t cip_mask)
{
	struct msg m;

	start(&m, C_LISTEN, REQ, ctrl);
	put32(&m, 0);		/* info mask */
	put32(&m, cip_mask);
	put32(&m, 0);		/* CIP mask 2 */
	put8(&m, 0);		/* calling party number */
	put8(&m, 0);		/* calling party subaddress */
	send_msg(&m);
}

/* CONNECT_REQ to @number, from @calling (NULL: none given) */
static void connect_req_from(const char *number, const char *calling)
{
	uint8_t num[40];
	struct msg m;
	int n = strlen(number);

	start(&m, C_CONNECT, REQ, ctrl);
	put16(&m, 2);		/* CIP: unrestricted digital information */
	num[0] = 0x80;
	memcpy(num + 1, number, n);
	putstruct(&m, num, n + 1);	/* called party number */
	if (calling) {		/* type/plan, presentation/screening, digits */
		n = strlen(calling);
		num[0] = 0x00;
		num[1] = 0x80;
		memcpy(num + 2, calling, n);
		putstruct(&m, num, n + 2);
	} else {
		put8(&m, 0);
	}
	put8(&m, 0);		/* called party subaddress */
	put8(&m, 0);		/* calling party subaddress */
	/* B protocol: HDLC, transparent, transparent */
	put8(&m, 9);
	put16(&m, 0);
	put16(&m, 1);
	put16(&m, 0);
	put8(&m, 0);
	put8(&m, 0);
	put8(&m, 0);
	put8(&m, 0);		/* BC */
	put8(&m, 0);		/* LLC */
	put8(&m, 0);		/* HLC */
	put8(&m, 0);		/* additional info */
	send_msg(&m);
}

static void connect_req(const char *number)
{
	connect_req_from(number, NULL);
}

static void connect_b3_req(uint32_t plci)
{
	struct msg m;

	start(&m, C_CONNECT_B3, REQ, plci);
	put8(&m, 0);		/* NCPI */
	send_msg(&m);
}

static int open_tty(struct call *c)
{
	char path[64];
	struct termios t;
	int i;

	c->unit = ioctl(capifd, CAPI_NCCI_GETUNIT, &c->ncci);
	if (c->unit < 0)
		return -1;
	snprintf(path, sizeof(path), "%s%d", tty_prefix, c->unit);
	for (i = 0; i < 50; i++) {	/* devtmpfs: normally there at once */
		c->tty = open(path, O_RDWR | O_NOCTTY);
		if (c->tty >= 0)
			break;
		usleep(100000);
	}
	if (c->tty < 0)
		return -1;
	tcgetattr(c->tty, &t);
	cfmakeraw(&t);
	tcsetattr(c->tty, TCSANOW, &t);
	return 0;
}

/* Outgoing call with B3 connection and tty. */
static int call_out(struct call *c, int i)
{
	char number[16], what[64];
	struct msg m;

	snprintf(number, sizeof(number), "555%04d", i);
	snprintf(what, sizeof(what), "call %d: CONNECT_CONF", i);
	connect_req(number);
	c->plci = expect_conf(C_CONNECT, 0, what);
	if (c->plci == 0xffffffff)
		return -1;
	if (expect(&m, C_CONNECT_ACTIVE, IND, "CONNECT_ACTIVE_IND") != c->plci)
		return -1;
	send_simple(C_CONNECT_ACTIVE, RESP, c->plci);
	connect_b3_req(c->plci);
	snprintf(what, sizeof(what), "call %d: CONNECT_B3_CONF", i);
	c->ncci = expect_conf(C_CONNECT_B3, 0, what);
	if (c->ncci == 0xffffffff)
		return -1;
	if (expect(&m, C_CONNECT_B3_ACTIVE, IND, "CONNECT_B3_ACTIVE_IND") !=
	    c->ncci)
		return -1;
	send_simple(C_CONNECT_B3_ACTIVE, RESP, c->ncci);
	return 0;
}

static int echo_test(struct call *c, int i)
{
	char out[64], in[64];
	struct pollfd p = { .fd = c->tty, .events = POLLIN };
	size_t len, got = 0;
	ssize_t n;

	len = snprintf(out, sizeof(out), "capisim echo %d ncci 0x%x", i,
		       c->ncci);
	if (write(c->tty, out, len) != (ssize_t)len)
		return -1;
	while (got < len && poll(&p, 1, WAIT_MS) == 1) {
		n = read(c->tty, in + got, sizeof(in) - got);
		if (n <= 0)
			break;
		got += n;
	}
	return got == len && !memcmp(in, out, len) ? 0 : -1;
}

/*
 * Frames: with N_HDLC on the tty, each write() is one DATA_B3_REQ, capisim
 * echoes it as one DATA_B3_IND, and each read() must return exactly one of
 * them.  Frame-oriented line disciplines (N_SYNC_PPP for pppd's "sync"
 * option, N_HDLC) take one receive_buf() call as one frame: data delivered
 * as a byte stream would merge frames.  ROUNDS times FRAMES frames are
 * written back to back before the first is read, by a real-time writer,
 * so that the kernel's workers (capisim's, kernelcapi's, the tty's) run
 * only when it waits: then the DATA_B3_INDs of one round reach the tty
 * together, up to the window (datablkcnt) at once, as on a busy link.
 */
#define FRAMES	8
#define ROUNDS	4

static int frame_len(int r, int i)
{
	return 20 + 37 * i + r;
}

static void frames_test(struct call *c)
{
	struct pollfd p = { .fd = c->tty, .events = POLLIN };
	int ldisc = N_HDLC, whole = 0, reads = 0, r, i, j, len;
	struct sched_param rt = { .sched_priority = 1 }, other = { 0 };
	char out[512], in[4096];
	ssize_t n;

	if (ioctl(c->tty, TIOCSETD, &ldisc) < 0) {
		fail("N_HDLC on %s%d: %s", tty_prefix, c->unit,
		     strerror(errno));
		return;
	}
	for (r = 0; r < ROUNDS; r++) {
		if (sched_setscheduler(0, SCHED_FIFO, &rt) < 0)
			diag("SCHED_FIFO: %s", strerror(errno));
		for (i = 0; i < FRAMES; i++) {
			len = frame_len(r, i);
			for (j = 0; j < len; j++)
				out[j] = r * FRAMES + i + j;
			if (write(c->tty, out, len) != len)
				break;
		}
		sched_setscheduler(0, SCHED_OTHER, &other);
		for (i = 0; i < FRAMES && poll(&p, 1, WAIT_MS) == 1; i++) {
			n = read(c->tty, in, sizeof(in));
			if (n <= 0)
				break;
			reads++;
			len = frame_len(r, i);
			for (j = 0; j < len; j++)
				out[j] = r * FRAMES + i + j;
			if (n == len && !memcmp(in, out, len))
				whole++;
			else if (reads - whole <= 3)
				diag("round %d frame %d: read %zd bytes, want %d",
				     r, i, n, len);
		}
	}
	check(whole == ROUNDS * FRAMES,
	      "N_HDLC on %s%d: %d frames written back to back come back as %d whole frames (%d reads)",
	      tty_prefix, c->unit, ROUNDS * FRAMES, whole, reads);
	ldisc = N_TTY;
	check(ioctl(c->tty, TIOCSETD, &ldisc) == 0, "back to N_TTY");
	check(echo_test(c, 0) == 0, "%s%d echoes under N_TTY again",
	      tty_prefix, c->unit);
}

/* tx_bytes of NCCI in capisim's debugfs connections, -1 if not listed */
static long debugfs_tx_bytes(uint32_t ncci)
{
	char path[256], line[512], adr[16];
	unsigned int x;
	long tx = -1, b;
	FILE *f;

	snprintf(path, sizeof(path), "%s/connections", debugfs_dir);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %*s %15s %*s %*s %*s %*s %*s %*s %u %ld",
			   adr, &x, &b) == 3 && strtoul(adr, NULL, 0) == ncci)
			tx = b;
	fclose(f);
	return tx;
}

/*
 * Malformed DATA_B3_INDs, as a broken controller or a Bluetooth CMTP peer
 * could send them (capisim's debugfs "malform"): a Data length that
 * disagrees with the data, a message length beyond the message, a message
 * cut before its Data length.  kernelcapi must drop each: not a byte of
 * it, nor of the memory beyond it, may reach the tty, and the data
 * written after it must come back alone.  (The kernel logs each drop:
 * kernel-test.sh counts the lines.)
 */
static void malformed_test(struct call *c)
{
	static const char *const kinds[] = { "datalen", "short", "len" };
	struct pollfd p = { .fd = c->tty, .events = POLLIN };
	char bad[32], good[48], in[4096];
	size_t blen, glen, got;
	unsigned int i;
	ssize_t n;
	int r;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		r = dbg_write(debugfs_dir, "malform", "0x%x %s", c->ncci, kinds[i]);
		if (r) {
			fail("debugfs malform %s: %s", kinds[i], strerror(-r));
			continue;
		}
		blen = snprintf(bad, sizeof(bad), "spoilt by %s", kinds[i]);
		glen = snprintf(good, sizeof(good), "%s%d after a spoilt one",
				tty_prefix, c->unit);
		/* two DATA_B3_REQs, so two DATA_B3_INDs, the first spoilt */
		if (write(c->tty, bad, blen) != (ssize_t)blen)
			diag("write: %s", strerror(errno));
		usleep(200000);
		if (write(c->tty, good, glen) != (ssize_t)glen)
			diag("write: %s", strerror(errno));
		/* everything that comes, until 1 s of quiet after the data */
		got = 0;
		while (got < sizeof(in) &&
		       poll(&p, 1, got >= glen ? 1000 : WAIT_MS) == 1) {
			n = read(c->tty, in + got, sizeof(in) - got);
			if (n <= 0)
				break;
			got += n;
		}
		check(got == glen && !memcmp(in, good, glen),
		      "malformed DATA_B3_IND (%s) dropped: %s%d read %zu bytes, only the %zu written after it%s",
		      kinds[i], tty_prefix, c->unit, got, glen,
		      got > glen ? " (more: the spoilt message or beyond)" : "");
	}
	check(echo_test(c, 1) == 0, "%s%d still echoes after 3 malformed DATA_B3_INDs",
	      tty_prefix, c->unit);
}

/*
 * Stale flow state: output stopped with TCOOFF, then the tty closed.  The
 * next open is a new tty, not stopped: data written to it must go out (and
 * come back through capisim's echo), and its close must not wait for
 * output (closing_wait, 30 s) that can never leave.
 */
static void flow_reopen_test(struct call *c)
{
	struct termios raw;
	char path[64];
	long long t;
	int r;

	snprintf(path, sizeof(path), "%s%d", tty_prefix, c->unit);
	tcgetattr(c->tty, &raw);
	check(tcflow(c->tty, TCOOFF) == 0, "TCOOFF on %s", path);
	t = now_ms();
	close(c->tty);
	check(now_ms() - t < 5000, "close of %s after TCOOFF: %lld ms", path,
	      now_ms() - t);
	c->tty = open(path, O_RDWR | O_NOCTTY);
	if (c->tty < 0) {
		fail("reopen %s: %s", path, strerror(errno));
		return;
	}
	tcsetattr(c->tty, TCSANOW, &raw);
	r = echo_test(c, 3);
	check(r == 0, "%s reopened after TCOOFF and close: written data come back",
	      path);
	t = now_ms();
	close(c->tty);
	check(now_ms() - t < 5000, "%s closed again in %lld ms (under 5 s)",
	      path, now_ms() - t);
	c->tty = open(path, O_RDWR | O_NOCTTY);
	if (c->tty >= 0)
		tcsetattr(c->tty, TCSANOW, &raw);
	check(c->tty >= 0 && echo_test(c, 4) == 0,
	      "%s opened a third time: echoes", path);
}

/*
 * CAPI_SENDQUEUEFULL (capisim's debugfs "sendqueuefull"): the controller
 * refuses the next DATA_B3_REQs of the tty; no DATA_B3_CONF and no write
 * follows that would send them again.  The data must still go out (the
 * echo comes back), and a close right after a write must not wait
 * closing_wait (30 s): the data go out meanwhile (capisim counts them in
 * tx_bytes; their echo reaches a closing tty and is gone with it).
 */
static void sendqueuefull_test(struct call *c)
{
	struct pollfd p = { .fd = c->tty, .events = POLLIN };
	char path[64], out[64], in[256];
	struct termios raw;
	long long t;
	long tx;
	size_t len;
	int r;

	snprintf(path, sizeof(path), "%s%d", tty_prefix, c->unit);
	r = dbg_write(debugfs_dir, "sendqueuefull", "0x%x 3", c->ncci);
	check(r == 0, "debugfs sendqueuefull: %s", r ? strerror(-r) : "ok");
	t = now_ms();
	r = echo_test(c, 5);
	check(r == 0, "%s: data refused 3 times with CAPI_SENDQUEUEFULL come back (%lld ms)",
	      path, now_ms() - t);

	r = dbg_write(debugfs_dir, "sendqueuefull", "0x%x 3", c->ncci);
	check(r == 0, "debugfs sendqueuefull again: %s",
	      r ? strerror(-r) : "ok");
	tx = debugfs_tx_bytes(c->ncci);
	tcgetattr(c->tty, &raw);
	len = snprintf(out, sizeof(out), "written to %s just before close", path);
	if (write(c->tty, out, len) != (ssize_t)len)
		diag("write: %s", strerror(errno));
	t = now_ms();
	close(c->tty);
	check(now_ms() - t < 5000, "%s: close after a write refused with CAPI_SENDQUEUEFULL takes %lld ms (under 5 s)",
	      path, now_ms() - t);
	c->tty = open(path, O_RDWR | O_NOCTTY);
	if (c->tty < 0) {
		fail("reopen %s: %s", path, strerror(errno));
		return;
	}
	tcsetattr(c->tty, TCSANOW, &raw);
	check(tx >= 0 && debugfs_tx_bytes(c->ncci) == tx + (long)len,
	      "%s: the %zu bytes written before that close went out (tx_bytes %ld, then %ld)",
	      path, len, tx, debugfs_tx_bytes(c->ncci));
	/* an echo that came after the reopen is no data of the next test */
	p.fd = c->tty;
	while (poll(&p, 1, 500) == 1 && read(c->tty, in, sizeof(in)) > 0)
		;
	check(echo_test(c, 6) == 0, "%s echoes after the reopen", path);
}

static void disconnect(struct call *c, const char *what)
{
	struct msg m;
	uint32_t adr;
	char w[96];

	if (c->tty >= 0)
		close(c->tty);
	c->tty = -1;
	start(&m, C_DISCONNECT, REQ, c->plci);
	put8(&m, 0);		/* additional info */
	send_msg(&m);
	snprintf(w, sizeof(w), "%s: DISCONNECT_CONF", what);
	expect_conf(C_DISCONNECT, 0, w);
	if (c->ncci) {
		adr = expect(&m, C_DISCONNECT_B3, IND, "DISCONNECT_B3_IND");
		check(adr == c->ncci, "%s: DISCONNECT_B3_IND for 0x%x", what,
		      c->ncci);
		send_simple(C_DISCONNECT_B3, RESP, c->ncci);
	}
	adr = expect(&m, C_DISCONNECT, IND, "DISCONNECT_IND");
	check(adr == c->plci, "%s: DISCONNECT_IND for 0x%x", what, c->plci);
	send_simple(C_DISCONNECT, RESP, c->plci);
}

/*
 * -U: kernelcapi holds a reference on capisim's module for every
 * registered application, so unloading it now must be refused, and the
 * calls must survive the attempt.
 */
static void refuse_unload(int ncalls)
{
	long r = syscall(SYS_delete_module, "capisim", O_NONBLOCK);
	int e = errno;

	check(r < 0 && (e == EWOULDBLOCK || e == EBUSY),
	      "unloading capisim with %d calls up is refused (%s)", ncalls,
	      r < 0 ? strerror(e) : "it unloaded");
	check(dbg_lines(debugfs_dir, "connections") == ncalls,
	      "the %d calls survive the refused unload", ncalls);
}

/* -------- switched calls -------- */

/*
 * Two more applications, A (caller) and B (callee, listening on MSN
 * 5550100), each with its own /dev/capi20 file.  The helpers above work
 * on the current application: use() switches.
 */
struct app {
	int fd;
	uint16_t applid, msgnum;
};

static struct app app_main, app_a, app_b, app_c, *cur_app;

static void use(struct app *a)
{
	if (cur_app) {
		cur_app->fd = capifd;
		cur_app->applid = applid;
		cur_app->msgnum = msgnum;
	}
	cur_app = a;
	capifd = a->fd;
	applid = a->applid;
	msgnum = a->msgnum;
}

#define MSN_B		"5550100"
#define NUMBER_A	"5550200"
#define WINDOW_B	2	/* B's datablkcnt: the flow control test */
#define BLKLEN_A	1024	/* A's datablklen: B's data is split */

static int app_open(struct app *a, const char *dev, unsigned int window,
		    unsigned int blklen)
{
	capi_register_params rp = {
		.level3cnt = 2, .datablkcnt = window, .datablklen = blklen,
	};
	int r;

	a->fd = open(dev, O_RDWR);
	if (a->fd < 0)
		return -1;
	r = ioctl(a->fd, CAPI_REGISTER, &rp);
	if (r <= 0)
		return -1;
	a->applid = r;
	a->msgnum = 1;
	return 0;
}

static void listen_msn(uint32_t cip_mask, const char *msn)
{
	uint8_t num[40];
	struct msg m;
	int n = strlen(msn);

	start(&m, C_LISTEN, REQ, ctrl);
	put32(&m, 0);		/* info mask */
	put32(&m, cip_mask);
	put32(&m, 0);		/* CIP mask 2 */
	num[0] = 0x00;		/* own number: type/plan, presentation */
	num[1] = 0x80;
	memcpy(num + 2, msn, n);
	putstruct(&m, num, n + 2);
	put8(&m, 0);		/* calling party subaddress */
	send_msg(&m);
}

/* CONNECT_RESP or CONNECT_B3_RESP with @reject */
static void connect_resp(uint8_t cmd, uint32_t adr, uint16_t reject)
{
	struct msg m;
	int i;

	start(&m, cmd, RESP, adr);
	put16(&m, reject);
	/* B protocol, connected number/subaddress, LLC, additional info; NCPI */
	for (i = 0; i < (cmd == C_CONNECT ? 5 : 1); i++)
		put8(&m, 0);
	send_msg(&m);
}

static void simple_req(uint8_t cmd, uint32_t adr)
{
	struct msg m;

	start(&m, cmd, REQ, adr);
	put8(&m, 0);		/* additional info / NCPI */
	send_msg(&m);
}

/* DATA_B3_REQ: the message, then the data, in one write */
static int data_req(uint32_t ncci, uint16_t handle, const void *data,
		    uint16_t len)
{
	struct msg m;

	start(&m, C_DATA_B3, REQ, ncci);
	msg_data_b3(&m, handle, data, len);
	return msg_write(capifd, &m, len);
}

static void data_resp(uint32_t ncci, uint16_t handle)
{
	struct msg m;

	start(&m, C_DATA_B3, RESP, ncci);
	put16(&m, handle);
	send_msg(&m);
}

/* Nothing arrives for the current application within @ms. */
static int quiet(int ms)
{
	struct msg m;

	if (!recv_msg_within(&m, ms))
		return 1;
	diag("unexpected message 0x%02x/0x%02x for 0x%x", m.b[4], m.b[5],
	     get32(m.b + 8));
	return 0;
}

/* An IND (checked) and its RESP; returns the IND's address */
static uint32_t ind_resp(uint8_t cmd, const char *what)
{
	struct msg m;
	uint32_t adr = expect(&m, cmd, IND, what);

	if (adr != 0xffffffff)
		send_simple(cmd, RESP, adr);
	return adr;
}

/* DISCONNECT_IND: checked reason, answered */
static void disconnect_ind(uint32_t plci, uint16_t reason, const char *what)
{
	struct msg m;
	uint32_t adr = expect(&m, C_DISCONNECT, IND, what);

	check(adr == plci && get16(m.b + 12) == reason,
	      "%s: DISCONNECT_IND for 0x%x, reason 0x%04x (want 0x%04x)", what,
	      plci, adr == 0xffffffff ? 0 : get16(m.b + 12), reason);
	if (adr != 0xffffffff)
		send_simple(C_DISCONNECT, RESP, adr);
}

struct swcall {
	uint32_t plci_a, plci_b, ncci_a, ncci_b;
};

/* A calls B's number; B gets CONNECT_IND.  0 when both checks passed. */
static int sw_dial(struct swcall *c, const char *what)
{
	struct msg m;
	char w[96];
	int good;

	use(&app_a);
	connect_req_from(MSN_B, NUMBER_A);
	snprintf(w, sizeof(w), "%s: CONNECT_CONF for A", what);
	c->plci_a = expect_conf(C_CONNECT, 0, w);
	use(&app_b);
	c->plci_b = expect(&m, C_CONNECT, IND, "CONNECT_IND at B");
	/* CIP, called party number 0x80 5550100, calling 0x00 0x80 5550200 */
	good = c->plci_b != 0xffffffff && get16(m.b + 12) == 2 &&
	       m.b[14] == 8 && !memcmp(m.b + 16, MSN_B, 7) &&
	       m.b[23] == 9 && !memcmp(m.b + 26, NUMBER_A, 7);
	check(good, "%s: B gets CONNECT_IND 0x%x, CIP 2, called %s, calling %s",
	      what, c->plci_b, MSN_B, NUMBER_A);
	return c->plci_a != 0xffffffff && good ? 0 : -1;
}

/* B accepts; both sides active.  0 when all went as expected. */
static int sw_answer(struct swcall *c, const char *what)
{
	uint32_t a, b;

	use(&app_b);
	connect_resp(C_CONNECT, c->plci_b, 0);
	b = ind_resp(C_CONNECT_ACTIVE, "CONNECT_ACTIVE_IND at B");
	use(&app_a);
	a = ind_resp(C_CONNECT_ACTIVE, "CONNECT_ACTIVE_IND at A");
	check(a == c->plci_a && b == c->plci_b,
	      "%s: accepted, CONNECT_ACTIVE_IND at both sides", what);
	return a == c->plci_a && b == c->plci_b ? 0 : -1;
}

/* The side @from (A or B) opens the B3 connection, the other answers. */
static int sw_b3(struct swcall *c, struct app *from, const char *what)
{
	struct app *to = from == &app_a ? &app_b : &app_a;
	uint32_t *n_from = from == &app_a ? &c->ncci_a : &c->ncci_b;
	uint32_t *n_to = from == &app_a ? &c->ncci_b : &c->ncci_a;
	uint32_t x, y;
	char w[96];

	use(from);
	connect_b3_req(from == &app_a ? c->plci_a : c->plci_b);
	snprintf(w, sizeof(w), "%s: CONNECT_B3_CONF", what);
	*n_from = expect_conf(C_CONNECT_B3, 0, w);
	use(to);
	*n_to = expect(&(struct msg){ 0 }, C_CONNECT_B3, IND,
		       "CONNECT_B3_IND at the other side");
	connect_resp(C_CONNECT_B3, *n_to, 0);
	y = ind_resp(C_CONNECT_B3_ACTIVE, "CONNECT_B3_ACTIVE_IND (answering)");
	use(from);
	x = ind_resp(C_CONNECT_B3_ACTIVE, "CONNECT_B3_ACTIVE_IND (calling)");
	check(x == *n_from && y == *n_to && x != 0xffffffff && y != 0xffffffff,
	      "%s: B3 up, NCCI 0x%x (A) and 0x%x (B)", what, c->ncci_a,
	      c->ncci_b);
	return x == *n_from && y == *n_to ? 0 : -1;
}

/*
 * A sends 4 blocks; B's window is 2: B gets 2 DATA_B3_INDs and A only 2
 * DATA_B3_CONFs until B answers with DATA_B3_RESP.
 */
static void sw_data_a_to_b(struct swcall *c)
{
	uint16_t hnd[4];
	struct msg m;
	char blk[16];
	int i, good = 1, got;

	use(&app_a);
	for (i = 0; i < 4; i++) {
		snprintf(blk, sizeof(blk), "block %d", i);
		if (data_req(c->ncci_a, 100 + i, blk, strlen(blk)))
			good = 0;
	}
	check(good, "A: 4 DATA_B3_REQs, 8 bytes each, taken");
	for (i = 0; i < 2; i++) {
		got = expect(&m, C_DATA_B3, CONF, "DATA_B3_CONF") == c->ncci_a &&
		      get16(m.b + 12) == 100 + i && get16(m.b + 14) == 0;
		check(got, "A: DATA_B3_CONF %d while B has room", 100 + i);
	}
	check(quiet(500), "A: no third DATA_B3_CONF while B's window (2) is full");
	use(&app_b);
	for (i = 0; i < 2; i++) {
		snprintf(blk, sizeof(blk), "block %d", i);
		got = expect(&m, C_DATA_B3, IND, "DATA_B3_IND") == c->ncci_b &&
		      get16(m.b + 16) == 7 &&
		      !memcmp(m.b + get16(m.b), blk, 7);
		hnd[i] = get16(m.b + 18);
		check(got, "B: DATA_B3_IND \"%s\"", blk);
	}
	check(quiet(500), "B: no third DATA_B3_IND before its DATA_B3_RESP");
	data_resp(c->ncci_b, hnd[0]);
	got = expect(&m, C_DATA_B3, IND, "DATA_B3_IND") == c->ncci_b &&
	      !memcmp(m.b + get16(m.b), "block 2", 7);
	hnd[2] = get16(m.b + 18);
	check(got, "B: DATA_B3_RESP lets \"block 2\" through");
	use(&app_a);
	got = expect(&m, C_DATA_B3, CONF, "DATA_B3_CONF") == c->ncci_a &&
	      get16(m.b + 12) == 102;
	check(got, "A: and then DATA_B3_CONF 102");
	check(quiet(300), "A: but not 103 yet");
	use(&app_b);
	data_resp(c->ncci_b, hnd[1]);
	data_resp(c->ncci_b, hnd[2]);
	got = expect(&m, C_DATA_B3, IND, "DATA_B3_IND") == c->ncci_b &&
	      !memcmp(m.b + get16(m.b), "block 3", 7);
	hnd[3] = get16(m.b + 18);
	check(got, "B: \"block 3\"");
	data_resp(c->ncci_b, hnd[3]);
	use(&app_a);
	got = expect(&m, C_DATA_B3, CONF, "DATA_B3_CONF") == c->ncci_a &&
	      get16(m.b + 12) == 103;
	check(got, "A: DATA_B3_CONF 103: all data taken");
}

/* B sends 2000 bytes; A's block size is 1024: two DATA_B3_INDs. */
static void sw_data_b_to_a(struct swcall *c)
{
	unsigned char out[2000], in[2000];
	unsigned int got = 0, n, inds = 0;
	struct msg m;
	int i;

	for (i = 0; i < (int)sizeof(out); i++)
		out[i] = i * 7 + 3;
	use(&app_b);
	check(data_req(c->ncci_b, 7, out, sizeof(out)) == 0,
	      "B: DATA_B3_REQ of %zu bytes", sizeof(out));
	use(&app_a);
	while (got < sizeof(out) &&
	       expect(&m, C_DATA_B3, IND, "DATA_B3_IND") == c->ncci_a) {
		n = get16(m.b + 16);
		if (n > BLKLEN_A || got + n > sizeof(in))
			break;
		memcpy(in + got, m.b + get16(m.b), n);
		got += n;
		inds++;
		data_resp(c->ncci_a, get16(m.b + 18));
	}
	check(got == sizeof(out) && inds == 2 && !memcmp(in, out, got),
	      "A: %u bytes in %u DATA_B3_INDs of at most %d, as sent", got, inds,
	      BLKLEN_A);
	use(&app_b);
	check(expect(&m, C_DATA_B3, CONF, "DATA_B3_CONF") == c->ncci_b &&
	      get16(m.b + 12) == 7 && get16(m.b + 14) == 0,
	      "B: DATA_B3_CONF after A took both blocks");
}

/* @by hangs up with DISCONNECT_REQ; both sides see the call go. */
static void sw_hangup(struct swcall *c, struct app *by, const char *what)
{
	struct app *other = by == &app_a ? &app_b : &app_a;
	uint32_t plci = by == &app_a ? c->plci_a : c->plci_b;
	uint32_t ncci = by == &app_a ? c->ncci_a : c->ncci_b;
	uint32_t oplci = by == &app_a ? c->plci_b : c->plci_a;
	uint32_t oncci = by == &app_a ? c->ncci_b : c->ncci_a;
	char w[96];

	use(by);
	simple_req(C_DISCONNECT, plci);
	snprintf(w, sizeof(w), "%s: DISCONNECT_CONF", what);
	expect_conf(C_DISCONNECT, 0, w);
	if (ncci) {
		snprintf(w, sizeof(w), "%s: DISCONNECT_B3_IND", what);
		check(ind_resp(C_DISCONNECT_B3, w) == ncci, "%s", w);
	}
	snprintf(w, sizeof(w), "%s (hanging up)", what);
	disconnect_ind(plci, 0, w);
	use(other);
	if (oncci) {
		snprintf(w, sizeof(w), "%s: DISCONNECT_B3_IND at the other side",
			 what);
		check(ind_resp(C_DISCONNECT_B3, w) == oncci, "%s", w);
	}
	snprintf(w, sizeof(w), "%s (other side)", what);
	disconnect_ind(oplci, 0x3490, w);
}

static int tty_of(struct app *a, uint32_t ncci, char *path, size_t size)
{
	struct call c = { .ncci = ncci, .tty = -1 };

	use(a);
	if (open_tty(&c) < 0)
		return -1;
	snprintf(path, size, "%s%d", tty_prefix, c.unit);
	return c.tty;
}

static int tty_pass(int from, int to, const char *text)
{
	struct pollfd p = { .fd = to, .events = POLLIN };
	size_t len = strlen(text), got = 0;
	char in[128];
	ssize_t n;

	if (write(from, text, len) != (ssize_t)len)
		return -1;
	while (got < len && poll(&p, 1, WAIT_MS) == 1) {
		n = read(to, in + got, sizeof(in) - got);
		if (n <= 0)
			break;
		got += n;
	}
	return got == len && !memcmp(in, text, len) ? 0 : -1;
}

/* A's and B's ttys (CAPIFLAG_HIGHJACKING) are connected to each other. */
static void sw_ttys(void)
{
	unsigned int flags = CAPIFLAG_HIGHJACKING;
	char pa[64] = "", pb[64] = "";
	struct swcall c = { 0 };
	int ta, tb;

	use(&app_a);
	ioctl(capifd, CAPI_SET_FLAGS, &flags);
	use(&app_b);
	ioctl(capifd, CAPI_SET_FLAGS, &flags);
	if (sw_dial(&c, "tty call") || sw_answer(&c, "tty call") ||
	    sw_b3(&c, &app_a, "tty call"))
		return;
	ta = tty_of(&app_a, c.ncci_a, pa, sizeof(pa));
	tb = tty_of(&app_b, c.ncci_b, pb, sizeof(pb));
	check(ta >= 0 && tb >= 0, "ttys of both ends: %s (A), %s (B)", pa, pb);
	if (ta >= 0 && tb >= 0) {
		check(tty_pass(ta, tb, "from A to B through two ttys") == 0,
		      "bytes written to %s are read from %s", pa, pb);
		check(tty_pass(tb, ta, "and back from B to A") == 0,
		      "bytes written to %s are read from %s", pb, pa);
	}
	if (ta >= 0)
		close(ta);
	if (tb >= 0)
		close(tb);
	sw_hangup(&c, &app_b, "tty call, B hangs up");
	flags = 0;
	use(&app_a);
	ioctl(capifd, CAPI_SET_FLAGS, &flags);
	use(&app_b);
	ioctl(capifd, CAPI_SET_FLAGS, &flags);
}

static int set_answer_timeout(const char *value, char *old, size_t size)
{
	const char *path = "/sys/module/capisim/parameters/answer_timeout";
	ssize_t n;
	int fd;

	fd = open(path, O_RDWR);
	if (fd < 0)
		return -1;
	if (old) {
		n = read(fd, old, size - 1);
		old[n > 0 ? n : 0] = '\0';
	}
	n = write(fd, value, strlen(value));
	close(fd);
	return n == (ssize_t)strlen(value) ? 0 : -1;
}

/*
 * B protocol struct with B1 @b1, B2 1 (X.75) unless B1 is 0 (HDLC with
 * B2 0 is fine too), B3 0, empty configurations
 */
static void put_bprot(struct msg *m, uint16_t b1)
{
	put8(m, 9);
	put16(m, b1);
	put16(m, 1);
	put16(m, 0);
	put8(m, 0);
	put8(m, 0);
	put8(m, 0);
}

/* An echo call of the current application, B3 up, not answered yet. */
static int echo_call_b3(const char *number, struct call *c)
{
	struct msg m;

	connect_req_from(number, NUMBER_A);
	c->plci = expect_conf(C_CONNECT, 0, "echo call: CONNECT_CONF");
	if (c->plci == 0xffffffff ||
	    ind_resp(C_CONNECT_ACTIVE, "echo call: CONNECT_ACTIVE_IND") !=
	    c->plci)
		return -1;
	connect_b3_req(c->plci);
	c->ncci = expect_conf(C_CONNECT_B3, 0, "echo call: CONNECT_B3_CONF");
	if (c->ncci == 0xffffffff ||
	    expect(&m, C_CONNECT_B3_ACTIVE, IND,
		   "echo call: CONNECT_B3_ACTIVE_IND") != c->ncci)
		return -1;
	return 0;
}

/* The next DATA_B3_IND on @ncci within @ms; its handle in *@handle */
static int data_ind_within(uint32_t ncci, uint16_t *handle, struct msg *m,
			   int ms)
{
	if (!recv_msg_within(m, ms) || m->b[4] != C_DATA_B3 || m->b[5] != IND ||
	    get32(m->b + 8) != ncci)
		return -1;
	*handle = get16(m->b + 18);
	return 0;
}

/* The same within WAIT_MS: -1 when none came */
static int data_ind(uint32_t ncci, uint16_t *handle, struct msg *m)
{
	return data_ind_within(ncci, handle, m, WAIT_MS);
}

/*
 * What CAPI 2.0 (Part I) asks of a controller that capisim once got
 * wrong (finding 9), the receive window (finding 4) and the fault
 * injection of debugfs flood and stray.  App C registers with
 * datablkcnt 8: capisim may have at most 7 DATA_B3_INDs outstanding.
 */
static void spec_tests(const char *dev)
{
	struct swcall sc;
	struct call c;
	struct msg m;
	uint16_t hnd[8];
	long stray;
	int i, n, good, confs, bad;

	/* a network cause as the reject value is passed on */
	memset(&sc, 0, sizeof(sc));
	if (!sw_dial(&sc, "call 11")) {
		use(&app_b);
		connect_resp(C_CONNECT, sc.plci_b, 0x34a2);
		disconnect_ind(sc.plci_b, 0, "call 11: B rejects with cause 0x34a2");
		use(&app_a);
		disconnect_ind(sc.plci_a, 0x34a2,
			       "call 11: A: the cause B gave (no circuit available)");
	}

	if (app_open(&app_c, dev, 8, 2048)) {
		check(0, "application C (datablkcnt 8) registered");
		return;
	}
	use(&app_c);
	c.tty = -1;
	if (echo_call_b3("5550198", &c))
		return;
	/* no data before CONNECT_B3_ACTIVE_RESP */
	data_req(c.ncci, 1, "early", 5);
	good = expect(&m, C_DATA_B3, CONF, "DATA_B3_CONF (early)") == c.ncci &&
	       get16(m.b + 12) == 1 && get16(m.b + 14) == 0x2001;
	check(good, "DATA_B3_REQ before CONNECT_B3_ACTIVE_RESP: Info 0x%04x (want 0x2001)",
	      get16(m.b + 14));
	/* (an echo that came all the same is answered: the window starts empty) */
	n = recv_msg_within(&m, 300);
	check(!n, "and nothing of it is echoed");
	if (n && m.b[4] == C_DATA_B3 && m.b[5] == IND)
		data_resp(c.ncci, get16(m.b + 18));
	send_simple(C_CONNECT_B3_ACTIVE, RESP, c.ncci);

	/* the window: 9 blocks, at most 7 DATA_B3_INDs outstanding */
	for (i = 0; i < 9; i++)
		data_req(c.ncci, 10 + i, "window", 6);
	for (n = confs = bad = 0; recv_msg_within(&m, 1000);) {
		if (m.b[4] == C_DATA_B3 && m.b[5] == CONF) {
			confs++;
			bad += get16(m.b + 14) != 0;
		} else if (m.b[4] == C_DATA_B3 && m.b[5] == IND && n < 8) {
			hnd[n++] = get16(m.b + 18);
		} else {
			bad++;
		}
	}
	check(confs == 9 && !bad, "9 DATA_B3_REQs confirmed with Info 0 (%d, %d bad)",
	      confs, bad);
	check(n == 7, "datablkcnt 8: %d DATA_B3_INDs outstanding (want 7, CAPI's maximum)",
	      n);
	stray = dbg_number(debugfs_dir, "counters", "stray_resp");
	data_resp(c.ncci, hnd[0] + 1000);
	check(quiet(300), "a DATA_B3_RESP for a handle never sent frees no place");
	check(dbg_number(debugfs_dir, "counters", "stray_resp") == stray + 1,
	      "and is counted: stray_resp %ld -> %ld", stray,
	      dbg_number(debugfs_dir, "counters", "stray_resp"));
	data_resp(c.ncci, hnd[3]);	/* any outstanding one, not in order */
	check(!data_ind(c.ncci, &hnd[3], &m),
	      "its own DATA_B3_RESP lets the 8th block through");
	data_resp(c.ncci, hnd[3]);
	check(!data_ind(c.ncci, &hnd[3], &m), "and the 9th");
	data_resp(c.ncci, hnd[3]);
	data_resp(c.ncci, hnd[3]);	/* answered already */
	check(dbg_number(debugfs_dir, "counters", "stray_resp") == stray + 2,
	      "a second DATA_B3_RESP for the same handle is stray too");
	for (i = 0; i < 7; i++)
		if (i != 3)
			data_resp(c.ncci, hnd[i]);

	/* flood: 20 blocks of 16 bytes, never more than 7 outstanding */
	n = dbg_write(debugfs_dir, "flood", "0x%x 20 16", c.ncci);
	check(n == 0, "debugfs flood 20 16: %s", n ? strerror(-n) : "ok");
	good = 1;
	for (n = 0; n < 8 && !data_ind_within(c.ncci, &hnd[n], &m, 1000); n++)
		good &= get16(m.b + 16) == 16;
	check(n == 7 && good, "flood: %d DATA_B3_INDs of 16 bytes before a RESP (want 7)",
	      n);
	for (i = 0; i < n; i++)
		data_resp(c.ncci, hnd[i]);
	for (i = 0; i < 13; i++) {
		if (data_ind(c.ncci, &hnd[0], &m))
			break;
		data_resp(c.ncci, hnd[0]);
	}
	check(i == 13 && quiet(300), "flood: the other 13 follow, and no more");

	/*
	 * a stray indication, for no PLCI of the controller (a stray
	 * DATA_B3_IND makes kernelcapi log "BUG: capi_signal: ncci not
	 * found": the stress test sends those)
	 */
	stray = dbg_number(debugfs_dir, "counters", "stray_ind");
	n = dbg_write(debugfs_dir, "stray", "%u 0x%x", applid, ctrl | 0xfe00);
	check(n == 0 && expect(&m, C_DISCONNECT, IND, "stray DISCONNECT_IND") ==
	      (ctrl | 0xfe00), "debugfs stray: DISCONNECT_IND for PLCI 0x%x",
	      ctrl | 0xfe00);
	check(dbg_number(debugfs_dir, "counters", "stray_ind") == stray + 1, "stray_ind counts it");
	n = dbg_write(debugfs_dir, "stray", "%u 0x%x", applid, c.ncci);
	check(n == -EBUSY, "debugfs stray on a live NCCI is refused: %s",
	      n ? strerror(-n) : "accepted");
	check(dbg_lines(debugfs_dir, "connections") >= 1, "the call survives");
	disconnect(&c, "echo call of C");
	use(&app_main);
	close(app_c.fd);

	/* last: a capisim that takes the fax call leaves it up */
	/* a B1 protocol capisim cannot carry: T.30 fax (4) */
	use(&app_a);
	start(&m, C_CONNECT, REQ, ctrl);
	put16(&m, 4);		/* CIP: 3.1 kHz audio */
	put8(&m, 0);
	put8(&m, 0);
	put8(&m, 0);
	put8(&m, 0);
	put_bprot(&m, 4);
	for (i = 0; i < 4; i++)
		put8(&m, 0);
	send_msg(&m);
	expect_conf(C_CONNECT, 0x3001, "CONNECT_REQ with B1 4 (T.30 fax): B1 protocol not supported");
	memset(&sc, 0, sizeof(sc));
	if (!sw_dial(&sc, "call 10")) {
		use(&app_b);
		start(&m, C_CONNECT, RESP, sc.plci_b);
		put16(&m, 0);		/* accept ... */
		put_bprot(&m, 4);	/* ... as a fax */
		for (i = 0; i < 4; i++)
			put8(&m, 0);
		send_msg(&m);
		disconnect_ind(sc.plci_b, 0x3001,
			       "call 10: B accepts with B1 4: B1 protocol not supported");
		use(&app_a);
		disconnect_ind(sc.plci_a, 0x34d8,
			       "call 10: A: incompatible destination");
	}
}

static void switch_tests(const char *dev)
{
	struct swcall c;
	char old[16] = "30";
	struct msg m;
	uint32_t adr;

	app_main.fd = capifd;
	app_main.applid = applid;
	app_main.msgnum = msgnum;
	cur_app = &app_main;
	if (app_open(&app_a, dev, 7, BLKLEN_A) || app_open(&app_b, dev,
							   WINDOW_B, 2048))
		bail_out("switch tests: open and register two more applications");
	pass("switch: applications A (%u) and B (%u) registered",
	     app_a.applid, app_b.applid);
	/* a listener with no number would be offered A's calls too */
	use(&app_main);
	listen_req(0);
	expect_conf(C_LISTEN, 0, "main application: LISTEN_REQ, no service");
	use(&app_b);
	listen_msn(1 << 2, MSN_B);	/* unrestricted digital information */
	expect_conf(C_LISTEN, 0, "B: LISTEN_REQ, CIP 2, own number " MSN_B);

	/* accept, data both ways, A hangs up */
	memset(&c, 0, sizeof(c));
	if (!sw_dial(&c, "call 1")) {
		use(&app_a);
		check(quiet(300), "call 1: A waits for B's answer");
		use(&app_b);
		simple_req(C_ALERT, c.plci_b);
		expect_conf(C_ALERT, 0, "call 1: B alerts");
		check(dbg_lines(debugfs_dir, "connections") == 2,
		      "call 1: debugfs connections lists both sides");
		if (!sw_answer(&c, "call 1") && !sw_b3(&c, &app_a, "call 1")) {
			sw_data_a_to_b(&c);
			sw_data_b_to_a(&c);
		}
		sw_hangup(&c, &app_a, "call 1, A hangs up");
	}

	/* B opens the B3 connection, clears it, then hangs up */
	memset(&c, 0, sizeof(c));
	if (!sw_dial(&c, "call 2") && !sw_answer(&c, "call 2") &&
	    !sw_b3(&c, &app_b, "call 2")) {
		use(&app_b);
		simple_req(C_DISCONNECT_B3, c.ncci_b);
		expect_conf(C_DISCONNECT_B3, 0, "call 2: B: DISCONNECT_B3_CONF");
		check(ind_resp(C_DISCONNECT_B3, "B: DISCONNECT_B3_IND") ==
		      c.ncci_b, "call 2: B: DISCONNECT_B3_IND");
		use(&app_a);
		check(ind_resp(C_DISCONNECT_B3, "A: DISCONNECT_B3_IND") ==
		      c.ncci_a, "call 2: A: DISCONNECT_B3_IND");
		c.ncci_a = c.ncci_b = 0;
		sw_hangup(&c, &app_b, "call 2, B hangs up");
	}

	/* both open the B3 connection: the second request is refused */
	memset(&c, 0, sizeof(c));
	if (!sw_dial(&c, "call 2b") && !sw_answer(&c, "call 2b")) {
		use(&app_a);
		connect_b3_req(c.plci_a);
		c.ncci_a = expect_conf(C_CONNECT_B3, 0,
				       "call 2b: A: CONNECT_B3_CONF");
		use(&app_b);
		connect_b3_req(c.plci_b);
		c.ncci_b = expect(&m, C_CONNECT_B3, IND,
				  "call 2b: B: CONNECT_B3_IND");
		expect_conf(C_CONNECT_B3, 0x2004,
			    "call 2b: B's CONNECT_B3_REQ crossing A's");
		sw_hangup(&c, &app_b, "call 2b, B hangs up, B3 not answered");
	}

	/* rejects: the caller learns why */
	memset(&c, 0, sizeof(c));
	if (!sw_dial(&c, "call 3")) {
		use(&app_b);
		connect_resp(C_CONNECT, c.plci_b, 3);	/* user busy */
		disconnect_ind(c.plci_b, 0, "call 3: B rejects (busy)");
		use(&app_a);
		disconnect_ind(c.plci_a, 0x3491, "call 3: A: user busy");
	}
	memset(&c, 0, sizeof(c));
	if (!sw_dial(&c, "call 4")) {
		use(&app_b);
		connect_resp(C_CONNECT, c.plci_b, 0x20);  /* not a listed value */
		disconnect_ind(c.plci_b, 0, "call 4: B rejects");
		use(&app_a);
		disconnect_ind(c.plci_a, 0x3495, "call 4: A: call rejected");
	}

	memset(&c, 0, sizeof(c));
	if (!sw_dial(&c, "call 4b")) {
		use(&app_b);
		connect_resp(C_CONNECT, c.plci_b, 1);	/* ignore */
		disconnect_ind(c.plci_b, 0, "call 4b: B ignores the call");
		use(&app_a);
		disconnect_ind(c.plci_a, 0x3492,
			       "call 4b: A: no user responding");
	}

	/* no answer, without and with ALERT_REQ */
	check(set_answer_timeout("1", old, sizeof(old)) == 0,
	      "answer_timeout set to 1 second (was %.*s)", (int)strcspn(old, "\n"),
	      old);
	memset(&c, 0, sizeof(c));
	if (!sw_dial(&c, "call 5")) {
		use(&app_a);
		disconnect_ind(c.plci_a, 0x3492, "call 5: A: no user responding");
		use(&app_b);
		disconnect_ind(c.plci_b, 0x3492, "call 5: B: offer withdrawn");
	}
	memset(&c, 0, sizeof(c));
	if (!sw_dial(&c, "call 6")) {
		use(&app_b);
		simple_req(C_ALERT, c.plci_b);
		expect_conf(C_ALERT, 0, "call 6: B alerts");
		disconnect_ind(c.plci_b, 0x3493, "call 6: B: offer withdrawn");
		use(&app_a);
		disconnect_ind(c.plci_a, 0x3493, "call 6: A: no answer");
	}
	set_answer_timeout(old, NULL, 0);

	/* the caller gives up while it rings */
	memset(&c, 0, sizeof(c));
	if (!sw_dial(&c, "call 7"))
		sw_hangup(&c, &app_a, "call 7, A hangs up before the answer");

	/* no B channel left for the callee: user busy */
	use(&app_main);
	connect_req("5550001");
	adr = expect_conf(C_CONNECT, 0, "echo call on the first B channel");
	ind_resp(C_CONNECT_ACTIVE, "CONNECT_ACTIVE_IND (echo call)");
	use(&app_a);
	connect_req_from(MSN_B, NUMBER_A);
	c.plci_a = expect_conf(C_CONNECT, 0, "call 8: CONNECT_CONF");
	disconnect_ind(c.plci_a, 0x3491, "call 8: no B channel for B: busy");
	use(&app_b);
	check(quiet(300), "call 8: B is not offered the call");
	use(&app_main);
	simple_req(C_DISCONNECT, adr);
	expect_conf(C_DISCONNECT, 0, "echo call: DISCONNECT_CONF");
	disconnect_ind(adr, 0, "echo call");

	/* a number nobody listens on still echoes */
	use(&app_a);
	connect_req_from("5550199", NUMBER_A);
	adr = expect_conf(C_CONNECT, 0, "call to 5550199: CONNECT_CONF");
	check(expect(&m, C_CONNECT_ACTIVE, IND, "CONNECT_ACTIVE_IND") == adr,
	      "a number nobody listens on is connected at once (echo)");
	send_simple(C_CONNECT_ACTIVE, RESP, adr);
	simple_req(C_DISCONNECT, adr);
	expect_conf(C_DISCONNECT, 0, "call to 5550199: DISCONNECT_CONF");
	disconnect_ind(adr, 0, "call to 5550199");

	/* the middleware's ttys at both ends */
	sw_ttys();

	spec_tests(dev);

	/* B goes away with the call up: A is cleared */
	memset(&c, 0, sizeof(c));
	if (!sw_dial(&c, "call 9") && !sw_answer(&c, "call 9") &&
	    !sw_b3(&c, &app_a, "call 9")) {
		use(&app_main);
		close(app_b.fd);
		app_b.fd = -1;
		use(&app_a);
		check(ind_resp(C_DISCONNECT_B3, "A: DISCONNECT_B3_IND") ==
		      c.ncci_a, "call 9: B released: A gets DISCONNECT_B3_IND");
		disconnect_ind(c.plci_a, 0x3490, "call 9: B released");
	}
	usleep(200000);
	check(dbg_lines(debugfs_dir, "connections") == 0, "switch: no connections left");
	check(dbg_number(debugfs_dir, "../echo_bytes", NULL) == 0, "switch: nothing held (echo_bytes %ld)",
	      dbg_number(debugfs_dir, "../echo_bytes", NULL));
	use(&app_main);
	close(app_a.fd);
	if (app_b.fd >= 0)
		close(app_b.fd);
}

int main(int argc, char **argv)
{
	const char *dev = "/dev/capi20";
	capi_register_params rp;
	struct call extra[MAXCALLS], in = { .tty = -1 };
	unsigned int flags = CAPIFLAG_HIGHJACKING;
	int ncalls = 2, i, nextra = 0, opt, r, keep = 0, try_unload = 0;
	capi_ioctl_struct io;
	char dbg[128];
	struct msg m;
	uint32_t adr;

	while ((opt = getopt(argc, argv, "d:c:n:D:T:kU")) != -1) {
		switch (opt) {
		case 'k': keep = 1; break;
		case 'U': try_unload = 1; break;
		case 'd': dev = optarg; break;
		case 'c': ctrl = atoi(optarg); break;
		case 'n': ncalls = atoi(optarg); break;
		case 'D': debugfs_dir = optarg; break;
		case 'T': tty_prefix = optarg; break;
		default:
			fprintf(stderr, "usage: %s [-d DEV] [-c CONTROLLER] [-n CALLS] [-D DEBUGFS_DIR] [-T TTY_PREFIX] [-k | -U]\n",
				argv[0]);
			return 2;
		}
	}
	if (ncalls < 1 || ncalls > MAXCALLS)
		ncalls = 2;
	if (!debugfs_dir) {
		snprintf(dbg, sizeof(dbg), "/sys/kernel/debug/capisim/ctr%u",
			 ctrl);
		debugfs_dir = dbg;
	}

	capifd = open(dev, O_RDWR);
	if (capifd < 0)
		bail_out("open %s", dev);
	rp.level3cnt = ncalls + 2;
	rp.datablkcnt = 7;
	rp.datablklen = 2048;
	r = ioctl(capifd, CAPI_REGISTER, &rp);
	check(r > 0, "CAPI_REGISTER: ApplID %d", r);
	if (r <= 0)
		bail_out("CAPI_REGISTER");
	applid = r;

	memset(&io, 0, sizeof(io));
	io.contr = ctrl;
	r = ioctl(capifd, CAPI_GET_MANUFACTURER, &io);
	check(r == 0 && strstr((char *)io.manufacturer, "capisim"),
	      "manufacturer of controller %u: \"%.64s\"", ctrl,
	      r ? "" : (char *)io.manufacturer);
	memset(&io, 0, sizeof(io));
	io.contr = ctrl;
	r = ioctl(capifd, CAPI_GET_PROFILE, &io);
	check(r == 0 && io.profile.nbchannel >= ncalls + 1,
	      "profile: %u B channels, %u controller(s), enough for %d calls",
	      io.profile.nbchannel, io.profile.ncontroller, ncalls + 1);
	if (r || io.profile.nbchannel < ncalls + 1)
		bail_out("not enough B channels: load capisim with nbchan=%d",
		     ncalls + 1);
	check(ioctl(capifd, CAPI_SET_FLAGS, &flags) == 0,
	      "CAPI_SET_FLAGS CAPIFLAG_HIGHJACKING");

	listen_req(1);
	expect_conf(C_LISTEN, 0, "LISTEN_REQ, all services");

	/* outgoing calls, each with a tty that echoes */
	for (i = 0; i < ncalls; i++) {
		calls[i].tty = -1;
		if (call_out(&calls[i], i) < 0)
			bail_out("call %d failed", i);
		r = open_tty(&calls[i]);
		check(r == 0, "call %d: PLCI 0x%x NCCI 0x%x, %s%d", i,
		      calls[i].plci, calls[i].ncci, tty_prefix, calls[i].unit);
	}
	for (i = 0; i < ncalls; i++)
		check(echo_test(&calls[i], i) == 0, "call %d: data written to %s%d comes back",
		      i, tty_prefix, calls[i].unit);
	frames_test(&calls[0]);
	malformed_test(&calls[0]);
	flow_reopen_test(&calls[0]);
	sendqueuefull_test(&calls[0]);
	check(dbg_lines(debugfs_dir, "connections") == ncalls, "debugfs connections lists %d calls",
	      ncalls);
	if (keep) {
		printf("# exiting with %d calls up\n", ncalls);
		goto out;
	}
	if (try_unload)
		refuse_unload(ncalls);

	/* requests capisim must refuse */
	connect_b3_req(ctrl | 0xfe00);
	expect_conf(C_CONNECT_B3, 0x2002, "CONNECT_B3_REQ on a PLCI that does not exist");
	connect_b3_req(calls[0].plci);
	expect_conf(C_CONNECT_B3, 0x2004, "second CONNECT_B3_REQ on a PLCI");
	/* (not DATA_B3_REQ: kernelcapi logs its answer for an unknown NCCI) */
	start(&m, C_DISCONNECT_B3, REQ, calls[0].ncci ^ 0x10000);
	put8(&m, 0);		/* NCPI */
	send_msg(&m);
	expect_conf(C_DISCONNECT_B3, 0x2002, "DISCONNECT_B3_REQ on a wrong NCCI");
	start(&m, C_CONNECT, REQ, ctrl);
	put16(&m, 2);		/* and nothing else */
	send_msg(&m);
	expect_conf(C_CONNECT, 0x2007, "CONNECT_REQ without its parameters");
	start(&m, C_LISTEN, REQ, ctrl | 0x0500);
	put32(&m, 0);
	put32(&m, 1);
	put32(&m, 0);
	put8(&m, 0);
	put8(&m, 0);
	send_msg(&m);
	expect_conf(C_LISTEN, 0x2002, "LISTEN_REQ with a PLCI as controller");
	start(&m, C_CONNECT_ACTIVE, REQ, calls[0].plci);
	r = send_msg(&m);
	check(r == 0x1102, "CONNECT_ACTIVE_REQ refused: error 0x%04x", r);

	/* use up the B channels: one call short, then out of PLCI */
	for (i = ncalls; i < io.profile.nbchannel && nextra < MAXCALLS; i++) {
		struct msg c;

		connect_req("5550000");
		if (!recv_msg(&c) || get16(c.b + 12))
			break;
		extra[nextra].plci = get32(c.b + 8);
		extra[nextra].ncci = 0;
		extra[nextra].tty = -1;
		nextra++;
		expect(&c, C_CONNECT_ACTIVE, IND, "CONNECT_ACTIVE_IND");
		send_simple(C_CONNECT_ACTIVE, RESP, get32(c.b + 8));
	}
	check(ncalls + nextra == io.profile.nbchannel,
	      "%d more calls fill the %u B channels", nextra,
	      io.profile.nbchannel);
	connect_req("5550001");
	expect_conf(C_CONNECT, 0x2003, "CONNECT_REQ with all B channels busy");
	for (i = 0; i < nextra; i++)
		disconnect(&extra[i], "extra call");

	/* incoming call, remote B3 connection, remote hangup */
	r = dbg_write(debugfs_dir, "incoming", "5551234 5559876");
	check(r == 0, "debugfs incoming: %s", r ? strerror(-r) : "ok");
	in.plci = expect(&m, C_CONNECT, IND, "CONNECT_IND");
	check(in.plci != 0xffffffff && get16(m.b + 12) == 2 &&
	      m.b[14] == 8 && !memcmp(m.b + 16, "5551234", 7),
	      "CONNECT_IND: PLCI 0x%x, CIP 2, called 5551234", in.plci);
	start(&m, C_CONNECT, RESP, in.plci);
	put16(&m, 0);		/* accept */
	for (i = 0; i < 8; i++)	/* B protocol ... additional info */
		put8(&m, 0);
	send_msg(&m);
	adr = expect(&m, C_CONNECT_ACTIVE, IND, "CONNECT_ACTIVE_IND (in)");
	check(adr == in.plci, "incoming call connected");
	send_simple(C_CONNECT_ACTIVE, RESP, in.plci);
	r = dbg_write(debugfs_dir, "connect_b3", "0x%x", in.plci);
	check(r == 0, "debugfs connect_b3: %s", r ? strerror(-r) : "ok");
	in.ncci = expect(&m, C_CONNECT_B3, IND, "CONNECT_B3_IND");
	start(&m, C_CONNECT_B3, RESP, in.ncci);
	put16(&m, 0);
	put8(&m, 0);
	send_msg(&m);
	adr = expect(&m, C_CONNECT_B3_ACTIVE, IND, "CONNECT_B3_ACTIVE_IND (in)");
	check(adr == in.ncci, "remote B3 connection 0x%x up", in.ncci);
	send_simple(C_CONNECT_B3_ACTIVE, RESP, in.ncci);
	r = open_tty(&in);
	if (r == 0)
		r = echo_test(&in, 99);
	check(r == 0, "incoming call: tty %s%d echoes", tty_prefix, in.unit);
	close(in.tty);
	/* numbers are checked, not cut to 16 bits: 0x10000 is no reason */
	r = dbg_write(debugfs_dir, "hangup", "0x%x 0x10000", in.ncci);
	check(r == -EINVAL, "debugfs hangup with REASON 0x10000 is refused: %s",
	      r ? strerror(-r) : "accepted");
	r = dbg_write(debugfs_dir, "disconnect_b3", "0x%x 0x10000", in.ncci);
	check(r == -EINVAL, "debugfs disconnect_b3 with REASON_B3 0x10000 is refused: %s",
	      r ? strerror(-r) : "accepted");
	check(dbg_lines(debugfs_dir, "connections") >= 1, "the call survives the refused writes");
	r = dbg_write(debugfs_dir, "hangup", "0x%x", in.ncci);
	check(r == 0, "debugfs hangup: %s", r ? strerror(-r) : "ok");
	adr = expect(&m, C_DISCONNECT_B3, IND, "DISCONNECT_B3_IND (remote)");
	check(adr == in.ncci, "remote hangup: DISCONNECT_B3_IND");
	send_simple(C_DISCONNECT_B3, RESP, in.ncci);
	adr = expect(&m, C_DISCONNECT, IND, "DISCONNECT_IND (remote)");
	check(adr == in.plci && get16(m.b + 12) == 0x3490,
	      "remote hangup: DISCONNECT_IND, reason 0x%04x", get16(m.b + 12));
	send_simple(C_DISCONNECT, RESP, in.plci);
	r = dbg_write(debugfs_dir, "hangup", "0x%x", in.plci);
	check(r == -ENOENT, "hangup of a released PLCI: %s", strerror(-r));

	/* local clearing */
	for (i = 0; i < ncalls; i++)
		disconnect(&calls[i], "call");
	usleep(200000);
	check(dbg_lines(debugfs_dir, "connections") == 0, "no connections left");
	check(dbg_number(debugfs_dir, "../echo_bytes", NULL) == 0, "no echo data held (echo_bytes %ld)",
	      dbg_number(debugfs_dir, "../echo_bytes", NULL));
	for (i = 0; i < ncalls; i++) {
		char path[64];
		struct stat st;

		snprintf(path, sizeof(path), "%s%d", tty_prefix, calls[i].unit);
		if (stat(path, &st) == 0)
			break;
	}
	check(i == ncalls, "the ttys are gone");

	switch_tests(dev);
out:
	close(capifd);

	return done_testing();
}
