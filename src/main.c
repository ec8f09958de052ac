// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * main.c - service glue: options, signals, sd_notify and the event loop.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include "apply.h"
#include "coldplug.h"
#include "log.h"
#include "mend.h"
#include "modload.h"
#include "names.h"
#include "notify.h"
#include "policy.h"
#include "rules_conf.h"
#include "source.h"
#include "static_node.h"
#include "timing.h"
#include "tree.h"
#include "uevent.h"
#include "verify.h"

#define EXIT_USAGE 2
/* The smallest --rcvbuf: one page. */
#define RCVBUF_MIN 4096

enum source_kind { SOURCE_AUTO, SOURCE_UDEV, SOURCE_KERNEL };

struct options {
	enum source_kind source;
	const char *root;
	const char *replay;
	const char *group;	/* NULL: from 50-capi.rules */
	mode_t mode;
	bool mode_set;		/* else from 50-capi.rules */
	int rcvbuf;
	bool dry_run;
	bool no_modprobe;
	bool verify;
	bool load_driver;
	bool list;
	const char *devices_txt;
	unsigned int tty_major;
};

static void usage(FILE *out)
{
	fprintf(out,
"Usage: capi-devd [OPTION]...\n"
"Give CAPI 2.0 devices every name applications and devices.txt expect:\n"
"/dev/capi20, /dev/isdn/capi20, /dev/capi/N and /dev/capi20.NN.\n"
"\n"
"  -s, --source=udev|kernel  where events come from (default: udev when\n"
"                            udevd runs, kernel otherwise)\n"
"  -r, --root=DIR            work on DIR/dev and DIR/sys (implies --no-modprobe)\n"
"  -g, --group=NAME|GID      group of the nodes (default: the GROUP= of\n"
"                            50-capi.rules, else dialout)\n"
"  -m, --mode=OCTAL          mode of the nodes (default: the MODE= of\n"
"                            50-capi.rules, else 0660)\n"
"  -b, --rcvbuf=BYTES[K|M]   socket receive buffer (default: 8M)\n"
"  -M, --no-modprobe         do not load the CAPI driver at start\n"
"      --load-driver         load the CAPI driver if missing, then exit\n"
"  -n, --dry-run             print what would be done, change nothing\n"
"      --tty-major=N         the CAPI tty driver's major (default: from\n"
"                            ROOT/proc/devices); tty nodes of any other\n"
"                            major are refused\n"
"      --replay=FILE         apply the uevents recorded in FILE (- for\n"
"                            stdin) as --source=kernel would, then exit\n"
"      --verify              check the live dev tree against devices.txt\n"
"                            and the naming contract, then exit\n"
"      --list                list the CAPI names in the dev tree and what\n"
"                            each is or points to, one a line, then exit\n"
"      --devices-txt=FILE    the devices.txt to check against\n"
"                            (default: " DEVICES_TXT ")\n"
"  -v, --verbose             log every event and change\n"
"  -q, --quiet               log only errors\n"
"  -h, --help                show this help\n"
"  -V, --version             show the version\n"
"\n"
"Exit status: 0 success, 1 failure (or deviations with --verify),\n"
"2 bad usage or configuration.  See capi-devd(8).\n");
}

/* Digits, then K or M; checked before the shift, which cannot wrap. */
static int parse_size(const char *s, int *out)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	if (*end == 'K' || *end == 'k')
		shift = 10, end++;
	else if (*end == 'M' || *end == 'm')
		shift = 20, end++;
	if (*end || v > (unsigned long long)INT_MAX >> shift ||
	    v << shift < RCVBUF_MIN)
		return -1;
	*out = (int)(v << shift);
	return 0;
}

static int parse_source(const char *arg, struct options *o)
{
	if (!strcmp(arg, "udev"))
		o->source = SOURCE_UDEV;
	else if (!strcmp(arg, "kernel"))
		o->source = SOURCE_KERNEL;
	else {
		log_err("--source must be udev or kernel, not \"%s\"", arg);
		return -1;
	}
	return 0;
}

/* A whole number in base from min to max: digits only, no sign. */
static int parse_ulong(const char *arg, int base, unsigned long min,
		       unsigned long max, unsigned long *out)
{
	char *end;

	if (*arg < '0' || *arg > '9')
		return -1;
	errno = 0;
	*out = strtoul(arg, &end, base);
	return errno || *end || *out < min || *out > max ? -1 : 0;
}

static int parse_mode(const char *arg, struct options *o)
{
	unsigned long mode;

	if (parse_ulong(arg, 8, 0, 07777, &mode) < 0) {
		log_err("--mode must be an octal mode such as 0660, not \"%s\"",
			arg);
		return -1;
	}
	o->mode = (mode_t)mode;
	o->mode_set = true;
	return 0;
}

static int parse_rcvbuf(const char *arg, struct options *o)
{
	if (parse_size(arg, &o->rcvbuf) < 0) {
		log_err("--rcvbuf must be a size from 4096 to 2G such as 8M, not \"%s\"",
			arg);
		return -1;
	}
	return 0;
}

static int parse_tty_major(const char *arg, struct options *o)
{
	unsigned long major;

	if (parse_ulong(arg, 10, 1, CAPI_MAJOR_MAX, &major) < 0 ||
	    !uevent_tty_major_ok((unsigned int)major)) {
		log_err("--tty-major must be a major the CAPI tty driver can "
			"have: a dynamic one (234-254, 384-511) or 191, "
			"not \"%s\"", arg);
		return -1;
	}
	o->tty_major = (unsigned int)major;
	return 0;
}

/* "" is refused: it would silently mean the real /dev. */
static int parse_root(const char *arg, struct options *o)
{
	if (!*arg) {
		log_err("--root needs a directory (--root=/ is the real root)");
		return -1;
	}
	o->root = arg;
	return 0;
}

enum { OPT_REPLAY = 256, OPT_VERIFY, OPT_DEVICES_TXT, OPT_LOAD,
       OPT_TTY_MAJOR, OPT_LIST };

/* One option; returns 0, or -1 on bad usage.  --help and -V exit. */
static int parse_option(int c, const char *arg, struct options *o)
{
	switch (c) {
	case 's': return parse_source(arg, o);
	case 'r': return parse_root(arg, o);
	case 'g': o->group = arg; break;
	case 'm': return parse_mode(arg, o);
	case 'b': return parse_rcvbuf(arg, o);
	case 'M': o->no_modprobe = true; break;
	case 'n': o->dry_run = true; break;
	case OPT_REPLAY: o->replay = arg; break;
	case OPT_VERIFY: o->verify = true; break;
	case OPT_LOAD: o->load_driver = true; break;
	case OPT_LIST: o->list = true; break;
	case OPT_DEVICES_TXT: o->devices_txt = arg; break;
	case OPT_TTY_MAJOR: return parse_tty_major(arg, o);
	case 'v': log_max_level = LOG_DEBUG; break;
	case 'q': log_max_level = LOG_ERR; break;
	case 'h':
		usage(stdout);
		exit(0);
	case 'V':
		printf("capi-devd %s\n", PACKAGE_VERSION);
		exit(0);
	default:
		fprintf(stderr, "Try 'capi-devd --help'.\n");
		return -1;
	}
	return 0;
}

/* What no single option can tell: arguments, and jobs that exclude. */
static int check_options(int argc, char **argv, const struct options *o)
{
	if (optind < argc) {
		log_err("unexpected argument \"%s\"", argv[optind]);
		return -1;
	}
	if ((o->replay != NULL) + o->verify + o->load_driver + o->list > 1) {
		log_err("--replay, --verify, --list and --load-driver are "
			"separate jobs: give one");
		return -1;
	}
	if (o->replay && o->source == SOURCE_UDEV) {
		log_err("--replay applies events as --source=kernel does; "
			"it cannot be combined with --source=udev");
		return -1;
	}
	return 0;
}

static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "source", required_argument, NULL, 's' },
		{ "root", required_argument, NULL, 'r' },
		{ "group", required_argument, NULL, 'g' },
		{ "mode", required_argument, NULL, 'm' },
		{ "rcvbuf", required_argument, NULL, 'b' },
		{ "no-modprobe", no_argument, NULL, 'M' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "replay", required_argument, NULL, OPT_REPLAY },
		{ "verify", no_argument, NULL, OPT_VERIFY },
		{ "load-driver", no_argument, NULL, OPT_LOAD },
		{ "list", no_argument, NULL, OPT_LIST },
		{ "devices-txt", required_argument, NULL, OPT_DEVICES_TXT },
		{ "tty-major", required_argument, NULL, OPT_TTY_MAJOR },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, "s:r:g:m:b:MnvqhV", longopts,
				NULL)) != -1)
		if (parse_option(c, optarg, o) < 0)
			return -1;
	return check_options(argc, argv, o);
}

/* (gid_t)-1 means "leave the group" to chown(2): no group has it. */
#define GID_MAX 4294967294UL

/* A name, or a number from 0 to GID_MAX: nothing wraps. */
static int resolve_group(const char *name, gid_t *gid)
{
	struct group *gr;
	unsigned long v;

	if ((*name >= '0' && *name <= '9') || *name == '-' || *name == '+') {
		if (parse_ulong(name, 10, 0, GID_MAX, &v) < 0) {
			log_err("--group=%s: a group ID is a number from 0 to "
				"%lu", name, GID_MAX);
			return -1;
		}
		*gid = (gid_t)v;
		return 0;
	}
	gr = getgrnam(name);
	if (!gr) {
		log_err("group \"%s\" does not exist: create it (groupadd %s) "
			"or pass --group", name, name);
		return -1;
	}
	*gid = gr->gr_gid;
	return 0;
}

/* The group and mode of the nodes, and where they came from. */
struct perms {
	gid_t gid;
	mode_t mode;
	char group[64];		/* as given, for the log */
	char from[PATH_MAX];	/* the rules file, "options" or "defaults" */
};

/*
 * The options, else the permissions line of root's 50-capi.rules, else
 * dialout and 0660.  Returns 0, or -1 (logged) on a rules file that
 * cannot be used or a group that does not resolve.
 */
static int resolve_perms(const struct options *o, const char *root,
			 struct perms *p)
{
	struct rules_conf c = { 0 };
	const char *group = o->group;

	if ((!o->group || !o->mode_set) && rules_conf_read(root, &c) < 0)
		return -1;
	if (!group)
		group = c.group[0] ? c.group : "dialout";
	p->mode = !o->mode_set && c.has_mode ? c.mode : o->mode;
	snprintf(p->group, sizeof(p->group), "%s", group);
	snprintf(p->from, sizeof(p->from), "%s",
		 o->group && o->mode_set ? "options" :
		 c.from[0] ? c.from : "defaults");
	if (resolve_group(group, &p->gid) < 0) {
		if (!o->group && c.group[0])
			log_err("(the group is the GROUP= of %s)", c.from);
		return -1;
	}
	return 0;
}

struct daemon {
	struct options *o;
	const char *root;
	struct perms perms;
	struct tree tree;
	char sysdir[PATH_MAX];
	enum policy_owner owner;
	struct source_stats st;
	unsigned long rescans;
	const char *source_name;
	time_t status_at;		/* CLOCK_MONOTONIC_COARSE seconds */
	bool status_pending;		/* a STATUS= held back by the limit */
	unsigned long names_hash;	/* of the names at the last STATUS= */
	char changed_at[16];		/* when they last changed, HH:MM:SS */
};

/* FNV-1a over what the names are: a change of any of them shows. */
static unsigned long names_digest(const struct names *ns)
{
	unsigned long h = 2166136261UL;

	for (size_t i = 0; i < ns->n; i++) {
		const struct name *nm = &ns->v[i];
		const unsigned char *p = (const unsigned char *)nm;

		for (size_t j = 0; j < sizeof(*nm); j++)
			h = (h ^ p[j]) * 16777619UL;
	}
	return h ^ ns->dropped;
}

/*
 * STATUS=: what is named now and when that last changed (the counters
 * are in the log: log_counters).  At most once a second; one held back
 * is sent by the event loop a second later.  Without a service manager
 * to tell, the dev tree is not read for it.
 */
static void notify_status(struct daemon *d, bool force)
{
	struct timespec now;
	struct names ns;
	unsigned long h;
	time_t t;
	struct tm tm;

	if (!notify_wanted())
		return;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
	if (!force && now.tv_sec == d->status_at) {
		d->status_pending = true;
		return;
	}
	d->status_at = now.tv_sec;
	d->status_pending = false;
	if (names_read(d->tree.devfd, &ns) < 0) {
		names_free(&ns);
		notify_sendf("STATUS=cannot read %s: %s", d->tree.shown,
			     strerror(errno));
		return;
	}
	h = names_digest(&ns);
	if (h != d->names_hash || !d->changed_at[0]) {
		d->names_hash = h;
		t = time(NULL);
		if (localtime_r(&t, &tm))
			strftime(d->changed_at, sizeof(d->changed_at),
				 "%H:%M:%S", &tm);
	}
	notify_sendf("STATUS=source %s: %u control device%s, %u tty%s "
		     "named; last change %s (capi-devd --list names them)",
		     d->source_name, ns.controls, ns.controls == 1 ? "" : "s",
		     ns.ttys, ns.ttys == 1 ? "" : "s", d->changed_at);
	names_free(&ns);
}

/* The counters, in the log: on SIGHUP, on SIGUSR1 and at the end. */
static void log_counters(const struct daemon *d)
{
	log_info("counters: source %s: %lu events, %lu bad, %lu forged, "
		 "%lu overflows, %lu rescans, %lu changes, %lu names left "
		 "alone, %lu failed operations",
		 d->source_name, d->st.events, d->st.bad, d->st.foreign,
		 d->st.overflows, d->rescans, d->tree.changes,
		 d->tree.refused, d->tree.failed);
}

static void open_failed(const char *devdir);

/*
 * The dev root moved away or replaced (under --root: the real /dev is a
 * mount point): what is at its name now is opened, as at start, and
 * rescanned.  Returns 0, or -1 when nothing can be opened there.
 */
static int reopen_moved(struct daemon *d)
{
	const char *devdir = d->tree.shown;

	if (!tree_moved(&d->tree))
		return 0;
	log_warn("%s is no longer the directory capi-devd opened (moved or "
		 "replaced): opening what is at its name", devdir);
	tree_close(&d->tree);
	if (tree_open(&d->tree, devdir) < 0) {
		open_failed(devdir);
		return -1;
	}
	return 1;
}

static void converge(struct daemon *d, const char *why)
{
	struct coldplug_result res;
	int ret;

	d->rescans++;
	ret = coldplug(&d->tree, d->sysdir, d->owner, &res);
	tree_tidy(&d->tree);
	if (ret < 0) {
		log_err("%s: %u control device(s), %u tty(s), but the scan of "
			"%s was not complete (%s): no stale link removed", why,
			res.controls, res.ttys, d->sysdir, strerror(errno));
		return;
	}
	log_info("%s: %u control device(s), %u tty(s), %u stale link(s) removed",
		 why, res.controls, res.ttys, res.stale);
}

static void handle(struct daemon *d, const struct capi_event *ev)
{
	log_flush(false);
	apply_event(&d->tree, d->owner, ev);
}

/*
 * A remove that the kernel has overtaken: a device with the same number
 * is live again (the unit came back; its add follows in the queue).  The
 * node at the name is that device's: applying the remove would delete it,
 * and capi-devd.service may not make a tty node again.  So it changes
 * nothing.  Live sources only: a replay has no sysfs of its events' time.
 */
static bool overtaken_remove(const struct daemon *d,
			     const struct capi_event *ev)
{
	char path[PATH_MAX];

	if (ev->action != CAPI_REMOVE)
		return false;
	if (snprintf(path, sizeof(path), "%s/dev/char/%u:%u", d->sysdir,
		     ev->major, ev->minor) >= (int)sizeof(path) ||
	    access(path, F_OK) < 0)
		return false;
	log_debug("remove of unit %u (%u:%u) seqnum %llu: the device is "
		  "live again, nothing to do", ev->unit, ev->major, ev->minor,
		  ev->seqnum);
	return true;
}

static volatile sig_atomic_t replay_stop;

static void on_stop_signal(int sig)
{
	replay_stop = sig;
}

/*
 * During a replay SIGHUP is ignored (there is no sysfs scan to redo), and
 * SIGTERM or SIGINT stop it between two events: the event in hand is
 * applied in full, the rest is not, and the exit status is 1.
 */
static void replay_signals(void)
{
	struct sigaction sa = { .sa_handler = on_stop_signal };

	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: a read waiting on a pipe returns EINTR. */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGHUP, SIG_IGN);
	signal(SIGUSR1, SIG_IGN);
}

static int run_replay(struct daemon *d)
{
	struct source src;
	struct capi_event ev;
	enum source_result res;
	int ret = 0;

	replay_signals();
	if (replay_source_open_as(&src, d->o->replay) < 0) {
		log_err("cannot open %s: %s", d->o->replay, strerror(errno));
		return 1;
	}
	while (!replay_stop &&
	       (res = src.read(&src, &ev, &d->st)) != SRC_EOF) {
		if (replay_stop)
			break;
		if (res == SRC_ERROR) {
			log_err("cannot read %s: %s", replay_name(&src),
				strerror(errno));
			ret = 1;
			break;
		}
		if (res == SRC_EVENT)
			handle(d, &ev);
	}
	src.close(&src);
	tree_tidy(&d->tree);
	if (replay_stop) {
		log_warn("signal %d: replay stopped after %lu event(s)",
			 (int)replay_stop, d->st.events);
		ret = 1;
	}
	log_flush(true);
	log_info("replayed %lu event(s): %lu ignored, %lu bad, %lu change(s)%s, "
		 "%lu name(s) left alone, %lu failed operation(s)",
		 d->st.events, d->st.ignored, d->st.bad, d->tree.changes,
		 d->o->dry_run ? " to make (dry run)" : "", d->tree.refused,
		 d->tree.failed);
	/* Every failure was logged; the status says there was one. */
	return d->tree.failed ? 1 : ret;
}

static bool udevd_running(const char *root)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/run/udev/control", root) >=
	    (int)sizeof(path))
		return false;
	return access(path, F_OK) == 0;
}

static int signals_open(void)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGUSR1);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
		return -1;
	return signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
}

/*
 * SIGHUP: the group and mode again (50-capi.rules may have changed);
 * the rescan that follows gives them to every node.  A rules file that
 * cannot be used now leaves them as they were.
 */
static void reread_perms(struct daemon *d)
{
	struct perms p;

	if (resolve_perms(d->o, d->root, &p) < 0) {
		log_warn("keeping group %s, mode %04o", d->perms.group,
			 (unsigned int)d->perms.mode);
		return;
	}
	if (p.gid != d->perms.gid || p.mode != d->perms.mode)
		log_info("group %s, mode %04o now (%s)", p.group,
			 (unsigned int)p.mode, p.from);
	d->perms = p;
	d->tree.gid = p.gid;
	d->tree.mode = p.mode;
	/* Without udevd, no rule gives the static node group and mode. */
	if (d->owner == OWN_ALL)
		static_node_apply(&d->tree, d->root);
}

/*
 * RELOADING=1 with the time of the reload (Type=notify-reload waits for
 * it and for the READY=1 after the rescan; MONOTONIC_USEC tells it that
 * this reload came after its SIGHUP).
 */
static void notify_reloading(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	notify_sendf("RELOADING=1\nMONOTONIC_USEC=%llu",
		     (unsigned long long)now.tv_sec * 1000000ULL +
		     (unsigned long long)now.tv_nsec / 1000ULL);
}

/* Returns 1 to go on, 0 to stop, -1 to stop on an error. */
static int handle_signal(struct daemon *d, int sfd)
{
	struct signalfd_siginfo si;

	while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGHUP) {
			if (reopen_moved(d) < 0)
				return -1;
			notify_reloading();
			reread_perms(d);
			converge(d, "SIGHUP rescan");
			log_counters(d);
			notify_send("READY=1");
			notify_status(d, true);
		} else if (si.ssi_signo == SIGUSR1) {
			log_counters(d);
		} else {
			log_info("signal %d: exiting", (int)si.ssi_signo);
			return 0;
		}
	}
	return 1;
}

static int open_source(struct source *src, enum source_kind kind,
		       int rcvbuf)
{
	if (kind == SOURCE_UDEV) {
		if (udev_source_open(src, rcvbuf) == 0)
			return 0;
		log_err("cannot listen to udev events: %s", strerror(errno));
		return -1;
	}
	if (kernel_source_open(src, rcvbuf) == 0)
		return 0;
	log_err("cannot listen to kernel uevents: %s%s", strerror(errno),
		errno == EPERM ? " (run as root)" : "");
	return -1;
}

/* Read what the source has now; returns 0, or -1 on a fatal error. */
static int drain(struct daemon *d, struct source *src)
{
	struct capi_event ev;

	for (;;) {
		switch (src->read(src, &ev, &d->st)) {
		case SRC_EVENT:
			if (!overtaken_remove(d, &ev))
				handle(d, &ev);
			timing_done(ev.seqnum);
			break;
		case SRC_OVERFLOW:
			log_warn("events were lost (receive buffer full, %lu "
				 "time(s) so far): rescanning",
				 d->st.overflows);
			converge(d, "rescan after overflow");
			break;
		case SRC_ERROR:
			log_err("reading events: %s", strerror(errno));
			return -1;
		case SRC_DRAINED:
		case SRC_EOF:
			return 0;
		case SRC_NONE:
		case SRC_BAD:
			break;
		}
	}
}

/* Poll the source and the signals until a stop signal or an error. */
static int event_loop(struct daemon *d, struct source *src, int sfd)
{
	struct pollfd pfd[2] = {
		{ .fd = src->fd, .events = POLLIN },
		{ .fd = sfd, .events = POLLIN },
	};
	int ret;

	for (;;) {
		ret = poll(pfd, 2, d->status_pending ? 1000 : -1);
		if (ret < 0) {
			if (errno == EINTR)
				continue;
			log_err("poll: %s", strerror(errno));
			return 1;
		}
		if (ret == 0) {		/* the STATUS= held back */
			notify_status(d, true);
			continue;
		}
		if (pfd[1].revents && (ret = handle_signal(d, sfd)) <= 0)
			return ret < 0;
		if (!pfd[0].revents)
			continue;
		timing_mark(TM_WAKE);
		/* Once per batch: events go to the dev root at its name. */
		ret = reopen_moved(d);
		if (ret < 0)
			return 1;
		if (ret > 0)
			converge(d, "rescan of the dev root at its name");
		ret = drain(d, src);
		tree_tidy(&d->tree);
		if (ret < 0)
			return 1;
		log_flush(false);
		notify_status(d, false);
	}
}

static int run_daemon(struct daemon *d, enum source_kind kind)
{
	struct source src;
	int sfd, ret = 1;

	sfd = signals_open();
	if (sfd < 0) {
		log_err("cannot set up signals: %s", strerror(errno));
		return 1;
	}
	if (open_source(&src, kind, d->o->rcvbuf) == 0) {
		/* Listen first, then scan: nothing falls between the two. */
		converge(d, "start");
		notify_send("READY=1");
		notify_status(d, true);
		ret = event_loop(d, &src, sfd);
	}
	log_flush(true);
	log_counters(d);
	timing_dump();
	notify_send("STOPPING=1");
	src.close(&src);
	close(sfd);
	return ret;
}

/* What the dev directory is, for the first line of the log. */
static const char *fs_note(const struct tree *t)
{
	static char note[128];

	if (t->keep_nodes)
		return "devtmpfs or not: cannot tell";
	snprintf(note, sizeof(note), "%s, told by its %s",
		 t->kernel_nodes ? "devtmpfs: nodes are the kernel's" :
		 "not devtmpfs: nodes are made and removed here", t->fs_how);
	return note;
}

/* tree_open() failed: say why, the symlink case above all. */
static void open_failed(const char *devdir)
{
	struct stat st;
	int e = errno;

	if (lstat(devdir, &st) == 0 && S_ISLNK(st.st_mode))
		log_err("%s is a symlink: capi-devd writes only in the "
			"directory it is given and never follows one; give "
			"the real directory (--root)", devdir);
	else
		log_err("cannot open %s: %s", devdir, strerror(e));
}

/* The dev directory is open: log what it is, and when that is unknown. */
static void log_tree(const struct daemon *d, const char *devdir)
{
	if (d->tree.keep_nodes)
		log_warn("cannot tell whether %s is devtmpfs (%s): nodes are "
			 "made when missing but never removed", devdir,
			 d->tree.fs_how);
	if (d->o->replay)
		log_info("replaying %s into %s (%s)%s", d->o->replay, devdir,
			 fs_note(&d->tree), d->o->dry_run ? ", dry run" : "");
}

/* The daemon proper: listen, converge, and apply events until stopped. */
static int run_live(struct daemon *d, const char *root, const char *devdir)
{
	const struct options *o = d->o;
	enum source_kind kind = o->source;

	if (kind == SOURCE_AUTO)
		kind = udevd_running(root) ? SOURCE_UDEV : SOURCE_KERNEL;
	d->owner = kind == SOURCE_UDEV ? OWN_PREFIX : OWN_ALL;
	d->source_name = kind == SOURCE_UDEV ? "udev" : "kernel";
	log_info("capi-devd %s: source %s, dev %s (%s), group %s, mode %04o "
		 "(%s)%s", PACKAGE_VERSION, d->source_name, devdir,
		 fs_note(&d->tree), d->perms.group,
		 (unsigned int)d->perms.mode, d->perms.from,
		 o->dry_run ? ", dry run" : "");

	if (o->no_modprobe || o->root)
		log_debug("not loading the CAPI driver (%s)",
			  o->no_modprobe ? "--no-modprobe" : "--root");
	else if (modload_capi(d->sysdir, o->dry_run) < 0)
		log_warn("going on without the CAPI driver: names appear "
			 "when it is loaded");
	/* Without udevd, no rule gives the static node group and mode. */
	if (d->owner == OWN_ALL)
		static_node_apply(&d->tree, root);
	return run_daemon(d, kind);
}

/* The jobs that change the dev tree: --replay, and the daemon. */
static int run_tree(struct daemon *d, const char *root, const char *devdir)
{
	const struct options *o = d->o;
	int ret;

	d->root = root;
	if (resolve_perms(o, root, &d->perms) < 0)
		return EXIT_USAGE;
	umask(0);
	d->tree.gid = d->perms.gid;
	d->tree.mode = d->perms.mode;
	d->tree.dry_run = o->dry_run;
	if (tree_open(&d->tree, devdir) < 0) {
		open_failed(devdir);
		return EXIT_USAGE;
	}
	log_tree(d, devdir);
	if (o->replay) {
		d->owner = OWN_ALL;
		d->source_name = "replay";
		ret = run_replay(d);
	} else {
		ret = run_live(d, root, devdir);
	}
	tree_close(&d->tree);
	return ret;
}

static int run_verify(const struct options *o, const char *root,
		      const char *devdir, const char *sysdir)
{
	struct perms p;
	int ret;

	if (resolve_perms(o, root, &p) < 0)
		return EXIT_USAGE;
	mend_set_udevd(udevd_running(root));
	ret = verify_run(devdir, sysdir, o->devices_txt, p.gid, p.mode);
	return ret < 0 ? EXIT_USAGE : ret > 0 ? 1 : 0;
}

/* --list: the names as they are, for a script; the tree is not touched. */
static int run_list(const char *devdir)
{
	struct names ns;
	int fd, ret;

	fd = open(devdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		open_failed(devdir);
		return EXIT_USAGE;
	}
	ret = names_read(fd, &ns);
	if (ret < 0)
		log_err("cannot read %s: %s", devdir, strerror(errno));
	else
		names_print(&ns, devdir, stdout);
	names_free(&ns);
	close(fd);
	return ret < 0 || fflush(stdout) ? 1 : 0;
}

static int run_load_driver(const struct options *o, const char *sysdir)
{
	if (o->root) {
		log_err("--load-driver works on the running kernel; "
			"it cannot be combined with --root");
		return EXIT_USAGE;
	}
	return modload_capi(sysdir, o->dry_run) < 0 ? 1 : 0;
}

/* The paths under the root; none cut short. */
struct paths {
	char root[PATH_MAX];	/* "" for the real root */
	char dev[PATH_MAX], sys[PATH_MAX], proc_devices[PATH_MAX];
};

static int fits(char *buf, const char *root, const char *sub)
{
	return snprintf(buf, PATH_MAX, "%s%s", root, sub) < PATH_MAX;
}

/*
 * Trailing slashes go: "/" and "//" are the real root.  A root too long
 * for its paths is refused, never cut: a cut path names another
 * directory, or the root itself.
 */
static int set_paths(struct paths *p, const char *root)
{
	size_t len = root ? strlen(root) : 0;

	while (len && root[len - 1] == '/')
		len--;
	if (root && len < sizeof(p->root)) {
		memcpy(p->root, root, len);
		p->root[len] = '\0';
	}
	if (len >= sizeof(p->root) ||
	    !fits(p->dev, p->root, "/dev") || !fits(p->sys, p->root, "/sys") ||
	    !fits(p->proc_devices, p->root, "/proc/devices")) {
		log_err("--root is too long: ROOT/proc/devices must fit in %d "
			"bytes", PATH_MAX - 1);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct options o = {
		.source = SOURCE_AUTO,
		.mode = 0660,
		.rcvbuf = 8 << 20,
		.devices_txt = DEVICES_TXT,
	};
	struct daemon d = { .o = &o };
	static struct paths p;

	log_init("capi-devd");
	/* A log reader that went away must not kill us: the line is lost. */
	signal(SIGPIPE, SIG_IGN);
	if (parse_options(argc, argv, &o) < 0 || set_paths(&p, o.root) < 0)
		return EXIT_USAGE;
	snprintf(d.sysdir, sizeof(d.sysdir), "%s", p.sys);
	uevent_set_tty_major(o.tty_major, p.proc_devices);

	if (o.verify)
		return run_verify(&o, p.root, p.dev, d.sysdir);
	if (o.load_driver)
		return run_load_driver(&o, d.sysdir);
	if (o.list)
		return run_list(p.dev);
	return run_tree(&d, p.root, p.dev);
}
