/* SPDX-License-Identifier: MIT */
/* learnsw: an L2 learning switch (Baldi & Sapio, Sec. 3.1.2, Fig. 6b): the key is the MAC and
 * the VLAN ID (0 for untagged frames); the destination's entry gives the output port (a miss
 * floods: the chain's port), and the source is learned: its entry is added, or its port and
 * timestamp refreshed (rte_hash, --entries entries; --fill MACs --mac-base + i known at start,
 * to port --port-base + i mod --ports). Its EO model is model.yaml beside this file. */

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_hash.h>
#include <rte_cycles.h>
#include <rte_hash_crc.h>

#include "../common/nf_eal.h"
#include "nfvp_ctl.h"
#include "nfvp_nf.h"

static struct {
	uint64_t entries, fill, ports, port_base;
	uint8_t mac_base[6];
	struct rte_hash *table;
} l2 = { .entries = 2u << 20, .ports = 1, .mac_base = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x00 } };

/* The key: 6 B MAC, 2 B VLAN ID. The entry: port in the low 16 bits, TSC >> 16 above. */
static inline uint64_t
key_of(const uint8_t *mac, uint16_t vlan)
{
	uint64_t key = 0;

	memcpy(&key, mac, RTE_ETHER_ADDR_LEN);
	memcpy((uint8_t *)&key + RTE_ETHER_ADDR_LEN, &vlan, sizeof(vlan));
	return key;
}

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

		if (eth->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN))
			vlan = rte_be_to_cpu_16(((struct rte_vlan_hdr *)(eth + 1))->vlan_tci) & 0xfff;
		keys[i] = key_of(eth->dst_addr.addr_bytes, vlan);
		kp[i] = &keys[i];
		/* learning: the source is reachable through the port the packet came in on */
		rte_hash_add_key_data(l2.table, &(uint64_t){ key_of(eth->src_addr.addr_bytes,
									  vlan) },
				      (void *)(uintptr_t)(now << 16 | pkts[i]->port));
	}
	rte_hash_lookup_bulk_data(l2.table, kp, n, &hits, data);
	for (i = 0; i < n; i++)
		if (hits & (1ull << i))
			nfvp_nf_set_port(pkts[i], (uint16_t)(uintptr_t)data[i]);
	return n; /* a miss floods: the chain's port */
}

static int
learnsw_setup(struct nfvp_nf *nf)
{
	struct rte_hash_parameters hp = {
		.name = "learnsw", .entries = l2.entries, .key_len = sizeof(uint64_t),
		.hash_func = rte_hash_crc, .socket_id = SOCKET_ID_ANY,
	};
	uint64_t i;

	if (nfvp_nf_private_eal(nfvp_nf_name(nf)) < 0)
		return -ENODEV;
	l2.table = rte_hash_create(&hp);
	if (l2.table == NULL) {
		fprintf(stderr, "learnsw: --entries: no memory for %" PRIu64 " entries\n", l2.entries);
		return -ENOMEM;
	}
	for (i = 0; i < RTE_MIN(l2.fill ? l2.fill : l2.entries, l2.entries); i++) {
		uint8_t mac[8] = { 0 };
		uint32_t low = ((uint32_t)l2.mac_base[3] << 16 | l2.mac_base[4] << 8 | l2.mac_base[5])
			       + (uint32_t)i;
		uint64_t key = 0;

		memcpy(mac, l2.mac_base, 3);
		mac[3] = (uint8_t)(low >> 16);
		mac[4] = (uint8_t)(low >> 8);
		mac[5] = (uint8_t)low;
		key = key_of(mac, 0);
		if (rte_hash_add_key_data(l2.table, &key,
					  (void *)(uintptr_t)(l2.port_base + i % l2.ports)) < 0) {
			fprintf(stderr, "learnsw: table full after %" PRIu64 " entries\n", i);
			return -ENOSPC;
		}
	}
	return 0;
}

static int
learnsw_opt(int key, const char *value)
{
	char *end;
	uint64_t v;

	if (key == 'm') {
		if (nfvp_mac_parse(value, l2.mac_base) < 0) {
			fprintf(stderr, "learnsw: --mac-base: expected aa:bb:cc:dd:ee:ff, found \"%s\"\n",
				value);
			return -1;
		}
		return 0;
	}
	v = strtoull(value, &end, 0);
	if (*end != '\0' || *value == '\0' || *value == '-' || (key != 'f' && key != 'b' && v == 0)) {
		fprintf(stderr, "learnsw: expected a positive count, found \"%s\"\n", value);
		return -1;
	}
	if (key == 'e')
		l2.entries = v;
	else if (key == 'f')
		l2.fill = v;
	else if (key == 'p')
		l2.ports = v;
	else
		l2.port_base = v;
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct nfvp_nf_ops ops = { .setup = learnsw_setup, .burst = learnsw_burst };
	static const struct option opts[] = {
		{ "entries", required_argument, NULL, 'e' },
		{ "fill", required_argument, NULL, 'f' },
		{ "ports", required_argument, NULL, 'p' },
		{ "port-base", required_argument, NULL, 'b' },
		{ "mac-base", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};

	return nfvp_nf_main(argc, argv, "learnsw", &ops, opts, learnsw_opt);
}
