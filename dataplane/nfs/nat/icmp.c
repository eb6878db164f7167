/* SPDX-License-Identifier: MIT */
/* icmp.c: the NAT's ICMP errors: one coming back to the public address about a packet that went
 * out goes to the inside host with the packet it quotes translated back (RFC 5508, 4.2). */

#include <rte_ip.h>

#include "nfvp_cksum.h"
#include "nat.h"

/* An ICMP error coming back to the public address about a packet that went out (destination
 * unreachable, time exceeded, parameter problem: RFC 5508, 4.2): its key, as the connection's
 * reverse key (the quoted packet's destination, public address, ports swapped); 1, or 0. */
int
nat_icmp_error(const struct rte_mbuf *m, struct nat_pkt *p)
{
	const uint8_t *icmp = (const uint8_t *)p->l4;
	const struct rte_ipv4_hdr *in = (const struct rte_ipv4_hdr *)(icmp + 8);
	const rte_be16_t *ports;
	uint32_t end = rte_pktmbuf_data_len(m) - ((const uint8_t *)icmp -
						  rte_pktmbuf_mtod(m, const uint8_t *));

	if ((icmp[0] != 3 && icmp[0] != 11 && icmp[0] != 12) || /* unreachable, time, param. */
	    end < 8 + sizeof(*in) || end < 8u + rte_ipv4_hdr_len(in) + 4 ||
	    (in->next_proto_id != IPPROTO_UDP && in->next_proto_id != IPPROTO_TCP) ||
	    in->src_addr != nat.public_ip)
		return 0;
	ports = (const rte_be16_t *)((const uint8_t *)in + rte_ipv4_hdr_len(in));
	p->key = (struct nat_key){ .src_ip = in->dst_addr, .dst_ip = in->src_addr,
				   .src_port = ports[1], .dst_port = ports[0],
				   .proto = in->next_proto_id };
	return 1;
}

/* The error's way in: the inside address as its destination and as the quoted packet's source,
 * with the inside port, the checksums fixed (the ICMP one recomputed: errors are rare). */
void
nat_icmp_error_rewrite(struct rte_mbuf *m, struct nat_pkt *p, const struct nat_entry *e)
{
	struct rte_ipv4_hdr *ip = p->ip, *in = (struct rte_ipv4_hdr *)((uint8_t *)p->l4 + 8);
	rte_be16_t *ports = (rte_be16_t *)((uint8_t *)in + rte_ipv4_hdr_len(in));
	uint32_t len = rte_be_to_cpu_16(ip->total_length) - rte_ipv4_hdr_len(ip);
	uint32_t max = rte_pktmbuf_data_len(m) - ((uint8_t *)p->l4 - rte_pktmbuf_mtod(m, uint8_t *));
	uint32_t s = nfvp_cksum_words32(~ip->dst_addr) + nfvp_cksum_words32(e->addr);

	ip->dst_addr = e->addr;
	ip->hdr_checksum = nfvp_cksum_adjust(ip->hdr_checksum, s);
	s = nfvp_cksum_words32(~in->src_addr) + nfvp_cksum_words32(e->addr);
	in->src_addr = e->addr;
	in->hdr_checksum = nfvp_cksum_adjust(in->hdr_checksum, s);
	ports[0] = e->port;
	p->l4[1] = 0;
	p->l4[1] = ~rte_raw_cksum(p->l4, RTE_MIN(len, max));
}

