/* SPDX-License-Identifier: MIT */
/* l2fwd: L2 basic forwarding (Baldi & Sapio, Sec. 3.1.1, Fig. 6a): the destination MAC is
 * looked up in a hash table; a hit sends the packet out of the port the entry holds, a miss
 * drops it. The table and its options: ../common/mac_table.h.
 * Its EO model: src/nfvperf/data/nfs/l2fwd.yaml. */

#include <string.h>

#include "../common/mac_table.h"
#include "nfvp_nf.h"
#include "nfvp_parse.h"

static struct nfvp_mac_table table = NFVP_MAC_TABLE_DEFAULTS;

static uint16_t
l2fwd_burst(struct nfvp_nf *nf, struct rte_mbuf **pkts, uint16_t n)
{
	uint64_t keys[NFVP_NF_MAX_BURST], hits = 0;
	const void *kp[NFVP_NF_MAX_BURST];
	void *data[NFVP_NF_MAX_BURST];
	bool keep[NFVP_NF_MAX_BURST];
	uint16_t i;

	for (i = 0; i < n; i++) {
		keys[i] = nfvp_mac_key(rte_pktmbuf_mtod(pkts[i], struct rte_ether_hdr *)
				       ->dst_addr.addr_bytes, 0);
		kp[i] = &keys[i];
	}
	rte_hash_lookup_bulk_data(table.hash, kp, n, &hits, data);
	for (i = 0; i < n; i++) {
		keep[i] = hits >> i & 1;
		if (keep[i])
			nfvp_nf_set_port(pkts[i], (uint16_t)(uintptr_t)data[i]);
		else
			nfvp_nf_drop(nf, NFVP_DROP_UNKNOWN_DST, 1);
	}
	return nfvp_nf_keep(pkts, n, keep);
}

static int
l2fwd_setup(struct nfvp_nf *nf)
{
	(void)nf;
	return nfvp_mac_table_create(&table, "l2fwd");
}

static const char *
l2fwd_opt(int key, const char *value)
{
	return nfvp_mac_table_opt(&table, key, value);
}

int
main(int argc, char **argv)
{
	static const struct nfvp_nf_ops ops = { .setup = l2fwd_setup, .burst = l2fwd_burst };

	return nfvp_nf_main(argc, argv, "l2fwd", &ops, nfvp_mac_table_opts, l2fwd_opt);
}
