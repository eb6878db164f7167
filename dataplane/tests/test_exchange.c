/* SPDX-License-Identifier: MIT */
/* test_exchange.c: unit tests of the vSwitch's exchange code (hops, drops, bursts, wake-ups,
 * reclaiming a dead NF's mbufs), in one process: the test plays the NFs itself. */

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
	vs.cfg.max_nfs = 2;
	vs.cfg.wake_batch = 32;
	vs.cfg.wake_timeout_us = 100;
	vs.hz = rte_get_tsc_hz();
	vs.pool = pool;
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

static void
send_in(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

		rte_pktmbuf_append(m, 60);
		*nfvp_meta(m) = (struct nfvp_meta){ .chain = 0 };
		vs_dispatch(&vs, m, NULL);
	}
	vs_flush(&vs);
}

/* Play NF i: take what waits, mark every drop_every-th packet dropped, hand all back. */
static unsigned int
play_nf(unsigned int i, unsigned int drop_every)
{
	struct rte_mbuf *pkts[NFVP_BURST];
	unsigned int n, j, total = 0;

	while ((n = rte_ring_dequeue_burst(vs.nfs[i].to_nf, (void **)pkts, NFVP_BURST, NULL))) {
		for (j = 0; j < n; j++) {
			CHECK(nfvp_meta(pkts[j])->owner == i + 1);
			CHECK(nfvp_meta(pkts[j])->hop == i);
			nfvp_meta(pkts[j])->verdict = drop_every && (total + j + 1) % drop_every == 0 ?
						      NFVP_DROP : NFVP_PASS;
		}
		rte_ring_enqueue_burst(vs.nfs[i].from_nf, (void **)pkts, n, NULL);
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

static void
test_packets_cross_every_hop_and_leave(void)
{
	setup(NFVP_ARCH_DOUBLE_BUFFER, 256);
	send_in(40);
	CHECK(vs.nfs[0].sent == 40 && rte_ring_count(vs.nfs[0].to_nf) == 40);
	CHECK(vs_in_flight(&vs) == 40);
	CHECK(play_nf(0, 4) == 40); /* drops 10 */
	pump();
	CHECK(vs.drops.nf == 10);
	CHECK(vs.nfs[1].sent == 30);
	CHECK(play_nf(1, 0) == 30);
	pump();
	CHECK(vs.ports[0].tx == 30);
	CHECK(vs_in_flight(&vs) == 0);
	CHECK(rte_mempool_avail_count(pool) == pool->size);
}

static void
test_a_full_ring_drops_and_frees(void)
{
	setup(NFVP_ARCH_DOUBLE_BUFFER, 64); /* holds 63 */
	send_in(100);
	CHECK(vs.nfs[0].sent == 63);
	CHECK(vs.drops.ring_full == 37);
	CHECK(rte_mempool_avail_count(pool) == pool->size - 63);
	play_nf(0, 0);
	pump();
	play_nf(1, 0);
	pump();
	CHECK(rte_mempool_avail_count(pool) == pool->size);
}

static void
test_a_dead_nfs_mbufs_come_back(void)
{
	struct rte_mbuf *held[5];

	setup(NFVP_ARCH_DOUBLE_BUFFER, 256);
	send_in(20);
	/* the NF took 5 and died holding them; 15 wait in its ring */
	CHECK(rte_ring_dequeue_bulk(vs.nfs[0].to_nf, (void **)held, 5, NULL) == 5);
	vs.nfs[0].alive = 0;
	vs_nf_reclaim(&vs, &vs.nfs[0]);
	CHECK(vs.drops.nf_dead == 20);
	CHECK(vs_in_flight(&vs) == 0);
	CHECK(rte_mempool_avail_count(pool) == pool->size);
	send_in(3); /* its chain now drops at the dead hop */
	CHECK(vs.drops.nf_absent == 3);
	CHECK(rte_mempool_avail_count(pool) == pool->size);
}

/* Each stage says how many packets it moved: the vSwitch's per-stage cycles are fitted to it. */
static void
test_stages_count_what_they_move(void)
{
	unsigned int i;

	setup(NFVP_ARCH_DOUBLE_BUFFER, 256);
	for (i = 0; i < 5; i++) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

		rte_pktmbuf_append(m, 60);
		*nfvp_meta(m) = (struct nfvp_meta){ .chain = 0 };
		vs_dispatch(&vs, m, NULL);
	}
	CHECK(vs_flush(&vs) == 5 && vs_flush(&vs) == 0);
	play_nf(0, 0);
	CHECK(vs_poll_nfs(&vs, 0) == 5 && vs_poll_nfs(&vs, 0) == 0);
	CHECK(vs_flush(&vs) == 5); /* into NF 1's ring */
	play_nf(1, 0);
	CHECK(vs_poll_nfs(&vs, 0) == 5);
	CHECK(vs_flush(&vs) == 5); /* out of the port */
	CHECK(vs.ports[0].tx == 5 && rte_mempool_avail_count(pool) == pool->size);
	CHECK(vs_poll_ports(&vs, 0) == 0);
}

/* At the end of a run every packet an NF holds goes back, counted: also one that an NF
 * finished on the way out and that goes on to an NF stopped before it (chain 1 -> 0, and the
 * NFs stop in the order 0, 1). */
static void
test_stopping_frees_and_counts_every_held_packet(enum nfvp_arch arch)
{
	struct rte_mbuf *pkts[NFVP_BURST];
	unsigned int n;
	uint64_t stopped;

	setup(arch, 256);
	vs.chains[0].nf[0] = 1;
	vs.chains[0].nf[1] = 0;
	send_in(30);
	CHECK(vs.nfs[1].sent == 30);
	/* NF 1 finished 10 (in its from_nf ring), holds 5, has not read 15 */
	n = rte_ring_dequeue_burst(vs.nfs[1].to_nf, (void **)pkts, 15, NULL);
	CHECK(n == 15);
	for (n = 0; n < 10; n++) /* the hop NF 1 sits at in this chain */
		nfvp_meta(pkts[n])->hop = 0;
	rte_ring_enqueue_burst(vs.nfs[1].from_nf, (void **)pkts, 10, NULL);
	stopped = vs_nfs_stop(&vs);
	CHECK(vs.nfs[0].slot->stop && vs.nfs[1].slot->stop);
	CHECK(vs.nfs[1].returned == 10 && vs.nfs[0].sent == 10);
	CHECK(stopped == 30 && vs.drops.nf_dead == 0);
	CHECK(vs.nfs[0].lost_at_death == 10 && vs.nfs[1].lost_at_death == 20);
	CHECK(vs_in_flight(&vs) == 0);
	CHECK(rte_mempool_avail_count(pool) == pool->size);
}

static int
sem_count(struct vs_nf *nf)
{
	int v;

	sem_getvalue(&nf->slot->sem, &v);
	return v;
}

static void
test_semaphore_wakes_on_batch_or_age(void)
{
	setup(NFVP_ARCH_SEMAPHORE, 256);
	vs.nfs[0].slot->sleeping = 1;
	send_in(5); /* fewer than wake_batch: no post yet */
	CHECK(sem_count(&vs.nfs[0]) == 0);
	CHECK(vs.n_aging == 1);
	vs_age(&vs, vs.nfs[0].pending_since - 1); /* a clock read before it began to wait */
	CHECK(sem_count(&vs.nfs[0]) == 0);
	vs_age(&vs, rte_rdtsc()); /* not old yet */
	CHECK(sem_count(&vs.nfs[0]) == 0);
	vs_age(&vs, rte_rdtsc() + vs.hz); /* a second later: aged */
	CHECK(sem_count(&vs.nfs[0]) == 1 && vs.nfs[0].wakeups == 1 && vs.n_aging == 0);
	vs.nfs[0].slot->sleeping = 1;
	send_in(40); /* a batch's worth: posted at once */
	CHECK(sem_count(&vs.nfs[0]) == 2 && vs.nfs[0].wakeups == 2);
	vs.nfs[0].slot->sleeping = 0;
	send_in(40); /* awake: no post */
	CHECK(sem_count(&vs.nfs[0]) == 2);
	play_nf(0, 0);
	pump();
	play_nf(1, 0);
	pump();
	CHECK(rte_mempool_avail_count(pool) == pool->size);
}

/* NFs woken too often stretch batch and timeout: doubled after a window over the rate,
 * shrunk by an eighth after one under half of it. */
static void
test_batch_and_timeout_stretch_with_the_wake_rate(void)
{
	uint64_t window, t;

	setup(NFVP_ARCH_SEMAPHORE, 256);
	vs.cfg.ring_size = 256;
	vs.cfg.wake_rate_max = 1000;
	window = NFVP_WAKE_WINDOW_US * vs.hz / 1000000;
	t = rte_rdtsc();
	vs_age(&vs, t); /* the first window starts */
	vs.wakes.in_window = 100; /* 10 000 a second */
	vs_age(&vs, t + window);
	CHECK(vs.wakes.stretch == 2.0 && vs.wakes.in_window == 0);
	/* the batch is 64 now: 40 or 60 waiting do not wake a sleeper, 65 do */
	vs.nfs[0].slot->sleeping = 1;
	send_in(40);
	CHECK(vs.nfs[0].wakeups == 0 && vs.n_aging == 1);
	/* the timeout is 200 µs: not at 150, at 250 */
	vs_age(&vs, vs.nfs[0].pending_since + vs.hz * 150 / 1000000);
	CHECK(vs.nfs[0].wakeups == 0);
	vs_age(&vs, vs.nfs[0].pending_since + vs.hz * 250 / 1000000);
	CHECK(vs.nfs[0].wakeups == 1 && vs.wakes.by_age == 1 && vs.wakes.timeout_sum_us == 200.0);
	vs.nfs[0].slot->sleeping = 1;
	send_in(20); /* 60 wait (the first 40 are still there) */
	CHECK(vs.nfs[0].wakeups == 1);
	send_in(5);
	CHECK(vs.nfs[0].wakeups == 2 && vs.wakes.by_count == 1);
	/* a quiet window: an eighth off; no rate at all: back to 1 */
	vs.wakes.in_window = 0;
	vs_age(&vs, vs.wakes.window_start + window);
	CHECK(vs.wakes.stretch == 1.75 && vs.wakes.stretch_max == 2.0);
	vs.cfg.wake_rate_max = 0;
	for (t = vs.wakes.window_start; vs.wakes.stretch > 1.0; t += window)
		vs_age(&vs, t + window);
	CHECK(vs.wakes.stretch == 1.0);
	play_nf(0, 0);
	pump();
	play_nf(1, 0);
	pump();
	CHECK(rte_mempool_avail_count(pool) == pool->size);
}

/* Blocking NFs: the poll for returns looks at NFs given packets or woken, drops one seen asleep
 * with nothing to return, and a sweep finds one that woke by itself. */
static void
test_returns_are_polled_only_where_they_can_be(void)
{
	struct rte_mbuf *pkts[NFVP_BURST];
	unsigned int n;

	setup(NFVP_ARCH_SEMAPHORE, 256);
	vs.now_tsc = 1;
	vs.next_sweep_tsc = 1000000000000ull; /* no sweep until asked */
	send_in(3); /* NF 0 (awake) is given 3: listed */
	CHECK(vs.n_awake == 1 && vs.awake[0] == 0);
	n = play_nf(0, 0);
	CHECK(n == 3 && vs_poll_nfs(&vs, 0) == 3); /* its returns go on to NF 1: listed too */
	vs_flush(&vs);
	CHECK(vs.n_awake == 2);
	play_nf(1, 0);
	vs.nfs[0].slot->sleeping = 1;
	vs.nfs[1].slot->sleeping = 1;
	CHECK(vs_poll_nfs(&vs, 0) == 3); /* NF 1's returns are read although it sleeps now */
	vs_flush(&vs);
	CHECK(vs_poll_nfs(&vs, 0) == 0 && vs.n_awake == 0); /* both asleep, nothing back */
	/* NF 0 wakes by itself and hands something back: only a sweep sees it */
	vs.nfs[0].slot->sleeping = 0;
	n = rte_pktmbuf_alloc_bulk(pool, pkts, 2) == 0 ? 2 : 0;
	CHECK(n == 2);
	nfvp_meta(pkts[0])->chain = nfvp_meta(pkts[1])->chain = 0;
	nfvp_meta(pkts[0])->hop = nfvp_meta(pkts[1])->hop = 1; /* on out of the chain */
	nfvp_meta(pkts[0])->verdict = nfvp_meta(pkts[1])->verdict = NFVP_PASS;
	rte_ring_enqueue_burst(vs.nfs[0].from_nf, (void **)pkts, 2, NULL);
	CHECK(vs_poll_nfs(&vs, 0) == 0);
	vs.now_tsc = vs.next_sweep_tsc;
	CHECK(vs_poll_nfs(&vs, 0) == 2);
	vs_flush(&vs);
	CHECK(vs.next_sweep_tsc > vs.now_tsc);
	CHECK(rte_mempool_avail_count(pool) == pool->size);
}

/* shared-ring: the vSwitch reads only the rings of NFs that rang; one with more than a burst
 * left rings again for the next look; a bit of a dead NF is ignored. */
static void
test_doorbells_say_which_nfs_to_read(void)
{
	struct rte_mbuf *pkts[NFVP_BURST];
	unsigned int n;

	setup(NFVP_ARCH_SHARED_RING, 256);
	send_in(40);
	n = rte_ring_dequeue_burst(vs.nfs[0].to_nf, (void **)pkts, NFVP_BURST, NULL);
	CHECK(n == NFVP_BURST);
	rte_ring_enqueue_burst(vs.nfs[0].from_nf, (void **)pkts, n, NULL);
	CHECK(vs_poll_nfs(&vs, 0) == 0); /* handed back, but no bell: not read */
	n = rte_ring_dequeue_burst(vs.nfs[0].to_nf, (void **)pkts, NFVP_BURST, NULL);
	CHECK(n == 8);
	rte_ring_enqueue_burst(vs.nfs[0].from_nf, (void **)pkts, n, NULL);
	nfvp_ring_bell(vs.bells, 0);
	CHECK(vs.bells[0] == 1);
	CHECK(vs_poll_nfs(&vs, 0) == NFVP_BURST && vs.bells[0] == 1); /* 8 more: rung again */
	CHECK(vs_poll_nfs(&vs, 0) == 8 && vs.bells[0] == 0);
	vs_flush(&vs);
	nfvp_ring_bell(vs.bells, 1);
	vs.nfs[1].alive = 0;
	CHECK(vs_poll_nfs(&vs, 0) == 0 && vs.bells[0] == 0);
	vs.nfs[1].alive = 1;
	play_nf(1, 0);
	pump();
	CHECK(rte_mempool_avail_count(pool) == pool->size);
}

/* An NF that dies between taking slots in its ring back and publishing them (a SIGKILL in the
 * middle of an enqueue) stalls no other NF's returns, and its packets come back at its death.
 * (One multi-producer ring shared by every NF stalled for good here.) */
static void
test_an_nf_dead_mid_enqueue_stalls_no_one(void)
{
	struct rte_mbuf *pkts[NFVP_BURST];
	uint32_t old_head, new_head, free_entries;
	unsigned int n;

	setup(NFVP_ARCH_SHARED_RING, 256);
	send_in(8);
	play_nf(0, 0);
	pump(); /* 8 wait for NF 1 */
	n = rte_ring_dequeue_burst(vs.nfs[1].to_nf, (void **)pkts, NFVP_BURST, NULL);
	CHECK(n == 8);
	CHECK(__rte_ring_move_prod_head(vs.nfs[1].from_nf, 1, n, RTE_RING_QUEUE_FIXED, &old_head,
					&new_head, &free_entries) == n);
	/* half written, never published: NF 1 is killed here */
	memcpy(&((void **)&vs.nfs[1].from_nf[1])[old_head & vs.nfs[1].from_nf->mask], pkts,
	       4 * sizeof(void *));
	send_in(5);
	CHECK(play_nf(0, 0) == 5);
	CHECK(vs_poll_nfs(&vs, 0) == 5); /* NF 0's returns still come back */
	vs_flush(&vs);
	vs.nfs[1].alive = 0;
	vs_nf_reclaim(&vs, &vs.nfs[1]);
	CHECK(vs.drops.nf_dead == 13 && vs.nfs[1].lost_at_death == 13);
	CHECK(rte_mempool_avail_count(pool) == pool->size);
}

/* NF cycle histograms: exact below 256, then bins about 3 % wide whose middles are within 1.6 %
 * of every value in them, in order, up to 65535; everything above in the last bin. */
static void
test_cycle_bins_cover_the_range_in_order(void)
{
	unsigned int prev = 0, c, bad = 0;

	CHECK(nfvp_cycle_bin(0) == 0 && nfvp_cycle_bin(255) == 255);
	CHECK(nfvp_cycle_bin(256) == 256 && nfvp_cycle_bin(0xffff) == NFVP_CYCLE_BINS - 1);
	CHECK(nfvp_cycle_bin(1u << 30) == NFVP_CYCLE_BINS - 1);
	for (c = 1; c <= 0xffff; c++) {
		unsigned int b = nfvp_cycle_bin(c);
		double mid = nfvp_cycle_bin_mid(b);

		if (b < prev || b > prev + 1 || mid < 0.984 * c - 0.5 || mid > 1.016 * c + 0.5)
			bad++;
		prev = b;
	}
	CHECK(bad == 0);
}

int
main(int argc, char **argv)
{
	/* one process, no hugepages; one runtime directory, reused by every run */
	char *eal[] = { argv[0], "-l", "0", "--no-huge", "--no-pci", "-m", "256",
			"--file-prefix=nfvp_unit", "--log-level", "lib.eal:error",
			"--vdev", "net_null0" };
	struct rte_eth_conf conf;

	(void)argc;
	if (rte_eal_init(RTE_DIM(eal), eal) < 0) {
		fprintf(stderr, "test_exchange: EAL did not start\n");
		return 1;
	}
	pool = rte_pktmbuf_pool_create("test_pool", 1023, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	memset(&conf, 0, sizeof(conf));
	if (pool == NULL || rte_eth_dev_configure(0, 1, 1, &conf) < 0 ||
	    rte_eth_rx_queue_setup(0, 0, 256, SOCKET_ID_ANY, NULL, pool) < 0 ||
	    rte_eth_tx_queue_setup(0, 0, 256, SOCKET_ID_ANY, NULL) < 0 || rte_eth_dev_start(0) < 0) {
		fprintf(stderr, "test_exchange: set-up failed\n");
		return 1;
	}
	test_packets_cross_every_hop_and_leave();
	test_a_full_ring_drops_and_frees();
	test_a_dead_nfs_mbufs_come_back();
	test_stages_count_what_they_move();
	test_stopping_frees_and_counts_every_held_packet(NFVP_ARCH_DOUBLE_BUFFER);
	test_stopping_frees_and_counts_every_held_packet(NFVP_ARCH_SHARED_RING);
	test_semaphore_wakes_on_batch_or_age();
	test_doorbells_say_which_nfs_to_read();
	test_an_nf_dead_mid_enqueue_stalls_no_one();
	test_batch_and_timeout_stretch_with_the_wake_rate();
	test_returns_are_polled_only_where_they_can_be();
	test_cycle_bins_cover_the_range_in_order();
	printf("%d passed, %d failed\n", passed, failed);
	rte_eal_cleanup();
	return failed ? 1 : 0;
}
