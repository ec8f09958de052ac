// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * source_udev.c - the udev monitor: events after udevd ran 50-capi.rules.
 *
 * libudev filters on the subsystem in the kernel (BPF), so only capi and
 * tty events wake us.  libudev allocates a device object per event; that
 * is its cost, kept to the capi and tty events.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <libudev.h>
#include "log.h"
#include "source.h"
#include "uevent.h"

struct udev_source {
	struct udev *udev;
	struct udev_monitor *mon;
};

static enum source_result udev_source_read(struct source *src,
					   struct capi_event *ev,
					   struct source_stats *st);

static void udev_source_free(struct udev_source *s)
{
	if (!s)
		return;
	udev_monitor_unref(s->mon);
	udev_unref(s->udev);
	free(s);
}

static void udev_source_close(struct source *src)
{
	udev_source_free(src->priv);
	src->priv = NULL;
	src->fd = -1;
}

static struct udev_source *udev_monitor_open(int rcvbuf)
{
	struct udev_source *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->udev = udev_new();
	if (!s->udev)
		goto fail;
	s->mon = udev_monitor_new_from_netlink(s->udev, "udev");
	if (!s->mon)
		goto fail;
	if (udev_monitor_filter_add_match_subsystem_devtype(s->mon, "capi",
							    NULL) < 0 ||
	    udev_monitor_filter_add_match_subsystem_devtype(s->mon, "tty",
							    NULL) < 0)
		goto fail;
	if (udev_monitor_set_receive_buffer_size(s->mon, rcvbuf) < 0)
		log_warn("cannot set the receive buffer to %d bytes", rcvbuf);
	if (udev_monitor_enable_receiving(s->mon) < 0)
		goto fail;
	return s;
fail:
	udev_source_free(s);
	return NULL;
}

int udev_source_open(struct source *src, int rcvbuf)
{
	struct udev_source *s = udev_monitor_open(rcvbuf);

	src->name = "udev";
	src->read = udev_source_read;
	src->close = udev_source_close;
	src->priv = s;
	src->fd = s ? udev_monitor_get_fd(s->mon) : -1;
	return s ? 0 : -1;
}

static void prop(struct uevent_fields *f, struct udev_device *d,
		 const char *key)
{
	const char *v = udev_device_get_property_value(d, key);

	if (!v)
		return;
	/* udev gives the full node path; the kernel's DEVNAME is relative. */
	if (!strcmp(key, "DEVNAME") && !strncmp(v, "/dev/", 5))
		v += 5;
	uevent_add(f, key, strlen(key), v, strlen(v));
}

static enum source_result udev_source_read(struct source *src,
					   struct capi_event *ev,
					   struct source_stats *st)
{
	static const char *const keys[] = {
		"ACTION", "DEVPATH", "SUBSYSTEM", "DEVNAME", "MAJOR", "MINOR",
		"SEQNUM",
	};
	struct udev_source *s = src->priv;
	struct uevent_fields f;
	struct udev_device *d;
	enum source_result res;
	const char *why;
	size_t i;

	errno = 0;
	d = udev_monitor_receive_device(s->mon);
	if (!d) {
		if (errno == ENOBUFS) {
			st->overflows++;
			return SRC_OVERFLOW;
		}
		return SRC_DRAINED;
	}
	uevent_reset(&f);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		prop(&f, d, keys[i]);
	udev_device_unref(d);

	res = source_verdict(uevent_finish(&f, ev, &why), st);
	if (res == SRC_BAD)
		log_limited(LOG_WARNING, "bad udev event: %s", why);
	return res;
}
