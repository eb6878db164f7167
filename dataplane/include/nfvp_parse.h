/* SPDX-License-Identifier: MIT */
/* nfvp_parse.h: the one set of parsers for options and control messages, used by the vSwitch,
 * the generator, nflib and every NF. Each reads the whole string (nothing before or after the
 * value), returns 0 or -EINVAL, and never prints: the caller says what was expected, with
 * nfvp_bad_value(). */

#ifndef NFVP_PARSE_H
#define NFVP_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* An unsigned integer in [lo, hi]: decimal, or hexadecimal after 0x. No sign, no spaces. */
int nfvp_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);
/* A finite number in [lo, hi]. */
int nfvp_parse_double(const char *s, double lo, double hi, double *out);
/* A MAC address aa:bb:cc:dd:ee:ff (hex digits, either case), the first n characters of s
 * (n = strlen(s) for the whole string). */
int nfvp_parse_mac_n(const char *s, size_t n, uint8_t mac[6]);
int nfvp_parse_mac(const char *s, uint8_t mac[6]);
/* A dotted IPv4 address a.b.c.d into host byte order. */
int nfvp_parse_ipv4(const char *s, uint32_t *addr);
/* "PROG: WHAT: expected EXPECTED, found "FOUND"" on stderr, the project's one-line error
 * (WHAT: an option such as --flows, or a field). Returns -EINVAL. */
int nfvp_bad_value(const char *prog, const char *what, const char *expected, const char *found);

#endif /* NFVP_PARSE_H */
