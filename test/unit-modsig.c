// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * unit-modsig.c - the one line a user reads when the kernel refuses
 * kernelcapi for its signature: which errors are that refusal, and the
 * lockdown state read from a sysfs tree made here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "modsig.h"
#include "tap.h"

static char sys[] = "/tmp/unit-modsig.XXXXXX";
static char file[4200];

/* SYS/kernel/security/lockdown with text, or none when text is NULL. */
static void lockdown(const char *text)
{
	FILE *f;

	unlink(file);
	if (!text)
		return;
	f = fopen(file, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		printf("Bail out! cannot write %s\n", file);
		exit(1);
	}
}

static bool advises_mokutil(int err, bool locked)
{
	const char *a = modsig_advice(err, locked);

	return a && strstr(a, "mokutil --import /var/lib/dkms/mok.pub") &&
	       strstr(a, "reboot");
}

int main(void)
{
	char dir[4096];

	if (!mkdtemp(sys)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	snprintf(dir, sizeof(dir), "%s/kernel", sys);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/kernel/security", sys);
	mkdir(dir, 0755);
	snprintf(file, sizeof(file), "%s/lockdown", dir);

	check(advises_mokutil(EKEYREJECTED, false),
	      "EKEYREJECTED (module.sig_enforce): mokutil and reboot");
	check(advises_mokutil(ENOKEY, false), "ENOKEY: the same advice");
	check(advises_mokutil(EPERM, true),
	      "EPERM on a locked-down kernel: the same advice");
	check(!modsig_advice(EPERM, false),
	      "EPERM without lockdown: no advice (not a signature refusal)");
	check(!modsig_advice(ENOENT, true), "ENOENT: no advice");
	check(!modsig_advice(ENOEXEC, true), "ENOEXEC: no advice");

	lockdown(NULL);
	check(!modsig_locked_down(sys), "no lockdown file: not locked down");
	lockdown("[none] integrity confidentiality\n");
	check(!modsig_locked_down(sys), "[none]: not locked down");
	lockdown("none [integrity] confidentiality\n");
	check(modsig_locked_down(sys), "[integrity]: locked down");
	lockdown("none integrity [confidentiality]\n");
	check(modsig_locked_down(sys), "[confidentiality]: locked down");
	lockdown(NULL);
	if (symlink("/proc/self/cmdline", file) < 0)
		diag("symlink: %s", strerror(errno));
	check(!modsig_locked_down(sys), "a symlink in its place is not followed");
	unlink(file);
	if (mkfifo(file, 0600) < 0)
		diag("mkfifo: %s", strerror(errno));
	check(!modsig_locked_down(sys), "a FIFO in its place: no hang, not locked down");
	unlink(file);
	check(!modsig_locked_down("/nonexistent/sys"), "no sysfs: not locked down");

	snprintf(dir, sizeof(dir), "%s/kernel/security", sys);
	rmdir(dir);
	snprintf(dir, sizeof(dir), "%s/kernel", sys);
	rmdir(dir);
	rmdir(sys);
	return done_testing();
}
