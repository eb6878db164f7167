/* SPDX-License-Identifier: MIT */
/* nfvp_cksum.h: the incremental Internet checksum update (RFC 1624) the NFs share, and that
 * nfvp-calibrate times. Ones' complement sums do not depend on byte order (RFC 1071), so the
 * values go in and out as they lie in the packet. */

#ifndef NFVP_CKSUM_H
#define NFVP_CKSUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_ip.h>

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

/* The TTL of an IPv4 header down by one and its checksum updated; false, and nothing written,
 * where the TTL would expire. The new TTL-and-protocol word is made in a register and stored
 * once: a store of the TTL byte followed by a load of the word that holds it cannot be
 * forwarded from the store buffer, and waits for the store to reach the cache -- for the line
 * to come from the core that last held the packet (measured on the router: 90 cycles a packet
 * at an 83-cycle trip between the vSwitch's core and the NF's). */
static inline bool
nfvp_ipv4_ttl_dec(struct rte_ipv4_hdr *ip)
{
	uint16_t *word = (uint16_t *)(void *)((uint8_t *)ip +
					      offsetof(struct rte_ipv4_hdr, time_to_live));
	uint16_t old = *word, val = rte_be_to_cpu_16(old), now;

	if ((val >> 8) <= 1)
		return false;
	now = rte_cpu_to_be_16((uint16_t)(val - 0x100));
	*word = now;
	ip->hdr_checksum = nfvp_cksum_update(ip->hdr_checksum, old, now);
	return true;
}

#endif /* NFVP_CKSUM_H */
