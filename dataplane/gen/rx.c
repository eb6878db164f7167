/* SPDX-License-Identifier: MIT */
/* rx.c: receiving: what comes back from the out port, its stamp, the latency histograms. */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "gen.h"

/* The histograms, in all and per class (before any packet: min at its top), and the naps'
 * sample. */
int
nfvp_gen_alloc_stats(struct nfvp_gen *g)
{
	unsigned int k;

	for (k = 0; k < g->n_cls; k++) {
		struct nfvp_gen_stats *st = &g->cls[k].st;

		st->lat_min = UINT64_MAX;
		st->hist = calloc(NFVP_GEN_HIST_BUCKETS, sizeof(*st->hist));
		if (st->hist == NULL)
			goto nomem;
	}
	g->st.lat_min = UINT64_MAX;
	g->st.hist = calloc(NFVP_GEN_HIST_BUCKETS, sizeof(*g->st.hist));
	if (g->st.hist == NULL)
		goto nomem;
	nfvp_sample_init(&g->naps.sample, NFVP_GEN_NAP_SAMPLES);
	g->naps.pairs = calloc(NFVP_GEN_NAP_SAMPLES, sizeof(*g->naps.pairs));
	if (g->naps.pairs == NULL)
		goto nomem;
	return 0;
nomem:
	fprintf(stderr, NFVP_GEN_NAME ": out of memory\n");
	return -1;
}

static inline void
nfvp_gen_record_in(struct nfvp_gen_stats *st, uint64_t ns)
{
	st->hist[nfvp_hist_bin(ns, NFVP_GEN_HIST_SUB_BITS, NFVP_GEN_HIST_SUB_BITS)]++;
	st->lat_sum += (double)ns;
	if (ns < st->lat_min)
		st->lat_min = ns;
	if (ns > st->lat_max)
		st->lat_max = ns;
	st->lat_count++;
}

static inline void
nfvp_gen_record(struct nfvp_gen *g, struct nfvp_gen_class *c, uint64_t cycles)
{
	uint64_t ns = (uint64_t)((double)cycles * g->ns_per_tsc + 0.5);

	nfvp_gen_record_in(&g->st, ns);
	nfvp_gen_record_in(&c->st, ns);
}

/* Receive one burst from the out port. Returns the number of packets. */
unsigned int
nfvp_gen_recv(struct nfvp_gen *g)
{
	struct rte_mbuf *pkts[NFVP_BURST];
	unsigned int i, n;
	uint64_t now;

	n = rte_ring_dequeue_burst(g->tx_ring, (void **)pkts, NFVP_BURST, NULL);
	if (n == 0)
		return 0;
	now = rte_rdtsc();
	for (i = 0; i < n; i++) {
		const struct rte_mbuf *m = pkts[i];
		const struct nfvp_stamp *s;
		struct nfvp_gen_class *c;
		struct nfvp_stamp copy;

		g->st.received_bytes += m->pkt_len + RTE_ETHER_CRC_LEN;
		if (unlikely(m->pkt_len < sizeof(copy))) {
			g->st.bad_stamp++;
			continue;
		}
		s = rte_pktmbuf_read(m, m->pkt_len - sizeof(copy), sizeof(copy), &copy);
		/* a stamp from before this run (a recycled buffer) is no stamp of ours */
		if (unlikely(s == NULL || s->magic != NFVP_STAMP_MAGIC || s->tsc < g->start_tsc ||
			     s->tsc > now)) {
			g->st.bad_stamp++;
			continue;
		}
		c = nfvp_gen_find_class(g, s->gen_flow);
		c->st.received++;
		c->st.received_bytes += m->pkt_len + RTE_ETHER_CRC_LEN;
		nfvp_gen_record(g, c, now - s->tsc);
	}
	g->st.received += n;
	rte_pktmbuf_free_bulk(pkts, n);
	return n;
}
