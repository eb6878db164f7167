/* SPDX-License-Identifier: MIT */
/* exchange.c: moving packets between ports and NFs in the five architectures.
 *
 * A packet's chain and hop ride in its mbuf (struct nfvp_meta). From a port it is classified by
 * destination MAC (rte_hash) and sent to hop 0; each time it comes back from an NF the hop
 * advances; past the last hop it leaves on the chain's port. Packets for one NF are gathered
 * per loop iteration and enqueued as one burst. An NF's rings carry descriptors (nfvp_desc),
 * never the mbuf's address: the NF does not touch the mbuf, whose line stays in this core.
 *
 * One file past 400 lines on purpose: the five architectures' hops differ in a few lines each
 * (who enqueues, who wakes whom, values or pointers on the rings), and side by side those
 * differences are what a reader compares. */

#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mempool.h>
#include <rte_prefetch.h>

#include "vswitch.h"

void
vs_free(struct vswitch *vs, struct rte_mbuf *m)
{
	(void)vs;
	nfvp_meta(m)->owner = 0;
	rte_pktmbuf_free(m);
}

/* n packets back to the pool at once (the pool's ring taken once, not n times) */
void
vs_free_bulk(struct vswitch *vs, struct rte_mbuf **pkts, unsigned int n)
{
	unsigned int i;

	(void)vs;
	if (n == 0)
		return;
	for (i = 0; i < n; i++)
		nfvp_meta(pkts[i])->owner = 0;
	rte_pktmbuf_free_bulk(pkts, n);
}

/* Returns how many packets it handed to the port (sent or dropped there). */
static unsigned int
port_flush(struct vswitch *vs, struct vs_port *p)
{
	uint16_t sent, n = p->n_tx;

	if (n == 0)
		return 0;
	sent = rte_eth_tx_burst(p->id, 0, p->tx_buf, n);
	p->tx += sent;
	vs_free_bulk(vs, p->tx_buf + sent, n - sent);
	p->tx_dropped += n - sent;
	vs->drops.port_tx += n - sent;
	p->n_tx = 0;
	return n;
}

static void
to_port(struct vswitch *vs, uint16_t port, struct rte_mbuf *m)
{
	struct vs_port *p = &vs->ports[port];

	nfvp_meta(m)->owner = 0;
	p->tx_buf[p->n_tx++] = m;
	if (p->n_tx == NFVP_BURST)
		port_flush(vs, p);
}

/* n packets meant for nf, dropped because its ring (or, isolated, its buffers) was full */
static inline void
drop_full(struct vswitch *vs, struct vs_nf *nf, unsigned int n)
{
	nf->ring_full += n;
	vs->drops.ring_full += n;
}

/* Returns how many packets it handed to the NF's ring (enqueued or dropped as ring_full). */
static unsigned int
nf_flush(struct vswitch *vs, struct vs_nf *nf)
{
	struct vs_pending *pd = &nf->pend;
	unsigned int i, k, n = pd->n;

	if (n == 0)
		return 0;
	if (vs->cfg.arch == NFVP_ARCH_ISOLATED) {
		k = rte_ring_enqueue_burst_elem(nf->to_nf, pd->elems, sizeof(uint64_t), pd->n, NULL);
		for (i = k; i < pd->n; i++) {
			uint32_t idx = NFVP_ISO_IDX(pd->elems[i]);

			vs_free(vs, nf->held[idx]);
			nf->held[idx] = NULL;
			nf->free_idx[nf->n_free++] = idx;
		}
	} else {
		uint64_t descs[NFVP_BURST];
		uint16_t owner = nf->slot->id + 1;

		for (i = 0; i < pd->n; i++) {
			struct rte_mbuf *m = pd->pkts[i];

			nfvp_meta(m)->owner = owner;
			descs[i] = nfvp_desc(vs_arena_off(vs, m), m->data_off, m->data_len,
					     m->port, NFVP_PASS);
		}
		k = rte_ring_enqueue_burst_elem(nf->to_nf, descs, sizeof(uint64_t), pd->n, NULL);
		vs_free_bulk(vs, pd->pkts + k, pd->n - k);
	}
	nf->sent += k;
	drop_full(vs, nf, pd->n - k);
	pd->n = 0; /* still listed: vs_flush unlists it as it empties the list */
	if (k > 0 && vs_blocking(vs))
		vs_announce(vs, nf); /* wake.c */
	return n;
}

void
vs_dispatch(struct vswitch *vs, struct rte_mbuf *m, const uint8_t *src)
{
	struct nfvp_meta *meta = nfvp_meta(m);
	struct vs_chain *c = &vs->chains[meta->chain];
	struct vs_pending *pd;
	struct vs_nf *nf;

	if (!c->used) { /* the chain went away while the packet was in it */
		vs->drops.no_chain++;
		vs_free(vs, m);
		return;
	}
	if (meta->hop >= c->len) {
		if (src != NULL)
			rte_memcpy(rte_pktmbuf_mtod(m, void *), src, m->data_len);
		to_port(vs, meta->port > 0 && meta->port <= vs->n_ports ? meta->port - 1
			    : c->out_port, m);
		return;
	}
	if (c->svc[meta->hop] != 0) {
		int id = vs_service_pick(vs, &vs->services[c->svc[meta->hop] - 1], m);

		if (id < 0) {
			vs->drops.nf_absent++;
			vs_free(vs, m);
			return;
		}
		nf = &vs->nfs[id];
	} else {
		nf = &vs->nfs[c->nf[meta->hop]];
	}
	if (!nf->alive) {
		vs->drops.nf_absent++;
		vs_free(vs, m);
		return;
	}
	pd = &nf->pend;
	m->tx_offload = vs->now_tsc; /* no offloads here: the field holds when it left for the NF */
	nf->bytes += m->pkt_len;
	if (vs->cfg.arch == NFVP_ARCH_ISOLATED) {
		/* the one copy of this hop: into a buffer of the NF's own region */
		uint32_t idx;

		if (nf->n_free == 0) {
			drop_full(vs, nf, 1);
			vs_free(vs, m);
			return;
		}
		idx = nf->free_idx[--nf->n_free];
		rte_memcpy(nf->bufs + (size_t)idx * NFVP_ISO_BUF_SIZE + NFVP_ISO_HEADROOM,
			   src != NULL ? src : rte_pktmbuf_mtod(m, const uint8_t *), m->data_len);
		nf->held[idx] = m;
		pd->elems[pd->n] = nfvp_iso_elem(idx, m->data_len, NFVP_PASS);
	} else {
		pd->pkts[pd->n] = m;
	}
	if (!pd->listed) {
		pd->listed = 1;
		vs->dirty[vs->n_dirty++] = nf->slot->id;
	}
	if (++pd->n == NFVP_BURST)
		nf_flush(vs, nf);
}

unsigned int
vs_poll_ports(struct vswitch *vs, int rx)
{
	struct rte_mbuf *pkts[NFVP_BURST];
	int chain[NFVP_BURST];
	unsigned int i, p, n_rx = vs->cfg.rx_ports ? RTE_MIN(vs->cfg.rx_ports, vs->n_ports)
						   : vs->n_ports;
	unsigned int total = 0;

	for (p = 0; rx && p < n_rx; p++) {
		struct vs_port *port = &vs->ports[p];
		uint16_t n;

		n = rte_eth_rx_burst(port->id, 0, pkts, NFVP_BURST);
		vs->rx_hist[n]++;
		if (n == 0)
			continue;
		port->rx += n;
		total += n;
		if (vs->port_chain[p] >= 0) { /* a bump in the wire: the port says the chain */
			for (i = 0; i < n; i++) {
				*nfvp_meta(pkts[i]) = (struct nfvp_meta){
					.chain = (uint16_t)vs->port_chain[p] };
				vs_dispatch(vs, pkts[i], NULL);
			}
			continue;
		}
		for (i = 0; i < n; i++)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
		vs_classify(vs, pkts, n, chain);
		for (i = 0; i < n; i++) {
			if (chain[i] < 0) {
				vs->drops.no_chain++;
				vs_free(vs, pkts[i]);
				continue;
			}
			*nfvp_meta(pkts[i]) = (struct nfvp_meta){ .chain = (uint16_t)chain[i] };
			vs_dispatch(vs, pkts[i], NULL);
		}
	}
	return total;
}

/* How long a packet was away in an NF: queue, processing, the way back. */
static inline void
sojourn(struct vswitch *vs, struct vs_nf *nf, const struct rte_mbuf *m)
{
	uint64_t c = vs->now_tsc > m->tx_offload ? vs->now_tsc - m->tx_offload : 0;

	if (nf->sojourn_hist == NULL)
		return;
	nf->sojourn_hist[nfvp_hist_bin(c, VS_LAT_SUB_BITS, VS_LAT_SUB_BITS)]++;
	nf->sojourn_sum += c;
	nf->sojourn_n++;
}

/* The mbuf a descriptor from an NF names, as the NF left the packet: where its data starts,
 * how long it is, the port the NF chose, if it chose one. A start or length beyond the buffer
 * is the NF's mistake: the packet then keeps the ones it was handed with. */
static inline struct rte_mbuf *
described(struct vswitch *vs, uint64_t d)
{
	struct rte_mbuf *m = (struct rte_mbuf *)(vs->arena + NFVP_DESC_OFF(d));
	uint16_t off = NFVP_DESC_DATA_OFF(d), len = NFVP_DESC_LEN(d);

	if ((off != m->data_off || len != m->data_len) && (uint32_t)off + len <= m->buf_len) {
		m->data_off = off;
		m->data_len = len;
		m->pkt_len = len;
	}
	if (NFVP_DESC_PORT(d) != 0) /* a choice an NF made stays for the hops after it */
		nfvp_meta(m)->port = NFVP_DESC_PORT(d);
	return m;
}

/* A packet back from NF nf (its own ring: the one it was handed to) as descriptor d: drop
 * it, or on to the next hop. */
static void
returned(struct vswitch *vs, struct vs_nf *nf, uint64_t d)
{
	struct rte_mbuf *m = described(vs, d);
	struct nfvp_meta *meta = nfvp_meta(m);

	sojourn(vs, nf, m);
	meta->owner = 0;
	if (NFVP_DESC_VERDICT(d) == NFVP_DROP) {
		vs->drops.nf++;
		vs_free(vs, m);
		return;
	}
	meta->hop++;
	vs_dispatch(vs, m, NULL);
}

static unsigned int
iso_returned(struct vswitch *vs, struct vs_nf *nf)
{
	uint64_t elems[NFVP_BURST];
	unsigned int i, n;

	n = rte_ring_dequeue_burst_elem(nf->from_nf, elems, sizeof(uint64_t), NFVP_BURST, NULL);
	for (i = 0; i < n; i++) {
		uint32_t idx = NFVP_ISO_IDX(elems[i]);
		struct rte_mbuf *m = nf->held[idx];
		struct nfvp_meta *meta;

		if (idx >= vs->cfg.iso_bufs || m == NULL)
			continue; /* an NF that names a buffer it was not given: ignore it */
		nf->held[idx] = NULL;
		nf->returned++;
		sojourn(vs, nf, m);
		meta = nfvp_meta(m);
		if (NFVP_ISO_VERDICT(elems[i]) == NFVP_DROP) {
			vs->drops.nf++;
			vs_free(vs, m);
		} else {
			m->data_len = RTE_MIN(NFVP_ISO_LEN(elems[i]),
					      rte_pktmbuf_tailroom(m) + m->data_len);
			m->pkt_len = m->data_len;
			meta->hop++;
			vs_dispatch(vs, m, nf->bufs + (size_t)idx * NFVP_ISO_BUF_SIZE +
				    NFVP_ISO_HEADROOM);
		}
		nf->free_idx[nf->n_free++] = idx;
	}
	return n;
}

/* An mbuf's two lines, if the cache let them go: the first (where its data is, its chain)
 * and the second (when it left for the NF) */
static inline void
prefetch_mbuf(const uint8_t *m)
{
	rte_prefetch0(m);
	rte_prefetch0(m + RTE_CACHE_LINE_SIZE);
}

/* What one NF returned (up to a burst), on to its next hop; how many. */
static unsigned int
poll_nf(struct vswitch *vs, struct vs_nf *nf)
{
	uint64_t descs[NFVP_BURST];
	unsigned int j, n;

	if (vs->cfg.arch == NFVP_ARCH_ISOLATED) {
		n = iso_returned(vs, nf);
	} else {
		n = rte_ring_dequeue_burst_elem(nf->from_nf, descs, sizeof(uint64_t), NFVP_BURST,
						NULL);
		nf->returned += n;
		for (j = 0; j < n && j < VS_PREFETCH; j++)
			prefetch_mbuf(vs->arena + NFVP_DESC_OFF(descs[j]));
		for (j = 0; j < n; j++) {
			if (j + VS_PREFETCH < n)
				prefetch_mbuf(vs->arena + NFVP_DESC_OFF(descs[j + VS_PREFETCH]));
			returned(vs, nf, descs[j]);
		}
	}
	if (n > 0)
		vs->nf_hist[n]++;
	return n;
}

/* shared-ring: the NFs whose doorbell rang since the last look, each up to a burst; one with
 * more than a burst waiting rings again for the next loop. */
static unsigned int
poll_rung(struct vswitch *vs)
{
	unsigned int w, words = vs->n_nf_ids / 64 + 1, total = 0;

	for (w = 0; w < words; w++) {
		uint64_t bits, again = 0;

		if (__atomic_load_n(&vs->bells[w], __ATOMIC_RELAXED) == 0)
			continue;
		bits = __atomic_exchange_n(&vs->bells[w], 0, __ATOMIC_ACQUIRE);
		while (bits != 0) {
			unsigned int b = __builtin_ctzll(bits);
			struct vs_nf *nf = &vs->nfs[w * 64 + b];
			unsigned int n;

			bits &= bits - 1;
			if (!nf->alive)
				continue;
			n = poll_nf(vs, nf);
			total += n;
			if (n == NFVP_BURST)
				again |= 1ull << b;
		}
		if (again != 0)
			__atomic_fetch_or(&vs->bells[w], again, __ATOMIC_RELAXED);
	}
	return total;
}

unsigned int
vs_poll_nfs(struct vswitch *vs, int all)
{
	unsigned int i, n, total = 0;

	if (vs->bells != NULL && !all)
		return poll_rung(vs);
	if (!vs_blocking(vs) || all) {
		for (i = 0; i < vs->n_active; i++)
			total += poll_nf(vs, &vs->nfs[vs->active[i]]);
		return total;
	}
	vs_awake_sweep(vs, vs->now_tsc);
	i = 0;
	while (i < vs->n_awake) { /* the list may grow meanwhile: a return can start a flush */
		struct vs_nf *nf = &vs->nfs[vs->awake[i]];
		int asleep;

		if (!nf->alive) {
			vs_awake_drop(vs, i);
			continue;
		}
		asleep = nf->slot->sleeping;
		rte_smp_rmb(); /* asleep seen before the ring is read: it returned all it will */
		n = poll_nf(vs, nf);
		total += n;
		if (n == 0 && asleep)
			vs_awake_drop(vs, i);
		else
			i++;
	}
	return total;
}

unsigned int
vs_flush(struct vswitch *vs)
{
	unsigned int i, n = 0;

	for (i = 0; i < vs->n_dirty; i++) {
		struct vs_nf *nf = &vs->nfs[vs->dirty[i]];

		n += nf_flush(vs, nf);
		nf->pend.listed = 0;
	}
	vs->n_dirty = 0;
	for (i = 0; i < vs->n_ports; i++)
		n += port_flush(vs, &vs->ports[i]);
	return n;
}

struct reclaim {
	struct vswitch *vs;
	uint16_t owner; /* the NF whose mbufs go back; 0: every NF's, each counted to its NF */
	uint64_t n;
};

static void
reclaim_obj(struct rte_mempool *mp, void *opaque, void *obj, unsigned int idx)
{
	struct reclaim *r = opaque;
	struct rte_mbuf *m = obj;
	uint16_t owner = nfvp_meta(m)->owner;

	(void)mp;
	(void)idx;
	if (owner == 0 || (r->owner != 0 && owner != r->owner) || owner > r->vs->n_nf_ids)
		return;
	if (r->owner == 0)
		r->vs->nfs[owner - 1].lost_at_death++;
	vs_free(r->vs, m);
	r->n++;
}

/* An NF died: what it finished goes on, what it held or had not read yet is dropped and its
 * mbufs go back to the pool. */
void
vs_nf_reclaim(struct vswitch *vs, struct vs_nf *nf)
{
	struct reclaim r = { .vs = vs, .owner = nf->slot->id + 1 };
	uint64_t elems[NFVP_BURST];
	unsigned int i, n;

	nf->slot->stop = 1;
	vs_flush(vs); /* what was gathered for it goes into its ring, and is reclaimed below */
	if (vs->cfg.arch == NFVP_ARCH_ISOLATED) {
		while (iso_returned(vs, nf) > 0)
			;
		while ((n = rte_ring_dequeue_burst_elem(nf->to_nf, elems, sizeof(uint64_t),
							NFVP_BURST, NULL)) > 0)
			(void)elems;
		for (i = 0; i < vs->cfg.iso_bufs; i++) {
			if (nf->held[i] != NULL) {
				vs_free(vs, nf->held[i]);
				nf->held[i] = NULL;
				r.n++;
			}
		}
	} else {
		while ((n = rte_ring_dequeue_burst_elem(nf->from_nf, elems, sizeof(uint64_t),
							NFVP_BURST, NULL)) > 0) {
			nf->returned += n;
			for (i = 0; i < n; i++)
				returned(vs, nf, elems[i]);
		}
		vs_flush(vs);
		/* the rest (in its to_nf ring, or in the NF's hands) still names it as owner */
		rte_mempool_obj_iter(vs->pool, reclaim_obj, &r);
	}
	nf->lost_at_death = r.n;
	vs->drops.nf_dead += r.n;
}

/* The end of a run: every NF is told to stop; what they finished goes on (out of a port, or
 * into the ring of its next NF, where no one reads it now); then every packet still in an NF's
 * ring or hands goes back to the pool. Returns how many did: they were in flight at the stop.
 *
 * Every NF stops before any ring is read, and every return is taken before anything is freed.
 * Reclaiming NF by NF (vs_nf_reclaim, as for a death) loses packets here: one that a later NF
 * finished could go on to an NF reclaimed before it and stay in that ring, never freed nor
 * counted; and a ring read after an NF's mbufs were freed hands its late returns out a
 * second time. */
uint64_t
vs_nfs_stop(struct vswitch *vs)
{
	struct reclaim r = { .vs = vs, .owner = 0 };
	unsigned int i, j;

	for (i = 0; i < vs->n_active; i++) {
		struct vs_nf *nf = &vs->nfs[vs->active[i]];

		nf->slot->stop = 1;
		sem_post(&nf->slot->sem);
	}
	vs_flush(vs);
	while (vs_poll_nfs(vs, 1) > 0) /* an NF still finishing a burst: its late returns go on too */
		;
	vs_flush(vs);
	if (vs->cfg.arch != NFVP_ARCH_ISOLATED) {
		/* in a ring or an NF's hands: its owner tag names the NF */
		rte_mempool_obj_iter(vs->pool, reclaim_obj, &r);
		return r.n;
	}
	for (i = 0; i < vs->n_active; i++) {
		struct vs_nf *nf = &vs->nfs[vs->active[i]];

		for (j = 0; j < vs->cfg.iso_bufs; j++) {
			if (nf->held[j] == NULL)
				continue;
			vs_free(vs, nf->held[j]);
			nf->held[j] = NULL;
			nf->lost_at_death++;
			r.n++;
		}
	}
	return r.n;
}

uint64_t
vs_in_flight(const struct vswitch *vs)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < vs->n_nf_ids; i++) {
		const struct vs_nf *nf = &vs->nfs[i];

		n += nf->sent + nf->slot->stats.nic_rx - nf->returned - nf->lost_at_death +
		     nf->pend.n;
	}
	return n;
}

