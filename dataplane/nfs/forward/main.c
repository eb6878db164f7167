/* SPDX-License-Identifier: MIT */
/* forward: a MAC-rewriting forwarder: the source MAC becomes the NF's own, the destination
 * MAC the next hop's (--dst-mac). */

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <rte_ether.h>

#include "nfvp_nf.h"

struct forward {
	struct rte_ether_addr src;
	struct rte_ether_addr dst;
};

static struct forward fwd = {
	.src = { { 0x02, 0x00, 0x00, 0x00, 0xf0, 0x01 } },
	.dst = { { 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 } },
};

static uint16_t
forward_burst(struct nfvp_nf *nf, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t i;

	(void)nf;
	for (i = 0; i < n; i++) {
		struct rte_ether_hdr *eth = rte_pktmbuf_mtod(pkts[i], struct rte_ether_hdr *);

		rte_ether_addr_copy(&fwd.src, &eth->src_addr);
		rte_ether_addr_copy(&fwd.dst, &eth->dst_addr);
	}
	return n;
}

static int
parse_mac(const char *opt, const char *s, struct rte_ether_addr *mac)
{
	unsigned int b[6], i;
	char tail;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5],
		   &tail) != 6) {
		fprintf(stderr, "forward: %s: expected a MAC address aa:bb:cc:dd:ee:ff, found "
			"\"%s\"\n", opt, s);
		return -1;
	}
	for (i = 0; i < 6; i++)
		mac->addr_bytes[i] = b[i];
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct nfvp_nf_ops ops = { .burst = forward_burst };
	static const struct option longopts[] = {
		{ "src-mac", required_argument, NULL, 's' },
		{ "dst-mac", required_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 },
	};
	struct nfvp_nf *nf;
	int rc, opt;

	rc = nfvp_nf_init(argc, argv, "forward", &ops, &nf);
	if (rc < 0)
		return 1;
	argc -= rc;
	argv += rc;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (opt == '?' || parse_mac(opt == 's' ? "--src-mac" : "--dst-mac", optarg,
					    opt == 's' ? &fwd.src : &fwd.dst) < 0) {
			nfvp_nf_close(nf);
			return 2;
		}
	}
	rc = nfvp_nf_run(nf);
	nfvp_nf_close(nf);
	return rc < 0 ? 1 : 0;
}
