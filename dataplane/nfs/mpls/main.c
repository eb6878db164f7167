/* SPDX-License-Identifier: MIT */
/* mpls: label swap: the top label L becomes L + --delta (mod 2^20) and its TTL drops by one;
 * a packet whose TTL would reach 0 is dropped. Packets without MPLS pass unchanged. */

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_mpls.h>

#include "nfvp_nf.h"
#include "nfvp_parse.h"

static uint32_t delta = 1;

static uint16_t
mpls_burst(struct nfvp_nf *nf, struct rte_mbuf **pkts, uint16_t n)
{
	bool keep[NFVP_NF_MAX_BURST];
	uint16_t i;

	for (i = 0; i < n; i++) {
		struct rte_ether_hdr *eth = rte_pktmbuf_mtod(pkts[i], struct rte_ether_hdr *);
		uint32_t *word, v, label;

		keep[i] = true;
		if (eth->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_MPLS))
			continue;
		word = (uint32_t *)(eth + 1);
		v = rte_be_to_cpu_32(*word);
		if ((v & 0xff) <= 1) { /* TTL expires: drop */
			nfvp_nf_drop(nf, NFVP_DROP_TTL, 1);
			keep[i] = false;
			continue;
		}
		label = ((v >> 12) + delta) & 0xfffff;
		v = (label << 12) | (v & 0xf00) | ((v & 0xff) - 1);
		*word = rte_cpu_to_be_32(v);
	}
	return nfvp_nf_keep(pkts, n, keep);
}

static const char *
mpls_opt(int key, const char *value)
{
	uint64_t v;

	(void)key;
	if (nfvp_parse_u64(value, 0, (1u << 20) - 1, &v) != 0)
		return "0..1048575";
	delta = (uint32_t)v;
	return NULL;
}

int
main(int argc, char **argv)
{
	static const struct nfvp_nf_ops ops = { .burst = mpls_burst };
	static const struct option opts[] = {
		{ "delta", required_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 },
	};

	return nfvp_nf_main(argc, argv, "mpls", &ops, opts, mpls_opt);
}
