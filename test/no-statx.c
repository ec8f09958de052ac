// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * no-statx.c - run a command on a kernel without statx(), as Linux before
 * 4.11 is (and without STATX_MNT_ID, as before 5.8): a seccomp filter
 * makes the statx system call fail with ENOSYS, then the command is
 * executed.  glibc then falls back to fstatat(), whose answer has no
 * mount ID.
 *
 *   no-statx COMMAND [ARG]...
 *
 * Exit status 127 when the filter cannot be installed or does not work.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#if defined(__x86_64__)
#define THIS_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define THIS_ARCH AUDIT_ARCH_AARCH64
#elif defined(__i386__)
#define THIS_ARCH AUDIT_ARCH_I386
#else
#error "no-statx: add this architecture's AUDIT_ARCH_*"
#endif

static int install(void)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, THIS_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_statx, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = sizeof(code) / sizeof(code[0]), .filter = code,
	};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: no-statx COMMAND [ARG]...\n");
		return 127;
	}
	if (install() < 0) {
		perror("no-statx: seccomp");
		return 127;
	}
	/* The filter works: the system call itself fails with ENOSYS. */
	if (syscall(__NR_statx, AT_FDCWD, "/", 0, 0, NULL) != -1 ||
	    errno != ENOSYS) {
		fprintf(stderr, "no-statx: statx still works\n");
		return 127;
	}
	execvp(argv[1], argv + 1);
	fprintf(stderr, "no-statx: %s: %s\n", argv[1], strerror(errno));
	return 127;
}
