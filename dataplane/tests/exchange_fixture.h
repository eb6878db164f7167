/* SPDX-License-Identifier: MIT */
/* exchange_fixture.h: the vSwitch's exchange code in one process, for its unit tests: two NFs in
 * one chain, played by the test itself (setup, send_in, play_nf, pump), and the EAL with a
 * net_null port (fixture_init). Included by one test file each. */

#ifndef NFVP_EXCHANGE_FIXTURE_H
#define NFVP_EXCHANGE_FIXTURE_H

#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "check.h"
#include "vswitch.h"

static struct vswitch vs;
static struct rte_mempool *pool;

/* Where descriptors count from: here no arena, so the lowest of the pool's memory chunks. */
static uint8_t *
arena_of(struct rte_mempool *mp)
{
	struct rte_mempool_memhdr *h;
	uint8_t *low = NULL;

	STAILQ_FOREACH(h, &mp->mem_list, next)
		if (low == NULL || (uint8_t *)h->addr < low)
			low = h->addr;
	return (uint8_t *)RTE_ALIGN_FLOOR((uintptr_t)low, RTE_CACHE_LINE_SIZE);
}

/* The mbuf descriptor d names */
static struct rte_mbuf *
desc_mbuf(uint64_t d)
{
	return (struct rte_mbuf *)(vs.arena + NFVP_DESC_OFF(d));
}

/* An NF's side of its rings, as nflib plays it: up to max mbufs that NF i's descriptors name */
static unsigned int
nf_take(unsigned int i, struct rte_mbuf **pkts, unsigned int max)
{
	uint64_t d[NFVP_BURST];
	unsigned int j, n;

	n = rte_ring_dequeue_burst_elem(vs.nfs[i].to_nf, d, sizeof(uint64_t),
					RTE_MIN(max, (unsigned int)NFVP_BURST), NULL);
	for (j = 0; j < n; j++)
		pkts[j] = desc_mbuf(d[j]);
	return n;
}

/* n descriptors of pkts, each with its verdict (drops: NULL, all pass) */
static void
describe_all(struct rte_mbuf **pkts, unsigned int n, const uint8_t *drops, uint64_t *d)
{
	unsigned int j;

	for (j = 0; j < n; j++)
		d[j] = nfvp_desc(vs_arena_off(&vs, pkts[j]), pkts[j]->data_off, pkts[j]->data_len,
				 0, drops != NULL && drops[j] ? NFVP_DROP : NFVP_PASS);
}

/* NF i hands pkts back, as nflib does; how many went into its ring */
static unsigned int
nf_give(unsigned int i, struct rte_mbuf **pkts, unsigned int n, const uint8_t *drops)
{
	uint64_t d[NFVP_BURST];

	describe_all(pkts, n, drops, d);
	return rte_ring_enqueue_burst_elem(vs.nfs[i].from_nf, d, sizeof(uint64_t), n, NULL);
}

static void
setup(enum nfvp_arch arch, unsigned int ring_size)
{
	static char rname[2][2][32];
	static unsigned int generation;
	unsigned int i;

	memset(&vs, 0, sizeof(vs));
	for (i = 0; i < NFVP_MAX_PORTS; i++)
		vs.port_chain[i] = -1;
	vs.cfg.arch = arch;
	vs.wakes.stretch = vs.wakes.stretch_max = 1;
	vs.cfg.max_nfs = 2;
	vs.cfg.wake_batch = 32;
	vs.cfg.wake_timeout_us = 100;
	vs.hz = rte_get_tsc_hz();
	vs.pool = pool;
	vs.arena = arena_of(pool);
	vs.n_ports = 1;
	vs.ports[0].id = 0; /* net_null0: frees what it sends */
	vs.chains = calloc(NFVP_MAX_CHAINS, sizeof(*vs.chains));
	vs.nfs = calloc(2, sizeof(*vs.nfs));
	vs.active = calloc(2, sizeof(*vs.active));
	vs.dirty = calloc(2, sizeof(*vs.dirty));
	vs.aging = calloc(2, sizeof(*vs.aging));
	vs.awake = calloc(2, sizeof(*vs.awake));
	generation++;
	for (i = 0; i < 2; i++) {
		struct vs_nf *nf = &vs.nfs[i];

		snprintf(rname[i][0], 32, "t%u_%u_to", generation, i);
		snprintf(rname[i][1], 32, "t%u_%u_from", generation, i);
		nf->slot = rte_zmalloc(NULL, sizeof(*nf->slot), RTE_CACHE_LINE_SIZE);
		nf->slot->id = i;
		sem_init(&nf->slot->sem, 1, 0);
		nf->to_nf = rte_ring_create(rname[i][0], ring_size, SOCKET_ID_ANY,
					    RING_F_SP_ENQ | RING_F_SC_DEQ);
		nf->from_nf = rte_ring_create(rname[i][1], 2 * ring_size, SOCKET_ID_ANY,
					      RING_F_SP_ENQ | RING_F_SC_DEQ);
		nf->alive = 1;
		vs.active[vs.n_active++] = i;
	}
	if (arch == NFVP_ARCH_SHARED_RING) /* NFs ring a doorbell when they hand back */
		vs.bells = calloc(1, sizeof(*vs.bells));
	vs.n_nf_ids = 2;
	vs.chains[0] = (struct vs_chain){ .used = 1, .len = 2, .out_port = 0, .nf = { 0, 1 },
					  .nic_queue = -1 };
	vs.n_chains = 1;
}

/* n packets of chain 0 at hop hop, handed to the vSwitch's dispatch with no flush after them */
static void
dispatch_n(unsigned int n, uint8_t hop)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

		rte_pktmbuf_append(m, 60);
		*nfvp_meta(m) = (struct nfvp_meta){ .chain = 0, .hop = hop };
		vs_dispatch(&vs, m, NULL);
	}
}

/* n packets in from a port, and the loop's flush */
static void
send_in(unsigned int n)
{
	dispatch_n(n, 0);
	vs_flush(&vs);
}

/* Play NF i: take what waits, mark every drop_every-th packet dropped, hand all back. */
static unsigned int
play_nf(unsigned int i, unsigned int drop_every)
{
	struct rte_mbuf *pkts[NFVP_BURST];
	uint8_t drops[NFVP_BURST];
	unsigned int n, j, total = 0;

	while ((n = nf_take(i, pkts, NFVP_BURST))) {
		for (j = 0; j < n; j++) {
			CHECK(nfvp_meta(pkts[j])->owner == i + 1);
			CHECK(nfvp_meta(pkts[j])->hop == i);
			drops[j] = drop_every && (total + j + 1) % drop_every == 0;
		}
		nf_give(i, pkts, n, drops);
		if (vs.bells != NULL)
			nfvp_ring_bell(vs.bells, i);
		total += n;
	}
	return total;
}

/* What the NFs handed back goes on (one burst per NF per poll, so poll until empty). */
static void
pump(void)
{
	while (vs_poll_nfs(&vs, 0) > 0)
		vs_flush(&vs);
	vs_flush(&vs);
}

/* Both NFs hand back what waits for them and it all leaves; every mbuf is back in the pool. */
static void
finish(void)
{
	play_nf(0, 0);
	pump();
	play_nf(1, 0);
	pump();
	CHECK(rte_mempool_avail_count(pool) == pool->size);
}

/* One process, no hugepages, a net_null port that frees what it sends; 0, or 1 on failure. */
static int
fixture_init(const char *prog)
{
	char *eal[] = { (char *)prog, "-l", "0", "--no-huge", "--no-pci", "-m", "256",
			"--file-prefix=nfvp_unit", "--log-level", "lib.eal:error",
			"--vdev", "net_null0" };
	struct rte_eth_conf conf;

	if (rte_eal_init(RTE_DIM(eal), eal) < 0) {
		fprintf(stderr, "%s: EAL did not start\n", prog);
		return 1;
	}
	pool = rte_pktmbuf_pool_create("test_pool", 1023, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	memset(&conf, 0, sizeof(conf));
	if (pool == NULL || rte_eth_dev_configure(0, 1, 1, &conf) < 0 ||
	    rte_eth_rx_queue_setup(0, 0, 256, SOCKET_ID_ANY, NULL, pool) < 0 ||
	    rte_eth_tx_queue_setup(0, 0, 256, SOCKET_ID_ANY, NULL) < 0 || rte_eth_dev_start(0) < 0) {
		fprintf(stderr, "%s: set-up failed\n", prog);
		return 1;
	}
	return 0;
}

#endif /* NFVP_EXCHANGE_FIXTURE_H */
