/* SPDX-License-Identifier: MIT */
/* nat.h: the NAT NF's types and state (main.c), shared with its ICMP error path (icmp.c). */

#ifndef NFVP_NAT_H
#define NFVP_NAT_H

#include <assert.h>
#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "nfvp_nf.h"

#define NAT_MAX_ENTRIES (1u << 24)
#define NAT_MIN_KEYS 8u /* rte_hash wants at least a bucket's worth (--entries is enforced) */
#define NAT_FRAGS 4096u  /* notes of first fragments, by hash */
#define NAT_FOLLOW NFVP_DROP_REASONS /* nat_parse: a later fragment, to follow its first */
#define NAT_OK (NFVP_DROP_REASONS + 1)
#define NAT_ERROR (NFVP_DROP_REASONS + 2) /* nat_parse: an ICMP error coming back */

/* A 5-tuple as the packet carries it (network order); pad zeroed: it is hashed and compared. */
struct nat_key {
	rte_be32_t src_ip, dst_ip;
	rte_be16_t src_port, dst_port;
	uint8_t proto;
	uint8_t pad[3];
};
static_assert(sizeof(struct nat_key) == 16, "nat_key: 16 B, no hidden padding");

/* One per key, at the key's position: outbound, addr/port are the public ones and orig_* the
 * inside ones; inbound (the reverse key), the other way round. */
struct nat_entry {
	rte_be32_t addr;      /* written into the packet */
	rte_be16_t port;
	rte_be16_t orig_port; /* what they replace */
	rte_be32_t orig_addr;
	int32_t peer;         /* the other direction's position */
	uint64_t last_seen;   /* TSC */
};

/* What the burst handler keeps of a parsed packet. */
struct nat_pkt {
	struct nat_key key;
	struct rte_ipv4_hdr *ip;
	rte_be16_t *l4;       /* the UDP, TCP or ICMP header (NULL: a later fragment) */
	uint8_t port[2];      /* l4[] index of the port written inbound [0] and outbound [1] */
	uint8_t csum;         /* the L4 checksum's index in l4[] */
	uint8_t pseudo;       /* it covers the addresses too (UDP, TCP; not ICMP) */
};

/* A first fragment's note: its datagram (as it came in) and the connection it took. */
struct nat_frag {
	rte_be32_t src_ip, dst_ip;
	rte_be16_t id;
	uint8_t proto, out;
	int32_t pos;          /* -1: free */
};

/* The NAT's state: its options, its connections, its fragments' notes. */
struct nat_state {
	uint32_t entries, conns, port_min, next_port;
	rte_be32_t public_ip;
	struct rte_hash *hash;
	struct nat_entry *table;
	struct nat_frag frags[NAT_FRAGS];
};
extern struct nat_state nat;

/* icmp.c: an ICMP error coming back about a connection: its key (1), or 0; and its rewrite */
int nat_icmp_error(const struct rte_mbuf *m, struct nat_pkt *p);
void nat_icmp_error_rewrite(struct rte_mbuf *m, struct nat_pkt *p, const struct nat_entry *e);

#endif /* NFVP_NAT_H */
