// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * policy.c - which names a CAPI event calls for.
 *
 * Modern kernels (control "capi20", ttys "capi/N" from driver "capi!"):
 *   capi20        char 68:0, group/mode      devtmpfs node; perms when we own all
 *   isdn/capi20   -> ../capi20
 *   capi/N        tty N, group/mode          devtmpfs node; perms when we own all
 *   capi20.NN     -> capi/N                  NN is N printed %02u
 *
 * Pre-fix kernels (control "capi", ttys "capiN"): the control node "capi"
 * is moved to "capi20" so that "capi/" can be a directory, and
 *   capi/N        -> ../capiN
 *   capi20.NN     -> capi/N
 *   isdn/capi20   -> ../capi20
 *
 * With udevd running, 50-capi.rules makes the modern names and sets the
 * group and mode of every node; capi-devd keeps only the pre-fix names.
 */
#include <string.h>
#include "policy.h"

struct ops_buf {
	struct name_op *ops;
	int n;
	unsigned int setup;	/* the MOVE, DIR and NODE ops so far */
};

/*
 * The names are built for every event: by hand, not with snprintf(),
 * which cost more than all the rest of the policy (callgrind: 44% of the
 * instructions of a replay).  Every name fits POLICY_PATH_MAX; a string
 * that did not would be cut, as snprintf() would.
 */
static void set_str(char *dst, const char *s)
{
	size_t len = strnlen(s, POLICY_PATH_MAX - 1);

	memcpy(dst, s, len);
	dst[len] = '\0';
}

/* Append v in decimal, at least width digits, at p; returns the new end. */
static char *put_uint(char *p, unsigned int v, int width)
{
	char digits[10];
	int n = 0;

	do {
		digits[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n < width)
		digits[n++] = '0';
	while (n)
		*p++ = digits[--n];
	*p = '\0';
	return p;
}

/* prefix and v (at least width digits) into buf of POLICY_PATH_MAX. */
static void name_of(char *buf, const char *prefix, unsigned int v, int width)
{
	size_t len = strlen(prefix);

	memcpy(buf, prefix, len);
	put_uint(buf + len, v, width);
}

static struct name_op *push(struct ops_buf *b, enum op_kind kind,
			    const char *path)
{
	struct name_op *op = &b->ops[b->n++];

	memset(op, 0, sizeof(*op));
	op->kind = kind;
	set_str(op->path, path);
	if (kind == OP_MOVE_CONTROL || kind == OP_DIR || kind == OP_NODE)
		b->setup |= 1u << (b->n - 1);
	else if (kind == OP_LINK)
		op->needs = b->setup;
	return op;
}

static void push_link(struct ops_buf *b, enum op_kind kind, const char *path,
		      const char *target, enum link_shape shape)
{
	struct name_op *op = push(b, kind, path);

	set_str(op->target, target);
	op->shape = shape;
}

static void set_devnum(struct name_op *op, const struct capi_event *ev)
{
	op->major = ev->major;
	op->minor = ev->minor;
}

static void push_node(struct ops_buf *b, enum op_kind kind, const char *path,
		      const struct capi_event *ev, bool perms)
{
	struct name_op *op = push(b, kind, path);

	set_devnum(op, ev);
	op->perms = perms;
}

void policy_tty_names(unsigned int unit, enum capi_scheme scheme,
		      struct tty_names *n)
{
	name_of(n->legacy, POLICY_LEGACY_PREFIX, unit, 2);
	name_of(n->dirent, "capi/", unit, 1);
	if (scheme == CAPI_PREFIX) {
		name_of(n->node, "capi", unit, 1);
		name_of(n->target, "../capi", unit, 1);
	} else {
		memcpy(n->node, n->dirent, sizeof(n->node));
		name_of(n->target, "../capi/", unit, 1);
	}
}

int policy_legacy_name(unsigned int unit, char *buf, unsigned long size)
{
	struct tty_names n;
	size_t len;

	policy_tty_names(unit, CAPI_MODERN, &n);
	len = strlen(n.legacy);
	if (size) {
		size_t k = len < size ? len : size - 1;

		memcpy(buf, n.legacy, k);
		buf[k] = '\0';
	}
	return (int)len;
}

static void control(struct ops_buf *b, const struct capi_event *ev,
		    bool own_all)
{
	bool prefix = ev->scheme == CAPI_PREFIX;

	if (ev->action == CAPI_ADD) {
		if (prefix)
			push(b, OP_MOVE_CONTROL, "capi");
		/*
		 * In pre-fix mode the node at capi20 is always ours to keep
		 * (we moved or made it); perms only when nobody else sets them.
		 */
		push_node(b, OP_NODE, "capi20", ev, own_all);
		if (prefix)
			push(b, OP_DIR, "capi");
		push_link(b, OP_LINK, "isdn/capi20", "../capi20", SHAPE_ISDN);
	} else {
		/*
		 * The capi20 node stays: systemd-tmpfiles may have made it
		 * from modules.devname so that opening it loads the driver.
		 */
		push_link(b, OP_UNLINK, "isdn/capi20", "../capi20", SHAPE_ISDN);
		push(b, OP_RMDIR, "isdn");
		if (prefix)
			push(b, OP_RMDIR, "capi");
	}
}

static void tty(struct ops_buf *b, const struct capi_event *ev, bool own_all)
{
	bool prefix = ev->scheme == CAPI_PREFIX;
	struct tty_names n;

	policy_tty_names(ev->unit, ev->scheme, &n);
	if (ev->action == CAPI_ADD) {
		if (prefix) {
			push(b, OP_MOVE_CONTROL, "capi");
			push(b, OP_DIR, "capi");
		}
		push_node(b, OP_NODE, n.node, ev, own_all);
		if (prefix)
			push_link(b, OP_LINK, n.dirent, n.target,
				  SHAPE_PREFIX_TTY);
		push_link(b, OP_LINK, n.legacy, n.dirent, SHAPE_LEGACY);
	} else {
		/* A link goes only when it leads to this device (or nothing). */
		push_link(b, OP_UNLINK, n.legacy, n.dirent, SHAPE_LEGACY);
		set_devnum(&b->ops[b->n - 1], ev);
		if (prefix) {
			push_link(b, OP_UNLINK, n.dirent, n.target,
				  SHAPE_PREFIX_TTY);
			set_devnum(&b->ops[b->n - 1], ev);
		}
		/* Removing a node left in capi/ also removes capi/ if empty. */
		push_node(b, OP_NODE_GONE, n.node, ev, false);
	}
}

int policy_names(const struct capi_event *ev, enum policy_owner owner,
		 struct name_op ops[POLICY_MAX_OPS])
{
	struct ops_buf b = { ops, 0, 0 };
	bool own_all = owner == OWN_ALL;

	/* With udevd, the modern names are all the rules' business. */
	if (!own_all && ev->scheme == CAPI_MODERN)
		return 0;
	if (ev->kind == CAPI_CONTROL)
		control(&b, ev, own_all);
	else
		tty(&b, ev, own_all);
	return b.n;
}

static bool digits_only(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* Digits only, within CAPI_UNIT_MAX; the caller compares the reprint. */
static int parse_unit(const char *s, unsigned int *unit)
{
	unsigned long v = 0;

	if (!digits_only(s))
		return -1;
	for (; *s; s++) {
		v = v * 10 + (unsigned long)(*s - '0');
		if (v > CAPI_UNIT_MAX)
			return -1;
	}
	*unit = (unsigned int)v;
	return 0;
}

int policy_parse_legacy_name(const char *name, unsigned int *unit)
{
	struct tty_names n;

	if (strncmp(name, POLICY_LEGACY_PREFIX, POLICY_LEGACY_PREFIX_LEN) ||
	    parse_unit(name + POLICY_LEGACY_PREFIX_LEN, unit) < 0)
		return -1;
	policy_tty_names(*unit, CAPI_MODERN, &n);
	return strcmp(n.legacy, name) ? -1 : 0;
}

int policy_parse_dir_name(const char *name, unsigned int *unit)
{
	struct tty_names n;

	if (parse_unit(name, unit) < 0)
		return -1;
	policy_tty_names(*unit, CAPI_MODERN, &n);
	return strcmp(n.dirent + strlen("capi/"), name) ? -1 : 0;
}

bool policy_link_is_ours(enum link_shape shape, const char *target)
{
	switch (shape) {
	case SHAPE_LEGACY:
		return !strncmp(target, "capi/", 5) && digits_only(target + 5);
	case SHAPE_ISDN:
		return !strcmp(target, "../capi20");
	case SHAPE_PREFIX_TTY:
		return !strncmp(target, "../capi", 7) &&
		       digits_only(target + 7);
	case SHAPE_NONE:
		break;
	}
	return false;
}
