/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * notify.h - the service manager's readiness protocol, spoken directly.
 *
 * A service of Type=notify tells systemd how it is doing by sending one
 * datagram of newline-separated VAR=value lines (READY=1, STATUS=...,
 * RELOADING=1, STOPPING=1) to the AF_UNIX socket named in the environment
 * variable NOTIFY_SOCKET: a path, or an abstract name written with a
 * leading '@'.  This is the whole of it; no library is needed.
 */
#ifndef CAPI_DEVD_NOTIFY_H
#define CAPI_DEVD_NOTIFY_H

#include <stdbool.h>

/*
 * Send msg to $NOTIFY_SOCKET.  Returns 1 when sent, 0 when there is no
 * NOTIFY_SOCKET (not started by a service manager), -errno on failure
 * (-EAFNOSUPPORT for an address that is neither a path nor '@name',
 * -EINVAL for one too long, -EAGAIN when the peer's queue is full: it
 * never blocks).
 */
int notify_send(const char *msg);

/*
 * Is there a service manager to tell ($NOTIFY_SOCKET set)?  What only a
 * message would say need not be worked out without one.
 */
bool notify_wanted(void);

/* The same with a printf format; a message is cut at 1 KiB. */
int notify_sendf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
