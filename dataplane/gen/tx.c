/* SPDX-License-Identifier: MIT */
/* tx.c: sending: which rx ring each MAC's packets go to, and the paced loop. */

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_hash.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_pause.h>
#include <rte_ring.h>

#include "gen.h"

struct nfvp_gen_mac_key {
	uint64_t key;
	uint32_t mac;
};

static int
nfvp_gen_cmp_key(const void *a, const void *b)
{
	const struct nfvp_gen_mac_key *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->mac < y->mac ? -1 : x->mac > y->mac;
}

/* Flow director: the queue of each of our MACs, from the vSwitch's table. The table is read
 * with rte_hash_iterate: a lookup would call the table's hash function through a pointer that
 * is only valid in the vSwitch's process. */
int
nfvp_gen_map_fdir(struct nfvp_gen *g, uint32_t *queue_of)
{
	struct nfvp_gen_mac_key *keys;
	struct rte_hash *h;
	const void *key;
	uint32_t next = 0;
	uint32_t k;
	void *data;

	h = rte_hash_find_existing(NFVP_FDIR_HASH_NAME);
	if (h == NULL) {
		fprintf(stderr, NFVP_GEN_NAME ": --fdir: table %s not found (is the vSwitch "
			"running the fdir architecture?)\n", NFVP_FDIR_HASH_NAME);
		return -1;
	}
	keys = calloc(g->conf.n_macs, sizeof(*keys));
	if (keys == NULL) {
		fprintf(stderr, NFVP_GEN_NAME ": out of memory\n");
		return -1;
	}
	for (k = 0; k < g->conf.n_macs; k++) {
		memcpy(&keys[k].key, &g->conf.macs[k], RTE_ETHER_ADDR_LEN);
		keys[k].mac = k;
		queue_of[k] = 0;
	}
	qsort(keys, g->conf.n_macs, sizeof(*keys), nfvp_gen_cmp_key);
	while (rte_hash_iterate(h, &key, &data, &next) >= 0) {
		uint64_t kv;
		uint32_t lo = 0, hi = g->conf.n_macs;

		memcpy(&kv, key, sizeof(kv));
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (keys[mid].key < kv)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < g->conf.n_macs && keys[lo].key == kv; lo++) {
			uintptr_t q = (uintptr_t)data;

			if (q > UINT16_MAX) {
				fprintf(stderr, NFVP_GEN_NAME ": --fdir: table %s maps a MAC "
					"to queue %" PRIuPTR "\n", NFVP_FDIR_HASH_NAME, q);
				free(keys);
				return -1;
			}
			queue_of[keys[lo].mac] = (uint32_t)q;
		}
	}
	free(keys);
	return 0;
}

/* Enqueue n packets into an rx ring; what does not fit is the NIC's missed packets. */
static inline void
nfvp_gen_enqueue(struct nfvp_gen *g, struct rte_ring *r, struct rte_mbuf **pkts, unsigned int n)
{
	unsigned int ok = rte_ring_enqueue_burst(r, (void **)pkts, n, NULL), i;

	g->st.sent += ok;
	if (unlikely(ok < n)) {
		/* a class counted its packets sent as it built them; the refused ones, still
		 * ours (those enqueued belong to the vSwitch now: not to be read), go back */
		for (i = ok; i < n; i++) {
			struct rte_mbuf *m = pkts[i];
			const struct nfvp_stamp *st = rte_pktmbuf_mtod_offset(
				m, const struct nfvp_stamp *, m->data_len - sizeof(*st));
			struct nfvp_gen_class *c = nfvp_gen_find_class(g, st->gen_flow);

			c->st.sent--;
			c->st.tx_dropped++;
		}
		rte_pktmbuf_free_bulk(pkts + ok, n - ok);
		g->st.tx_dropped += n - ok;
	}
}

/* Build and send n (<= NFVP_BURST) packets. Returns how many were built (0: pool empty). */
static unsigned int
nfvp_gen_send(struct nfvp_gen *g, unsigned int n)
{
	struct rte_mbuf *pkts[NFVP_BURST];
	uint16_t ring_of[NFVP_BURST];
	uint16_t touched[NFVP_BURST];
	unsigned int i, n_touched = 0;

	if (unlikely(rte_pktmbuf_alloc_bulk(g->pool, pkts, n) != 0)) {
		/* all or nothing: with the pool nearly empty, send a shorter burst */
		n = RTE_MIN(n, rte_mempool_avail_count(g->pool));
		if (n == 0 || rte_pktmbuf_alloc_bulk(g->pool, pkts, n) != 0) {
			g->st.pool_empty++;
			return 0;
		}
	}
	nfvp_gen_fill(g, pkts, n, ring_of);

	if (g->n_rx == 1) {
		nfvp_gen_enqueue(g, g->rx_rings[0], pkts, n);
		return n;
	}
	for (i = 0; i < n; i++) {
		uint16_t r = ring_of[i];

		if (g->stage_n[r] == 0)
			touched[n_touched++] = r;
		g->stage[(size_t)r * NFVP_BURST + g->stage_n[r]++] = pkts[i];
	}
	for (i = 0; i < n_touched; i++) {
		uint16_t r = touched[i];

		nfvp_gen_enqueue(g, g->rx_rings[r], &g->stage[(size_t)r * NFVP_BURST],
				 g->stage_n[r]);
		g->stage_n[r] = 0;
	}
	return n;
}

static void
nfvp_gen_nap_record(struct nfvp_gen_naps *z, uint64_t requested_ns, uint64_t slept_ns)
{
	int64_t k = nfvp_sample_slot(&z->sample);

	z->requested_ns_sum += requested_ns;
	z->slept_ns_sum += slept_ns;
	if (k >= 0) {
		z->pairs[k][0] = requested_ns;
		z->pairs[k][1] = slept_ns;
	}
}

/* --idle sleep: give the CPU away until the next full burst is due (the generator shares a
 * CPU with the NFs on a small machine), at most NFVP_GEN_NAP_MAX_US: packets that come back
 * wait in the ring until it wakes, and that wait is part of the latency it measures. How long
 * each nap really took is recorded: a sleep overshoots by the timer slack and the scheduler. */
static void
nfvp_gen_nap(struct nfvp_gen *g, uint64_t start, uint64_t now)
{
	double next = (double)(g->st.sent + g->st.tx_dropped + NFVP_BURST) / g->pkts_per_tsc;
	double wait_ns = (next - (double)(now - start)) * g->ns_per_tsc;
	struct timespec ts = { 0 };
	uint64_t t0;

	if (wait_ns < NFVP_GEN_NAP_MIN_US * 1e3)
		return;
	ts.tv_nsec = (long)RTE_MIN(wait_ns, NFVP_GEN_NAP_MAX_US * 1e3);
	t0 = rte_rdtsc();
	nanosleep(&ts, NULL);
	nfvp_gen_nap_record(&g->naps, (uint64_t)ts.tv_nsec,
			    (uint64_t)((double)(rte_rdtsc() - t0) * g->ns_per_tsc + 0.5));
}

/* This thread's CPU time in ns: what the sending costs its CPU (naps excluded), which a model
 * of a CPU shared with NFs needs. */
static uint64_t
nfvp_gen_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Send for --duration (or until a signal), then keep receiving for --drain-ms. */
void
nfvp_gen_run(struct nfvp_gen *g)
{
	uint64_t start, end, drain_end, now;
	bool paced = g->conf.rate_pps > 0;

	g->send_cpu_ns = nfvp_gen_cpu_ns();
	g->start_tsc = start = rte_rdtsc();
	end = start + (uint64_t)RTE_MIN(g->conf.duration_s * (double)g->hz, 9e18); /* < 2^63 */
	now = start;
	while (!nfvp_gen_stop && now < end) {
		unsigned int sent = 0, n = NFVP_BURST;

		if (paced) {
			uint64_t due = (uint64_t)((double)(now - start) * g->pkts_per_tsc);
			uint64_t attempted = g->st.sent + g->st.tx_dropped;

			n = due > attempted ? (unsigned int)RTE_MIN(due - attempted,
								    (uint64_t)NFVP_BURST) : 0;
		}
		if (n != 0)
			sent = nfvp_gen_send(g, n);
		if (nfvp_gen_recv(g) == 0 && sent == 0) {
			if (paced && g->conf.sleep_idle)
				nfvp_gen_nap(g, start, now);
			else
				rte_pause();
		}
		now = rte_rdtsc();
	}
	g->send_tsc = now - start;
	g->send_cpu_ns = nfvp_gen_cpu_ns() - g->send_cpu_ns;

	drain_end = now + g->hz / 1000 * g->conf.drain_ms;
	while (rte_rdtsc() < drain_end)
		if (nfvp_gen_recv(g) == 0)
			rte_pause();
}
