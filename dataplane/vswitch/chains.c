/* SPDX-License-Identifier: MIT */
/* chains.c: chains as the control channel sets them: "chain add|del|default" (nfvp_ctl.h), a
 * MAC table entry per chain, and with fdir the NIC's steering of a chain to its first NF. */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_hash.h>

#include "nfvp_parse.h"
#include "vswitch.h"

/* The table's key: the MAC's bytes as a little-endian 48-bit number (as classify.c reads it
 * from a frame) */
static uint64_t
mac_key(const struct rte_ether_addr *mac)
{
	uint64_t key = 0;
	int i;

	for (i = RTE_ETHER_ADDR_LEN - 1; i >= 0; i--)
		key = key << 8 | mac->addr_bytes[i];
	return key;
}

static void
chain_del(struct vswitch *vs, unsigned int id)
{
	struct vs_chain *c = &vs->chains[id];
	uint64_t key = mac_key(&c->mac);

	if (!c->used)
		return;
	rte_hash_del_key(vs->mac2chain, &key);
	vs_classify_forget(vs);
	if (c->nic_queue >= 0) {
		rte_hash_del_key(vs->fdir, &key);
		if (vs->nfs[c->nf[0]].alive)
			vs->nfs[c->nf[0]].slot->nic_rx_off = 0;
	}
	c->used = 0;
	vs->n_chains--;
}

/* chain add ID MAC OUT_PORT NF[,NF...] */
static void
chain_add(struct vswitch *vs, char *args, char *out, size_t len)
{
	char *id_s = strtok(args, " "), *mac_s = strtok(NULL, " "), *port_s = strtok(NULL, " ");
	char *nfs_s = strtok(NULL, " "), *name, *save, msg[256];
	struct vs_chain c = { .used = 1, .nic_queue = -1 };
	uint64_t id, port, key;

	if (nfs_s == NULL) {
		snprintf(out, len, "error chain add: expected ID MAC OUT_PORT NF[,NF...]");
		return;
	}
	if (nfvp_parse_u64(id_s, 0, NFVP_MAX_CHAINS - 1, &id) != 0) {
		snprintf(msg, sizeof(msg), "error chain id: expected 0..%u, found \"%s\"",
			 NFVP_MAX_CHAINS - 1, id_s);
		snprintf(out, len, "%s", msg);
		return;
	}
	if (nfvp_parse_mac(mac_s, c.mac.addr_bytes) < 0) {
		snprintf(msg, sizeof(msg), "error chain mac: expected aa:bb:cc:dd:ee:ff, found "
			 "\"%s\"", mac_s);
		snprintf(out, len, "%s", msg);
		return;
	}
	if (nfvp_parse_u64(port_s, 0, vs->n_ports - 1, &port) != 0) {
		snprintf(msg, sizeof(msg), "error chain out_port: expected 0..%u, found \"%s\"",
			 vs->n_ports - 1, port_s);
		snprintf(out, len, "%s", msg);
		return;
	}
	c.out_port = port;
	for (name = strtok_r(nfs_s, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		int svc = vs_service_find(vs, name);
		int nf = svc >= 0 ? 0 : vs_nf_find(vs, name);

		if (nf < 0 || c.len == NFVP_MAX_CHAIN_LEN) {
			snprintf(msg, sizeof(msg), nf < 0 ?
				 "error chain nf: expected the name of an attached NF or a service, "
				 "found \"%s\"" :
				 "error chain: expected at most " RTE_STR(NFVP_MAX_CHAIN_LEN) " NFs, "
				 "found more at \"%s\"", name);
			snprintf(out, len, "%s", msg);
			return;
		}
		if (svc >= 0 && c.len == 0 && vs->fdir != NULL) {
			snprintf(out, len, "error chain: fdir steers to one NF, expected an NF (not a service) "
			      "first");
			return;
		}
		c.svc[c.len] = (uint16_t)(svc + 1);
		c.nf[c.len++] = nf;
	}
	chain_del(vs, id);
	key = mac_key(&c.mac);
	if (rte_hash_add_key_data(vs->mac2chain, &key, (void *)(uintptr_t)id) < 0) {
		snprintf(out, len, "error chain: the MAC table is full");
		return;
	}
	vs_classify_forget(vs);
	if (vs->fdir != NULL && id + 1 < vs->cfg.fdir_queues) {
		/* program the NIC: this chain's packets go straight to its first NF */
		struct nfvp_slot *s = vs->nfs[c.nf[0]].slot;

		c.nic_queue = id + 1;
		rte_hash_add_key_data(vs->fdir, &key, (void *)(uintptr_t)c.nic_queue);
		s->nic_chain = id;
		s->nic_rx_off = vs_arena_off(vs, vs->nic_queue[c.nic_queue]);
	}
	vs->chains[id] = c;
	vs->n_chains++;
	snprintf(out, len, "ok");
}

/* "P ID|none": every packet that arrives on port P goes to chain ID, whatever its MAC (a bump in
 * the wire between two kernel interfaces); none: back to the MAC table. */
static void
port_chain(struct vswitch *vs, char *args, char *out, size_t len)
{
	char *sp = strchr(args, ' ');
	uint64_t port, id;

	if (sp == NULL || (*sp = '\0', nfvp_parse_u64(args, 0, vs->n_ports - 1, &port) != 0)) {
		snprintf(out, len, "error chain port: expected a port 0..%u, found \"%.32s\"",
			 vs->n_ports - 1, args);
	} else if (strcmp(sp + 1, "none") == 0) {
		vs->port_chain[port] = -1;
		snprintf(out, len, "ok");
	} else if (nfvp_parse_u64(sp + 1, 0, NFVP_MAX_CHAINS - 1, &id) != 0) {
		snprintf(out, len, "error chain port: expected a chain id or none, found \"%.32s\"",
			 sp + 1);
	} else {
		vs->port_chain[port] = (int)id;
		snprintf(out, len, "ok");
	}
}

void
vs_chain_command(struct vswitch *vs, char *args, char *out, size_t len)
{
	uint64_t id;

	if (strncmp(args, "add ", 4) == 0) {
		chain_add(vs, args + 4, out, len);
	} else if (strncmp(args, "default ", 8) == 0) {
		if (strcmp(args + 8, "none") == 0) {
			vs->default_chain = -1;
			snprintf(out, len, "ok");
		} else if (nfvp_parse_u64(args + 8, 0, NFVP_MAX_CHAINS - 1, &id) != 0) {
			snprintf(out, len, "error chain default: expected a chain id or none, "
				 "found \"%.32s\"", args + 8);
		} else {
			vs->default_chain = (int)id;
			snprintf(out, len, "ok");
		}
	} else if (strncmp(args, "port ", 5) == 0) {
		port_chain(vs, args + 5, out, len);
	} else if (strncmp(args, "del ", 4) == 0) {
		if (nfvp_parse_u64(args + 4, 0, NFVP_MAX_CHAINS - 1, &id) != 0) {
			snprintf(out, len, "error chain id: expected 0..%u, found \"%.32s\"",
				 NFVP_MAX_CHAINS - 1, args + 4);
		} else {
			chain_del(vs, (unsigned int)id);
			snprintf(out, len, "ok");
		}
	} else {
		snprintf(out, len, "error chain: expected add, del, default or port, found \"%.32s\"",
			 args);
	}
}
