/* SPDX-License-Identifier: MIT */
/* forward: a MAC-rewriting forwarder: the source MAC becomes the NF's own, the destination
 * MAC the next hop's (--dst-mac). For calibration it can also stand for an NF with a working
 * set: --chase-bytes B --chase-steps S walk S dependent loads a packet through a random cycle
 * over B bytes (one load a cache line), the walk going on from packet to packet. */

#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_ether.h>

#include "nfvp_ctl.h"
#include "nfvp_parse.h"
#include "nfvp_nf.h"

struct forward {
	struct rte_ether_addr src;
	struct rte_ether_addr dst;
	uint64_t chase_bytes;
	uint64_t chase_steps;
	uint32_t *chase;	/* a line's first word: the next line's index, times 16 */
	uint32_t at;
};

/* A line's worth of 32-bit words: the walk reads one a line. */
#define CHASE_WORDS (RTE_CACHE_LINE_SIZE / sizeof(uint32_t))

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
		uint64_t k;

		rte_ether_addr_copy(&fwd.src, &eth->src_addr);
		rte_ether_addr_copy(&fwd.dst, &eth->dst_addr);
		for (k = 0; k < fwd.chase_steps; k++)
			fwd.at = fwd.chase[fwd.at];
	}
	return n;
}

/* The walk's table: its lines in one random cycle (Sattolo's shuffle of the line order). */
static int
forward_setup(struct nfvp_nf *nf)
{
	uint64_t lines = fwd.chase_bytes / RTE_CACHE_LINE_SIZE, i;
	uint32_t *order;

	(void)nf;
	if (fwd.chase_steps == 0)
		return 0;
	if (lines < 2) {
		fprintf(stderr, "forward: --chase-steps needs --chase-bytes of two lines or more\n");
		return -EINVAL;
	}
	fwd.chase = aligned_alloc(RTE_CACHE_LINE_SIZE, lines * RTE_CACHE_LINE_SIZE);
	order = malloc(lines * sizeof(*order));
	if (fwd.chase == NULL || order == NULL) {
		free(order);
		return -ENOMEM;
	}
	for (i = 0; i < lines; i++)
		order[i] = (uint32_t)i;
	srand(1);
	for (i = lines - 1; i > 0; i--) {
		uint64_t j = (uint64_t)rand() % i, t = order[i];

		order[i] = order[j];
		order[j] = (uint32_t)t;
	}
	for (i = 0; i < lines; i++)
		fwd.chase[order[i] * CHASE_WORDS] = order[(i + 1) % lines] * CHASE_WORDS;
	free(order);
	return 0;
}

static const char *
forward_opt(int key, const char *value)
{
	struct rte_ether_addr *mac = key == 's' ? &fwd.src : &fwd.dst;

	if (key == 'b')
		return nfvp_parse_u64(value, 0, 1ull << 32, &fwd.chase_bytes) == 0 ? NULL
			: "bytes 0..4294967296";
	if (key == 'n')
		return nfvp_parse_u64(value, 0, 1u << 20, &fwd.chase_steps) == 0 ? NULL
			: "steps a packet 0..1048576";

	return nfvp_parse_mac(value, mac->addr_bytes) == 0 ? NULL
							    : "a MAC address aa:bb:cc:dd:ee:ff";
}

int
main(int argc, char **argv)
{
	static const struct nfvp_nf_ops ops = { .setup = forward_setup, .burst = forward_burst };
	static const struct option opts[] = {
		{ "src-mac", required_argument, NULL, 's' },
		{ "dst-mac", required_argument, NULL, 'd' },
		{ "chase-bytes", required_argument, NULL, 'b' },
		{ "chase-steps", required_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};

	return nfvp_nf_main(argc, argv, "forward", &ops, opts, forward_opt);
}
