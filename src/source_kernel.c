// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * source_kernel.c - the kernel's uevent netlink group.
 *
 * Written by hand rather than through libudev's "kernel" monitor so that
 * the event path allocates nothing (static buffers, events parsed in
 * place) and sees ENOBUFS itself.  Only datagrams from the kernel are
 * accepted: sender port 0 and credentials of uid 0, each datagram
 * checked on its own.  One recvmmsg() takes what a burst has queued, up
 * to KERNEL_BATCH datagrams: a storm costs a system call per batch, not
 * one per event and one more to find the socket empty.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include "log.h"
#include "source.h"
#include "timing.h"
#include "uevent.h"

/* A uevent is at most UEVENT_BUFFER_SIZE (2048) bytes plus its header. */
#define KERNEL_MSG_MAX 8192
/* Datagrams one recvmmsg() may take. */
#define KERNEL_BATCH 8

/* What one recvmmsg() took, handed out one datagram at a time. */
struct kernel_batch {
	struct mmsghdr msgs[KERNEL_BATCH];
	struct iovec iov[KERNEL_BATCH];
	struct sockaddr_nl from[KERNEL_BATCH];
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(struct ucred))];
	} control[KERNEL_BATCH];
	unsigned int n, next;	/* taken, handed out */
};

static struct kernel_batch batch;
static char bufs[KERNEL_BATCH][KERNEL_MSG_MAX];

static enum source_result kernel_source_read(struct source *s,
					     struct capi_event *ev,
					     struct source_stats *st);

static void kernel_source_close(struct source *s)
{
	close(s->fd);
	s->fd = -1;
}

static int kernel_socket(int rcvbuf)
{
	struct sockaddr_nl addr = {
		.nl_family = AF_NETLINK,
		.nl_groups = 1,		/* the kernel's uevent group */
	};
	int one = 1;
	int fd;

	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
		    NETLINK_KOBJECT_UEVENT);
	if (fd < 0)
		return -1;
	/* FORCE needs CAP_NET_ADMIN; fall back to what rmem_max allows. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
		       sizeof(rcvbuf)) < 0 &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)) < 0)
		log_warn("cannot set the receive buffer to %d bytes: %s",
			 rcvbuf, strerror(errno));
	if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

int kernel_source_open(struct source *s, int rcvbuf)
{
	s->fd = kernel_socket(rcvbuf);
	s->name = "kernel";
	s->read = kernel_source_read;
	s->close = kernel_source_close;
	s->priv = &batch;
	batch.n = batch.next = 0;
	return s->fd < 0 ? -1 : 0;
}

/*
 * Did the kernel send it: sender port 0 and credentials of uid 0?  Logs
 * the datagram when not.
 */
static bool from_kernel(struct msghdr *msg)
{
	const struct sockaddr_nl *from = msg->msg_name;
	const struct ucred *cred = NULL;
	struct cmsghdr *cmsg;

	for (cmsg = CMSG_FIRSTHDR(msg); cmsg; cmsg = CMSG_NXTHDR(msg, cmsg))
		if (cmsg->cmsg_level == SOL_SOCKET &&
		    cmsg->cmsg_type == SCM_CREDENTIALS)
			cred = (const struct ucred *)CMSG_DATA(cmsg);
	if (msg->msg_namelen >= sizeof(*from) && from->nl_pid == 0 &&
	    cred && cred->uid == 0)
		return true;
	log_limited(LOG_WARNING,
		    "dropped a uevent not sent by the kernel (port %u, uid %d)",
		    from->nl_pid, cred ? (int)cred->uid : -1);
	return false;
}

/*
 * Take what the socket holds, up to KERNEL_BATCH datagrams, into b.
 * Returns how many (at least one), or -1 (errno; EAGAIN: none).  An error
 * after some datagrams (ENOBUFS) is the next call's: the kernel keeps it.
 */
static int take_batch(int fd, struct kernel_batch *b)
{
	int i, n;

	for (i = 0; i < KERNEL_BATCH; i++) {
		b->iov[i] = (struct iovec){ bufs[i], sizeof(bufs[i]) };
		b->msgs[i].msg_hdr = (struct msghdr){
			.msg_name = &b->from[i],
			.msg_namelen = sizeof(b->from[i]),
			.msg_iov = &b->iov[i],
			.msg_iovlen = 1,
			.msg_control = &b->control[i],
			.msg_controllen = sizeof(b->control[i]),
		};
	}
	timing_mark(TM_RECV);
	n = recvmmsg(fd, b->msgs, KERNEL_BATCH, 0, NULL);
	timing_mark(TM_RECVD);
	b->n = n > 0 ? (unsigned int)n : 0;
	b->next = 0;
	return n > 0 ? n : -1;
}

static enum source_result kernel_source_read(struct source *s,
					     struct capi_event *ev,
					     struct source_stats *st)
{
	struct kernel_batch *b = s->priv;
	struct msghdr *msg;
	enum source_result res;
	const char *why;
	unsigned int i;

	if (b->next == b->n && take_batch(s->fd, b) < 0) {
		if (errno == EAGAIN)
			return SRC_DRAINED;
		if (errno == EINTR)
			return SRC_NONE;
		if (errno == ENOBUFS) {
			st->overflows++;
			return SRC_OVERFLOW;
		}
		return SRC_ERROR;
	}
	if (b->next) {		/* taken by an earlier call */
		timing_mark(TM_RECV);
		timing_mark(TM_RECVD);
	}
	i = b->next++;
	msg = &b->msgs[i].msg_hdr;
	if (!from_kernel(msg)) {
		st->foreign++;
		return SRC_NONE;
	}
	if (msg->msg_flags & MSG_TRUNC) {
		st->bad++;
		log_limited(LOG_WARNING, "dropped a truncated uevent");
		return SRC_BAD;
	}
	res = source_verdict(uevent_parse_kernel(bufs[i], b->msgs[i].msg_len,
						 ev, &why), st);
	timing_mark(TM_PARSED);
	if (res == SRC_BAD)
		log_limited(LOG_WARNING, "bad kernel uevent: %s", why);
	return res;
}
