// SPDX-License-Identifier: GPL-2.0-or-later
/* unit-policy.c - the naming policy: one event in, the names out. */
#include <stdio.h>
#include "policy.h"
#include "tap.h"

static struct capi_event tty(enum capi_action a, enum capi_scheme s,
			     unsigned int unit)
{
	struct capi_event ev = {
		.action = a, .kind = CAPI_TTY, .scheme = s, .unit = unit,
		.major = 240, .minor = unit,
	};
	return ev;
}

static struct capi_event control(enum capi_action a, enum capi_scheme s)
{
	struct capi_event ev = {
		.action = a, .kind = CAPI_CONTROL, .scheme = s,
		.major = 68, .minor = 0,
	};
	return ev;
}

/* Render ops as "KIND path[>target];" for comparison. */
static const char *render(const struct name_op *ops, int n)
{
	static const char *const k[] = {
		"move", "dir", "node", "link", "unlink", "gone", "rmdir",
	};
	static char buf[1024];
	int i, off = 0;

	buf[0] = '\0';
	for (i = 0; i < n; i++)
		off += snprintf(buf + off, sizeof(buf) - (size_t)off,
				"%s %s%s%s%s;", k[ops[i].kind], ops[i].path,
				ops[i].target[0] ? ">" : "", ops[i].target,
				ops[i].kind == OP_NODE && ops[i].perms ?
				" perms" : "");
	return buf;
}

static void policy_is(struct capi_event ev, enum policy_owner owner,
		      const char *want, const char *what)
{
	struct name_op ops[POLICY_MAX_OPS];
	int n = policy_names(&ev, owner, ops);

	check(n <= POLICY_MAX_OPS, "%s: at most %d ops", what, POLICY_MAX_OPS);
	is_str(render(ops, n), want, "%s", what);
}

int main(void)
{
	struct name_op ops[POLICY_MAX_OPS];
	struct capi_event ev;
	char name[32];
	unsigned int unit;
	int i, n;

	policy_is(tty(CAPI_ADD, CAPI_MODERN, 7), OWN_ALL,
	          "node capi/7 perms;link capi20.07>capi/7;",
	          "modern tty 7, no udevd");
	policy_is(tty(CAPI_ADD, CAPI_MODERN, 123), OWN_ALL,
	          "node capi/123 perms;link capi20.123>capi/123;",
	          "modern tty 123: three digits");
	policy_is(tty(CAPI_REMOVE, CAPI_MODERN, 7), OWN_ALL,
	          "unlink capi20.07>capi/7;gone capi/7;",
	          "modern tty 7 removed");
	policy_is(tty(CAPI_ADD, CAPI_MODERN, 7), OWN_PREFIX, "",
	          "with udevd, modern names are the rules' business");
	policy_is(control(CAPI_ADD, CAPI_MODERN), OWN_ALL,
	          "node capi20 perms;link isdn/capi20>../capi20;",
	          "modern control device");
	policy_is(control(CAPI_REMOVE, CAPI_MODERN), OWN_ALL,
	          "unlink isdn/capi20>../capi20;rmdir isdn;",
	          "modern control device removed: the node stays");
	policy_is(control(CAPI_ADD, CAPI_PREFIX), OWN_ALL,
	          "move capi;node capi20 perms;dir capi;link isdn/capi20>../capi20;",
	          "pre-fix control device is moved out of the way");
	policy_is(control(CAPI_ADD, CAPI_PREFIX), OWN_PREFIX,
	          "move capi;node capi20;dir capi;link isdn/capi20>../capi20;",
	          "pre-fix control device with udevd: no perms");
	policy_is(tty(CAPI_ADD, CAPI_PREFIX, 3), OWN_ALL,
	          "move capi;dir capi;node capi3 perms;link capi/3>../capi3;"
	          "link capi20.03>capi/3;", "pre-fix tty 3");
	policy_is(tty(CAPI_REMOVE, CAPI_PREFIX, 3), OWN_PREFIX,
	          "unlink capi20.03>capi/3;unlink capi/3>../capi3;gone capi3;",
	          "pre-fix tty 3 removed");

	/* The ordering contract: a link needs every op that sets up its node. */
	ev = tty(CAPI_ADD, CAPI_PREFIX, 3);
	n = policy_names(&ev, OWN_ALL, ops);
	is_int(n, 5, "pre-fix tty 3: five ops");
	is_int(ops[3].needs, 0x7, "capi/3 needs the move, capi/ and the node");
	is_int(ops[4].needs, 0x7, "capi20.03 needs the same, not capi/3");
	ev = control(CAPI_ADD, CAPI_PREFIX);
	n = policy_names(&ev, OWN_ALL, ops);
	is_int(ops[n - 1].needs, 0x7, "isdn/capi20 needs the move, capi20, capi/");
	for (i = 0; i < n; i++)
		if (ops[i].kind != OP_LINK && ops[i].needs)
			break;
	is_int(i, n, "only links need anything");

	policy_legacy_name(0, name, sizeof(name));
	is_str(name, "capi20.00", "unit 0");
	policy_legacy_name(19, name, sizeof(name));
	is_str(name, "capi20.19", "unit 19, the last devices.txt lists");
	policy_legacy_name(1048575, name, sizeof(name));
	is_str(name, "capi20.1048575", "largest unit");

	check(!policy_parse_legacy_name("capi20.07", &unit) && unit == 7,
	      "capi20.07 is unit 7");
	check(!policy_parse_legacy_name("capi20.1048575", &unit) &&
	      unit == 1048575, "capi20.1048575 is the largest unit");
	check(policy_parse_legacy_name("capi20.7", &unit) < 0,
	      "capi20.7 is nobody's: unit 7 is capi20.07");
	check(policy_parse_legacy_name("capi20.007", &unit) < 0,
	      "capi20.007 is nobody's");
	check(policy_parse_legacy_name("capi20.1048576", &unit) < 0,
	      "capi20.1048576 is beyond the largest unit");
	check(policy_parse_legacy_name("capi20.+7", &unit) < 0 &&
	      policy_parse_legacy_name("capi20.", &unit) < 0 &&
	      policy_parse_legacy_name("capi20.07.bak", &unit) < 0,
	      "capi20.+7, capi20. and capi20.07.bak are nobody's");
	check(!policy_parse_dir_name("7", &unit) && unit == 7, "capi/7 is unit 7");
	check(policy_parse_dir_name("07", &unit) < 0 &&
	      policy_parse_dir_name("modem", &unit) < 0,
	      "capi/07 and capi/modem are nobody's");

	check(policy_link_is_ours(SHAPE_LEGACY, "capi/12"), "capi/12 is ours");
	check(!policy_link_is_ours(SHAPE_LEGACY, "capi/12x"), "capi/12x is not");
	check(!policy_link_is_ours(SHAPE_LEGACY, "/etc/passwd"), "/etc/passwd is not");
	check(!policy_link_is_ours(SHAPE_LEGACY, "capi/"), "capi/ is not");
	check(policy_link_is_ours(SHAPE_ISDN, "../capi20"), "../capi20 is ours");
	check(!policy_link_is_ours(SHAPE_ISDN, "../capi"), "../capi is not");
	check(policy_link_is_ours(SHAPE_PREFIX_TTY, "../capi4"), "../capi4 is ours");
	check(!policy_link_is_ours(SHAPE_PREFIX_TTY, "../capi20.04"),
	      "../capi20.04 is not");
	return done_testing();
}
