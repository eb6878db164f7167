/* SPDX-License-Identifier: MIT */
/* mac_table.h: the MAC table of the L2 NFs (l2fwd, learnsw): an rte_hash keyed by MAC and
 * VLAN ID, its options (--entries, --fill, --ports, --port-base, --mac-base) and its filling
 * with --fill MACs --mac-base + i, each to port --port-base + i mod --ports. */

#ifndef NFVP_MAC_TABLE_H
#define NFVP_MAC_TABLE_H

#include <getopt.h>
#include <stdint.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_hash.h>

struct nfvp_mac_table {
	uint64_t entries;
	uint64_t fill;      /* 0: as many as entries */
	uint64_t ports;
	uint64_t port_base;
	uint8_t mac_base[RTE_ETHER_ADDR_LEN];
	struct rte_hash *hash;
};

#define NFVP_MAC_TABLE_DEFAULTS { .entries = 2u << 20, .ports = 1, \
				  .mac_base = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x00 } }

/* The options above, for nfvp_nf_main. */
extern const struct option nfvp_mac_table_opts[];

/* The key: 6 B MAC, 2 B VLAN ID (0 untagged). An entry's data holds the port in its low
 * 16 bits (the learning switch keeps a timestamp above). */
static inline uint64_t
nfvp_mac_key(const uint8_t *mac, uint16_t vlan)
{
	uint64_t key = 0;

	memcpy(&key, mac, RTE_ETHER_ADDR_LEN);
	memcpy((uint8_t *)&key + RTE_ETHER_ADDR_LEN, &vlan, sizeof(vlan));
	return key;
}

/* One of the options: NULL, or what was expected (nflib says it, naming the option). */
const char *nfvp_mac_table_opt(struct nfvp_mac_table *t, int key, const char *value);
/* The NF's private EAL, the table and its filling. 0 or -errno. */
int nfvp_mac_table_create(struct nfvp_mac_table *t, const char *nf);

#endif /* NFVP_MAC_TABLE_H */
