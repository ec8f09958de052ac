/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * capimsg.h - a CAPI 2.0 message being built or read, and its little-endian
 * fields, for the raw /dev/capi20 clients of the VM tests (capisim-smoke,
 * capisim-listen).
 */
#ifndef CAPI_DEVD_TEST_CAPIMSG_H
#define CAPI_DEVD_TEST_CAPIMSG_H

#include <stdint.h>

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

#endif
