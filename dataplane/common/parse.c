/* SPDX-License-Identifier: MIT */
/* parse.c: the parsers of nfvp_parse.h. */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nfvp_parse.h"

int
nfvp_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	unsigned long long v;
	const char *digits;
	int base = 10;     /* a leading 0 is no octal here */
	char *end;

	if (s == NULL || *s < '0' || *s > '9')
		return -EINVAL;
	digits = s;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		digits = s + 2;
		base = 16;
	}
	if (!((*digits >= '0' && *digits <= '9') ||
	      (base == 16 && ((*digits | 0x20) >= 'a' && (*digits | 0x20) <= 'f'))))
		return -EINVAL;
	errno = 0;
	v = strtoull(digits, &end, base);
	if (errno != 0 || *end != '\0' || v < lo || v > hi)
		return -EINVAL;
	*out = v;
	return 0;
}

int
nfvp_parse_double(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;

	if (s == NULL || *s == '\0' || *s == ' ' || *s == '\t')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || *end != '\0' || !isfinite(v) || v < lo || v > hi)
		return -EINVAL;
	*out = v;
	return 0;
}

static int
hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int
nfvp_parse_mac_n(const char *s, size_t n, uint8_t mac[6])
{
	unsigned int i;

	if (s == NULL || n != 17)
		return -EINVAL;
	for (i = 0; i < 6; i++) {
		int h = hex(s[3 * i]), l = hex(s[3 * i + 1]);

		if (h < 0 || l < 0 || (i < 5 && s[3 * i + 2] != ':'))
			return -EINVAL;
		mac[i] = (uint8_t)(h << 4 | l);
	}
	return 0;
}

int
nfvp_parse_mac(const char *s, uint8_t mac[6])
{
	return s == NULL ? -EINVAL : nfvp_parse_mac_n(s, strlen(s), mac);
}

int
nfvp_parse_ipv4(const char *s, uint32_t *addr)
{
	uint32_t v = 0;
	int i;

	for (i = 0; i < 4; i++) {
		uint64_t b;
		char part[4];
		size_t n = strcspn(s, ".");

		if (n == 0 || n > 3 || (i < 3 && s[n] != '.') || (i == 3 && s[n] != '\0'))
			return -EINVAL;
		memcpy(part, s, n);
		part[n] = '\0';
		if (nfvp_parse_u64(part, 0, 255, &b) != 0 || (n > 1 && part[0] == '0'))
			return -EINVAL;
		v = v << 8 | (uint32_t)b;
		s += n + 1;
	}
	*addr = v;
	return 0;
}

int
nfvp_bad_value(const char *prog, const char *what, const char *expected, const char *found)
{
	fprintf(stderr, "%s: %s: expected %s, found \"%.64s\"\n", prog, what, expected,
		found != NULL ? found : "");
	return -EINVAL;
}
