// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ldisc-switch.c - a middleware tty changes its line discipline mid-stream.
 *
 *   ldisc-switch TTY
 *
 * TTY is /dev/capi/N of a call that capisim echoes.  Under n_tty, FRAMES
 * frames are written and not read: n_tty takes what it has room for and
 * throttles, the rest waits in the flip buffer and on the minor.  Then the
 * tty changes to N_HDLC, which takes one receive_buf() call as one frame.
 * Every read() must now return one frame that was written, whole, in the
 * order written: data that n_tty left in the flip buffer must not reach
 * N_HDLC merged into one frame.  Frames written after the change must all
 * come back whole.  Prints TAP; exit status 0 when every check passed.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <termios.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "../tap.h"

#define FRAMES	48	/* about 12 KiB: n_tty holds 4 KiB */
#define AFTER	8

/* Frame i: its length and bytes; the first byte is its number. */
static int frame_len(int i)
{
	return 200 + 3 * i;
}

static void frame(int i, unsigned char *out)
{
	int j;

	out[0] = i;
	for (j = 1; j < frame_len(i); j++)
		out[j] = i * 7 + j;
}

/* Which frame BUF (N bytes) is, whole: its number; -1 if it is none. */
static int which(const unsigned char *buf, ssize_t n)
{
	unsigned char want[1024];
	int i = buf[0];

	if (n <= 0 || i >= FRAMES + AFTER || n != frame_len(i))
		return -1;
	frame(i, want);
	return memcmp(buf, want, n) ? -1 : i;
}

/* Read frames for up to MS of quiet; check each; return how many. */
static int read_frames(int fd, int *last, int *bad, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	unsigned char buf[4096];
	int got = 0, i;
	ssize_t n;

	while (poll(&p, 1, ms) == 1) {
		n = read(fd, buf, sizeof(buf));
		if (n <= 0)
			break;
		i = which(buf, n);
		if (i < 0 || i <= *last) {
			if (++*bad <= 3)
				diag("read %zd bytes: not a whole frame after frame %d",
				     n, *last);
			continue;
		}
		*last = i;
		got++;
	}
	return got;
}

int main(int argc, char **argv)
{
	unsigned char out[1024];
	int fd, i, ldisc = N_HDLC, last = -1, bad = 0, before, after;
	struct termios t;

	if (argc != 2) {
		fprintf(stderr, "usage: ldisc-switch TTY\n");
		return 2;
	}
	fd = open(argv[1], O_RDWR | O_NOCTTY);
	if (!check(fd >= 0, "open %s", argv[1])) {
		diag("%s", strerror(errno));
		return done_testing();
	}
	tcgetattr(fd, &t);
	cfmakeraw(&t);
	tcsetattr(fd, TCSANOW, &t);
	for (i = 0; i < FRAMES; i++) {
		frame(i, out);
		if (write(fd, out, frame_len(i)) != frame_len(i))
			break;
	}
	check(i == FRAMES, "%d frames written under n_tty, none read", i);
	sleep(3);	/* the echo fills n_tty, which throttles */
	if (!check(ioctl(fd, TIOCSETD, &ldisc) == 0, "TIOCSETD N_HDLC")) {
		diag("%s", strerror(errno));
		return done_testing();
	}
	before = read_frames(fd, &last, &bad, 3000);
	/*
	 * How many: those still on the minor at the change, not those the
	 * flip buffer took for n_tty, which go with n_tty's input.  Where
	 * the flip buffer work ran late (a loaded host), that can be all of
	 * them, so it is a figure; that none arrives merged is the check.
	 */
	diag("%d of the %d frames sent before the change arrive under N_HDLC (n_tty's unread input goes with the change)",
	     before, FRAMES);
	for (i = FRAMES; i < FRAMES + AFTER; i++) {
		frame(i, out);
		if (write(fd, out, frame_len(i)) != frame_len(i))
			break;
	}
	after = read_frames(fd, &last, &bad, 5000);
	check(bad == 0, "every read under N_HDLC is one whole frame, in order (%d not)",
	      bad);
	check(after == AFTER && last == FRAMES + AFTER - 1,
	      "the %d frames written after the change come back whole (%d)",
	      AFTER, after);
	close(fd);
	return done_testing();
}
