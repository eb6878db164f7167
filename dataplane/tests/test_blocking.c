/* SPDX-License-Identifier: MIT */
/* test_blocking.c: unit tests of how the vSwitch wakes blocking NFs (semaphore, isolated): by
 * batch or age, the stretch with the wake-up rate, which NFs it polls for returns (wake.c). */

#include "exchange_fixture.h"

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
	finish();
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
	finish();
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
	nf_give(0, pkts, 2, NULL);
	CHECK(vs_poll_nfs(&vs, 0) == 0);
	vs.now_tsc = vs.next_sweep_tsc;
	CHECK(vs_poll_nfs(&vs, 0) == 2);
	vs_flush(&vs);
	CHECK(vs.next_sweep_tsc > vs.now_tsc);
	CHECK(rte_mempool_avail_count(pool) == pool->size);
}

int
main(int argc, char **argv)
{
	(void)argc;
	if (fixture_init(argv[0]) != 0)
		return 1;
	test_semaphore_wakes_on_batch_or_age();
	test_batch_and_timeout_stretch_with_the_wake_rate();
	test_returns_are_polled_only_where_they_can_be();
	printf("%d passed, %d failed\n", passed, failed);
	rte_eal_cleanup();
	return failed ? 1 : 0;
}
