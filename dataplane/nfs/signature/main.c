/* SPDX-License-Identifier: MIT */
/* signature: the test NF of Cerrato et al. (Sec. V): a signature over the first 64 bytes of
 * each packet, read-only. */

#include <stdio.h>
#include <string.h>

#include <rte_mbuf.h>

#include "nfvp_nf.h"

#ifdef __SSE4_2__
#include <nmmintrin.h>
#endif

static uint32_t signature; /* kept so that the work cannot be optimised away */

/* CRC-32C of len bytes (SSE 4.2; FNV-1a where it is missing). DPDK's rte_hash_crc would pull
 * in EAL, which NF processes do not have. */
static uint32_t
crc32c(const uint8_t *p, uint32_t len, uint32_t crc)
{
	uint32_t i = 0;

#ifdef __SSE4_2__
	for (; i + 8 <= len; i += 8) {
		uint64_t w;

		memcpy(&w, p + i, sizeof(w));
		crc = (uint32_t)_mm_crc32_u64(crc, w);
	}
	for (; i < len; i++)
		crc = _mm_crc32_u8(crc, p[i]);
#else
	for (; i < len; i++)
		crc = (crc ^ p[i]) * 16777619u;
#endif
	return crc;
}

static uint16_t
signature_burst(struct nfvp_nf *nf, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t i;

	(void)nf;
	for (i = 0; i < n; i++) {
		uint32_t len = RTE_MIN(rte_pktmbuf_data_len(pkts[i]), 64u);

		signature ^= crc32c(rte_pktmbuf_mtod(pkts[i], const uint8_t *), len, i);
	}
	return n;
}

int
main(int argc, char **argv)
{
	static const struct nfvp_nf_ops ops = { .burst = signature_burst };

	return nfvp_nf_main(argc, argv, "signature", &ops, NULL, NULL);
}
