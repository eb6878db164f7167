/* SPDX-License-Identifier: MIT */
/* counter: counts packets and bytes; with --drop-every N it drops every Nth packet, which
 * makes the drop accounting of every architecture testable. */

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "nfvp_nf.h"
#include "nfvp_parse.h"

static uint64_t seen, bytes, drop_every;

static uint16_t
counter_burst(struct nfvp_nf *nf, struct rte_mbuf **pkts, uint16_t n)
{
	bool keep[NFVP_NF_MAX_BURST];
	uint16_t i;

	for (i = 0; i < n; i++) {
		bytes += rte_pktmbuf_pkt_len(pkts[i]);
		keep[i] = !(drop_every && ++seen % drop_every == 0);
		if (!keep[i])
			nfvp_nf_drop(nf, NFVP_DROP_POLICY, 1);
	}
	return nfvp_nf_keep(pkts, n, keep);
}

static const char *
counter_opt(int key, const char *value)
{
	(void)key;
	return nfvp_parse_u64(value, 0, UINT64_MAX, &drop_every) == 0 ? NULL : "a count";
}

int
main(int argc, char **argv)
{
	static const struct nfvp_nf_ops ops = { .burst = counter_burst };
	static const struct option opts[] = {
		{ "drop-every", required_argument, NULL, 'e' },
		{ NULL, 0, NULL, 0 },
	};

	return nfvp_nf_main(argc, argv, "counter", &ops, opts, counter_opt);
}
