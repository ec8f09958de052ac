// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * uevent.c - parse and validate uevent properties.
 *
 * This is the one place where untrusted input (netlink datagrams, replay
 * files, sysfs uevent files, udev properties) is checked.  Whatever leaves
 * here as UEVENT_OK names a CAPI device by scheme, kind and unit number;
 * the raw DEVNAME string never reaches the code that touches the disk.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "number.h"
#include "uevent.h"

/* A line we make from a name in sysfs. */
#define SYSFS_LINE_MAX (NAME_MAX + 64)

enum {
	UF_ACTION = 1u << 0,
	UF_DEVPATH = 1u << 1,
	UF_SUBSYSTEM = 1u << 2,
	UF_DEVNAME = 1u << 3,
	UF_MAJOR = 1u << 4,
	UF_MINOR = 1u << 5,
	UF_SEQNUM = 1u << 6,
};

void uevent_reset(struct uevent_fields *f)
{
	f->have = 0;
	f->seen = 0;
	f->repeated = false;
	f->overlong = false;
	f->nul = false;
}

static void keep(struct uevent_fields *f, unsigned int bit, char *dst,
		 size_t dstsize, const char *val, size_t vallen)
{
	if (vallen >= dstsize) {
		f->overlong = true;
		return;
	}
	memcpy(dst, val, vallen);
	dst[vallen] = '\0';
	f->have |= bit;
}

/* The properties we keep, and where. */
#define FIELD(name, bit, member) \
	{ name, sizeof(name) - 1, bit, offsetof(struct uevent_fields, member), \
	  sizeof(((struct uevent_fields *)0)->member) }
static const struct field {
	const char *key;
	size_t keylen;
	unsigned int bit;
	size_t offset, size;
} fields[] = {
	FIELD("ACTION", UF_ACTION, action),
	FIELD("DEVPATH", UF_DEVPATH, devpath),
	FIELD("SUBSYSTEM", UF_SUBSYSTEM, subsystem),
	FIELD("DEVNAME", UF_DEVNAME, devname),
	FIELD("MAJOR", UF_MAJOR, major),
	FIELD("MINOR", UF_MINOR, minor),
	FIELD("SEQNUM", UF_SEQNUM, seqnum),
};

void uevent_add(struct uevent_fields *f, const char *key, size_t keylen,
		const char *val, size_t vallen)
{
	size_t i;

	/*
	 * A NUL would cut the value short ("capi/7\0/../x" read as
	 * "capi/7"): the record is refused, not trimmed.
	 */
	if (memchr(key, '\0', keylen) || memchr(val, '\0', vallen))
		f->nul = true;
	/* Any over-long value makes the record suspect. */
	if (vallen >= UEVENT_VALUE_MAX)
		f->overlong = true;
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		if (keylen != fields[i].keylen ||
		    memcmp(key, fields[i].key, keylen))
			continue;
		/*
		 * A key given twice: which value counts?  The first could
		 * be refused and the second harmless.  The record is.
		 */
		if (f->seen & fields[i].bit)
			f->repeated = true;
		f->seen |= fields[i].bit;
		keep(f, fields[i].bit, (char *)f + fields[i].offset,
		     fields[i].size, val, vallen);
	}
}

static int is_key_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

int uevent_add_line(struct uevent_fields *f, const char *line, size_t len)
{
	size_t i;

	/*
	 * A NUL anywhere, even in a key ("DEVNAME\0=x"), refuses the
	 * record: the line is not dropped as "not KEY=VALUE".
	 */
	if (memchr(line, '\0', len)) {
		f->nul = true;
		return 0;
	}
	for (i = 0; i < len && is_key_char(line[i]); i++)
		;
	if (i == 0 || i == len || line[i] != '=')
		return -1;
	uevent_add(f, line, i, line + i + 1, len - i - 1);
	return 0;
}

/* Strict decimal: no sign, no leading zero, at most max; no overflow. */
static int parse_number(const char *s, unsigned long long max,
			unsigned long long *out)
{
	unsigned long long v = 0;
	unsigned int digit;

	if (!*s || (s[0] == '0' && s[1]))
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		digit = (unsigned int)(*s - '0');
		if (v > (max - digit) / 10)
			return -1;
		v = v * 10 + digit;
	}
	*out = v;
	return 0;
}

static int parse_uint(const char *s, unsigned int max, unsigned int *out)
{
	unsigned long long v;

	if (parse_number(s, max, &v) < 0)
		return -1;
	*out = (unsigned int)v;
	return 0;
}

static int safe_devname(const char *s)
{
	const char *p;

	if (!*s || *s == '/' || strstr(s, ".."))
		return 0;
	for (p = s; *p; p++) {
		char c = *p;

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '-' ||
		      c == '.' || c == '/'))
			return 0;
	}
	return p[-1] != '/';
}

static struct {
	unsigned int given;		/* --tty-major, or 0 */
	const char *proc_devices;	/* where to look it up, or NULL */
	unsigned int found[2];		/* last looked up, by scheme; 0 none */
	bool table;			/* proc_devices could be read */
} tty_driver;

/*
 * The CAPI tty driver's major is a dynamic one on every kernel since the
 * tty rework of 2.6.3x (tty_driver->major = 0): the kernel hands those
 * out from two ranges (CHRDEV_MAJOR_DYN_END..254 and
 * CHRDEV_MAJOR_DYN_EXT_END..CHRDEV_MAJOR_DYN_EXT_START in <linux/fs.h>;
 * "RESERVED FOR DYNAMIC ASSIGNMENT" in devices.txt).  Older pre-fix
 * kernels asked for 191 (capi_ttymajor, "Reserved for PCMCIA" in
 * devices.txt), and nothing else uses it.  A fixed major such as 1 (mem)
 * or 8 (sd) is never the CAPI tty driver's, wherever the number comes
 * from: --tty-major, proc/devices, or a record.
 */
#define CAPI_OLD_TTY_MAJOR 191u

bool uevent_tty_major_ok(unsigned int major)
{
	return (major >= 234 && major <= 254) ||
	       (major >= 384 && major <= 511) || major == CAPI_OLD_TTY_MAJOR;
}

void uevent_set_tty_major(unsigned int major, const char *proc_devices)
{
	tty_driver.given = major;
	tty_driver.proc_devices = proc_devices;
	tty_driver.found[0] = tty_driver.found[1] = 0;
}

/*
 * The "Character devices:" part of /proc/devices: "%3d %s" lines.  The
 * tty driver registers its name: "capi!" on modern kernels (a kernel that
 * turned the "!" into "/" would show "capi/"), "capi" on pre-fix ones;
 * the control device is "capi20" on both.
 */
static void lookup_tty_major(void)
{
	char buf[8192];
	const char *p, *end, *nl, *why;
	bool chars = false;
	ssize_t len;

	tty_driver.found[CAPI_MODERN] = tty_driver.found[CAPI_PREFIX] = 0;
	len = uevent_read_file(AT_FDCWD, tty_driver.proc_devices, buf,
			       sizeof(buf), &why);
	tty_driver.table = len >= 0;
	if (len < 0)
		return;
	for (p = buf, end = buf + len; p < end; p = nl + 1) {
		char name[16];
		unsigned int major;
		const char *q;

		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if (!strncmp(p, "Character devices:", 18)) {
			chars = true;
			continue;
		}
		if (!chars || nl == p)
			break;		/* a blank line ends the part */
		/* "%3d %s": blanks, a major (never wrapped), a name. */
		q = p + strspn(p, " ");
		if (number_scan(&q, nl, CAPI_MAJOR_MAX, &major) < 0 ||
		    *q != ' ' || sscanf(q, " %15s", name) != 1 ||
		    !uevent_tty_major_ok(major))
			continue;
		if (!strcmp(name, "capi!") || !strcmp(name, "capi/"))
			tty_driver.found[CAPI_MODERN] = major;
		else if (!strcmp(name, "capi"))
			tty_driver.found[CAPI_PREFIX] = major;
	}
}

/*
 * A tty record names a node of the CAPI tty driver: unit N at minor N
 * below CAPI_TTY_MINORS, and (to make one) the driver's major.  A remove
 * is not held to the major: its event may come after the driver is gone,
 * and the tree removes a node only when it is still that device.
 */
static bool tty_devnum_ok(const struct capi_event *ev, const char **why)
{
	unsigned int *found = &tty_driver.found[ev->scheme];

	if (ev->minor >= CAPI_TTY_MINORS) {
		*why = "tty minor out of the CAPI tty driver's range (0-255)";
		return false;
	}
	if (ev->minor != ev->unit) {
		*why = "tty minor is not its unit number";
		return false;
	}
	if (ev->major == CAPI_CONTROL_MAJOR) {
		*why = "tty with the control device's major 68";
		return false;
	}
	if (ev->action == CAPI_REMOVE)
		return true;
	if (tty_driver.given) {
		if (ev->major == tty_driver.given)
			return true;
		*why = "tty major is not the CAPI tty driver's (--tty-major)";
		return false;
	}
	/* The driver may have been reloaded since: look again on a miss. */
	if (*found != ev->major && tty_driver.proc_devices)
		lookup_tty_major();
	if (!tty_driver.table) {
		/*
		 * A scratch root without proc/devices (a replay): the driver's
		 * major is not known, only that it is a dynamic one.
		 */
		if (uevent_tty_major_ok(ev->major))
			return true;
		*why = "tty major is no dynamic char major (234-254, 384-511) "
		       "nor 191, and the root has no proc/devices (see "
		       "--tty-major)";
		return false;
	}
	if (!*found) {
		*why = ev->scheme == CAPI_MODERN ?
			"CAPI tty driver's major unknown (no \"capi!\" in "
			"/proc/devices; see --tty-major)" :
			"CAPI tty driver's major unknown (no \"capi\" in "
			"/proc/devices; see --tty-major)";
		return false;
	}
	if (*found != ev->major) {
		*why = "tty major is not the CAPI tty driver's (/proc/devices)";
		return false;
	}
	return true;
}

static const char *basename_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* The properties every record must have, and no NUL in any. */
static enum uevent_verdict check_present(const struct uevent_fields *f,
					 const char **why)
{
	if (f->nul)
		*why = "NUL byte in a property";
	else if (f->repeated)
		*why = "a property given twice";
	else if (!(f->have & UF_ACTION))
		*why = "no ACTION";
	else if (!(f->have & UF_DEVPATH))
		*why = "no DEVPATH";
	else if (!(f->have & UF_SUBSYSTEM))
		*why = "no SUBSYSTEM";
	else
		return UEVENT_OK;
	return UEVENT_BAD;
}

/* The action: add and change apply the names, remove takes them away. */
static enum uevent_verdict parse_action(const char *a, struct capi_event *ev,
					const char **why)
{
	static const char *const ignored[] = {
		"bind", "unbind", "move", "online", "offline",
	};
	size_t i;

	if (!strcmp(a, "add") || !strcmp(a, "change")) {
		ev->action = CAPI_ADD;
		return UEVENT_OK;
	}
	if (!strcmp(a, "remove")) {
		ev->action = CAPI_REMOVE;
		return UEVENT_OK;
	}
	for (i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
		if (!strcmp(a, ignored[i]))
			return UEVENT_IGNORE;
	*why = "unknown ACTION";
	return UEVENT_BAD;
}

/* Only the capi class and the capi ttys concern us. */
static enum uevent_verdict check_subsystem(const struct uevent_fields *f,
					   bool *tty)
{
	*tty = !strcmp(f->subsystem, "tty");
	if (!*tty && strcmp(f->subsystem, "capi"))
		return UEVENT_IGNORE;
	if (*tty && strncmp(basename_of(f->devpath), "capi", strlen("capi")))
		return UEVENT_IGNORE;
	return UEVENT_OK;
}

/*
 * DEVNAME into kind, scheme and unit: "capi20" (modern) or "capi"
 * (pre-fix) is the control device, "capi/N" or "capiN" a tty.
 */
static enum uevent_verdict classify_devname(const char *dn, bool tty,
					    struct capi_event *ev,
					    const char **why)
{
	const char *num = dn + strlen("capi");

	ev->unit = 0;
	if (!strcmp(dn, "capi20") || !strcmp(dn, "capi")) {
		if (tty) {
			*why = "control device name on a tty";
			return UEVENT_BAD;
		}
		ev->kind = CAPI_CONTROL;
		ev->scheme = *num ? CAPI_MODERN : CAPI_PREFIX;
		return UEVENT_OK;
	}
	if (strncmp(dn, "capi", strlen("capi"))) {
		*why = "not a CAPI device name";
		return UEVENT_BAD;
	}
	if (!tty) {
		*why = "tty name on the capi class";
		return UEVENT_BAD;
	}
	ev->kind = CAPI_TTY;
	ev->scheme = *num == '/' ? CAPI_MODERN : CAPI_PREFIX;
	if (*num == '/')
		num++;
	if (parse_uint(num, CAPI_UNIT_MAX, &ev->unit)) {
		*why = "bad tty unit number";
		return UEVENT_BAD;
	}
	return UEVENT_OK;
}

/* MAJOR and MINOR: the control device is 68:0, a tty its driver's. */
static enum uevent_verdict parse_devnum(const struct uevent_fields *f,
					struct capi_event *ev,
					const char **why)
{
	if ((f->have & (UF_MAJOR | UF_MINOR)) != (UF_MAJOR | UF_MINOR)) {
		*why = "no MAJOR/MINOR";
		return UEVENT_BAD;
	}
	if (parse_uint(f->major, CAPI_MAJOR_MAX, &ev->major) ||
	    parse_uint(f->minor, CAPI_UNIT_MAX, &ev->minor)) {
		*why = "bad MAJOR/MINOR";
		return UEVENT_BAD;
	}
	if (ev->kind == CAPI_CONTROL && (ev->major != CAPI_CONTROL_MAJOR ||
					 ev->minor != CAPI_CONTROL_MINOR)) {
		*why = "control device is not char 68:0";
		return UEVENT_BAD;
	}
	if (ev->kind == CAPI_TTY && !tty_devnum_ok(ev, why))
		return UEVENT_BAD;
	return UEVENT_OK;
}

/* The first verdict of a list that is not UEVENT_OK ends the record. */
#define CHECK(expr) do { \
	enum uevent_verdict v_ = (expr); \
	if (v_ != UEVENT_OK) \
		return v_; \
} while (0)

enum uevent_verdict uevent_finish(const struct uevent_fields *f,
				  struct capi_event *ev, const char **why)
{
	bool tty;

	CHECK(check_present(f, why));
	CHECK(parse_action(f->action, ev, why));
	CHECK(check_subsystem(f, &tty));
	if (f->overlong) {
		*why = "over-long property value";
		return UEVENT_BAD;
	}
	if (!(f->have & UF_DEVNAME)) {
		*why = "no DEVNAME";
		return UEVENT_BAD;
	}
	if (!safe_devname(f->devname)) {
		*why = "unsafe DEVNAME";
		return UEVENT_BAD;
	}
	CHECK(classify_devname(f->devname, tty, ev, why));
	CHECK(parse_devnum(f, ev, why));
	ev->seqnum = 0;
	if ((f->have & UF_SEQNUM) &&
	    parse_number(f->seqnum, ~0ULL, &ev->seqnum) < 0) {
		*why = "bad SEQNUM";
		return UEVENT_BAD;
	}
	return UEVENT_OK;
}

enum uevent_verdict uevent_parse_kernel(const char *buf, size_t len,
					struct capi_event *ev,
					const char **why)
{
	struct uevent_fields f;
	const char *p = buf, *end = buf + len;
	const char *nul;

	uevent_reset(&f);
	/* The first string is the "action@devpath" summary. */
	nul = memchr(p, '\0', len);
	if (!nul || !memchr(p, '@', (size_t)(nul - p))) {
		*why = "kernel message without action@devpath header";
		return UEVENT_BAD;
	}
	for (p = nul + 1; p < end; p = nul + 1) {
		nul = memchr(p, '\0', (size_t)(end - p));
		if (!nul)
			nul = end;
		if (nul > p && uevent_add_line(&f, p, (size_t)(nul - p)) < 0) {
			*why = "kernel message with a property that is not KEY=VALUE";
			return UEVENT_BAD;
		}
	}
	return uevent_finish(&f, ev, why);
}

ssize_t uevent_read_file(int dirfd, const char *path, char *buf,
			 size_t size, const char **why)
{
	struct stat st;
	ssize_t len;
	int fd, e;

	/* O_NONBLOCK: a FIFO planted in a --root's sysfs cannot hang us. */
	fd = openat(dirfd, path,
		    O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		*why = "cannot be opened";
		return -1;
	}
	*why = "cannot be read";
	if (fstat(fd, &st) < 0) {
		len = -1;
	} else if (!S_ISREG(st.st_mode)) {
		*why = "is not a regular file";
		errno = 0;
		len = -1;
	} else {
		len = read(fd, buf, size - 1);
	}
	e = errno;
	close(fd);
	errno = e;
	if (len < 0)
		return -1;
	buf[len] = '\0';
	return len;
}

/* Keys the sysfs scanner decides; a uevent file's own are ignored. */
static bool scanner_key(const char *line, size_t len)
{
	static const char *const keys[] = {
		"ACTION=", "DEVPATH=", "SUBSYSTEM=", "SEQNUM=",
	};
	size_t i, n;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		n = strlen(keys[i]);
		if (len >= n && !memcmp(line, keys[i], n))
			return true;
	}
	return false;
}

enum uevent_verdict uevent_parse_sysfs(const char *buf, size_t len,
				       const char *class, const char *name,
				       struct capi_event *ev, const char **why)
{
	char line[SYSFS_LINE_MAX];
	struct uevent_fields f;
	const char *p, *end, *nl;

	uevent_reset(&f);
	uevent_add_line(&f, "ACTION=add", 10);
	snprintf(line, sizeof(line), "DEVPATH=/class/%s/%s", class, name);
	uevent_add_line(&f, line, strlen(line));
	snprintf(line, sizeof(line), "SUBSYSTEM=%s", class);
	uevent_add_line(&f, line, strlen(line));
	for (p = buf, end = buf + len; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		/* A NUL even in an ignored line refuses the file. */
		if (!scanner_key(p, (size_t)(nl - p)) ||
		    memchr(p, '\0', (size_t)(nl - p)))
			uevent_add_line(&f, p, (size_t)(nl - p));
	}
	return uevent_finish(&f, ev, why);
}
