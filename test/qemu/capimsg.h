/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * capimsg.h - what the raw /dev/capi20 clients of the VM tests
 * (capisim-smoke, capisim-listen, capi-regress, capi-stress) share: a
 * CAPI 2.0 message being built or read, its little-endian fields, the
 * commands they use, writing and reading a message, and capisim's
 * debugfs files.  Each program keeps its own state (its control device,
 * application ID and message numbers) and its own way of failing.
 */
#ifndef CAPI_DEVD_TEST_CAPIMSG_H
#define CAPI_DEVD_TEST_CAPIMSG_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Subcommands and commands (CAPI 2.0, Part I, 5.1) */
#define REQ	0x80
#define CONF	0x81
#define IND	0x82
#define RESP	0x83
#define C_ALERT			0x01
#define C_CONNECT		0x02
#define C_CONNECT_ACTIVE	0x03
#define C_DISCONNECT		0x04
#define C_LISTEN		0x05
#define C_INFO			0x08
#define C_CONNECT_B3		0x82
#define C_CONNECT_B3_ACTIVE	0x83
#define C_DISCONNECT_B3		0x84
#define C_DATA_B3		0x86

struct msg {
	uint8_t b[4096];
	unsigned int len;
};

static inline uint16_t get16(const uint8_t *p)
{
	return p[0] | p[1] << 8;
}

static inline uint32_t get32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline void put8(struct msg *m, uint8_t v)
{
	m->b[m->len++] = v;
}

static inline void put16(struct msg *m, uint16_t v)
{
	put8(m, v);
	put8(m, v >> 8);
}

static inline void put32(struct msg *m, uint32_t v)
{
	put16(m, v);
	put16(m, v >> 16);
}

/* A message's header; msg_write() fills in its length. */
static inline void msg_head(struct msg *m, uint16_t applid, uint16_t num,
			    uint8_t cmd, uint8_t sub, uint32_t adr)
{
	m->len = 0;
	put16(m, 0);
	put16(m, applid);
	put8(m, cmd);
	put8(m, sub);
	put16(m, num);
	put32(m, adr);
}

/*
 * DATA_B3_REQ's parameters for @len bytes that follow the message (the
 * control device's way: Data is 0); the bytes are copied after it, for
 * msg_write(@m, @len).  @len must fit behind the message in @m.
 */
static inline void msg_data_b3(struct msg *m, uint16_t handle,
			       const void *data, uint16_t len)
{
	put32(m, 0);		/* Data: follows the message */
	put16(m, len);
	put16(m, handle);
	put16(m, 0);		/* Flags */
	memcpy(m->b + m->len, data, len);
}

/* Write @m and the @extra bytes behind it to @fd: 0, or -1 (errno). */
static inline int msg_write(int fd, struct msg *m, unsigned int extra)
{
	m->b[0] = m->len;
	m->b[1] = m->len >> 8;
	return write(fd, m->b, m->len + extra) == (ssize_t)(m->len + extra) ?
	       0 : -1;
}

/* The next message from @fd within @ms: 1; 0 on timeout; -1 on a read
 * that failed or was shorter than a header (errno). */
static inline int msg_read_within(int fd, struct msg *m, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t n;

	if (poll(&p, 1, ms) != 1)
		return 0;
	n = read(fd, m->b, sizeof(m->b));
	if (n < 12) {
		if (n >= 0)
			errno = EPROTO;
		return -1;
	}
	m->len = n;
	return 1;
}

/* Milliseconds on the monotonic clock. */
static inline long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Write the text of @fmt to DIR/FILE (a debugfs control): 0 or -errno. */
__attribute__((format(printf, 3, 4)))
static inline int dbg_write(const char *dir, const char *file,
			    const char *fmt, ...)
{
	char path[256], buf[128];
	va_list ap;
	int fd, n, r;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	r = write(fd, buf, n) == n ? 0 : -errno;
	close(fd);
	return r;
}

/*
 * A number in DIR/FILE: the file's first, or with @key the one after the
 * last "KEY NUMBER" pair of that key; -1 when there is none.
 */
static inline long dbg_number(const char *dir, const char *file,
			      const char *key)
{
	char path[256], k[64];
	long v, found = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!key) {
		if (fscanf(f, "%ld", &found) != 1)
			found = -1;
	} else {
		while (fscanf(f, "%63s %ld", k, &v) == 2)
			if (!strcmp(k, key))
				found = v;
	}
	fclose(f);
	return found;
}

/* The lines of DIR/FILE that are not "#" comments; -1 without the file. */
static inline int dbg_lines(const char *dir, const char *file)
{
	char path[256], line[512];
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (line[0] != '#')
			n++;
	fclose(f);
	return n;
}

#endif
