/* SPDX-License-Identifier: MIT */
/* nat: a source NAT with port translation (NAPT) for IPv4 UDP, TCP and ICMP echo (Ethernet /
 * IPv4 / UDP|TCP|ICMP, untagged). The connection table is an rte_hash keyed by the packet's 5-tuple (src IP,
 * dst IP, src port, dst port, protocol; 16 B); the position it returns indexes an array of
 * entries (the address and port to write, the ones they replace, the last-seen TSC).
 *
 * Outbound (destination != --public-ip): a hit rewrites the source address to the public IP and
 * the source port to the connection's public port. A miss opens a connection: it takes the next
 * public port, and adds both the outbound key and the reverse key (remote IP, public IP, remote
 * port, public port, protocol) that replies carry. Public ports are handed out in the order
 * connections open, one per connection, UDP and TCP alike: --port-min (1024), --port-min + 1,
 * ... up to 65535, never reused (connections do not expire). Table full (--entries connections,
 * 64K; 2 keys each) or ports exhausted: dropped.
 * Inbound (destination == --public-ip): the reverse key's entry gives the inside address and
 * port, written as destination; a miss is dropped.
 * ICMP echo is translated by its query identifier as UDP by its port (RFC 5508, 3.1): a request
 * going out opens or finds the connection and takes the public identifier, a reply coming back
 * gets the inside one. An ICMP error coming back about a packet that went out (destination
 * unreachable, time exceeded, parameter problem) goes to the inside host with the packet it
 * quotes translated back (RFC 5508, 4.2); other ICMP messages are dropped (protocol).
 * Fragments follow their first (RFC 4787, 11): the first fragment of a datagram, translated,
 * leaves a note (source, destination, IP id, protocol: the connection); a later fragment that
 * finds the note gets the same addresses; one that comes before its first, or whose note a
 * newer datagram took (NAT_FRAGS notes, by hash), is dropped (fragment).
 * The IPv4 header checksum and the UDP/TCP checksum (its pseudo-header share too) or ICMP's are
 * updated incrementally (RFC 1624); a UDP checksum of 0 (none) stays 0. Dropped as well: not
 * IPv4 (not_ipv4), truncated headers. Drops are counted by reason (per_nf's drops_by_reason).
 * The output port is the chain's. Its EO model: src/nfvperf/data/nfs/nat.yaml. */

#include <arpa/inet.h>
#include <assert.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_prefetch.h>

#include "../common/nf_eal.h"
#include "nfvp_cksum.h"
#include "nfvp_nf.h"
#include "nfvp_parse.h"

#include "nat.h"

struct nat_state nat = { .entries = 65536, .port_min = 1024,
			  .public_ip = RTE_BE32(RTE_IPV4(192, 0, 2, 1)) };


/* Ethernet / IPv4 / UDP|TCP|ICMP echo with its headers in the first segment: NAT_OK and p
 * filled in; a later fragment: NAT_FOLLOW (p's key and ip filled in); else why it is dropped. */
static inline unsigned int
nat_parse(struct rte_mbuf *m, struct nat_pkt *p)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
	uint32_t len = rte_pktmbuf_data_len(m), hl, need;
	rte_be16_t *l4;

	if (len < sizeof(*eth) + sizeof(*ip))
		return NFVP_DROP_TRUNCATED;
	if (eth->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) || (ip->version_ihl >> 4) != 4)
		return NFVP_DROP_NOT_IPV4;
	p->ip = ip;
	p->key = (struct nat_key){ .src_ip = ip->src_addr, .dst_ip = ip->dst_addr,
				   .proto = ip->next_proto_id };
	if ((ip->fragment_offset & rte_cpu_to_be_16(RTE_IPV4_HDR_OFFSET_MASK)) != 0) {
		p->l4 = NULL;
		return NAT_FOLLOW;
	}
	hl = rte_ipv4_hdr_len(ip);
	if (ip->next_proto_id == IPPROTO_UDP || ip->next_proto_id == IPPROTO_TCP) {
		need = ip->next_proto_id == IPPROTO_UDP ? 8 : 20;
		*p = (struct nat_pkt){ .key = p->key, .ip = ip, .port = { 1, 0 },
				       .csum = ip->next_proto_id == IPPROTO_UDP ? 3 : 8,
				       .pseudo = 1 };
	} else if (ip->next_proto_id == IPPROTO_ICMP) {
		need = 8; /* type, code, checksum, identifier, sequence */
		*p = (struct nat_pkt){ .key = p->key, .ip = ip, .port = { 2, 2 }, .csum = 1 };
	} else {
		return NFVP_DROP_PROTOCOL;
	}
	if (hl < sizeof(*ip) || len < sizeof(*eth) + hl + need)
		return NFVP_DROP_TRUNCATED;
	p->l4 = l4 = (rte_be16_t *)((uint8_t *)ip + hl);
	if (ip->next_proto_id != IPPROTO_ICMP) {
		p->key.src_port = l4[0];
		p->key.dst_port = l4[1];
	} else if (*(uint8_t *)l4 == RTE_IP_ICMP_ECHO_REQUEST && p->key.dst_ip != nat.public_ip) {
		p->key.src_port = l4[2]; /* a query going out: its identifier stands for a port */
	} else if (*(uint8_t *)l4 == RTE_IP_ICMP_ECHO_REPLY && p->key.dst_ip == nat.public_ip) {
		p->key.dst_port = l4[2]; /* and its reply coming back */
	} else if (p->key.dst_ip == nat.public_ip && nat_icmp_error(m, p)) {
		return NAT_ERROR;
	} else {
		return NFVP_DROP_PROTOCOL;
	}
	return NAT_OK;
}

/* The note slot of a fragment's datagram. */
static inline struct nat_frag *
frag_slot(const struct rte_ipv4_hdr *ip)
{
	uint32_t h = rte_hash_crc_4byte(ip->src_addr, ip->packet_id);

	h = rte_hash_crc_4byte(ip->dst_addr, h ^ ip->next_proto_id);
	return &nat.frags[h % NAT_FRAGS];
}

static inline int
frag_same(const struct nat_frag *f, const struct rte_ipv4_hdr *ip)
{
	return f->pos >= 0 && f->src_ip == ip->src_addr && f->dst_ip == ip->dst_addr &&
	       f->id == ip->packet_id && f->proto == ip->next_proto_id;
}

/* A new outbound connection for key k: the next public port, both keys added. The outbound
 * key's position, or -1 (table full, ports exhausted). */
static int32_t
nat_open(const struct nat_key *k)
{
	rte_be16_t port = rte_cpu_to_be_16((uint16_t)nat.next_port);
	struct nat_key rev = { .src_ip = k->dst_ip, .dst_ip = nat.public_ip,
			       .src_port = k->dst_port, .dst_port = port, .proto = k->proto };
	int32_t out, in;

	if (nat.conns >= nat.entries || nat.next_port > 65535)
		return -1;
	out = rte_hash_add_key(nat.hash, k);
	if (out < 0)
		return -1;
	in = rte_hash_add_key(nat.hash, &rev);
	if (in < 0) {
		rte_hash_del_key(nat.hash, k);
		return -1;
	}
	nat.table[out] = (struct nat_entry){ .addr = nat.public_ip, .port = port,
					     .orig_addr = k->src_ip, .orig_port = k->src_port,
					     .peer = in };
	nat.table[in] = (struct nat_entry){ .addr = k->src_ip, .port = k->src_port,
					    .orig_addr = nat.public_ip, .orig_port = port,
					    .peer = out };
	nat.next_port++;
	nat.conns++;
	return out;
}

/* Write the entry's address and port: as source outbound, as destination inbound; fix the IPv4
 * and L4 checksums for them; refresh the entry's timestamp. A later fragment (no L4 header)
 * gets the address only. */
static inline void
nat_rewrite(struct nat_pkt *p, struct nat_entry *e, int out, uint64_t now)
{
	struct rte_ipv4_hdr *ip = p->ip;
	rte_be16_t *port, *l4sum;
	uint32_t old, s;

	if (out) {
		old = ip->src_addr;
		ip->src_addr = e->addr;
	} else {
		old = ip->dst_addr;
		ip->dst_addr = e->addr;
	}
	s = nfvp_cksum_words32(~old) + nfvp_cksum_words32(e->addr);
	ip->hdr_checksum = nfvp_cksum_adjust(ip->hdr_checksum, s);
	e->last_seen = now;
	if (p->l4 == NULL)
		return;
	port = &p->l4[p->port[out]];
	l4sum = &p->l4[p->csum];
	if (!p->pseudo) {
		*l4sum = nfvp_cksum_adjust(*l4sum, (uint16_t)~*port + e->port);
	} else if (*l4sum != 0 || ip->next_proto_id == IPPROTO_TCP) {
		*l4sum = nfvp_cksum_adjust(*l4sum, s + (uint16_t)~*port + e->port);
		if (*l4sum == 0 && ip->next_proto_id == IPPROTO_UDP)
			*l4sum = 0xffff; /* 0 would say "no checksum" */
	}
	*port = e->port;
}

static uint16_t
nat_burst(struct nfvp_nf *nf, struct rte_mbuf **pkts, uint16_t n)
{
	struct rte_mbuf *valid[NFVP_NF_MAX_BURST], *dropped[NFVP_NF_MAX_BURST];
	struct rte_mbuf *later[NFVP_NF_MAX_BURST];
	struct nat_pkt p[NFVP_NF_MAX_BURST], lp[NFVP_NF_MAX_BURST];
	const void *keys[NFVP_NF_MAX_BURST];
	int32_t pos[NFVP_NF_MAX_BURST];
	uint64_t now = rte_rdtsc();
	uint16_t i, v = 0, k = 0, d = 0, l = 0;
	int opened = 0;

	for (i = 0; i < n; i++) {
		unsigned int why = nat_parse(pkts[i], &p[v]);

		if (why == NAT_ERROR) { /* its connection's reverse key, found alone */
			int32_t at = rte_hash_lookup(nat.hash, &p[v].key);

			if (at < 0) {
				nfvp_nf_drop(nf, NFVP_DROP_NO_MAPPING, 1);
				dropped[d++] = pkts[i];
			} else {
				nat_icmp_error_rewrite(pkts[i], &p[v], &nat.table[at]);
				later[l] = pkts[i]; /* sent after the burst's others */
				lp[l].l4 = NULL;
				lp[l++].ip = NULL;
			}
			continue;
		}
		if (why == NAT_FOLLOW) { /* after the firsts of this burst have left their notes */
			lp[l] = p[v];
			later[l++] = pkts[i];
			continue;
		}
		if (why != NAT_OK) {
			nfvp_nf_drop(nf, why, 1);
			dropped[d++] = pkts[i];
			continue;
		}
		keys[v] = &p[v].key;
		valid[v++] = pkts[i];
	}
	if (v > 0)
		rte_hash_lookup_bulk(nat.hash, keys, v, pos);
	for (i = 0; i < v; i++) /* the entries found, fetched together */
		if (pos[i] >= 0)
			rte_prefetch0(&nat.table[pos[i]]);
	for (i = 0; i < v; i++) {
		int out = p[i].key.dst_ip != nat.public_ip;

		/* a connection opened earlier in this burst is not in the bulk lookup's answer */
		if (pos[i] < 0 && opened)
			pos[i] = rte_hash_lookup(nat.hash, &p[i].key);
		if (pos[i] < 0 && out) {
			pos[i] = nat_open(&p[i].key);
			opened |= pos[i] >= 0;
		}
		if (pos[i] < 0) { /* a new connection found no room, or a reply no connection */
			nfvp_nf_drop(nf, out ? NFVP_DROP_TABLE_FULL : NFVP_DROP_NO_MAPPING, 1);
			dropped[d++] = valid[i];
			continue;
		}
		if (p[i].ip->fragment_offset & rte_cpu_to_be_16(RTE_IPV4_HDR_MF_FLAG))
			*frag_slot(p[i].ip) = (struct nat_frag){
				.src_ip = p[i].ip->src_addr, .dst_ip = p[i].ip->dst_addr,
				.id = p[i].ip->packet_id, .proto = p[i].ip->next_proto_id,
				.out = (uint8_t)out, .pos = pos[i] };
		nat_rewrite(&p[i], &nat.table[pos[i]], out, now);
		pkts[k++] = valid[i];
	}
	for (i = 0; i < l; i++) {
		struct nat_frag *f;

		if (lp[i].ip == NULL) { /* an ICMP error, translated already */
			pkts[k++] = later[i];
			continue;
		}
		f = frag_slot(lp[i].ip);
		if (!frag_same(f, lp[i].ip)) { /* before its first, or its note taken */
			nfvp_nf_drop(nf, NFVP_DROP_FRAGMENT, 1);
			dropped[d++] = later[i];
			continue;
		}
		nat_rewrite(&lp[i], &nat.table[f->pos], f->out, now);
		pkts[k++] = later[i];
	}
	memcpy(pkts + k, dropped, d * sizeof(dropped[0]));
	return k;
}

static int
nat_setup(struct nfvp_nf *nf)
{
	struct rte_hash_parameters hp = {
		.name = "nat", .entries = RTE_MAX(2 * nat.entries, NAT_MIN_KEYS),
		.key_len = sizeof(struct nat_key),
		.hash_func = rte_hash_crc, .socket_id = SOCKET_ID_ANY,
		.extra_flag = RTE_HASH_EXTRA_FLAGS_EXT_TABLE, /* every key fits, however they hash */
	};
	int32_t max;
	uint32_t i;

	if (nfvp_nf_private_eal(nfvp_nf_name(nf)) < 0)
		return -ENODEV;
	nat.hash = rte_hash_create(&hp);
	max = nat.hash ? rte_hash_max_key_id(nat.hash) : -1;
	if (max >= 0)
		nat.table = rte_zmalloc("nat", ((size_t)max + 1) * sizeof(nat.table[0]),
					RTE_CACHE_LINE_SIZE);
	if (nat.table == NULL) {
		fprintf(stderr, "nat: --entries: no table for %u connections\n", nat.entries);
		return -ENOMEM;
	}
	nat.next_port = nat.port_min;
	for (i = 0; i < NAT_FRAGS; i++)
		nat.frags[i].pos = -1;
	return 0;
}

static const char *
nat_opt(int key, const char *value)
{
	uint32_t addr;
	uint64_t v;

	if (key == 'i') {
		if (nfvp_parse_ipv4(value, &addr) != 0)
			return "a.b.c.d";
		nat.public_ip = rte_cpu_to_be_32(addr);
		return NULL;
	}
	if (key == 'e') {
		if (nfvp_parse_u64(value, 1, NAT_MAX_ENTRIES, &v) != 0)
			return "a count 1.." RTE_STR(NAT_MAX_ENTRIES);
		nat.entries = v;
		return NULL;
	}
	if (nfvp_parse_u64(value, 1, 65535, &v) != 0)
		return "a port 1..65535";
	nat.port_min = v;
	return NULL;
}

int
main(int argc, char **argv)
{
	static const struct nfvp_nf_ops ops = { .setup = nat_setup, .burst = nat_burst };
	static const struct option opts[] = {
		{ "entries", required_argument, NULL, 'e' },
		{ "public-ip", required_argument, NULL, 'i' },
		{ "port-min", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};

	return nfvp_nf_main(argc, argv, "nat", &ops, opts, nat_opt);
}
