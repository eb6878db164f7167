/* SPDX-License-Identifier: MIT */
/* cksum.h: the incremental Internet checksum update the NFs share (RFC 1624). */

#ifndef NFVP_CKSUM_H
#define NFVP_CKSUM_H

#include <stdint.h>

#include <rte_byteorder.h>

/* RFC 1624 eqn. 3 for one 16-bit word changing from m to m2 (network order in and out). */
static inline uint16_t
nfvp_cksum_update(uint16_t hc, uint16_t m, uint16_t m2)
{
	uint32_t s = (uint16_t)~rte_be_to_cpu_16(hc) + (uint16_t)~rte_be_to_cpu_16(m) +
		     rte_be_to_cpu_16(m2);

	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return rte_cpu_to_be_16((uint16_t)~s);
}

#endif /* NFVP_CKSUM_H */
