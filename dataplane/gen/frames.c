/* SPDX-License-Identifier: MIT */
/* frames.c: the frames: per-flow templates, encapsulations, per-packet fields and stamps. */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_memcpy.h>
#include <rte_udp.h>

#include "gen.h"

#define NFVP_GEN_SRC_MAC { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 }
#define NFVP_GEN_UDP_DST 9
#define NFVP_GEN_UDP_SRC_BASE 1024
#define NFVP_GEN_UDP_SRC_SPAN 60000
#define NFVP_GEN_MPLS_LABEL_BASE 100
#define NFVP_GEN_TTL 64
#define NFVP_GEN_GRE_FLAGS 0xa000 /* checksum and key present (RFC 2784, 2890) */
#define NFVP_GEN_GRE_LEN 12
#define NFVP_GEN_TUNNEL_SRC RTE_IPV4(198, 51, 100, 1)
#define NFVP_GEN_TUNNEL_DST RTE_IPV4(198, 51, 100, 2)

/* Bytes before the (inner) IPv4 header, by encapsulation. */
static const uint16_t nfvp_gen_l3_off[] = { 14, 18, 22, 14 + 4 + 20 + NFVP_GEN_GRE_LEN };

/* Each class's lengths: the frame without its FCS, the template's share, the stamp's place. */
void
nfvp_gen_size_classes(struct nfvp_gen *g)
{
	unsigned int k;

	for (k = 0; k < g->n_cls; k++) {
		struct nfvp_gen_class *c = &g->cls[k];

		c->data_len = (uint16_t)(c->frame_bytes - RTE_ETHER_CRC_LEN);
		c->head_len = RTE_MIN(c->data_len, NFVP_GEN_TMPL_SIZE);
		c->tail_len = c->data_len - c->head_len;
		c->stamp_off = c->data_len - sizeof(struct nfvp_stamp);
	}
}

/* An IPv4 header of total length len, protocol proto, from src to dst, checksum set. */
static void
nfvp_gen_ipv4(struct rte_ipv4_hdr *ip, uint16_t len, uint8_t proto, uint32_t src, uint32_t dst)
{
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->type_of_service = 0;
	ip->total_length = rte_cpu_to_be_16(len);
	ip->packet_id = 0;
	ip->fragment_offset = 0;
	ip->time_to_live = NFVP_GEN_TTL;
	ip->next_proto_id = proto;
	ip->src_addr = rte_cpu_to_be_32(src);
	ip->dst_addr = rte_cpu_to_be_32(dst);
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
}

/* Write the encapsulation before the inner IPv4 header: after the Ethernet header, an MPLS
 * label, a QinQ tag pair (VIDs 1, 1) or a GRE tunnel over MPLS and IPv4 (key 0). */
static void
nfvp_gen_build_encap(const struct nfvp_gen *g, uint16_t data_len, uint8_t *buf)
{
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)buf;
	struct rte_vlan_hdr *tag = (struct rte_vlan_hdr *)(eth + 1);
	uint8_t *p = (uint8_t *)(eth + 1);
	uint16_t ip_len = data_len - nfvp_gen_l3_off[g->conf.encap];

	switch (g->conf.encap) {
	case NFVP_GEN_ENCAP_NONE:
		eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
		break;
	case NFVP_GEN_ENCAP_QINQ:
		eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_QINQ);
		tag[0].vlan_tci = rte_cpu_to_be_16(1);
		tag[0].eth_proto = rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN);
		tag[1].vlan_tci = rte_cpu_to_be_16(1);
		tag[1].eth_proto = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
		break;
	case NFVP_GEN_ENCAP_MPLS:
	case NFVP_GEN_ENCAP_GRE:
		eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_MPLS);
		memcpy(p, &g->mpls[0], sizeof(g->mpls[0]));
		if (g->conf.encap == NFVP_GEN_ENCAP_GRE) {
			uint16_t gre[2] = { rte_cpu_to_be_16(NFVP_GEN_GRE_FLAGS),
					    rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) };
			struct rte_ipv4_hdr *outer = (struct rte_ipv4_hdr *)(p + 4);
			uint8_t *h = (uint8_t *)(outer + 1);

			nfvp_gen_ipv4(outer, ip_len + 20 + NFVP_GEN_GRE_LEN, IPPROTO_GRE,
				      NFVP_GEN_TUNNEL_SRC, NFVP_GEN_TUNNEL_DST);
			memcpy(h, gre, sizeof(gre)); /* checksum (nfvp_gen_build_frame), reserved
						       * and key (per packet) follow */
		}
		break;
	}
}

/* Write flow f's frame (headers, zero payload, no stamp) into buf of data_len bytes. */
static void
nfvp_gen_build_frame(const struct nfvp_gen *g, uint16_t data_len, uint32_t f, uint8_t *buf)
{
	static const uint8_t src_mac[RTE_ETHER_ADDR_LEN] = NFVP_GEN_SRC_MAC;
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)buf;
	uint16_t l3 = nfvp_gen_l3_off[g->conf.encap];
	uint16_t ip_len = (uint16_t)(data_len - l3);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(buf + l3);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);

	memset(buf, 0, data_len);
	rte_ether_addr_copy(&g->conf.macs[0], &eth->dst_addr);
	memcpy(eth->src_addr.addr_bytes, src_mac, sizeof(src_mac));
	nfvp_gen_build_encap(g, data_len, buf);
	nfvp_gen_ipv4(ip, ip_len, IPPROTO_UDP,
		      RTE_IPV4(NFVP_GEN_SRC_NET, 0, (f >> 8) & 0xff, f & 0xff),
		      g->conf.dst_ip_base);
	udp->src_port = rte_cpu_to_be_16(NFVP_GEN_UDP_SRC_BASE + f % NFVP_GEN_UDP_SRC_SPAN);
	udp->dst_port = rte_cpu_to_be_16(NFVP_GEN_UDP_DST);
	udp->dgram_len = rte_cpu_to_be_16(ip_len - sizeof(*ip));
	udp->dgram_cksum = 0;
	if (g->conf.encap == NFVP_GEN_ENCAP_GRE) {
		uint8_t *gre = buf + l3 - NFVP_GEN_GRE_LEN;
		uint16_t sum = (uint16_t)~rte_raw_cksum(gre, NFVP_GEN_GRE_LEN + ip_len);

		memcpy(gre + 4, &sum, sizeof(sum));
	}
}

/* The templates: per flow the first head_len bytes (all the headers), and one shared tail.
 * Per packet only the dst MAC, the MPLS label (both per MAC) and the stamp are written. */
int
nfvp_gen_build(struct nfvp_gen *g)
{
	uint8_t *frame = NULL;
	uint32_t f, k;

	if (g->conf.encap == NFVP_GEN_ENCAP_MPLS || g->conf.encap == NFVP_GEN_ENCAP_GRE) {
		g->mpls = calloc(g->conf.n_macs, sizeof(*g->mpls));
		if (g->mpls == NULL)
			goto nomem;
		for (k = 0; k < g->conf.n_macs; k++)
			g->mpls[k] = rte_cpu_to_be_32((NFVP_GEN_MPLS_LABEL_BASE + k) << 12 |
						      1u << 8 | NFVP_GEN_TTL);
	}
	frame = malloc(NFVP_MAX_FRAME);
	if (frame == NULL)
		goto nomem;
	for (k = 0; k < g->n_cls; k++) {
		struct nfvp_gen_class *c = &g->cls[k];

		c->tmpl = aligned_alloc(RTE_CACHE_LINE_SIZE, (size_t)c->flows * NFVP_GEN_TMPL_SIZE);
		c->tail = malloc(RTE_MAX(c->tail_len, 1));
		if (c->tmpl == NULL || c->tail == NULL)
			goto nomem;
		for (f = 0; f < c->flows; f++) {
			nfvp_gen_build_frame(g, c->data_len, c->first_flow + f, frame);
			memcpy(c->tmpl + (size_t)f * NFVP_GEN_TMPL_SIZE, frame, c->head_len);
			if (f == 0)
				memcpy(c->tail, frame + c->head_len, c->tail_len);
		}
	}
	free(frame);
	return 0;
nomem:
	free(frame);
	fprintf(stderr, NFVP_GEN_NAME ": out of memory\n");
	return -1;
}

/* The class of the next packet: the one furthest behind its share of the rate. */
static inline struct nfvp_gen_class *
nfvp_gen_next_class(struct nfvp_gen *g)
{
	struct nfvp_gen_class *best = &g->cls[0];
	unsigned int k;

	for (k = 1; k < g->n_cls; k++) {
		struct nfvp_gen_class *c = &g->cls[k];
		double wc = c->rate_pps > 0 ? c->rate_pps : 1, wb = best->rate_pps > 0 ?
			    best->rate_pps : 1;

		if ((double)c->built * wb < (double)best->built * wc)
			best = c;
	}
	best->built++;
	return best;
}

/* Turn n fresh mbufs into the next n frames: a template, the per-packet fields (dst MAC and
 * MPLS label by MAC, the sweeps) and the stamp, its TSC last, just before they are sent.
 * ring_of[i]: the rx ring (index in g->rx_rings) packet i goes to. */
void
nfvp_gen_fill(struct nfvp_gen *g, struct rte_mbuf **pkts, unsigned int n, uint16_t *ring_of)
{
	uint16_t stamp_off[NFVP_BURST];
	uint32_t mac = g->next_mac;
	unsigned int i;
	uint64_t tsc;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);
		struct nfvp_gen_class *c = g->n_cls == 1 ? g->cls : nfvp_gen_next_class(g);
		uint32_t flow = c->next_flow;
		struct nfvp_stamp *s = (struct nfvp_stamp *)(d + c->stamp_off);

		rte_memcpy(d, c->tmpl + (size_t)flow * NFVP_GEN_TMPL_SIZE, c->head_len);
		if (c->tail_len != 0)
			rte_memcpy(d + c->head_len, c->tail, c->tail_len);
		memcpy(d, &g->conf.macs[mac], RTE_ETHER_ADDR_LEN);
		if (g->mpls != NULL)
			memcpy(d + sizeof(struct rte_ether_hdr), &g->mpls[mac], sizeof(g->mpls[0]));
		if (g->conf.dst_mac_count != 0) {
			uint32_t low = (uint32_t)(g->seq % g->conf.dst_mac_count) +
				       ((uint32_t)d[3] << 16 | (uint32_t)d[4] << 8 | d[5]);

			d[3] = (uint8_t)(low >> 16);
			d[4] = (uint8_t)(low >> 8);
			d[5] = (uint8_t)low;
		}
		if (g->conf.src_mac_count != 0) {
			uint32_t low = 1 + (uint32_t)(g->seq % g->conf.src_mac_count);

			d[9] = (uint8_t)(low >> 16);
			d[10] = (uint8_t)(low >> 8);
			d[11] = (uint8_t)low;
		}
		if (g->conf.vlan_count != 0) {
			uint32_t k = (uint32_t)(g->seq % g->conf.vlan_count);
			struct rte_vlan_hdr *tag = (struct rte_vlan_hdr *)(d +
				sizeof(struct rte_ether_hdr));

			tag[0].vlan_tci = rte_cpu_to_be_16((uint16_t)(1 + k / NFVP_GEN_VIDS));
			tag[1].vlan_tci = rte_cpu_to_be_16((uint16_t)(1 + k % NFVP_GEN_VIDS));
		}
		if (g->conf.dst_ip_count != 0) {
			uint32_t k = (uint32_t)(g->seq % g->conf.dst_ip_count);
			struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(d +
				nfvp_gen_l3_off[g->conf.encap]);

			ip->dst_addr = rte_cpu_to_be_32(g->conf.dst_ip_base +
							k * g->conf.dst_ip_step);
			ip->hdr_checksum = 0;
			ip->hdr_checksum = rte_ipv4_cksum(ip);
			if (g->conf.encap == NFVP_GEN_ENCAP_GRE) /* the key */
				*(rte_be32_t *)((uint8_t *)ip - 4) = rte_cpu_to_be_32(k);
		}
		g->seq++;
		c->st.sent++;
		s->magic = NFVP_STAMP_MAGIC;
		s->gen_flow = (uint16_t)(c->first_flow + flow);
		stamp_off[i] = c->stamp_off;
		m->data_len = c->data_len;
		m->pkt_len = c->data_len;
		m->port = (uint16_t)g->conf.in_port;
		ring_of[i] = g->mac_ring[mac];
		if (++c->next_flow == c->flows)
			c->next_flow = 0;
		if (++mac == g->conf.n_macs)
			mac = 0;
	}
	g->next_mac = mac;

	tsc = rte_rdtsc();
	for (i = 0; i < n; i++)
		rte_pktmbuf_mtod_offset(pkts[i], struct nfvp_stamp *, stamp_off[i])->tsc = tsc;
}
