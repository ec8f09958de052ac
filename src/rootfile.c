// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rootfile.c - open and read a small file under the root, as hostile
 * input: never blocking, never leaving the root, bounded.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/openat2.h>
#include "rootfile.h"

int rootfile_open(const char *root, const char *rel)
{
	struct open_how how = {
		.flags = O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY |
			 O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	int rfd, fd, e;

	rfd = open(*root ? root : "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rfd < 0)
		return -1;
	fd = (int)syscall(SYS_openat2, rfd, rel, &how, sizeof(how));
	if (fd < 0 && errno == ENOSYS)
		fd = openat(rfd, rel, (int)how.flags);
	e = errno;
	close(rfd);
	errno = e;
	return fd;
}

ssize_t rootfile_read(int fd, char *buf, size_t size, const char **why)
{
	struct stat st;
	ssize_t len, n = 0;

	*why = strerror(errno);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0)
		return -1;
	*why = "not a regular file";
	if (!S_ISREG(st.st_mode))
		return -1;
	/* The size may change as we read: the bound is what was read. */
	for (len = 0; (size_t)len < size; len += n) {
		n = read(fd, buf + len, size - (size_t)len);
		if (n <= 0)
			break;
	}
	*why = "larger than 8 KiB";
	if ((size_t)len == size)
		return -1;
	*why = "cannot be read";
	return n < 0 ? -1 : len;
}
