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

static uint32_t delta = 1;

static uint16_t
mpls_burst(struct nfvp_nf *nf, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t i, k = 0;

	(void)nf;
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
		uint32_t *word, v, label;

		if (eth->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_MPLS)) {
			word = (uint32_t *)(eth + 1);
			v = rte_be_to_cpu_32(*word);
			if ((v & 0xff) <= 1) { /* TTL expires: drop */
				pkts[i] = pkts[n - 1 - (i - k)];
				pkts[n - 1 - (i - k)] = m;
				continue;
			}
			label = ((v >> 12) + delta) & 0xfffff;
			v = (label << 12) | (v & 0xf00) | ((v & 0xff) - 1);
			*word = rte_cpu_to_be_32(v);
		}
		pkts[k++] = m;
	}
	return k;
}

int
main(int argc, char **argv)
{
	static const struct nfvp_nf_ops ops = { .burst = mpls_burst };
	static const struct option longopts[] = {
		{ "delta", required_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 },
	};
	struct nfvp_nf *nf;
	int rc, opt;
	char *end;

	rc = nfvp_nf_init(argc, argv, "mpls", &ops, &nf);
	if (rc < 0)
		return 1;
	argc -= rc;
	argv += rc;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		delta = opt == 'd' ? strtoul(optarg, &end, 0) : 0;
		if (opt != 'd' || *end != '\0' || delta >= (1u << 20)) {
			fprintf(stderr, "mpls: --delta: expected 0..1048575, found \"%s\"\n",
				opt == 'd' ? optarg : "?");
			nfvp_nf_close(nf);
			return 2;
		}
	}
	rc = nfvp_nf_run(nf);
	nfvp_nf_close(nf);
	return rc < 0 ? 1 : 0;
}
