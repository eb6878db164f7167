/* SPDX-License-Identifier: MIT */
/* counter: counts packets and bytes; with --drop-every N it drops every Nth packet, which
 * makes the drop accounting of every architecture testable. */

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "nfvp_nf.h"

static uint64_t seen, bytes, drop_every;

static uint16_t
counter_burst(struct nfvp_nf *nf, struct rte_mbuf **pkts, uint16_t n)
{
	struct rte_mbuf *dropped[NFVP_NF_MAX_BURST];
	uint16_t i, k = 0, d = 0;

	(void)nf;
	for (i = 0; i < n; i++) {
		bytes += rte_pktmbuf_pkt_len(pkts[i]);
		if (drop_every && ++seen % drop_every == 0)
			dropped[d++] = pkts[i];
		else
			pkts[k++] = pkts[i];
	}
	for (i = 0; i < d; i++)
		pkts[k + i] = dropped[i];
	return k;
}

int
main(int argc, char **argv)
{
	static const struct nfvp_nf_ops ops = { .burst = counter_burst };
	static const struct option longopts[] = {
		{ "drop-every", required_argument, NULL, 'e' },
		{ NULL, 0, NULL, 0 },
	};
	struct nfvp_nf *nf;
	int rc, opt;
	char *end = NULL;

	rc = nfvp_nf_init(argc, argv, "counter", &ops, &nf);
	if (rc < 0)
		return 1;
	argc -= rc;
	argv += rc;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (opt == 'e')
			drop_every = strtoull(optarg, &end, 10);
		if (opt != 'e' || *end != '\0') {
			fprintf(stderr, "counter: --drop-every: expected a count, found \"%s\"\n",
				opt == 'e' ? optarg : "?");
			nfvp_nf_close(nf);
			return 2;
		}
	}
	rc = nfvp_nf_run(nf);
	nfvp_nf_close(nf);
	return rc < 0 ? 1 : 0;
}
