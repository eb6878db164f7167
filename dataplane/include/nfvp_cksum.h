/* SPDX-License-Identifier: MIT */
/* nfvp_cksum.h: the incremental Internet checksum update (RFC 1624) the NFs share, and that
 * nfvp-calibrate times. Ones' complement sums do not depend on byte order (RFC 1071), so the
 * values go in and out as they lie in the packet. */

#ifndef NFVP_CKSUM_H
#define NFVP_CKSUM_H

#include <stdint.h>

/* RFC 1624 eqn. 3, HC' = ~(~HC + ~m + m'), where s is the sum of ~m + m' over the changed
 * 16-bit words. */
static inline uint16_t
nfvp_cksum_adjust(uint16_t hc, uint32_t s)
{
	s += (uint16_t)~hc;
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* One word changing from m to m2. */
static inline uint16_t
nfvp_cksum_update(uint16_t hc, uint16_t m, uint16_t m2)
{
	return nfvp_cksum_adjust(hc, (uint32_t)(uint16_t)~m + m2);
}

/* The two 16-bit words of a 32-bit field (an IPv4 address), summed: its share of s. */
static inline uint32_t
nfvp_cksum_words32(uint32_t w)
{
	return (w & 0xffff) + (w >> 16);
}

#endif /* NFVP_CKSUM_H */
