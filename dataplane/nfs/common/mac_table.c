/* SPDX-License-Identifier: MIT */
/* mac_table.c: the L2 NFs' MAC table: options, creation, filling (see mac_table.h). */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_hash_crc.h>

#include "mac_table.h"
#include "nf_eal.h"
#include "nfvp_ctl.h"
#include "nfvp_parse.h"

const struct option nfvp_mac_table_opts[] = {
	{ "entries", required_argument, NULL, 'e' },
	{ "fill", required_argument, NULL, 'f' },
	{ "ports", required_argument, NULL, 'p' },
	{ "port-base", required_argument, NULL, 'b' },
	{ "mac-base", required_argument, NULL, 'm' },
	{ NULL, 0, NULL, 0 },
};

const char *
nfvp_mac_table_opt(struct nfvp_mac_table *t, int key, const char *value)
{
	uint64_t v;

	if (key == 'm')
		return nfvp_parse_mac(value, t->mac_base) == 0 ? NULL : "aa:bb:cc:dd:ee:ff";
	if (nfvp_parse_u64(value, key == 'f' || key == 'b' ? 0 : 1, UINT32_MAX, &v) != 0)
		return key == 'f' || key == 'b' ? "a count" : "a positive count";
	if (key == 'e')
		t->entries = v;
	else if (key == 'f')
		t->fill = v;
	else if (key == 'p')
		t->ports = v;
	else
		t->port_base = v;
	return NULL;
}

int
nfvp_mac_table_create(struct nfvp_mac_table *t, const char *nf)
{
	struct rte_hash_parameters hp = {
		.name = nf, .entries = t->entries, .key_len = sizeof(uint64_t),
		.hash_func = rte_hash_crc, .socket_id = SOCKET_ID_ANY,
	};
	uint32_t base = (uint32_t)t->mac_base[3] << 16 | t->mac_base[4] << 8 | t->mac_base[5];
	uint64_t i;

	if (nfvp_nf_private_eal(nf) < 0)
		return -ENODEV;
	t->hash = rte_hash_create(&hp);
	if (t->hash == NULL) {
		fprintf(stderr, "%s: --entries: no memory for %" PRIu64 " entries\n", nf, t->entries);
		return -ENOMEM;
	}
	for (i = 0; i < RTE_MIN(t->fill ? t->fill : t->entries, t->entries); i++) {
		uint8_t mac[RTE_ETHER_ADDR_LEN];
		uint32_t low = base + (uint32_t)i;
		uint64_t key;

		memcpy(mac, t->mac_base, 3);
		mac[3] = (uint8_t)(low >> 16);
		mac[4] = (uint8_t)(low >> 8);
		mac[5] = (uint8_t)low;
		key = nfvp_mac_key(mac, 0);
		if (rte_hash_add_key_data(t->hash, &key,
					  (void *)(uintptr_t)(t->port_base + i % t->ports)) < 0) {
			fprintf(stderr, "%s: table full after %" PRIu64 " entries\n", nf, i);
			return -ENOSPC;
		}
	}
	return 0;
}
