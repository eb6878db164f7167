/* SPDX-License-Identifier: MIT */
/* forward: a MAC-rewriting forwarder: the source MAC becomes the NF's own, the destination
 * MAC the next hop's (--dst-mac). */

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <rte_ether.h>

#include "nfvp_ctl.h"
#include "nfvp_parse.h"
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

static const char *
forward_opt(int key, const char *value)
{
	struct rte_ether_addr *mac = key == 's' ? &fwd.src : &fwd.dst;

	return nfvp_parse_mac(value, mac->addr_bytes) == 0 ? NULL
							    : "a MAC address aa:bb:cc:dd:ee:ff";
}

int
main(int argc, char **argv)
{
	static const struct nfvp_nf_ops ops = { .burst = forward_burst };
	static const struct option opts[] = {
		{ "src-mac", required_argument, NULL, 's' },
		{ "dst-mac", required_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 },
	};

	return nfvp_nf_main(argc, argv, "forward", &ops, opts, forward_opt);
}
