// SPDX-License-Identifier: GPL-2.0-or-later
/* number.c - see number.h. */
#include "number.h"

int number_scan(const char **p, const char *end, unsigned int max,
		unsigned int *out)
{
	const char *s = *p;
	unsigned int v = 0, digit;

	if (s >= end || *s < '0' || *s > '9')
		return -1;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		digit = (unsigned int)(*s - '0');
		if (v > (max - digit) / 10)
			return -1;
		v = v * 10 + digit;
	}
	*out = v;
	*p = s;
	return 0;
}
