/* SPDX-License-Identifier: MIT */
/* learnsw: an L2 learning switch (Baldi & Sapio, Sec. 3.1.2, Fig. 6b): the key is the MAC and
 * the VLAN ID (0 for untagged frames); the destination's entry gives the output port (a miss
 * floods: the chain's port), and the source is learned: its entry is added, or its port and
 * timestamp refreshed. The table and its options: ../common/mac_table.h.
 * Its EO model: src/nfvperf/data/nfs/learnsw.yaml. */

#include <rte_byteorder.h>
#include <rte_cycles.h>

#include "../common/mac_table.h"
#include "nfvp_nf.h"
#include "nfvp_parse.h"

static struct nfvp_mac_table table = NFVP_MAC_TABLE_DEFAULTS;

static uint16_t
learnsw_burst(struct nfvp_nf *nf, struct rte_mbuf **pkts, uint16_t n)
{
	uint64_t keys[NFVP_NF_MAX_BURST], hits = 0, now = rte_rdtsc() >> 16;
	const void *kp[NFVP_NF_MAX_BURST];
	void *data[NFVP_NF_MAX_BURST];
	uint16_t i;

	(void)nf;
	for (i = 0; i < n; i++) {
		struct rte_ether_hdr *eth = rte_pktmbuf_mtod(pkts[i], struct rte_ether_hdr *);
		uint16_t vlan = 0;
		uint64_t src;

		if (eth->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN))
			vlan = rte_be_to_cpu_16(((struct rte_vlan_hdr *)(eth + 1))->vlan_tci) & 0xfff;
		keys[i] = nfvp_mac_key(eth->dst_addr.addr_bytes, vlan);
		kp[i] = &keys[i];
		/* learning: the source is reachable through the port the packet came in on; the
		 * entry: the port in the low 16 bits, TSC >> 16 above */
		src = nfvp_mac_key(eth->src_addr.addr_bytes, vlan);
		rte_hash_add_key_data(table.hash, &src, (void *)(uintptr_t)(now << 16 | pkts[i]->port));
	}
	rte_hash_lookup_bulk_data(table.hash, kp, n, &hits, data);
	for (i = 0; i < n; i++)
		if (hits & (1ull << i))
			nfvp_nf_set_port(pkts[i], (uint16_t)(uintptr_t)data[i]);
	return n; /* a miss floods: the chain's port */
}

static int
learnsw_setup(struct nfvp_nf *nf)
{
	(void)nf;
	return nfvp_mac_table_create(&table, "learnsw");
}

static const char *
learnsw_opt(int key, const char *value)
{
	return nfvp_mac_table_opt(&table, key, value);
}

int
main(int argc, char **argv)
{
	static const struct nfvp_nf_ops ops = { .setup = learnsw_setup, .burst = learnsw_burst };

	return nfvp_nf_main(argc, argv, "learnsw", &ops, nfvp_mac_table_opts, learnsw_opt);
}
