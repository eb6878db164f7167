/* SPDX-License-Identifier: MIT */
/* bng: a Broadband Network Gateway after Intel DPPD's (Baldi & Sapio, Sec. 3.2, Fig. 7), both
 * directions by the frame's ethertype. (One file, as every NF is, a little past 400 lines: its
 * two directions share the tables they fill and read.)
 *
 * Access (QinQ, 0x88a8 / 0x8100 / IPv4): the tag pair (S-VID, C-VID) is looked up in the
 * subscriber table (rte_hash) for the subscriber's GRE key; the inner destination in rte_lpm for
 * the route (output port, tunnel endpoint, next-hop MAC, MPLS label); the inner TTL decreased
 * with an incremental checksum update (RFC 1624); the source learned into the core table (key:
 * GRE key and inner source address; entry: the tags, source MAC, input port and a timestamp:
 * added, or refreshed when known); the 22 B of Ethernet and QinQ replaced by 50 B of Ethernet,
 * MPLS (the route's label), outer IPv4 (checksum computed) and GRE with checksum (RFC 2784, over
 * the GRE header and the inner packet) and key (RFC 2890).
 *
 * Core (MPLS 0x8847 / IPv4 / GRE with key / IPv4): the GRE key and the inner destination are
 * looked up in the core table; the inner TTL decreased; the tunnel headers replaced by
 * Ethernet (to the subscriber's MAC) and its QinQ tags, out of its port.
 *
 * Dropped: an unknown subscriber or core key, no route, a TTL that would expire, anything else.
 *
 * Tables, as the generator's sweeps address them (nfvp-gen --encap qinq|gre): subscriber k of
 * --subscribers has S-VID 1 + k / 4094, C-VID 1 + k mod 4094 and GRE key k. Routes: --routes
 * /24s 10.i.j.0/24 and --long-routes /28s 11.i.j.k/28 as in the router; route r goes out of port
 * --port-base + r mod --ports to MAC 02:00:00:00:hh:hh (hh: r), tunnel endpoint 100.64.0.0 + r,
 * label 1000 + r. The core table holds --core-entries; --core-fill of them are there from the
 * start: entry k has GRE key k and address --core-ip-base + k x --core-ip-step (default 1; 0:
 * every subscriber's source is one address, as the access side learns it from one flow),
 * subscriber k's tags, MAC 02:00:cc + k (low 24 bits) and port --port-base + k mod --ports.
 * Its EO model: src/nfvperf/data/nfs/bng.yaml. */

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>
#include <rte_ip.h>
#include <rte_lpm.h>
#include <rte_malloc.h>
#include <rte_prefetch.h>

#include "../common/nf_eal.h"
#include "nfvp_cksum.h"
#include "nfvp_nf.h"
#include "nfvp_parse.h"

#define BNG_VIDS 4094
#define BNG_ACCESS_HDR 22 /* Ethernet + QinQ */
#define BNG_CORE_HDR 50   /* Ethernet + MPLS + outer IPv4 + GRE with checksum and key */
#define BNG_GRE_C 0x8000
#define BNG_GRE_K 0x2000
#define BNG_GRE_S 0x1000
#define BNG_GRE_VER 0x0007
#define BNG_TUNNEL_SRC RTE_IPV4(198, 51, 100, 2)
#define BNG_TUNNEL_BASE RTE_IPV4(100, 64, 0, 0)
#define BNG_LABEL_BASE 1000

struct bng_route {
	uint32_t tunnel;   /* host order */
	uint32_t label;
	struct rte_ether_addr mac;
	uint16_t port;
};

struct bng_core_key {
	uint32_t gre_key; /* host order */
	uint32_t ip;      /* host order */
};

struct bng_customer {
	uint16_t s_vid, c_vid;
	struct rte_ether_addr mac;
	uint16_t port;
	uint64_t seen; /* TSC */
};

static struct {
	uint32_t subscribers, routes, long_routes, core_entries, core_fill, ports, port_base;
	uint32_t core_ip_base, core_ip_step;
	struct rte_hash *subs;  /* (S-VID << 12 | C-VID) -> GRE key */
	struct rte_lpm *lpm;    /* inner destination -> route index */
	struct bng_route *route;
	struct rte_hash *core;  /* struct bng_core_key -> index into customer */
	struct bng_customer *customer;
} bng = {
	.subscribers = 65536, .routes = 65536, .long_routes = 4096, .core_entries = 65536,
	.ports = 1, .core_ip_base = RTE_IPV4(10, 0, 0, 1), .core_ip_step = 1,
};

static const struct rte_ether_addr bng_mac = { { 0x02, 0x00, 0x00, 0x00, 0xb0, 0x01 } };

static inline uint32_t
bng_tags(uint16_t s_vid, uint16_t c_vid)
{
	return (uint32_t)(s_vid & 0xfff) << 12 | (c_vid & 0xfff);
}

/* The inner TTL down by one and its checksum updated; false where it would expire. */
static inline bool
bng_ttl(struct rte_ipv4_hdr *ip)
{
	return nfvp_ipv4_ttl_dec(ip);
}

/* A burst is handled in stages, as DPDK NFs do: parse every packet, look every key of a table
 * up in one bulk call (rte_hash and rte_lpm prefetch, so the table misses overlap), prefetch
 * the entries the keys lead to (their misses overlap too), then rewrite. */
struct bng_burst {
	uint16_t n_acc, n_core;
	uint16_t acc[NFVP_NF_MAX_BURST], core[NFVP_NF_MAX_BURST]; /* indices into pkts */
	uint32_t tags[NFVP_NF_MAX_BURST], dst[NFVP_NF_MAX_BURST], hop[NFVP_NF_MAX_BURST];
	struct bng_core_key key[NFVP_NF_MAX_BURST];  /* access: the sources to learn */
	struct bng_core_key ckey[NFVP_NF_MAX_BURST]; /* core: the destinations */
	const void *kp[NFVP_NF_MAX_BURST];
	void *gre_key[NFVP_NF_MAX_BURST];
	int32_t pos[NFVP_NF_MAX_BURST];
	uint16_t inner_off[NFVP_NF_MAX_BURST];
	bool ok[NFVP_NF_MAX_BURST];
};

/* Access frame: QinQ and IPv4 in place? Its tag key then. */
static bool
bng_parse_access(const struct rte_mbuf *m, uint32_t *tags, uint32_t *dst)
{
	const struct rte_vlan_hdr *tag = rte_pktmbuf_mtod_offset(m, const struct rte_vlan_hdr *,
								 sizeof(struct rte_ether_hdr));
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(tag + 2);

	if (m->data_len < BNG_ACCESS_HDR + sizeof(*ip) ||
	    tag[0].eth_proto != rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN) ||
	    tag[1].eth_proto != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4))
		return false;
	*tags = bng_tags(rte_be_to_cpu_16(tag[0].vlan_tci), rte_be_to_cpu_16(tag[1].vlan_tci));
	*dst = rte_be_to_cpu_32(ip->dst_addr);
	return true;
}

/* Core frame: one MPLS label, IPv4, GRE with a key, IPv4? Its core key and inner offset. */
static bool
bng_parse_core(const struct rte_mbuf *m, struct bng_core_key *key, uint16_t *inner)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	const struct rte_ipv4_hdr *outer = (const struct rte_ipv4_hdr *)(p + 18);
	uint16_t flags, off;

	if (m->data_len < BNG_CORE_HDR + sizeof(*outer) ||
	    !(rte_be_to_cpu_32(*(const rte_be32_t *)(p + 14)) & 1u << 8) || /* bottom label */
	    (outer->version_ihl >> 4) != 4 || outer->next_proto_id != IPPROTO_GRE)
		return false;
	off = 18 + (outer->version_ihl & 0xf) * 4;
	flags = rte_be_to_cpu_16(*(const rte_be16_t *)(p + off));
	if (!(flags & BNG_GRE_K) || (flags & BNG_GRE_VER) != 0 ||
	    *(const rte_be16_t *)(p + off + 2) != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4))
		return false;
	off += (flags & BNG_GRE_C) ? 8 : 4;
	key->gre_key = rte_be_to_cpu_32(*(const rte_be32_t *)(p + off));
	off += 4 + ((flags & BNG_GRE_S) ? 4 : 0);
	if (m->data_len < off + sizeof(*outer))
		return false;
	key->ip = rte_be_to_cpu_32(((const struct rte_ipv4_hdr *)(p + off))->dst_addr);
	*inner = off;
	return true;
}

/* The source learned (added, or its entry found) and the frame put into the tunnel; else why
 * it is dropped (NFVP_DROP_REASONS: not). */
static enum nfvp_drop_reason
bng_encap(struct rte_mbuf *m, uint32_t gre_key, const struct bng_route *r, int32_t pos)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_vlan_hdr *tag = (struct rte_vlan_hdr *)(eth + 1);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(tag + 2), *outer;
	struct bng_customer *c;
	uint16_t ip_len, sum;
	uint32_t *gre;
	uint8_t *h;

	if (!bng_ttl(ip))
		return NFVP_DROP_TTL;
	if (pos < 0) {
		struct bng_core_key learn = { gre_key, rte_be_to_cpu_32(ip->src_addr) };

		pos = rte_hash_add_key(bng.core, &learn);
	}
	if (pos >= 0) {
		c = &bng.customer[pos];
		c->s_vid = rte_be_to_cpu_16(tag[0].vlan_tci) & 0xfff;
		c->c_vid = rte_be_to_cpu_16(tag[1].vlan_tci) & 0xfff;
		c->mac = eth->src_addr;
		c->port = m->port;
		c->seen = rte_rdtsc();
	}

	/* 22 B of Ethernet and QinQ out, 50 B of Ethernet, MPLS, IPv4 and GRE in */
	ip_len = rte_be_to_cpu_16(ip->total_length);
	eth = (struct rte_ether_hdr *)rte_pktmbuf_prepend(m, BNG_CORE_HDR - BNG_ACCESS_HDR);
	if (eth == NULL)
		return NFVP_DROP_OTHER; /* no headroom for the tunnel */
	eth->dst_addr = r->mac;
	eth->src_addr = bng_mac;
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_MPLS);
	h = (uint8_t *)(eth + 1);
	*(rte_be32_t *)h = rte_cpu_to_be_32(r->label << 12 | 1u << 8 | 64);
	outer = (struct rte_ipv4_hdr *)(h + 4);
	*outer = (struct rte_ipv4_hdr){
		.version_ihl = RTE_IPV4_VHL_DEF,
		.total_length = rte_cpu_to_be_16(ip_len + sizeof(*outer) + 12),
		.time_to_live = 64,
		.next_proto_id = IPPROTO_GRE,
		.src_addr = rte_cpu_to_be_32(BNG_TUNNEL_SRC),
		.dst_addr = rte_cpu_to_be_32(r->tunnel),
	};
	outer->hdr_checksum = rte_ipv4_cksum(outer);
	gre = (uint32_t *)(outer + 1);
	gre[0] = rte_cpu_to_be_32((uint32_t)(BNG_GRE_C | BNG_GRE_K) << 16 | RTE_ETHER_TYPE_IPV4);
	gre[1] = 0;
	gre[2] = rte_cpu_to_be_32(gre_key);
	sum = (uint16_t)~rte_raw_cksum(gre, 12 + ip_len);
	memcpy(&gre[1], &sum, sizeof(sum));
	nfvp_nf_set_port(m, r->port);
	return NFVP_DROP_REASONS;
}

/* The tunnel out, Ethernet and the subscriber's QinQ tags in; else why it is dropped. */
static enum nfvp_drop_reason
bng_decap(struct rte_mbuf *m, uint16_t inner, const struct bng_customer *c)
{
	struct rte_ether_hdr *eth;
	struct rte_vlan_hdr *tag;

	if (!bng_ttl(rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, inner)))
		return NFVP_DROP_TTL;
	eth = (struct rte_ether_hdr *)rte_pktmbuf_adj(m, inner - BNG_ACCESS_HDR);
	eth->dst_addr = c->mac;
	eth->src_addr = bng_mac;
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_QINQ);
	tag = (struct rte_vlan_hdr *)(eth + 1);
	tag[0].vlan_tci = rte_cpu_to_be_16(c->s_vid);
	tag[0].eth_proto = rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN);
	tag[1].vlan_tci = rte_cpu_to_be_16(c->c_vid);
	tag[1].eth_proto = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	nfvp_nf_set_port(m, c->port);
	return NFVP_DROP_REASONS;
}

static void
bng_access_burst(struct nfvp_nf *nf, struct bng_burst *b, struct rte_mbuf **pkts)
{
	uint64_t hits = 0;
	uint16_t i, n = b->n_acc;

	for (i = 0; i < n; i++)
		b->kp[i] = &b->tags[i];
	rte_hash_lookup_bulk_data(bng.subs, b->kp, n, &hits, b->gre_key);
	rte_lpm_lookup_bulk(bng.lpm, b->dst, b->hop, n);
	for (i = 0; i < n; i++) {
		const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(
			pkts[b->acc[i]], const struct rte_ipv4_hdr *, BNG_ACCESS_HDR);

		b->key[i] = (struct bng_core_key){ (uint32_t)(uintptr_t)b->gre_key[i],
						   rte_be_to_cpu_32(ip->src_addr) };
		b->kp[i] = &b->key[i];
	}
	rte_hash_lookup_bulk(bng.core, b->kp, n, b->pos); /* learning: sources known? */
	for (i = 0; i < n; i++) { /* the routes and customers found, fetched together */
		if (b->hop[i] & RTE_LPM_LOOKUP_SUCCESS)
			rte_prefetch0(&bng.route[b->hop[i] & 0xffffff]);
		if (b->pos[i] >= 0)
			rte_prefetch0(&bng.customer[b->pos[i]]);
	}
	for (i = 0; i < n; i++) {
		enum nfvp_drop_reason why = NFVP_DROP_NO_MAPPING; /* a subscriber it does not know */

		if ((hits >> i & 1) && !(b->hop[i] & RTE_LPM_LOOKUP_SUCCESS))
			why = NFVP_DROP_NO_ROUTE;
		else if (hits >> i & 1)
			why = bng_encap(pkts[b->acc[i]], b->key[i].gre_key,
					&bng.route[b->hop[i] & 0xffffff], b->pos[i]);
		b->ok[b->acc[i]] = why == NFVP_DROP_REASONS;
		if (!b->ok[b->acc[i]])
			nfvp_nf_drop(nf, why, 1);
	}
}

static void
bng_core_burst(struct nfvp_nf *nf, struct bng_burst *b, struct rte_mbuf **pkts)
{
	uint16_t i, n = b->n_core;

	for (i = 0; i < n; i++)
		b->kp[i] = &b->ckey[i];
	rte_hash_lookup_bulk(bng.core, b->kp, n, b->pos);
	for (i = 0; i < n; i++) /* the customers found, fetched together */
		if (b->pos[i] >= 0)
			rte_prefetch0(&bng.customer[b->pos[i]]);
	for (i = 0; i < n; i++) {
		enum nfvp_drop_reason why = b->pos[i] < 0 ? NFVP_DROP_NO_MAPPING : /* no customer */
			bng_decap(pkts[b->core[i]], b->inner_off[i], &bng.customer[b->pos[i]]);

		b->ok[b->core[i]] = why == NFVP_DROP_REASONS;
		if (!b->ok[b->core[i]])
			nfvp_nf_drop(nf, why, 1);
	}
}

static uint16_t
bng_burst(struct nfvp_nf *nf, struct rte_mbuf **pkts, uint16_t n)
{
	struct bng_burst b;
	uint16_t i;

	b.n_acc = b.n_core = 0;
	for (i = 0; i < n; i++) {
		const struct rte_mbuf *m = pkts[i];
		rte_be16_t type = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *)->ether_type;

		b.ok[i] = false;
		if (m->data_len < sizeof(struct rte_ether_hdr))
			nfvp_nf_drop(nf, NFVP_DROP_TRUNCATED, 1);
		else if (type == rte_cpu_to_be_16(RTE_ETHER_TYPE_QINQ) &&
			 bng_parse_access(m, &b.tags[b.n_acc], &b.dst[b.n_acc]))
			b.acc[b.n_acc++] = i;
		else if (type == rte_cpu_to_be_16(RTE_ETHER_TYPE_MPLS) &&
			 bng_parse_core(m, &b.ckey[b.n_core], &b.inner_off[b.n_core]))
			b.core[b.n_core++] = i;
		else /* neither a subscriber's QinQ IPv4 frame nor a core MPLS/GRE one */
			nfvp_nf_drop(nf, NFVP_DROP_PROTOCOL, 1);
	}
	/* access first: what it learns, a core packet of the same burst finds */
	if (b.n_acc != 0)
		bng_access_burst(nf, &b, pkts);
	if (b.n_core != 0)
		bng_core_burst(nf, &b, pkts);
	return nfvp_nf_keep(pkts, n, b.ok);
}

static struct rte_hash *
bng_hash(const char *name, uint32_t entries, uint32_t key_len)
{
	struct rte_hash_parameters hp = {
		.name = name, .entries = RTE_MAX(entries, 8u), .key_len = key_len,
		.hash_func = rte_hash_crc, .socket_id = SOCKET_ID_ANY,
		/* buckets that overflow into a list: a full table takes every key it counts */
		.extra_flag = RTE_HASH_EXTRA_FLAGS_EXT_TABLE,
	};

	return rte_hash_create(&hp);
}

static int
bng_setup(struct nfvp_nf *nf)
{
	struct rte_lpm_config cfg = {
		.max_rules = bng.routes + bng.long_routes + 16,
		.number_tbl8s = bng.long_routes + 16,
	};
	uint32_t k, n = bng.routes + bng.long_routes;

	if (nfvp_nf_private_eal(nfvp_nf_name(nf)) < 0)
		return -ENODEV;
	bng.subs = bng_hash("bng_subs", bng.subscribers, sizeof(uint32_t));
	bng.core = bng_hash("bng_core", bng.core_entries, sizeof(struct bng_core_key));
	bng.lpm = rte_lpm_create("bng", SOCKET_ID_ANY, &cfg);
	bng.route = rte_zmalloc("bng_routes", n * sizeof(*bng.route), 0);
	bng.customer = rte_zmalloc("bng_customers",
				   (size_t)rte_hash_max_key_id(bng.core) * sizeof(*bng.customer) +
				   sizeof(*bng.customer), 0);
	if (bng.subs == NULL || bng.core == NULL || bng.lpm == NULL || bng.route == NULL ||
	    bng.customer == NULL) {
		fprintf(stderr, "bng: no memory for its tables (hugepages?)\n");
		return -ENOMEM;
	}
	for (k = 0; k < bng.subscribers; k++) {
		uint32_t tags = bng_tags((uint16_t)(1 + k / BNG_VIDS), (uint16_t)(1 + k % BNG_VIDS));

		if (rte_hash_add_key_data(bng.subs, &tags, (void *)(uintptr_t)k) < 0) {
			fprintf(stderr, "bng: subscriber table full after %u\n", k);
			return -ENOSPC;
		}
	}
	for (k = 0; k < n; k++) {
		uint32_t prefix = k < bng.routes ?
			RTE_IPV4(10, (k >> 8) & 255, k & 255, 0) :
			RTE_IPV4(11, ((k - bng.routes) >> 12) & 255, ((k - bng.routes) >> 4) & 255,
				 ((k - bng.routes) & 15) << 4);

		if (rte_lpm_add(bng.lpm, prefix, k < bng.routes ? 24 : 28, k) < 0) {
			fprintf(stderr, "bng: route table full after %u\n", k);
			return -ENOSPC;
		}
		bng.route[k] = (struct bng_route){
			.tunnel = BNG_TUNNEL_BASE + k, .label = BNG_LABEL_BASE + k,
			.mac = { { 0x02, 0, 0, 0, (uint8_t)(k >> 8), (uint8_t)k } },
			.port = (uint16_t)(bng.port_base + k % bng.ports),
		};
	}
	for (k = 0; k < RTE_MIN(bng.core_fill, bng.core_entries); k++) {
		struct bng_core_key key = { k, bng.core_ip_base + k * bng.core_ip_step };
		int32_t pos = rte_hash_add_key(bng.core, &key);

		if (pos < 0) {
			fprintf(stderr, "bng: core table full after %u\n", k);
			return -ENOSPC;
		}
		bng.customer[pos] = (struct bng_customer){
			.s_vid = (uint16_t)(1 + k / BNG_VIDS), .c_vid = (uint16_t)(1 + k % BNG_VIDS),
			.mac = { { 0x02, 0, 0xcc, (uint8_t)(k >> 16), (uint8_t)(k >> 8), (uint8_t)k } },
			.port = (uint16_t)(bng.port_base + k % bng.ports),
		};
	}
	return 0;
}

static const char *
bng_opt(int key, const char *value)
{
	uint64_t v;

	if (key == 'i')
		return nfvp_parse_ipv4(value, &bng.core_ip_base) == 0 ? NULL : "a.b.c.d";
	if (key == 'a')
		return nfvp_parse_u64(value, 0, UINT32_MAX, &v) == 0 ? (bng.core_ip_step = v, NULL)
								   : "a step 0..2^32-1";
	if (key == 'r' || key == 'l')
		return nfvp_parse_u64(value, 0, 65536, &v) == 0 ? (key == 'r' ? (bng.routes = v, NULL)
			: (bng.long_routes = v, NULL)) : "a count 0..65536";
	if (nfvp_parse_u64(value, key == 'p' || key == 'c' ? 1 : 0, BNG_VIDS * BNG_VIDS, &v) != 0)
		return key == 'p' || key == 'c' ? "a count 1.." RTE_STR(BNG_VIDS) "^2"
						: "a count 0.." RTE_STR(BNG_VIDS) "^2";
	switch (key) {
	case 's': bng.subscribers = v; break;
	case 'c': bng.core_entries = v; break;
	case 'f': bng.core_fill = v; break;
	case 'p': bng.ports = v; break;
	default: bng.port_base = v; break;
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	static const struct nfvp_nf_ops ops = { .setup = bng_setup, .burst = bng_burst };
	static const struct option opts[] = {
		{ "subscribers", required_argument, NULL, 's' },
		{ "routes", required_argument, NULL, 'r' },
		{ "long-routes", required_argument, NULL, 'l' },
		{ "core-entries", required_argument, NULL, 'c' },
		{ "core-fill", required_argument, NULL, 'f' },
		{ "core-ip-base", required_argument, NULL, 'i' },
		{ "core-ip-step", required_argument, NULL, 'a' },
		{ "ports", required_argument, NULL, 'p' },
		{ "port-base", required_argument, NULL, 'b' },
		{ NULL, 0, NULL, 0 },
	};

	return nfvp_nf_main(argc, argv, "bng", &ops, opts, bng_opt);
}
