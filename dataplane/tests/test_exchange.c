/* SPDX-License-Identifier: MIT */
/* test_exchange.c: unit tests of the vSwitch's exchange code (hops, drops, bursts, doorbells,
 * reclaiming a dead NF's mbufs), in one process: the test plays the NFs itself. */

#include "exchange_fixture.h"

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
	finish();
}

/* An NF handed more than a burst in one loop goes out a burst at a time and is on the flush's
 * list once (the list holds an entry an NF); a burst back from an NF is appended to what waits
 * for the next one. */
static void
test_an_nf_is_listed_once_a_loop(void)
{
	setup(NFVP_ARCH_DOUBLE_BUFFER, 256);
	dispatch_n(100, 0);
	CHECK(vs.nfs[0].sent == 96 && vs.nfs[0].pend.n == 4);
	CHECK(vs.n_dirty == 1);
	vs_flush(&vs);
	CHECK(vs.nfs[0].sent == 100 && vs.n_dirty == 0 && !vs.nfs[0].pend.listed);
	CHECK(play_nf(0, 0) == 100);
	dispatch_n(10, 1);
	CHECK(vs_poll_nfs(&vs, 0) == NFVP_BURST); /* 10 + 32 for NF 1: one burst goes */
	CHECK(vs.nfs[1].sent == NFVP_BURST && vs.nfs[1].pend.n == 10 && vs.n_dirty == 1);
	pump();
	CHECK(vs.nfs[1].sent == 110 && vs_in_flight(&vs) == 110);
	finish();
	CHECK(vs.ports[0].tx == 110);
}

static void
test_a_dead_nfs_mbufs_come_back(void)
{
	struct rte_mbuf *held[5];

	setup(NFVP_ARCH_DOUBLE_BUFFER, 256);
	send_in(20);
	/* the NF took 5 and died holding them; 15 wait in its ring */
	CHECK(nf_take(0, held, 5) == 5);
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
	setup(NFVP_ARCH_DOUBLE_BUFFER, 256);
	dispatch_n(5, 0);
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
	n = nf_take(1, pkts, 15);
	CHECK(n == 15);
	for (n = 0; n < 10; n++) /* the hop NF 1 sits at in this chain */
		nfvp_meta(pkts[n])->hop = 0;
	nf_give(1, pkts, 10, NULL);
	stopped = vs_nfs_stop(&vs);
	CHECK(vs.nfs[0].slot->stop && vs.nfs[1].slot->stop);
	CHECK(vs.nfs[1].returned == 10 && vs.nfs[0].sent == 10);
	CHECK(stopped == 30 && vs.drops.nf_dead == 0);
	CHECK(vs.nfs[0].lost_at_death == 10 && vs.nfs[1].lost_at_death == 20);
	CHECK(vs_in_flight(&vs) == 0);
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
	n = nf_take(0, pkts, NFVP_BURST);
	CHECK(n == NFVP_BURST);
	nf_give(0, pkts, n, NULL);
	CHECK(vs_poll_nfs(&vs, 0) == 0); /* handed back, but no bell: not read */
	n = nf_take(0, pkts, NFVP_BURST);
	CHECK(n == 8);
	nf_give(0, pkts, n, NULL);
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
	uint64_t d[NFVP_BURST];
	uint32_t old_head, new_head, free_entries;
	unsigned int n;

	setup(NFVP_ARCH_SHARED_RING, 256);
	send_in(8);
	play_nf(0, 0);
	pump(); /* 8 wait for NF 1 */
	n = nf_take(1, pkts, NFVP_BURST);
	CHECK(n == 8);
	describe_all(pkts, n, NULL, d);
	CHECK(__rte_ring_move_prod_head(vs.nfs[1].from_nf, 1, n, RTE_RING_QUEUE_FIXED, &old_head,
					&new_head, &free_entries) == n);
	/* half written, never published: NF 1 is killed here */
	memcpy(&((uint64_t *)&vs.nfs[1].from_nf[1])[old_head & vs.nfs[1].from_nf->mask], d,
	       4 * sizeof(d[0]));
	send_in(5);
	CHECK(play_nf(0, 0) == 5);
	CHECK(vs_poll_nfs(&vs, 0) == 5); /* NF 0's returns still come back */
	vs_flush(&vs);
	vs.nfs[1].alive = 0;
	vs_nf_reclaim(&vs, &vs.nfs[1]);
	CHECK(vs.drops.nf_dead == 13 && vs.nfs[1].lost_at_death == 13);
	CHECK(rte_mempool_avail_count(pool) == pool->size);
}

/* What an NF hands back is applied to its mbuf: a moved start and length, a chosen port that
 * stays for the hops after it; a start and length beyond the buffer are not. An NF is handed a
 * packet's start, length and the port it came in on, never the mbuf. */
static void
test_descriptors_carry_what_the_nf_changed(void)
{
	struct rte_mbuf *pkts[NFVP_BURST];
	uint64_t d[2], in[2];
	uint16_t off0, len0, off1, len1;

	setup(NFVP_ARCH_DOUBLE_BUFFER, 256);
	send_in(2);
	CHECK(rte_ring_dequeue_burst_elem(vs.nfs[0].to_nf, in, sizeof(in[0]), 2, NULL) == 2);
	pkts[0] = desc_mbuf(in[0]);
	pkts[1] = desc_mbuf(in[1]);
	off0 = pkts[0]->data_off, len0 = pkts[0]->data_len;
	off1 = pkts[1]->data_off, len1 = pkts[1]->data_len;
	CHECK(NFVP_DESC_DATA_OFF(in[0]) == off0 && NFVP_DESC_LEN(in[0]) == len0 && len0 == 60);
	CHECK(pkts[0]->port == RTE_MBUF_PORT_INVALID);
	CHECK(NFVP_DESC_PORT(in[0]) == NFVP_DESC_PORT_MAX);
	CHECK(NFVP_DESC_VERDICT(in[0]) == NFVP_PASS);
	d[0] = nfvp_desc(vs_arena_off(&vs, pkts[0]), off0 - 4, len0 + 4, 3, NFVP_PASS); /* port 2 */
	d[1] = nfvp_desc(vs_arena_off(&vs, pkts[1]), NFVP_DESC_FIELD_MAX, NFVP_DESC_FIELD_MAX, 0,
			 NFVP_PASS);
	CHECK(rte_ring_enqueue_burst_elem(vs.nfs[0].from_nf, d, sizeof(d[0]), 2, NULL) == 2);
	pump(); /* on to NF 1 */
	CHECK(pkts[0]->data_off == off0 - 4 && pkts[0]->data_len == len0 + 4);
	CHECK(pkts[0]->pkt_len == len0 + 4u && nfvp_meta(pkts[0])->port == 3);
	CHECK(pkts[1]->data_off == off1 && pkts[1]->data_len == len1);
	CHECK(nf_take(1, pkts, 2) == 2);
	nf_give(1, pkts, 2, NULL); /* NF 1 chooses no port */
	vs_poll_nfs(&vs, 0);
	CHECK(vs.ports[0].n_tx == 2 && nfvp_meta(vs.ports[0].tx_buf[0])->port == 3);
	vs_flush(&vs);
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
	(void)argc;
	if (fixture_init(argv[0]) != 0)
		return 1;
	test_packets_cross_every_hop_and_leave();
	test_a_full_ring_drops_and_frees();
	test_an_nf_is_listed_once_a_loop();
	test_a_dead_nfs_mbufs_come_back();
	test_stages_count_what_they_move();
	test_stopping_frees_and_counts_every_held_packet(NFVP_ARCH_DOUBLE_BUFFER);
	test_stopping_frees_and_counts_every_held_packet(NFVP_ARCH_SHARED_RING);
	test_doorbells_say_which_nfs_to_read();
	test_an_nf_dead_mid_enqueue_stalls_no_one();
	test_descriptors_carry_what_the_nf_changed();
	test_cycle_bins_cover_the_range_in_order();
	printf("%d passed, %d failed\n", passed, failed);
	rte_eal_cleanup();
	return failed ? 1 : 0;
}
