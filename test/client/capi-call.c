// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * capi-call.c - a CAPI 2.0 application for the tests, on Debian's libcapi20.
 *
 * It places CALLS outgoing calls on a controller (capisim in the test VM),
 * each with a B3 connection whose data go through a tty (the application
 * sets CAPIFLAG_HIGHJACKING, so capi.c makes a tty per NCCI).  For each
 * call it asks libcapi20 for the tty name, waits for the name to appear
 * the way pppdcapiplugin does, opens it raw, writes a payload and reads
 * the same bytes back (capisim echoes DATA_B3), then hangs up.
 * It can also answer calls instead of placing them, and hand the connected
 * tty to a program such as pppd, keeping the call up while it runs.
 *
 *   capi-call [-c CTRL] [-n CALLS] [-w SECONDS] [-l] [-H] [-E] [-B BYTES]
 *             [-d NUMBER | -A [-m MSN] [-t SECONDS]] [COMMAND ARG...]
 *   capi-call -I [-c CTRL]
 *     -I          the controllers, as capiinfo lists them, and nothing
 *                 else: CAPI_GET_PROFILE of controller 0 (how many) and of
 *                 CTRL, its manufacturer (capisim's), CAPI version and
 *                 serial number through libcapi20; one
 *                 "CONTROLLER CTRL ..." line with them
 *     -c CTRL     controller number (default 1)
 *     -n CALLS    simultaneous calls (default 1; 0: only register)
 *     -w SECONDS  how long to wait for a tty name (default 5)
 *     -l          also echo through the devices.txt name /dev/capi20.NN
 *     -H          hold: after the echo, print "HOLDING" and keep the calls
 *                 up until SIGTERM or SIGINT, then hang up
 *     -E          skip the echo (only connect, name, hold, hang up)
 *     -B BYTES    after the echo, stream BYTES through each call's tty,
 *                 writing and reading at the same time, and check that the
 *                 same bytes come back in the same order (flow control and
 *                 ordering of the middleware's receive path)
 *     -d NUMBER   called party number of every call (default: the call's
 *                 index, 0, 1, ...)
 *     -A          answer: LISTEN_REQ on CTRL, print "LISTENING", accept
 *                 the first CALLS incoming calls (CONNECT_IND ->
 *                 CONNECT_RESP, CONNECT_B3_IND -> CONNECT_B3_RESP), then
 *                 go on as for placed calls (use -E: the peer echoes not)
 *     -m MSN      with -A, accept only calls to this called party number
 *                 (others are ignored); it also goes into the LISTEN_REQ
 *     -t SECONDS  with -A, how long to wait for the calls (default 60)
 *     COMMAND     once call 0's tty exists (-n 1 only), run COMMAND with
 *                 each argument "{tty}" replaced by /dev/capi/N and each
 *                 "{legacy}" by the devices.txt name /dev/capi20.NN
 *                 (waited for like the tty), print "RUNNING PID", keep the
 *                 call up while it runs, then print "EXIT STATUS" (or
 *                 "EXIT signal N") and hang up.  When the network hangs up
 *                 first, COMMAND should end by itself (a tty hang-up);
 *                 SIGTERM or SIGINT hangs the call up first, then waits
 *                 for COMMAND.  It is stopped with SIGTERM when it does not
 *                 end within 15 s of the hang-up.  E.g.
 *                   capi-call -A -E -- pppd {tty} sync nodetach ...
 *
 * Output: TAP lines ("ok N - ..."), then a summary; exit status 0 when all
 * passed, 1 on a failed check, 2 on bad usage.  A call that the network
 * hangs up (DISCONNECT_B3_IND / DISCONNECT_IND) is answered and reported.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <stdint.h>
#include <capi20.h>

#include "../tap.h"

#define MAX_CALLS 256

enum state { IDLE, DIALING, ACTIVE, B3_DIALING, B3_ACTIVE, B3_DOWN, DOWN };

struct call {
	enum state state;
	unsigned int plci, ncci;
	unsigned int msgnum;	/* of the request we wait a CONF for */
	char tty[64];
	int unit;
};

static unsigned int applid, ctrl = 1, ncalls = 1, wait_s = 5;
static bool legacy, hold, no_echo, answer, show_info;
static const char *number, *msn;
static unsigned int answer_s = 60;
static bool listen_done;
static unsigned int listen_info;
static size_t bulk;
static struct call calls[MAX_CALLS];
static unsigned int msgnum = 1;
static volatile sig_atomic_t stop;
static bool hung_up;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static struct call *by_plci(unsigned int plci)
{
	unsigned int i;

	for (i = 0; i < ncalls; i++)
		if (calls[i].plci == plci && calls[i].state != IDLE)
			return &calls[i];
	return NULL;
}

static struct call *by_msgnum(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < ncalls; i++)
		if (calls[i].msgnum == n)
			return &calls[i];
	return NULL;
}

/*
 * The digits of a party number struct: length, type/plan octet, for a
 * calling party number the presentation octet 3a when the type/plan
 * octet's bit 8 (extension) is 0, then the digits.
 */
static void digits_of(const unsigned char *num, char *buf, size_t size)
{
	size_t skip = num && num[0] > 1 && !(num[1] & 0x80) ? 2 : 1;
	size_t len = num && num[0] > skip ? num[0] - skip : 0;

	if (len >= size)
		len = size - 1;
	if (len)
		memcpy(buf, num + 1 + skip, len);
	buf[len] = '\0';
}

/* CONNECT_IND: accept into a free call slot, or leave it to others. */
static void incoming(_cmsg *m)
{
	char called[32], calling[32];
	unsigned int i;
	_cmsg r;

	digits_of(m->CalledPartyNumber, called, sizeof(called));
	digits_of(m->CallingPartyNumber, calling, sizeof(calling));
	for (i = 0; answer && i < ncalls; i++)
		if (calls[i].state == IDLE)
			break;
	if (!answer || i == ncalls || (msn && strcmp(called, msn))) {
		diag("CONNECT_IND PLCI 0x%x to \"%s\" from \"%s\": ignored",
		     m->adr.adrPLCI, called, calling);
		CONNECT_RESP(&r, (_cword)applid, m->Messagenumber,
			     m->adr.adrPLCI, 1 /* ignore */, 0, 1, 0, NULL,
			     NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
			     NULL, NULL);
		return;
	}
	diag("call %u: CONNECT_IND PLCI 0x%x to \"%s\" from \"%s\": accepted",
	     i, m->adr.adrPLCI, called, calling);
	calls[i].plci = m->adr.adrPLCI;
	calls[i].state = DIALING;
	/* The B protocols of the calls we place: HDLC, transparent. */
	CONNECT_RESP(&r, (_cword)applid, m->Messagenumber, m->adr.adrPLCI,
		     0 /* accept */, 0 /* HDLC */, 1 /* transparent */,
		     0 /* transparent */, NULL, NULL, NULL, NULL, NULL, NULL,
		     NULL, NULL, NULL, NULL, NULL);
}

/* Handle one message; returns 0, or -1 when none came within timeout_ms. */
static int pump(int timeout_ms)
{
	struct timeval tv = { timeout_ms / 1000, (timeout_ms % 1000) * 1000 };
	_cmsg m, r;
	struct call *c;
	unsigned int info;

	if (capi20_waitformessage(applid, &tv) != CapiNoError)
		return -1;
	if (capi_get_cmsg(&m, applid) != CapiNoError)
		return -1;

	switch (m.Command << 8 | m.Subcommand) {
	case CAPI_LISTEN << 8 | CAPI_CONF:
		listen_info = m.Info;
		listen_done = true;
		break;
	case CAPI_CONNECT << 8 | CAPI_IND:
		incoming(&m);
		break;
	case CAPI_CONNECT_B3 << 8 | CAPI_IND:
		c = by_plci(m.adr.adrNCCI & 0xffff);
		if (c && c->state == ACTIVE) {
			c->ncci = m.adr.adrNCCI;
			c->state = B3_DIALING;
		}
		CONNECT_B3_RESP(&r, (_cword)applid, m.Messagenumber,
				m.adr.adrNCCI, c ? 0 : 2 /* reject */, NULL);
		break;
	case CAPI_CONNECT << 8 | CAPI_CONF:
		c = by_msgnum(m.Messagenumber);
		info = m.Info;
		if (!c)
			break;
		if (info) {
			fail("CONNECT_CONF: Info 0x%04x %s", info,
			     capi_info2str((_cword)info));
			c->state = DOWN;
		} else {
			c->plci = m.adr.adrPLCI;
		}
		break;
	case CAPI_CONNECT_ACTIVE << 8 | CAPI_IND:
		c = by_plci(m.adr.adrPLCI);
		CONNECT_ACTIVE_RESP(&r, (_cword)applid, m.Messagenumber,
				    m.adr.adrPLCI);
		if (c)
			c->state = ACTIVE;
		break;
	case CAPI_CONNECT_B3 << 8 | CAPI_CONF:
		c = by_msgnum(m.Messagenumber);
		if (!c)
			break;
		if (m.Info) {
			fail("CONNECT_B3_CONF: Info 0x%04x %s", m.Info,
			     capi_info2str(m.Info));
			c->state = DOWN;
		} else {
			c->ncci = m.adr.adrNCCI;
		}
		break;
	case CAPI_CONNECT_B3_ACTIVE << 8 | CAPI_IND:
		c = by_plci(m.adr.adrNCCI & 0xffff);
		CONNECT_B3_ACTIVE_RESP(&r, (_cword)applid, m.Messagenumber,
				       m.adr.adrNCCI);
		if (c) {
			c->ncci = m.adr.adrNCCI;
			c->state = B3_ACTIVE;
		}
		break;
	case CAPI_DATA_B3 << 8 | CAPI_IND:
		/* Only without a tty; the tty path never shows us data. */
		DATA_B3_RESP(&r, (_cword)applid, m.Messagenumber,
			     m.adr.adrNCCI, m.DataHandle);
		break;
	case CAPI_DISCONNECT_B3 << 8 | CAPI_IND:
		c = by_plci(m.adr.adrNCCI & 0xffff);
		DISCONNECT_B3_RESP(&r, (_cword)applid, m.Messagenumber,
				   m.adr.adrNCCI);
		if (c)
			c->state = B3_DOWN;
		break;
	case CAPI_DISCONNECT << 8 | CAPI_IND:
		c = by_plci(m.adr.adrPLCI);
		DISCONNECT_RESP(&r, (_cword)applid, m.Messagenumber,
				m.adr.adrPLCI);
		if (c) {
			if (hold && !stop)
				printf("# call %d: hung up by the network (PLCI 0x%x)\n",
				       (int)(c - calls), c->plci);
			c->state = DOWN;
		}
		break;
	default:
		break;		/* the CONFs of disconnects, INFO_IND, ... */
	}
	return 0;
}

/* Pump until every call has left state `from`, or the time is up. */
static void settle(enum state from, double seconds)
{
	double end = now() + seconds;
	unsigned int i;
	bool busy;

	do {
		busy = false;
		for (i = 0; i < ncalls; i++)
			if (calls[i].state == from)
				busy = true;
		if (!busy)
			return;
	} while (pump(100) == 0 || now() < end);
}

static void dial(void)
{
	unsigned char called[34];
	_cmsg m;
	unsigned int i;

	for (i = 0; i < ncalls; i++) {
		/* Called party number: type/plan byte, then digits. */
		int len = number ?
			snprintf((char *)called + 2, sizeof(called) - 2, "%s",
				 number) :
			snprintf((char *)called + 2, sizeof(called) - 2, "%u",
				 i);

		called[0] = (unsigned char)(len + 1);
		called[1] = 0x80;
		calls[i].msgnum = msgnum;
		calls[i].state = DIALING;
		/* libcapi20's CONNECT_REQ() and friends fill and send. */
		if (CONNECT_REQ(&m, (_cword)applid, (_cword)msgnum++, ctrl,
			    2 /* unrestricted digital */, called, NULL, NULL,
			    NULL, 0 /* HDLC */, 1 /* transparent */,
			    0 /* transparent */, NULL, NULL, NULL, NULL, NULL,
			    NULL, NULL, NULL, NULL, NULL, NULL, NULL) != CapiNoError) {
			fail("call %u: CONNECT_REQ not accepted", i);
			calls[i].state = DOWN;
		}
	}
	settle(DIALING, 10);
	for (i = 0; i < ncalls; i++)
		check(calls[i].state == ACTIVE, "call %u: connected, PLCI 0x%x",
		      i, calls[i].plci);

	for (i = 0; i < ncalls; i++) {
		if (calls[i].state != ACTIVE)
			continue;
		calls[i].msgnum = msgnum;
		calls[i].state = B3_DIALING;
		CONNECT_B3_REQ(&m, (_cword)applid, (_cword)msgnum++,
			       calls[i].plci, NULL);
	}
	settle(B3_DIALING, 10);
	for (i = 0; i < ncalls; i++)
		check(calls[i].state == B3_ACTIVE, "call %u: B3 up, NCCI 0x%x", i,
		      calls[i].ncci);
}

/* Pump until every call slot is B3_ACTIVE, or stop, or the time is up. */
static bool all_b3_active(double seconds)
{
	double end = now() + seconds;
	unsigned int i, up;

	do {
		for (i = 0, up = 0; i < ncalls; i++)
			if (calls[i].state == B3_ACTIVE)
				up++;
		if (up == ncalls)
			return true;
	} while (!stop && (pump(100) == 0 || now() < end));
	return false;
}

static void listen_and_answer(void)
{
	unsigned char own[34];
	unsigned char *calling = NULL;
	double end;
	unsigned int i;
	_cmsg m;

	if (msn) {
		int len = snprintf((char *)own + 2, sizeof(own) - 2, "%s", msn);

		own[0] = (unsigned char)(len + 1);
		own[1] = 0x80;
		calling = own;
	}
	/* CIP mask: bit 0 any service, bit 2 unrestricted digital (what
	 * the calls we place carry).
	 */
	LISTEN_REQ(&m, (_cword)applid, (_cword)msgnum++, ctrl, 0,
		   1u << 0 | 1u << 2, 0, calling, NULL);
	end = now() + 10;
	while (!listen_done && now() < end)
		pump(100);
	check(listen_done && listen_info == 0,
	      "LISTEN_REQ on controller %u: Info 0x%04x", ctrl, listen_info);
	if (!listen_done || listen_info)
		return;
	printf("LISTENING\n");
	all_b3_active(answer_s);
	for (i = 0; i < ncalls; i++)
		check(calls[i].state == B3_ACTIVE,
		      "call %u: answered, PLCI 0x%x, B3 up, NCCI 0x%x", i,
		      calls[i].plci, calls[i].ncci);
}

/*
 * Wait for a name to appear, as pppdcapiplugin does: retry for a while.
 * Until it is ours to open: devtmpfs makes a tty root:root 0600, and
 * udevd or capi-devd gives it its group a moment later, which an
 * application not run as root has to wait for too.
 */
static bool wait_name(const char *name)
{
	double end = now() + wait_s;

	while (access(name, R_OK | W_OK) != 0) {
		if (now() > end)
			return false;
		usleep(20000);
	}
	return true;
}

/* Open a tty non-blocking and in raw mode; -1 (and a diagnostic) on error. */
static int open_raw(const char *name)
{
	struct termios t;
	int fd;

	fd = open(name, O_RDWR | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		printf("# open %s: %s\n", name, strerror(errno));
		return -1;
	}
	if (tcgetattr(fd, &t) == 0) {
		cfmakeraw(&t);
		tcsetattr(fd, TCSANOW, &t);
	}
	return fd;
}

static bool echo_through(const char *name, unsigned int i)
{
	char out[64], in[64];
	size_t len, got = 0;
	double end;
	int fd;

	fd = open_raw(name);
	if (fd < 0)
		return false;
	len = (size_t)snprintf(out, sizeof(out), "capi-devd echo %u via %s", i,
			       name);
	if (write(fd, out, len) != (ssize_t)len) {
		printf("# write %s: %s\n", name, strerror(errno));
		close(fd);
		return false;
	}
	end = now() + 20;
	while (got < len && now() < end) {
		struct pollfd p = { fd, POLLIN, 0 };
		ssize_t n;

		if (poll(&p, 1, 100) <= 0)
			continue;
		n = read(fd, in + got, len - got);
		if (n > 0)
			got += (size_t)n;
	}
	close(fd);
	if (got != len || memcmp(in, out, len)) {
		printf("# %s: wrote \"%.*s\", read %zu byte(s) \"%.*s\"\n",
		       name, (int)len, out, got, (int)got, in);
		return false;
	}
	return true;
}

/* Byte k of call i's bulk stream: not periodic within a tty buffer. */
static unsigned char pattern(size_t k, unsigned int i)
{
	return (unsigned char)(k * 131u + (k >> 8) * 7u + i);
}

/* Stream bulk bytes through a tty, both directions at once. */
static bool bulk_through(const char *name, unsigned int i)
{
	unsigned char out[1024], in[4096];
	size_t sent = 0, got = 0, k;
	double end;
	int fd;

	fd = open_raw(name);
	if (fd < 0)
		return false;
	end = now() + 120;
	while (got < bulk && now() < end) {
		struct pollfd p = { fd, POLLIN | (sent < bulk ? POLLOUT : 0), 0 };
		ssize_t n;

		if (poll(&p, 1, 100) <= 0)
			continue;
		if ((p.revents & POLLOUT) && sent < bulk) {
			size_t len = bulk - sent < sizeof(out) ? bulk - sent : sizeof(out);

			for (k = 0; k < len; k++)
				out[k] = pattern(sent + k, i);
			n = write(fd, out, len);
			if (n > 0)
				sent += (size_t)n;
		}
		if (p.revents & POLLIN) {
			n = read(fd, in, sizeof(in));
			for (k = 0; n > 0 && k < (size_t)n; k++)
				if (in[k] != pattern(got + k, i)) {
					printf("# %s: byte %zu is 0x%02x, sent 0x%02x\n",
					       name, got + k, in[k], pattern(got + k, i));
					close(fd);
					return false;
				}
			if (n > 0)
				got += (size_t)n;
		}
	}
	close(fd);
	if (got != bulk)
		printf("# %s: sent %zu of %zu bytes, %zu came back\n", name,
		       sent, bulk, got);
	return got == bulk;
}

static void use_ttys(void)
{
	unsigned int i;

	for (i = 0; i < ncalls; i++) {
		struct call *c = &calls[i];
		char leg[64];

		if (c->state != B3_ACTIVE)
			continue;
		if (!capi20ext_get_tty_devname(applid, c->ncci, c->tty,
					       sizeof(c->tty))) {
			fail("call %u: libcapi20 names no tty", i);
			continue;
		}
		c->unit = atoi(c->tty + strlen("/dev/capi/"));
		check(wait_name(c->tty), "call %u: %s appeared", i, c->tty);
		printf("TTY %u %s\n", i, c->tty);
		if (no_echo)
			continue;
		check(echo_through(c->tty, i), "call %u: bytes echoed through %s",
		      i, c->tty);
		if (bulk)
			check(bulk_through(c->tty, i),
			      "call %u: %zu bytes streamed through %s came back in order",
			      i, bulk, c->tty);
		if (!legacy)
			continue;
		snprintf(leg, sizeof(leg), "/dev/capi20.%02d", c->unit);
		check(wait_name(leg) && echo_through(leg, i),
		      "call %u: bytes echoed through %s", i, leg);
	}
}

/*
 * The bit of CAPI_SET_FLAGS that has capi.c give each NCCI of the
 * application a tty (<linux/capi.h>'s CAPIFLAG_HIGHJACKING, 0x0001).
 */
#define CAPI_FLAG_TTYS 0x0001

/*
 * The 64 bytes of a controller's profile (CAPI 2.0, Part I: GET_PROFILE),
 * in the host's byte order as /dev/capi20 returns them.  Our own, like
 * CAPI_FLAG_TTYS, not <linux/capi.h>'s: kernels since 7.1 no longer ship
 * that header, and this program must build there too.
 */
struct profile {
	uint16_t ncontroller;
	uint16_t nbchannel;
	uint32_t goptions;
	uint32_t support1, support2, support3;
	uint32_t reserved[6];
	uint32_t manu[5];
};

/* -I: what capiinfo shows of controller ctrl, through libcapi20. */
static void controller_info(void)
{
	unsigned char buf[64], serial[64], manu[64];
	struct profile p;
	uint32_t v[4];
	uint16_t n = 0;
	unsigned int err;
	bool ok;

	memset(buf, 0, sizeof(buf));
	err = capi20_get_profile(0, buf);
	memcpy(&n, buf, sizeof(n));
	check(err == CapiNoError && n >= ctrl,
	      "CAPI_GET_PROFILE 0: %u controller(s) installed (0x%04x)", n, err);
	memset(buf, 0, sizeof(buf));
	err = capi20_get_profile(ctrl, buf);
	_Static_assert(sizeof(p) == sizeof(buf), "GET_PROFILE is 64 bytes");
	memcpy(&p, buf, sizeof(p));
	check(err == CapiNoError && p.nbchannel > 0,
	      "CAPI_GET_PROFILE %u: %u B channels, global options 0x%x, B1 0x%x B2 0x%x B3 0x%x",
	      ctrl, p.nbchannel, p.goptions, p.support1, p.support2, p.support3);
	memset(manu, 0, sizeof(manu));
	ok = capi20_get_manufacturer(ctrl, manu) != NULL;
	check(ok && strstr((char *)manu, "capisim"),
	      "CAPI_GET_MANUFACTURER %u: \"%.63s\"", ctrl, (char *)manu);
	/* each call before its check(): the arguments are read in any order */
	memset(v, 0, sizeof(v));
	ok = capi20_get_version(ctrl, (unsigned char *)v) != NULL;
	check(ok && v[0] == 2 && v[1] == 0,
	      "CAPI_GET_VERSION %u: CAPI %u.%u, manufacturer's %u.%u", ctrl,
	      v[0], v[1], v[2], v[3]);
	memset(serial, 0, sizeof(serial));
	ok = capi20_get_serial_number(ctrl, serial) != NULL;
	check(ok && serial[0], "CAPI_GET_SERIAL %u: \"%.8s\"", ctrl,
	      (char *)serial);
	printf("CONTROLLER %u B-channels %u manufacturer \"%.63s\" version %u.%u serial %.8s\n",
	       ctrl, p.nbchannel, (char *)manu, v[0], v[1], (char *)serial);
}

static void hang_up(void)
{
	unsigned int i, up = 0;
	_cmsg m;

	for (i = 0; i < ncalls; i++) {
		struct call *c = &calls[i];

		if (c->state == B3_ACTIVE) {
			DISCONNECT_B3_REQ(&m, (_cword)applid, (_cword)msgnum++,
					  c->ncci, NULL);
		}
	}
	settle(B3_ACTIVE, 10);
	for (i = 0; i < ncalls; i++) {
		struct call *c = &calls[i];

		if (c->state == ACTIVE || c->state == B3_DOWN ||
		    c->state == B3_ACTIVE) {
			DISCONNECT_REQ(&m, (_cword)applid, (_cword)msgnum++,
				       c->plci, NULL, NULL, NULL, NULL);
		}
	}
	settle(B3_DOWN, 10);
	settle(ACTIVE, 10);
	for (i = 0; i < ncalls; i++)
		if (calls[i].state != DOWN && calls[i].state != IDLE)
			up++;
	check(up == 0, "hung up: %u call(s) still up", up);
	hung_up = true;
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void print_status(int st)
{
	if (WIFEXITED(st))
		printf("EXIT %d\n", WEXITSTATUS(st));
	else
		printf("EXIT signal %d\n", WTERMSIG(st));
}

/* Pump for up to `seconds` until the child ends; true when it did. */
static bool reap(pid_t pid, int *st, double seconds)
{
	double end = now() + seconds;

	do {
		if (waitpid(pid, st, WNOHANG) == pid)
			return true;
		pump(50);
	} while (now() < end);
	return false;
}

/*
 * Run cmd with call 0's tty in it, keep the call up while it runs.  The
 * call goes down when the command ends, on SIGTERM/SIGINT (hang up first,
 * then wait for the command), or by the network (wait for the command).
 */
static void run_command(char **cmd, int argc)
{
	struct call *c = &calls[0];
	char leg[64];
	char **args;
	bool ended;
	pid_t pid;
	int i, st = 0;

	if (c->state != B3_ACTIVE || !c->tty[0])
		return;
	snprintf(leg, sizeof(leg), "/dev/capi20.%02d", c->unit);
	args = calloc((size_t)argc + 1, sizeof(*args));
	if (!args)
		return;
	for (i = 0; i < argc; i++) {
		if (!strcmp(cmd[i], "{tty}")) {
			args[i] = c->tty;
		} else if (!strcmp(cmd[i], "{legacy}")) {
			check(wait_name(leg), "call 0: %s appeared", leg);
			args[i] = leg;
		} else {
			args[i] = cmd[i];
		}
	}
	/* The command must not hold the application: not its /dev/capi20. */
	fcntl(capi20_fileno(applid), F_SETFD, FD_CLOEXEC);
	pid = fork();
	if (pid == 0) {
		execvp(args[0], args);
		fprintf(stderr, "capi-call: %s: %s\n", args[0], strerror(errno));
		_exit(127);
	}
	free(args);
	check(pid > 0, "call 0: %s started on %s", cmd[0], c->tty);
	if (pid < 0)
		return;
	printf("RUNNING %d\n", (int)pid);
	for (;;) {
		ended = waitpid(pid, &st, WNOHANG) == pid;
		if (ended || stop || c->state != B3_ACTIVE)
			break;
		pump(50);
	}
	if (ended) {
		print_status(st);
		return;
	}
	if (stop) {
		diag("hanging up under %s", cmd[0]);
		hang_up();
	} else {
		diag("the network hung up call 0 under %s", cmd[0]);
		settle(B3_DOWN, 5);
	}
	ended = reap(pid, &st, 15);
	check(ended, "%s ended by itself after the hang-up", cmd[0]);
	if (!ended) {
		kill(pid, SIGTERM);
		if (!reap(pid, &st, 5)) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
		}
	}
	print_status(st);
}

int main(int argc, char **argv)
{
	unsigned int err;
	int c, rc;

	while ((c = getopt(argc, argv, "+c:n:w:lHEB:d:Am:t:I")) != -1) {
		switch (c) {
		case 'c': ctrl = (unsigned int)atoi(optarg); break;
		case 'n': ncalls = (unsigned int)atoi(optarg); break;
		case 'w': wait_s = (unsigned int)atoi(optarg); break;
		case 'l': legacy = true; break;
		case 'H': hold = true; break;
		case 'E': no_echo = true; break;
		case 'B': bulk = (size_t)strtoul(optarg, NULL, 10); break;
		case 'd': number = optarg; break;
		case 'A': answer = true; break;
		case 'm': msn = optarg; break;
		case 't': answer_s = (unsigned int)atoi(optarg); break;
		case 'I': show_info = true; break;
		default:
			fprintf(stderr, "usage: capi-call [-c CTRL] [-n CALLS] "
				"[-w SECONDS] [-l] [-H] [-E] [-B BYTES]\n"
				"       [-d NUMBER | -A [-m MSN] [-t SECONDS]] "
				"[COMMAND ARG...]\n"
				"       capi-call -I [-c CTRL]\n");
			return 2;
		}
	}
	if (ncalls > MAX_CALLS || ctrl < 1) {
		fprintf(stderr, "capi-call: CALLS must be 0..%d, CTRL >= 1\n",
			MAX_CALLS);
		return 2;
	}
	if (optind < argc && ncalls != 1) {
		fprintf(stderr, "capi-call: a COMMAND takes exactly one call (-n 1)\n");
		return 2;
	}
	if ((answer && number) || (!answer && msn)) {
		fprintf(stderr, "capi-call: -d places calls, -A and -m answer them\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (answer || optind < argc) {
		struct sigaction sa = { .sa_handler = on_signal };

		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGINT, &sa, NULL);
	}

	err = capi20_isinstalled();
	check(err == CapiNoError, "CAPI is installed (0x%04x %s)", err,
	      capi_info2str((_cword)err));
	if (err != CapiNoError)
		goto out;
	if (show_info) {
		controller_info();
		goto out;
	}
	err = capi20_register(ncalls ? ncalls : 1, 7, 2048, &applid);
	check(err == CapiNoError, "application registered, ApplID %u", applid);
	if (err != CapiNoError)
		goto out;
	check(capi20ext_set_flags(applid, CAPI_FLAG_TTYS) == CapiNoError,
	      "CAPIFLAG_HIGHJACKING (0x0001) set");

	if (ncalls) {
		if (answer)
			listen_and_answer();
		else
			dial();
		use_ttys();
	}
	if (ncalls && optind < argc)
		run_command(argv + optind, argc - optind);
	else if (hold) {
		struct sigaction sa = { .sa_handler = on_signal };

		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGINT, &sa, NULL);
		printf("HOLDING\n");
		while (!stop)
			pump(50);
	}
	if (ncalls && !hung_up)
		hang_up();
	check(capi20_release(applid) == CapiNoError, "application released");
out:
	rc = done_testing();
	printf("capi-call: %d passed, %d failed\n", tap_n - tap_failed,
	       tap_failed);
	return rc;
}
