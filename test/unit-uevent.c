// SPDX-License-Identifier: GPL-2.0-or-later
/* unit-uevent.c - parsing and validation of uevent properties. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tap.h"
#include "uevent.h"

/* Build a record from "KEY=VALUE" lines separated by '|'. */
static enum uevent_verdict record(const char *props, struct capi_event *ev,
				  const char **why)
{
	struct uevent_fields f;
	const char *p = props, *bar;

	uevent_reset(&f);
	while (*p) {
		bar = strchr(p, '|');
		if (!bar)
			bar = p + strlen(p);
		uevent_add_line(&f, p, (size_t)(bar - p));
		p = *bar ? bar + 1 : bar;
	}
	*why = "";
	return uevent_finish(&f, ev, why);
}

#define TTY "ACTION=add|DEVPATH=/devices/virtual/tty/capi!7|SUBSYSTEM=tty|MAJOR=240|MINOR=7|"

static void bad(const char *props, const char *want_why)
{
	struct capi_event ev;
	const char *why;
	enum uevent_verdict v = record(props, &ev, &why);

	check(v == UEVENT_BAD && !strcmp(why, want_why), "bad: %s (%s)",
	      want_why, why);
}

int main(void)
{
	struct capi_event ev;
	const char *why;
	char big[2048], msg[512];
	size_t len;

	/* The CAPI tty driver's major, as --tty-major gives it. */
	uevent_set_tty_major(240, NULL);

	check(record(TTY "DEVNAME=capi/7|SEQNUM=42", &ev, &why) == UEVENT_OK,
	      "modern tty parses");
	is_int(ev.kind, CAPI_TTY, "kind tty");
	is_int(ev.scheme, CAPI_MODERN, "scheme modern");
	is_int(ev.unit, 7, "unit 7");
	is_int(ev.major, 240, "major");
	is_int(ev.seqnum, 42, "seqnum");

	check(record("ACTION=remove|DEVPATH=/devices/virtual/tty/capi123|"
		     "SUBSYSTEM=tty|MAJOR=240|MINOR=123|DEVNAME=capi123",
		     &ev, &why) == UEVENT_OK && ev.scheme == CAPI_PREFIX &&
	      ev.unit == 123 && ev.action == CAPI_REMOVE,
	      "pre-fix tty capi123 remove");
	check(record("ACTION=add|DEVPATH=/devices/virtual/capi/capi|"
		     "SUBSYSTEM=capi|MAJOR=68|MINOR=0|DEVNAME=capi",
		     &ev, &why) == UEVENT_OK && ev.kind == CAPI_CONTROL &&
	      ev.scheme == CAPI_PREFIX, "pre-fix control device");
	check(record("ACTION=change|DEVPATH=/devices/virtual/capi/capi20|"
		     "SUBSYSTEM=capi|MAJOR=68|MINOR=0|DEVNAME=capi20",
		     &ev, &why) == UEVENT_OK && ev.action == CAPI_ADD &&
	      ev.scheme == CAPI_MODERN, "change is applied like add");

	check(record("ACTION=add|DEVPATH=/devices/platform/serial8250/tty/ttyS0|"
		     "SUBSYSTEM=tty|MAJOR=4|MINOR=64|DEVNAME=ttyS0", &ev, &why) ==
	      UEVENT_IGNORE, "other ttys are ignored");
	check(record("ACTION=add|DEVPATH=/module/kernelcapi|SUBSYSTEM=module",
		     &ev, &why) == UEVENT_IGNORE, "module events are ignored");
	check(record("ACTION=bind|DEVPATH=/devices/virtual/capi/capi20|"
		     "SUBSYSTEM=capi", &ev, &why) == UEVENT_IGNORE,
	      "bind is ignored");

	bad("DEVPATH=/devices/virtual/tty/capi!7|SUBSYSTEM=tty|DEVNAME=capi/7",
	    "no ACTION");
	bad("ACTION=add|SUBSYSTEM=tty|DEVNAME=capi/7", "no DEVPATH");
	bad("ACTION=add|DEVPATH=/devices/virtual/tty/capi!7|DEVNAME=capi/7",
	    "no SUBSYSTEM");
	bad(TTY, "no DEVNAME");
	bad("ACTION=frob|DEVPATH=/devices/virtual/tty/capi!7|SUBSYSTEM=tty|"
	    "DEVNAME=capi/7", "unknown ACTION");
	bad(TTY "DEVNAME=capi/../../etc/passwd", "unsafe DEVNAME");
	bad(TTY "DEVNAME=/capi/7", "unsafe DEVNAME");
	bad(TTY "DEVNAME=capi/7;rm", "unsafe DEVNAME");
	bad(TTY "DEVNAME=capi/7 x", "unsafe DEVNAME");
	bad(TTY "DEVNAME=capi/", "unsafe DEVNAME");
	bad(TTY "DEVNAME=capi/07", "bad tty unit number");
	bad(TTY "DEVNAME=capi/x", "bad tty unit number");
	bad(TTY "DEVNAME=capi/99999999", "bad tty unit number");
	bad(TTY "DEVNAME=capi/-1", "bad tty unit number");
	bad(TTY "DEVNAME=capi/1/2", "bad tty unit number");
	bad(TTY "DEVNAME=isdn/capi20", "not a CAPI device name");
	bad("ACTION=add|DEVPATH=/devices/virtual/tty/capi!7|SUBSYSTEM=tty|"
	    "DEVNAME=capi/7", "no MAJOR/MINOR");
	bad("ACTION=add|DEVPATH=/devices/virtual/tty/capi!7|SUBSYSTEM=tty|"
	    "MAJOR=x|MINOR=7|DEVNAME=capi/7", "bad MAJOR/MINOR");
	bad("ACTION=add|DEVPATH=/devices/virtual/capi/capi20|SUBSYSTEM=capi|"
	    "MAJOR=69|MINOR=0|DEVNAME=capi20", "control device is not char 68:0");
	bad("ACTION=add|DEVPATH=/devices/virtual/tty/capi20|SUBSYSTEM=tty|"
	    "MAJOR=68|MINOR=0|DEVNAME=capi20", "control device name on a tty");

	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	memcpy(big, TTY "DEVNAME=capi/7|X=", strlen(TTY "DEVNAME=capi/7|X="));
	bad(big, "over-long property value");

	/* SEQNUM: the same strict parser as the other numbers. */
	check(record(TTY "DEVNAME=capi/7|SEQNUM=18446744073709551615", &ev,
		  &why) == UEVENT_OK && ev.seqnum == 18446744073709551615ULL,
	   "the largest SEQNUM parses");
	bad(TTY "DEVNAME=capi/7|SEQNUM=18446744073709551616", "bad SEQNUM");
	bad(TTY "DEVNAME=capi/7|SEQNUM=99999999999999999999999", "bad SEQNUM");
	bad(TTY "DEVNAME=capi/7|SEQNUM=12x", "bad SEQNUM");

	/* A kernel datagram: "action@devpath" header, NUL-separated props. */
	len = (size_t)snprintf(msg, sizeof(msg),
		"add@/devices/virtual/tty/capi!3%cACTION=add%c"
		"DEVPATH=/devices/virtual/tty/capi!3%cSUBSYSTEM=tty%c"
		"MAJOR=240%cMINOR=3%cDEVNAME=capi/3%cSEQNUM=9", 0, 0, 0, 0,
		0, 0, 0);
	check(uevent_parse_kernel(msg, len, &ev, &why) == UEVENT_OK &&
	      ev.unit == 3 && ev.seqnum == 9, "kernel datagram parses");
	check(uevent_parse_kernel("ACTION=add", 10, &ev, &why) == UEVENT_BAD,
	      "kernel datagram without header is bad");

	/* A tty record makes only a node of the CAPI tty driver. */
	bad("ACTION=add|DEVPATH=/devices/virtual/tty/capi!1|SUBSYSTEM=tty|"
	    "MAJOR=1|MINOR=1|DEVNAME=capi/1",
	    "tty major is not the CAPI tty driver's (--tty-major)");
	bad("ACTION=add|DEVPATH=/devices/virtual/tty/capi8|SUBSYSTEM=tty|"
	    "MAJOR=8|MINOR=0|DEVNAME=capi8", "tty minor is not its unit number");
	bad("ACTION=add|DEVPATH=/devices/virtual/tty/capi8|SUBSYSTEM=tty|"
	    "MAJOR=8|MINOR=8|DEVNAME=capi8",
	    "tty major is not the CAPI tty driver's (--tty-major)");
	bad("ACTION=add|DEVPATH=/devices/virtual/tty/capi!0|SUBSYSTEM=tty|"
	    "MAJOR=68|MINOR=0|DEVNAME=capi/0",
	    "tty with the control device's major 68");
	bad("ACTION=add|DEVPATH=/devices/virtual/tty/capi!256|SUBSYSTEM=tty|"
	    "MAJOR=240|MINOR=256|DEVNAME=capi/256",
	    "tty minor out of the CAPI tty driver's range (0-255)");
	bad("ACTION=add|DEVPATH=/devices/virtual/tty/capi!7|SUBSYSTEM=tty|"
	    "MAJOR=240|MINOR=8|DEVNAME=capi/7", "tty minor is not its unit number");
	check(record("ACTION=add|DEVPATH=/devices/virtual/tty/capi!255|"
		     "SUBSYSTEM=tty|MAJOR=240|MINOR=255|DEVNAME=capi/255", &ev,
		     &why) == UEVENT_OK, "tty 255, the last minor, parses");
	check(record("ACTION=remove|DEVPATH=/devices/virtual/tty/capi!7|"
		     "SUBSYSTEM=tty|MAJOR=239|MINOR=7|DEVNAME=capi/7", &ev,
		     &why) == UEVENT_OK,
	      "a remove is not held to the major (the driver may be gone)");

	/* The major from a /proc/devices. */
	{
		char path[] = "/tmp/unit-uevent.XXXXXX";
		FILE *pf;
		int fd = mkstemp(path);

		pf = fdopen(fd, "w");
		fputs("Character devices:\n  1 mem\n 68 capi20\n239 capi!\n"
		      "241 capi\n\nBlock devices:\n240 capi!\n", pf);
		fclose(pf);
		uevent_set_tty_major(0, path);
		check(record("ACTION=add|DEVPATH=/devices/virtual/tty/capi!7|"
			     "SUBSYSTEM=tty|MAJOR=239|MINOR=7|DEVNAME=capi/7", &ev,
			     &why) == UEVENT_OK, "/proc/devices: capi! 239 is taken");
		bad(TTY "DEVNAME=capi/7",
		    "tty major is not the CAPI tty driver's (/proc/devices)");
		check(record("ACTION=add|DEVPATH=/devices/virtual/tty/capi7|"
			     "SUBSYSTEM=tty|MAJOR=241|MINOR=7|DEVNAME=capi7", &ev,
			     &why) == UEVENT_OK, "/proc/devices: pre-fix capi 241");
		bad("ACTION=add|DEVPATH=/devices/virtual/tty/capi7|"
		    "SUBSYSTEM=tty|MAJOR=239|MINOR=7|DEVNAME=capi7",
		    "tty major is not the CAPI tty driver's (/proc/devices)");
		/* proc/devices without the tty driver: every tty add refused */
		pf = fopen(path, "w");
		fputs("Character devices:\n  1 mem\n 68 capi20\n", pf);
		fclose(pf);
		uevent_set_tty_major(0, path);
		bad("ACTION=add|DEVPATH=/devices/virtual/tty/capi!7|"
		    "SUBSYSTEM=tty|MAJOR=239|MINOR=7|DEVNAME=capi/7",
		    "CAPI tty driver's major unknown (no \"capi!\" in "
		    "/proc/devices; see --tty-major)");
		/* no proc/devices at all: only a dynamic major */
		unlink(path);
		uevent_set_tty_major(0, path);
		check(record("ACTION=add|DEVPATH=/devices/virtual/tty/capi!7|"
			     "SUBSYSTEM=tty|MAJOR=239|MINOR=7|DEVNAME=capi/7", &ev,
			     &why) == UEVENT_OK, "no /proc/devices: dynamic major 239");
		check(record("ACTION=add|DEVPATH=/devices/virtual/tty/capi!7|"
			     "SUBSYSTEM=tty|MAJOR=511|MINOR=7|DEVNAME=capi/7", &ev,
			     &why) == UEVENT_OK, "no /proc/devices: dynamic major 511");
		bad("ACTION=add|DEVPATH=/devices/virtual/tty/capi!7|"
		    "SUBSYSTEM=tty|MAJOR=1|MINOR=7|DEVNAME=capi/7",
		    "tty major is no dynamic char major (234-254, 384-511) "
		    "nor 191, and the root has no proc/devices (see "
		    "--tty-major)");
		bad("ACTION=add|DEVPATH=/devices/virtual/tty/capi!7|"
		    "SUBSYSTEM=tty|MAJOR=255|MINOR=7|DEVNAME=capi/7",
		    "tty major is no dynamic char major (234-254, 384-511) "
		    "nor 191, and the root has no proc/devices (see "
		    "--tty-major)");
		uevent_set_tty_major(240, NULL);
	}

	/* A NUL inside a value is refused, not cut short. */
	{
		static const char dn[] = "DEVNAME=capi/7\0/../../../x";
		static const char act[] = "ACTION=add\0junk";
		struct uevent_fields f;

		uevent_reset(&f);
		uevent_add_line(&f, act, sizeof(act) - 1);
		uevent_add_line(&f, "DEVPATH=/devices/virtual/tty/capi!7", 35);
		uevent_add_line(&f, "SUBSYSTEM=tty", 13);
		uevent_add_line(&f, "MAJOR=240", 9);
		uevent_add_line(&f, "MINOR=7", 7);
		uevent_add_line(&f, "DEVNAME=capi/7", 14);
		check(uevent_finish(&f, &ev, &why) == UEVENT_BAD &&
		      !strcmp(why, "NUL byte in a property"),
		      "ACTION=add\\0junk is refused (%s)", why);
		uevent_reset(&f);
		uevent_add_line(&f, "ACTION=add", 10);
		uevent_add_line(&f, "DEVPATH=/devices/virtual/tty/capi!7", 35);
		uevent_add_line(&f, "SUBSYSTEM=tty", 13);
		uevent_add_line(&f, "MAJOR=240", 9);
		uevent_add_line(&f, "MINOR=7", 7);
		uevent_add_line(&f, dn, sizeof(dn) - 1);
		check(uevent_finish(&f, &ev, &why) == UEVENT_BAD &&
		      !strcmp(why, "NUL byte in a property"),
		      "DEVNAME=capi/7\\0/../../../x is refused (%s)", why);
	}
	/* A NUL in a key (issue 16, break 9): refused, not dropped. */
	{
		static const char nul[] = "MAJOR=240\nMINOR=7\nDEVNAME=capi/7\n"
					  "DEVNAME\0=x\n";
		static const char act[] = "ACTION=remove\nSUBSYSTEM=capi\n"
					  "MAJOR=240\nMINOR=7\nDEVNAME=capi/7\n";

		check(uevent_parse_sysfs(nul, sizeof(nul) - 1, "tty", "capi!7",
					 &ev, &why) == UEVENT_BAD &&
		      !strcmp(why, "NUL byte in a property"),
		      "sysfs: DEVNAME\\0=x is refused (%s)", why);
		/* A sysfs file cannot override the scanner's keys (break 5). */
		check(uevent_parse_sysfs(act, sizeof(act) - 1, "tty", "capi!7",
					 &ev, &why) == UEVENT_OK &&
		      ev.action == CAPI_ADD && ev.kind == CAPI_TTY,
		      "sysfs: ACTION=remove, SUBSYSTEM=capi in the file ignored");
	}
	/* The driver's major: dynamic or 191, never fixed (break 4). */
	check(uevent_tty_major_ok(240) && uevent_tty_major_ok(511) &&
	      uevent_tty_major_ok(191), "240, 511 and 191 can be the driver's");
	check(!uevent_tty_major_ok(1) && !uevent_tty_major_ok(8) &&
	      !uevent_tty_major_ok(68) && !uevent_tty_major_ok(255) &&
	      !uevent_tty_major_ok(4095), "1, 8, 68, 255, 4095 cannot");
	/* In a datagram a NUL ends the property: what follows is no KEY=VALUE. */
	len = (size_t)snprintf(msg, sizeof(msg),
		"add@/devices/virtual/tty/capi!7%cACTION=add%c"
		"DEVPATH=/devices/virtual/tty/capi!7%cSUBSYSTEM=tty%c"
		"MAJOR=240%cMINOR=7%cDEVNAME=capi/7%c/../../../x", 0, 0, 0, 0,
		0, 0, 0);
	check(uevent_parse_kernel(msg, len, &ev, &why) == UEVENT_BAD,
	      "kernel datagram DEVNAME=capi/7\\0/../../../x is bad (%s)", why);
	len = (size_t)snprintf(msg, sizeof(msg),
		"add@/devices/virtual/tty/capi!7%cACTION=add%cjunk%c"
		"DEVPATH=/devices/virtual/tty/capi!7%cSUBSYSTEM=tty%c"
		"MAJOR=240%cMINOR=7%cDEVNAME=capi/7", 0, 0, 0, 0, 0, 0, 0);
	check(uevent_parse_kernel(msg, len, &ev, &why) == UEVENT_BAD,
	      "kernel datagram ACTION=add\\0junk is bad (%s)", why);
	/*
	 * A key given twice (issue 42, break 7): a refused first value is
	 * not hidden by a harmless second one, in any of the three parsers.
	 */
	bad(TTY "DEVNAME=../etc/x|DEVNAME=capi/7", "a property given twice");
	bad(TTY "DEVNAME=/capi/7|DEVNAME=capi/7", "a property given twice");
	bad(TTY "DEVNAME=capi/7|DEVNAME=capi/7", "a property given twice");
	bad("ACTION=add|DEVPATH=/devices/virtual/tty/capi!7|SUBSYSTEM=tty|"
	    "MAJOR=1|MAJOR=240|MINOR=7|DEVNAME=capi/7",
	    "a property given twice");
	bad("ACTION=frob|ACTION=add|DEVPATH=/devices/virtual/tty/capi!7|"
	    "SUBSYSTEM=tty|MAJOR=240|MINOR=7|DEVNAME=capi/7",
	    "a property given twice");
	{
		static const char dup[] = "MAJOR=1\nMAJOR=240\nMINOR=7\n"
					  "DEVNAME=capi/7\n";

		check(uevent_parse_sysfs(dup, sizeof(dup) - 1, "tty", "capi!7",
					 &ev, &why) == UEVENT_BAD &&
		      !strcmp(why, "a property given twice"),
		      "sysfs: MAJOR given twice is refused (%s)", why);
	}
	len = (size_t)snprintf(msg, sizeof(msg),
		"add@/devices/virtual/tty/capi!7%cACTION=add%c"
		"DEVPATH=/devices/virtual/tty/capi!7%cSUBSYSTEM=tty%c"
		"MAJOR=240%cMINOR=7%cDEVNAME=/x%cDEVNAME=capi/7", 0, 0, 0, 0,
		0, 0, 0);
	check(uevent_parse_kernel(msg, len, &ev, &why) == UEVENT_BAD &&
	      !strcmp(why, "a property given twice"),
	      "kernel datagram with DEVNAME twice is bad (%s)", why);
	return done_testing();
}
