/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * capisim-listen - how capisim offers calls, and the limits of kernelcapi
 * and capisim that one application must not use up for the others.
 *
 * Runs inside the test VM, with kernelcapi and capisim loaded (at least 4
 * B channels, echo_limit of at most 256 KiB) and debugfs mounted, and no
 * other CAPI application on controller 1.  Raw /dev/capi20, no library:
 *
 *	gcc -static -O2 -Wall -o capisim-listen capisim-listen.c
 *
 * Usage: capisim-listen [-c CONTROLLER]
 *
 * Checks (TAP, exit status 0 when all passed):
 *  - a writer of requests that never reads is refused with 0x1103 (send
 *    queue full) once it holds 256 confirmations unread, and from then on
 *    every time, and the kernel's slab does not grow with the requests
 *    it keeps sending (kcapi);
 *  - a call is offered to an application that listens with no number of
 *    its own, which reads the called number from CONNECT_IND;
 *  - two such listeners both get CONNECT_IND with the same PLCI, the
 *    first to accept gets the call and the other DISCONNECT_IND 0x3304; a
 *    listener on another number is not offered it;
 *  - one listener ignores (CONNECT_RESP reject 1), the other accepts;
 *    when all ignore, the caller gets DISCONNECT_IND 0x3492;
 *  - DATA_B3_REQs held back by the receiver's window are confirmed when
 *    the caller hangs up;
 *  - an application that never sends DATA_B3_RESP does not stop the echo
 *    of another application's connection (echo_limit per application).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/capi.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "../tap.h"
#include "capimsg.h"

#define NONE	0xffffffffu

static unsigned int ctrl = 1;

struct app {
	const char *name;
	int fd;
	uint16_t applid, msgnum;
};

static void putnum(struct msg *m, const char *digits, int calling)
{
	int n = strlen(digits);

	put8(m, n + 1 + calling);
	put8(m, calling ? 0x00 : 0x80);	/* type of number, plan */
	if (calling)
		put8(m, 0x80);		/* presentation, screening */
	memcpy(m->b + m->len, digits, n);
	m->len += n;
}

static void start(struct app *a, struct msg *m, uint8_t cmd, uint8_t sub,
		  uint32_t adr)
{
	msg_head(m, a->applid, a->msgnum++, cmd, sub, adr);
}

/* Send @m with @extra bytes after it; 0 or the CAPI error of the write. */
static int send_data(struct app *a, struct msg *m, unsigned int extra)
{
	uint16_t err = 0;

	if (!msg_write(a->fd, m, extra))
		return 0;
	if (errno != EIO)
		bail_out("write to /dev/capi20");
	ioctl(a->fd, CAPI_GET_ERRCODE, &err);
	return err ? err : -1;
}

static int send_msg(struct app *a, struct msg *m)
{
	return send_data(a, m, 0);
}

/* A message with one empty struct (NCPI, additional info) or none. */
static int send_simple(struct app *a, uint8_t cmd, uint8_t sub, uint32_t adr,
		       int empty)
{
	struct msg m;

	start(a, &m, cmd, sub, adr);
	while (empty--)
		put8(&m, 0);
	return send_msg(a, &m);
}

/*
 * How long a message that must come may take, and how long silence must
 * last to count as "nothing".  The guest runs under TCG on a host that
 * may be building a kernel beside it: a wait for something that must
 * come is generous, so that slowness cannot fail a check; slowness can
 * only make a silence check pass that should not.
 */
#define WAIT_MS		10000
#define QUIET_MS	300

static int recv_within(struct app *a, struct msg *m, int ms)
{
	int r = msg_read_within(a->fd, m, ms);

	if (r < 0)
		bail_out("read from /dev/capi20");
	return r;
}

/* The next message of @a must be CMD/SUB: its address, or NONE. */
static uint32_t expect(struct app *a, struct msg *m, uint8_t cmd, uint8_t sub,
		       const char *what)
{
	if (!recv_within(a, m, WAIT_MS)) {
		fail("%s: %s got nothing", what, a->name);
		return NONE;
	}
	if (m->b[4] != cmd || m->b[5] != sub) {
		fail("%s: %s got 0x%02x/0x%02x for 0x%x, want 0x%02x/0x%02x",
		     what, a->name, m->b[4], m->b[5], get32(m->b + 8), cmd, sub);
		return NONE;
	}
	return get32(m->b + 8);
}

/* Nothing for @a within @ms milliseconds. */
static int quiet(struct app *a, int ms)
{
	struct msg m;

	if (!recv_within(a, &m, ms))
		return 1;
	diag("%s: unexpected 0x%02x/0x%02x for 0x%x", a->name, m.b[4], m.b[5],
	     get32(m.b + 8));
	return 0;
}

static void app_open(struct app *a, const char *name, unsigned int window)
{
	capi_register_params rp = {
		.level3cnt = 2, .datablkcnt = window, .datablklen = 2048,
	};
	int r;

	a->name = name;
	a->fd = open("/dev/capi20", O_RDWR);
	if (a->fd < 0)
		bail_out("open /dev/capi20");
	r = ioctl(a->fd, CAPI_REGISTER, &rp);
	if (r <= 0)
		bail_out("CAPI_REGISTER");
	a->applid = r;
	a->msgnum = 1;
}

static void app_close(struct app *a)
{
	close(a->fd);
	a->fd = -1;
}

/* LISTEN_REQ for CIP 2 and all services, with own number @msn or none. */
static void listen_on(struct app *a, const char *msn)
{
	struct msg m;

	start(a, &m, C_LISTEN, REQ, ctrl);
	put32(&m, 0);			/* info mask */
	put32(&m, 1);			/* CIP mask: all services */
	put32(&m, 0);			/* CIP mask 2 */
	if (msn)
		putnum(&m, msn, 1);	/* own number */
	else
		put8(&m, 0);
	put8(&m, 0);			/* calling party subaddress */
	send_msg(a, &m);
	if (expect(a, &m, C_LISTEN, CONF, "LISTEN_REQ") != NONE &&
	    get16(m.b + 12))
		fail("%s: LISTEN_CONF Info 0x%04x", a->name, get16(m.b + 12));
}

/* CONNECT_REQ to @number with CIP 2: the PLCI of CONNECT_CONF, or NONE. */
static uint32_t dial(struct app *a, const char *number)
{
	static const uint8_t tail[] = {
		0, 0,				/* subaddresses */
		9, 0, 0, 1, 0, 0, 0, 0, 0, 0,	/* B protocol 0/1/0 */
		0, 0, 0, 0,			/* BC, LLC, HLC, add. info */
	};
	struct msg m;

	start(a, &m, C_CONNECT, REQ, ctrl);
	put16(&m, 2);
	putnum(&m, number, 0);
	put8(&m, 0);			/* calling party number: none */
	memcpy(m.b + m.len, tail, sizeof(tail));
	m.len += sizeof(tail);
	send_msg(a, &m);
	if (expect(a, &m, C_CONNECT, CONF, "CONNECT_REQ") == NONE ||
	    get16(m.b + 12))
		return NONE;
	return get32(m.b + 8);
}

/* CONNECT_IND at @a: its PLCI (NONE if none came); @called gets the number */
static uint32_t offered(struct app *a, char *called, size_t size)
{
	struct msg m;
	uint32_t plci = expect(a, &m, C_CONNECT, IND, "offer");
	unsigned int n;

	called[0] = '\0';
	if (plci == NONE)
		return NONE;
	n = m.b[14];			/* called party number struct */
	if (n >= 1 && n - 1 < size)
		snprintf(called, size, "%.*s", (int)n - 1, (char *)m.b + 16);
	return plci;
}

static void connect_resp(struct app *a, uint32_t plci, uint16_t reject)
{
	struct msg m;

	start(a, &m, C_CONNECT, RESP, plci);
	put16(&m, reject);
	put32(&m, 0);		/* B protocol, numbers, LLC, additional info */
	put8(&m, 0);
	send_msg(a, &m);
}

/* An IND of @cmd for @adr at @a, answered; 1 if it came. */
static int ind_resp(struct app *a, uint8_t cmd, uint32_t adr, const char *what)
{
	struct msg m;
	uint32_t got = expect(a, &m, cmd, IND, what);

	if (got != NONE)
		send_simple(a, cmd, RESP, got, cmd == C_CONNECT_B3_ACTIVE);
	return got == adr;
}

/* DISCONNECT_IND for @plci with @reason at @a, answered; 1 if so. */
static int hung_up(struct app *a, uint32_t plci, uint16_t reason)
{
	struct msg m;
	uint32_t got = expect(a, &m, C_DISCONNECT, IND, "hangup");

	if (got == NONE)
		return 0;
	send_simple(a, C_DISCONNECT, RESP, got, 0);
	if (got == plci && get16(m.b + 12) == reason)
		return 1;
	diag("%s: DISCONNECT_IND 0x%x reason 0x%04x, want 0x%x 0x%04x",
	     a->name, got, get16(m.b + 12), plci, reason);
	return 0;
}

/* @a hangs up the active call @plci (no B3): its messages, answered. */
static void hang_up(struct app *a, uint32_t plci)
{
	struct msg m;

	send_simple(a, C_DISCONNECT, REQ, plci, 1);
	expect(a, &m, C_DISCONNECT, CONF, "DISCONNECT_REQ");
	hung_up(a, plci, 0);
}

/* -------- kcapi: a writer that never reads -------- */

static long slab_kb(void)
{
	char line[128];
	long kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Slab: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/*
 * The bound on the slab's growth: 2 MiB, where 20000 queued confirmations
 * would take over 15 MiB.  A KASAN kernel (make check-debug) keeps what
 * is freed in its quarantine for a while, so the refused requests count
 * there too: kernel-test.sh sets CAPISIM_LISTEN_SLAB_KB (8 MiB) for it.
 */
static long slab_limit_kb(void)
{
	const char *v = getenv("CAPISIM_LISTEN_SLAB_KB");

	return v && atol(v) > 0 ? atol(v) : 2048;
}

/*
 * kcapi counts the confirmations an application holds unread and refuses
 * its requests from the 256th on (patch 2).  It counts a confirmation
 * when the controller passes it up: capisim does that from a work item,
 * so how many requests get in before the first refusal depends on when
 * that work ran: 256 plus what was still in capisim's queue (758 in all
 * was seen under TCG beside a kernel build).  What does not depend on
 * timing: at least 256 are taken, and once one is refused every later
 * one is, as the count cannot fall while nothing is read.
 */
#define RECV_PENDING_MAX	256
#define FLOOD_TAKEN_MAX		4096

static void flood(void)
{
	const int tries = 20000;
	struct app w;
	struct msg m;
	long before, after;
	int i, err = 0, sent = 0, refused = 0, read_back = 0, late = 0;

	app_open(&w, "writer", 7);
	before = slab_kb();
	for (i = 0; i < tries; i++) {
		start(&w, &m, C_INFO, REQ, ctrl);
		put8(&m, 0);		/* called party number */
		put8(&m, 0);		/* additional info */
		err = send_msg(&w, &m);
		if (!err) {
			sent++;
			late += refused > 0;
		} else if (err == 0x1103) {
			refused++;
		} else {
			break;
		}
	}
	/*
	 * What the kernel frees it may give back to the slab late (per-CPU
	 * caches, RCU).  Look again for a few seconds before calling it
	 * growth: the confirmations it keeps are not read until below, so
	 * kept memory cannot go away meanwhile.
	 */
	after = slab_kb();
	for (i = 0; i < 5 && after - before >= slab_limit_kb(); i++) {
		sleep(1);
		after = slab_kb();
	}
	check(refused > 0 && late == 0 && sent >= RECV_PENDING_MAX &&
	      sent <= FLOOD_TAKEN_MAX,
	      "a writer that never reads: its first %d INFO_REQs taken (%d..%d), then all %d refused with 0x1103, %d taken after a refusal (last error 0x%04x)",
	      sent, RECV_PENDING_MAX, FLOOD_TAKEN_MAX, refused, late, err);
	check(after - before < slab_limit_kb(),
	      "%d requests without reading: slab grew by %ld kB (< %ld)",
	      tries, after - before, slab_limit_kb());
	while (read_back < sent && recv_within(&w, &m, WAIT_MS))
		read_back++;
	while (recv_within(&w, &m, QUIET_MS))
		read_back++;
	check(read_back == sent, "the writer reads its %d confirmations (%d)",
	      sent, read_back);
	start(&w, &m, C_INFO, REQ, ctrl);
	put8(&m, 0);
	put8(&m, 0);
	check(send_msg(&w, &m) == 0, "once read, its requests are taken again");
	app_close(&w);
}

/* -------- offering calls -------- */

#define NUMBER	"5551234"

static void listener_without_number(void)
{
	struct app c, l;
	char called[40];
	uint32_t pc, pl;

	app_open(&c, "caller", 7);
	app_open(&l, "listener", 7);
	listen_on(&l, NULL);
	pc = dial(&c, NUMBER);
	pl = offered(&l, called, sizeof(called));
	check(pl != NONE && !strcmp(called, NUMBER),
	      "a listener with no number is offered a dialled call, called number \"%s\"",
	      called);
	if (pl == NONE || pc == NONE) {
		app_close(&l);
		app_close(&c);
		return;
	}
	connect_resp(&l, pl, 0);
	check(ind_resp(&l, C_CONNECT_ACTIVE, pl, "accept") &&
	      ind_resp(&c, C_CONNECT_ACTIVE, pc, "accepted"),
	      "it accepts: CONNECT_ACTIVE_IND at both ends");
	hang_up(&c, pc);
	check(hung_up(&l, pl, 0x3490), "the caller hangs up: 0x3490 at the listener");
	app_close(&l);
	app_close(&c);
}

/*
 * Two listeners with no number and one on another number: the first two
 * are offered the call, with the same PLCI.  @first answers with
 * @reject first, then the other accepts (or ignores too, when @all_ignore).
 */
static void two_listeners(uint16_t reject, int all_ignore)
{
	struct app c, l1, l2, other;
	char called[40];
	uint32_t pc, p1, p2;
	int ok;

	app_open(&c, "caller", 7);
	app_open(&l1, "listener 1", 7);
	app_open(&l2, "listener 2", 7);
	app_open(&other, "listener on 5550100", 7);
	listen_on(&l1, NULL);
	listen_on(&l2, NULL);
	listen_on(&other, "5550100");
	pc = dial(&c, NUMBER);
	p1 = offered(&l1, called, sizeof(called));
	p2 = offered(&l2, called, sizeof(called));
	check(pc != NONE && p1 != NONE && p1 == p2,
	      "two listeners are both offered the call (PLCI 0x%x, 0x%x)", p1, p2);
	check(quiet(&other, QUIET_MS), "a listener on another number is not offered it");
	if (p1 == NONE || p2 == NONE)
		goto out;
	if (reject)
		connect_resp(&l1, p1, reject);
	if (all_ignore) {
		connect_resp(&l2, p2, reject);
		check(hung_up(&l1, p1, 0) && hung_up(&l2, p2, 0),
		      "both ignore: DISCONNECT_IND 0 at each");
		check(hung_up(&c, pc, 0x3492),
		      "both ignore: the caller gets 0x3492 (no user responding)");
		goto out;
	}
	connect_resp(&l2, p2, 0);
	if (!reject)
		connect_resp(&l1, p1, 0);	/* too late */
	ok = ind_resp(&l2, C_CONNECT_ACTIVE, p2, "accept") &&
	     ind_resp(&c, C_CONNECT_ACTIVE, pc, "accepted");
	if (reject)
		check(ok && hung_up(&l1, p1, 0),
		      "listener 1 ignores (reject %u), listener 2 accepts and gets the call",
		      reject);
	else
		check(ok && hung_up(&l1, p1, 0x3304),
		      "the first to accept gets the call, the other DISCONNECT_IND 0x3304");
	check(quiet(&l1, QUIET_MS), "nothing more for the listener that lost the call");
	hang_up(&c, pc);
	hung_up(&l2, p2, 0x3490);
out:
	app_close(&other);
	app_close(&l2);
	app_close(&l1);
	app_close(&c);
}

/* -------- data held back when a call clears -------- */

static uint32_t b3_up(struct app *from, uint32_t plci, struct app *to)
{
	struct msg m;
	uint32_t ncci, peer = NONE;

	send_simple(from, C_CONNECT_B3, REQ, plci, 1);
	ncci = expect(from, &m, C_CONNECT_B3, CONF, "CONNECT_B3_REQ");
	if (to) {
		peer = expect(to, &m, C_CONNECT_B3, IND, "CONNECT_B3_IND");
		start(to, &m, C_CONNECT_B3, RESP, peer);
		put16(&m, 0);
		put8(&m, 0);
		send_msg(to, &m);
		ind_resp(to, C_CONNECT_B3_ACTIVE, peer, "B3 active");
	}
	ind_resp(from, C_CONNECT_B3_ACTIVE, ncci, "B3 active");
	return ncci;
}

static int data_req(struct app *a, uint32_t ncci, uint16_t handle,
		    uint16_t len)
{
	struct msg m;

	start(a, &m, C_DATA_B3, REQ, ncci);
	put32(&m, 0);
	put16(&m, len);
	put16(&m, handle);
	put16(&m, 0);
	memset(m.b + m.len, 'a' + handle % 26, len);
	return send_data(a, &m, len);
}

static void held_confirmed(void)
{
	struct app c, l;
	char called[40];
	uint32_t pc, pl, ncci;
	unsigned int i, confs = 0;
	struct msg m;

	app_open(&c, "caller", 7);
	app_open(&l, "listener (window 1)", 1);
	listen_on(&l, NULL);
	pc = dial(&c, NUMBER);
	pl = offered(&l, called, sizeof(called));
	connect_resp(&l, pl, 0);
	ind_resp(&l, C_CONNECT_ACTIVE, pl, "accept");
	ind_resp(&c, C_CONNECT_ACTIVE, pc, "accepted");
	ncci = b3_up(&c, pc, &l);
	for (i = 1; i <= 4; i++)
		data_req(&c, ncci, i, 100);
	/* the window lets one block through, and its confirmation */
	expect(&l, &m, C_DATA_B3, IND, "data");
	expect(&c, &m, C_DATA_B3, CONF, "first DATA_B3_CONF");
	check(quiet(&c, QUIET_MS), "the receiver's window holds back 3 requests");
	send_simple(&c, C_DISCONNECT, REQ, pc, 1);
	while (recv_within(&c, &m, WAIT_MS) &&
	       !(m.b[4] == C_DISCONNECT_B3 && m.b[5] == IND))
		if (m.b[4] == C_DATA_B3 && m.b[5] == CONF &&
		    get16(m.b + 12) == confs + 2 && !get16(m.b + 14))
			confs++;
	check(confs == 3,
	      "hanging up: the 3 held-back DATA_B3_REQs are confirmed before DISCONNECT_B3_IND (%u)",
	      confs);
	app_close(&l);
	app_close(&c);
}

/* -------- echo_limit per application -------- */

/* An echo call with a B3 connection (no listener on controller 1). */
static uint32_t echo_call(struct app *a)
{
	uint32_t plci = dial(a, "5559000");

	if (plci == NONE || !ind_resp(a, C_CONNECT_ACTIVE, plci, "echo call"))
		return NONE;
	return b3_up(a, plci, NULL);
}

static void echo_per_application(void)
{
	struct app x, y;
	uint32_t nx, ny;
	struct msg m;
	int i, got = 0;

	app_open(&x, "non-answering", 7);
	app_open(&y, "other", 7);
	nx = echo_call(&x);
	ny = echo_call(&y);
	if (nx == NONE || ny == NONE) {
		fail("echo calls for two applications");
		goto out;
	}
	/* x never answers its DATA_B3_INDs: its echo piles up */
	for (i = 0; i < 128; i++)
		data_req(&x, nx, i, 2048);
	while (recv_within(&x, &m, QUIET_MS))
		;
	data_req(&y, ny, 1, 100);
	while (!got && recv_within(&y, &m, WAIT_MS))
		got = m.b[4] == C_DATA_B3 && m.b[5] == IND;
	check(got, "an application that never sends DATA_B3_RESP leaves the echo of another's connection alone");
out:
	app_close(&y);
	app_close(&x);
}

int main(int argc, char **argv)
{
	int opt;

	while ((opt = getopt(argc, argv, "c:")) != -1) {
		if (opt != 'c') {
			fprintf(stderr, "usage: capisim-listen [-c CONTROLLER]\n");
			return 2;
		}
		ctrl = atoi(optarg);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	flood();
	listener_without_number();
	two_listeners(0, 0);
	two_listeners(1, 0);
	two_listeners(1, 1);
	held_confirmed();
	echo_per_application();
	return done_testing();
}
