/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * capi-regress - regression tests for the kernel series' fixes to
 * drivers/isdn/capi/capi.c that capisim-smoke does not reach.
 *
 * Runs inside the test VM, with kernelcapi and capisim loaded.  Uses the
 * raw /dev/capi20 interface, like capisim-smoke.
 *
 * Usage: capi-regress [-d DEV] [-c CONTROLLER] [-T TTY_PREFIX]
 *
 * Checks (issue 27, finding 1): kcapi's receive work never waits for a
 * tty.  A middleware tty (/dev/capi/N) has a tcsetattr(TCSADRAIN) waiting
 * for output that TCOOFF holds back, which holds a reference to its line
 * discipline, and a hangup (TIOCVHANGUP) waits for it: the discipline
 * semaphore is wanted for writing until the drain ends, and nobody gets
 * a new reference meanwhile.  A DATA_B3_IND for that tty arrives then.
 * When capi_recv_message() (kcapi's receive work) delivers it itself, it
 * sleeps in tty_ldisc_ref_wait(), and a close() of any other /dev/capi20
 * waits for it in capi20_release()'s flush_workqueue(), in D state.  The
 * close must return within CLOSE_MAX_MS; once the drain is killed, the
 * hangup and everything else must go on.
 *
 * (Finding 4) A connection gets at most the application's window of
 * DATA_B3_INDs it has not answered, however the controller counts:
 * see data_window().
 *
 * Output is TAP; exit status 0 when all passed.
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
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "../tap.h"
#include "capimsg.h"

#define WAIT_MS		10000	/* what must come, under TCG */
/*
 * A close() of /dev/capi20 that waits for nothing takes milliseconds; one
 * that waits for the tty waits until the test kills the drain.
 */
#define CLOSE_MAX_MS	2000

static int capifd;
static unsigned int ctrl = 1;
static uint16_t applid, msgnum;
static const char *dev = "/dev/capi20";
static const char *tty_prefix = "/dev/capi/";

static void start(struct msg *m, uint8_t cmd, uint8_t sub, uint32_t adr)
{
	msg_head(m, applid, msgnum++, cmd, sub, adr);
}

static void send_msg(struct msg *m)
{
	if (msg_write(capifd, m, 0))
		bail_out("write to %s", dev);
}

static void send_simple(uint8_t cmd, uint8_t sub, uint32_t adr)
{
	struct msg m;

	start(&m, cmd, sub, adr);
	send_msg(&m);
}

/* The next message must be CMD/SUB; returns its address or 0xffffffff. */
static uint32_t expect(struct msg *m, uint8_t cmd, uint8_t sub,
		       const char *what)
{
	int r = msg_read_within(capifd, m, WAIT_MS);

	if (r < 0)
		bail_out("read from %s", dev);
	if (!r) {
		fail("%s: got nothing", what);
		return 0xffffffff;
	}
	if (m->b[4] != cmd || m->b[5] != sub) {
		fail("%s: got command 0x%02x/0x%02x, want 0x%02x/0x%02x",
		     what, m->b[4], m->b[5], cmd, sub);
		return 0xffffffff;
	}
	return get32(m->b + 8);
}

static int app_register(int fd);

/* Register an application on @fd and make it the current one */
static void r_applid(int fd)
{
	int r = app_register(fd);

	if (r <= 0)
		bail_out("CAPI_REGISTER");
	applid = r;
	msgnum = 1;
}

static int app_register(int fd)
{
	capi_register_params rp = {
		.level3cnt = 2, .datablkcnt = 7, .datablklen = 2048,
	};

	return ioctl(fd, CAPI_REGISTER, &rp);
}

/* An outgoing call to a number nobody listens to: capisim echoes its data */
static uint32_t call_out(const char *number)
{
	uint8_t num[16];
	uint32_t plci, ncci;
	struct msg m;
	int n = strlen(number), i;

	start(&m, C_CONNECT, REQ, ctrl);
	put16(&m, 2);		/* CIP: unrestricted digital information */
	num[0] = 0x80;
	memcpy(num + 1, number, n);
	put8(&m, n + 1);
	memcpy(m.b + m.len, num, n + 1);
	m.len += n + 1;
	for (i = 0; i < 3; i++)	/* calling number, both subaddresses */
		put8(&m, 0);
	put8(&m, 9);		/* B protocol: HDLC, transparent, transparent */
	put16(&m, 0);
	put16(&m, 1);
	put16(&m, 0);
	for (i = 0; i < 3; i++)
		put8(&m, 0);
	for (i = 0; i < 4; i++)	/* BC, LLC, HLC, additional info */
		put8(&m, 0);
	send_msg(&m);
	plci = expect(&m, C_CONNECT, CONF, "CONNECT_CONF");
	if (plci == 0xffffffff || get16(m.b + 12))
		return 0xffffffff;
	if (expect(&m, C_CONNECT_ACTIVE, IND, "CONNECT_ACTIVE_IND") != plci)
		return 0xffffffff;
	send_simple(C_CONNECT_ACTIVE, RESP, plci);
	start(&m, C_CONNECT_B3, REQ, plci);
	put8(&m, 0);		/* NCPI */
	send_msg(&m);
	ncci = expect(&m, C_CONNECT_B3, CONF, "CONNECT_B3_CONF");
	if (ncci == 0xffffffff || get16(m.b + 12))
		return 0xffffffff;
	if (expect(&m, C_CONNECT_B3_ACTIVE, IND, "CONNECT_B3_ACTIVE_IND") !=
	    ncci)
		return 0xffffffff;
	send_simple(C_CONNECT_B3_ACTIVE, RESP, ncci);
	return ncci;
}

/* DATA_B3_REQ through /dev/capi20: the message, then the data */
static int data_req(uint32_t ncci, uint16_t handle, const void *data,
		    uint16_t len)
{
	struct msg m;

	start(&m, C_DATA_B3, REQ, ncci);
	msg_data_b3(&m, handle, data, len);
	return msg_write(capifd, &m, len);
}

static int open_tty(uint32_t ncci)
{
	struct termios t;
	char path[64];
	int unit, fd = -1, i;

	unit = ioctl(capifd, CAPI_NCCI_GETUNIT, &ncci);
	if (unit < 0)
		return -1;
	snprintf(path, sizeof(path), "%s%d", tty_prefix, unit);
	for (i = 0; i < 50 && fd < 0; i++) {
		fd = open(path, O_RDWR | O_NOCTTY);
		if (fd < 0)
			usleep(100000);
	}
	if (fd < 0)
		return -1;
	tcgetattr(fd, &t);
	cfmakeraw(&t);
	tcsetattr(fd, TCSANOW, &t);
	return fd;
}

/*
 * A child that waits in tcsetattr(TCSADRAIN) for output that a TCOOFF
 * holds back: it holds a reference to the line discipline meanwhile (the
 * ioctl goes through n_tty's), and, unlike a blocked read() or write(),
 * does not give it up when a hangup or a TIOCSETD asks for it.
 */
static pid_t drainer(int tty)
{
	struct termios t;
	pid_t pid = fork();

	if (pid)
		return pid;
	alarm(30);
	tcgetattr(tty, &t);
	_exit(tcsetattr(tty, TCSADRAIN, &t) ? 1 : 0);
}

/* A child that hangs @tty up, as a getty's vhangup() does */
static pid_t hanger(int tty)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	alarm(30);
	_exit(ioctl(tty, TIOCVHANGUP) ? 1 : 0);
}

/* A child that registers an application, closes it and says when */
static pid_t closer(int out)
{
	long long t0;
	int fd, ms;
	pid_t pid = fork();

	if (pid)
		return pid;
	fd = open(dev, O_RDWR);
	if (fd < 0 || app_register(fd) <= 0)
		_exit(1);
	t0 = now_ms();
	close(fd);
	ms = now_ms() - t0;
	_exit(write(out, &ms, sizeof(ms)) == sizeof(ms) ? 0 : 1);
}

/* Can @fd be read within @ms? */
static int readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1;
}

/* Where a child is: its state and wait channel */
static void proc_state(pid_t pid, const char *what)
{
	char path[64], stat[256] = "", wchan[64] = "";
	char *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (f) {
		if (!fgets(stat, sizeof(stat), f))
			stat[0] = 0;
		fclose(f);
	}
	snprintf(path, sizeof(path), "/proc/%d/wchan", (int)pid);
	f = fopen(path, "r");
	if (f) {
		if (!fgets(wchan, sizeof(wchan), f))
			wchan[0] = 0;
		fclose(f);
	}
	p = strrchr(stat, ')');
	diag("%s: state %c, wchan %s", what, p && p[1] ? p[2] : '?', wchan);
}

static void close_waits_for_no_tty(void)
{
	static const char data[] = "capi-regress finding 1";
	int cpipe[2], tty, ms = -1;
	pid_t dpid, hpid, cpid;
	long long t0;
	uint32_t ncci;

	ncci = call_out("5550901");
	if (ncci == 0xffffffff)
		bail_out("no call");
	tty = open_tty(ncci);
	if (tty < 0)
		bail_out("open the tty of NCCI 0x%x", ncci);
	if (pipe(cpipe))
		bail_out("pipe");

	/* output held back, and a tcsetattr(TCSADRAIN) waiting for it */
	if (tcflow(tty, TCOOFF) || write(tty, "x", 1) != 1)
		bail_out("TCOOFF and write");
	dpid = drainer(tty);
	usleep(300000);
	proc_state(dpid, "TCSADRAIN");
	/* a hangup that waits for it to give up the line discipline */
	hpid = hanger(tty);
	usleep(300000);
	proc_state(hpid, "TIOCVHANGUP");
	/* capisim echoes this: a DATA_B3_IND for the tty, now */
	if (data_req(ncci, 1, data, sizeof(data) - 1))
		bail_out("DATA_B3_REQ");
	usleep(400000);

	/* another application comes and goes */
	t0 = now_ms();
	cpid = closer(cpipe[1]);
	if (!readable(cpipe[0], CLOSE_MAX_MS))
		proc_state(cpid, "close()");
	else if (read(cpipe[0], &ms, sizeof(ms)) != sizeof(ms))
		ms = -1;
	check(ms >= 0,
	      "close() of another /dev/capi20 while a hangup waits for the line discipline of a tty with data coming: %d ms (at most %d)",
	      ms, CLOSE_MAX_MS);

	/* the end of the TCSADRAIN lets the hangup, and all else, go on */
	kill(dpid, SIGKILL);
	waitpid(dpid, NULL, 0);
	if (ms < 0 && readable(cpipe[0], WAIT_MS) &&
	    read(cpipe[0], &ms, sizeof(ms)) != sizeof(ms))
		ms = -1;
	check(waitpid(hpid, NULL, 0) == hpid && ms >= 0 &&
	      waitpid(cpid, NULL, 0) == cpid,
	      "the hangup and the close() are done once the TCSADRAIN is killed (%lld ms after the close() began)",
	      now_ms() - t0);
	close(cpipe[0]);
	close(cpipe[1]);
	close(tty);
}

/*
 * Finding 4: a connection gets at most the application's window of
 * DATA_B3_INDs that it has not answered.  capisim keeps to the window;
 * its debugfs "overrun" makes it send the next N DATA_B3_INDs past it,
 * as a controller that does not keep to it would.  The kernel must drop
 * those (and log them), so the application sees no more than its window.
 */
#define WINDOW	7
#define SENT	10

static int overrun(uint32_t ncci, int n)
{
	char path[96], buf[32];
	int fd, len, ret;

	snprintf(path, sizeof(path), "/sys/kernel/debug/capisim/ctr%u/overrun", ctrl);
	len = snprintf(buf, sizeof(buf), "0x%x %d", ncci, n);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	ret = write(fd, buf, len) == len ? 0 : -errno;
	close(fd);
	return ret;
}

static void data_window(void)
{
	int fd = open(dev, O_RDWR), got = 0, i, r, saved_fd = capifd;
	uint16_t saved_applid = applid, saved_msgnum = msgnum;
	uint16_t handles[SENT];
	struct pollfd p;
	struct msg m;
	uint32_t ncci;
	char data[8];

	if (fd < 0)
		bail_out("open %s", dev);
	capifd = fd;
	r_applid(fd);
	ncci = call_out("5550902");
	if (ncci == 0xffffffff)
		bail_out("no call");
	r = overrun(ncci, SENT - WINDOW);
	check(r == 0, "capisim debugfs overrun 0x%x %d: %s", ncci, SENT - WINDOW,
	      r ? strerror(-r) : "ok");
	for (i = 0; i < SENT; i++) {
		snprintf(data, sizeof(data), "win%d", i);
		if (data_req(ncci, 100 + i, data, strlen(data)))
			bail_out("DATA_B3_REQ");
	}
	/* none answered: the controller sends 10, the window is 7 */
	for (;;) {
		p = (struct pollfd){ .fd = capifd, .events = POLLIN };
		if (poll(&p, 1, got >= WINDOW ? 1500 : WAIT_MS) != 1)
			break;
		if (read(capifd, m.b, sizeof(m.b)) < 12)
			bail_out("read");
		if (m.b[4] != C_DATA_B3 || m.b[5] != IND)
			continue;
		if (got < SENT)
			handles[got] = get16(m.b + 18);
		got++;
	}
	check(got == WINDOW,
	      "DATA_B3_INDs not answered on one connection: %d (window %d; the controller sent %d, %d of them past the window)",
	      got, WINDOW, SENT, SENT - WINDOW);
	for (i = 0; i < got && i < SENT; i++) {
		start(&m, C_DATA_B3, RESP, ncci);
		put16(&m, handles[i]);
		send_msg(&m);
	}
	close(fd);
	capifd = saved_fd;
	applid = saved_applid;
	msgnum = saved_msgnum;
}

int main(int argc, char **argv)
{
	unsigned int flags = CAPIFLAG_HIGHJACKING;
	long long t0;
	int opt;

	while ((opt = getopt(argc, argv, "d:c:T:")) != -1) {
		switch (opt) {
		case 'd': dev = optarg; break;
		case 'c': ctrl = atoi(optarg); break;
		case 'T': tty_prefix = optarg; break;
		default:
			fprintf(stderr, "usage: %s [-d DEV] [-c CONTROLLER] [-T TTY_PREFIX]\n",
				argv[0]);
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);

	capifd = open(dev, O_RDWR);
	if (capifd < 0)
		bail_out("open %s", dev);
	r_applid(capifd);
	if (ioctl(capifd, CAPI_SET_FLAGS, &flags))
		bail_out("CAPI_SET_FLAGS");

	close_waits_for_no_tty();
	data_window();

	t0 = now_ms();
	close(capifd);
	diag("close() of the application with the call: %lld ms",
	     now_ms() - t0);
	return done_testing();
}
