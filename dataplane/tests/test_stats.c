/* SPDX-License-Identifier: MIT */
/* test_stats.c: unit tests of the pure statistics helpers: the log-linear histogram's bin
 * bounds (nfvp_hist.h, as the generator exports them) and the reservoir sample
 * (nfvp_sample.h, the generator's naps). */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "nfvp_hist.h"
#include "nfvp_sample.h"

/* Every bin of (exact, sub): contiguous from 0, each one's values map back to it, its middle
 * is the middle of [lo, hi), and the last ends at UINT64_MAX. */
static void
test_bounds(unsigned int exact, unsigned int sub)
{
	unsigned int b, n = NFVP_HIST_BINS(exact, sub), bad = 0;
	uint64_t expect_lo = 0;

	for (b = 0; b < n; b++) {
		uint64_t lo = nfvp_hist_lo(b, exact, sub), hi = nfvp_hist_hi(b, exact, sub);

		bad += lo != expect_lo || hi <= lo;
		bad += nfvp_hist_bin(lo, exact, sub) != b || nfvp_hist_bin(hi - 1, exact, sub) != b;
		if (b + 1 < n)
			bad += nfvp_hist_bin(hi, exact, sub) != b + 1;
		/* the bin's middle as the percentiles take it: within half a value of [lo, hi)'s */
		bad += fabs(nfvp_hist_mid(b, exact, sub) - ((double)lo + (double)(hi - 1)) / 2) >
		       0.5 + 1e-12 * (double)hi;
		expect_lo = hi;
	}
	CHECK(bad == 0);
	CHECK(nfvp_hist_lo(0, exact, sub) == 0 && nfvp_hist_hi(0, exact, sub) == 1);
	CHECK(nfvp_hist_hi(n - 1, exact, sub) == UINT64_MAX);
	CHECK(nfvp_hist_bin(UINT64_MAX, exact, sub) == n - 1);
}

/* Values around every power of two and its sub-bins land in a bin whose bounds hold them. */
static void
test_values(unsigned int exact, unsigned int sub)
{
	unsigned int e, bad = 0;
	int d;

	for (e = 0; e < 64; e++)
		for (d = -3; d <= 3; d++) {
			uint64_t v = (UINT64_C(1) << e) + (uint64_t)(int64_t)d;
			unsigned int b = nfvp_hist_bin(v, exact, sub);

			bad += v < nfvp_hist_lo(b, exact, sub) ||
			       (v >= nfvp_hist_hi(b, exact, sub) && v != UINT64_MAX);
		}
	CHECK(bad == 0);
}

/* The generator's latency bins by hand (exact 6, sub 6: 1 ns wide below 64 ns, then 64 per
 * octave): 100 ns is in [100, 101); 1000 ns in [512 + 61 x 8, + 8) = [1000, 1008); 1 ms in
 * [2^19 + 58 x 2^13, + 2^13) = [999424, 1007616). */
static void
test_gen_bins(void)
{
	unsigned int b;

	b = nfvp_hist_bin(63, 6, 6);
	CHECK(nfvp_hist_lo(b, 6, 6) == 63 && nfvp_hist_hi(b, 6, 6) == 64);
	b = nfvp_hist_bin(100, 6, 6);
	CHECK(nfvp_hist_lo(b, 6, 6) == 100 && nfvp_hist_hi(b, 6, 6) == 101);
	b = nfvp_hist_bin(1000, 6, 6);
	CHECK(nfvp_hist_lo(b, 6, 6) == 1000 && nfvp_hist_hi(b, 6, 6) == 1008);
	b = nfvp_hist_bin(1000000, 6, 6);
	CHECK(nfvp_hist_lo(b, 6, 6) == 999424 && nfvp_hist_hi(b, 6, 6) == 1007616);
}

/* Fewer items than slots: all kept, in order. */
static void
test_sample_fills(void)
{
	struct nfvp_sample s;
	unsigned int i, bad = 0;

	nfvp_sample_init(&s, 16);
	for (i = 0; i < 10; i++)
		bad += nfvp_sample_slot(&s) != (int64_t)i;
	CHECK(bad == 0 && s.n == 10 && s.seen == 10);
}

/* Algorithm R keeps every item with probability cap / seen: over many streams of 64 items into
 * 8 slots, each item position is kept 1/8 of the time (a binomial's 5 standard deviations), the
 * slots are always full and in range, and the same seed gives the same sample. */
static void
test_sample_uniform(void)
{
	enum { CAP = 8, ITEMS = 64, RUNS = 20000 };
	static uint32_t kept[ITEMS];
	struct nfvp_sample s, t;
	unsigned int r, i, bad = 0, same = 1;
	double p = (double)CAP / ITEMS, sd = sqrt(RUNS * p * (1 - p));

	nfvp_sample_init(&s, CAP);
	for (r = 0; r < RUNS; r++) {
		uint32_t slot[CAP];

		/* a fresh stream each run, the generator's state carried on */
		s.seen = 0;
		s.n = 0;
		for (i = 0; i < ITEMS; i++) {
			int64_t k = nfvp_sample_slot(&s);

			if (k >= CAP) {
				bad++;
				continue;
			}
			if (k >= 0)
				slot[k] = i;
		}
		bad += s.n != CAP;
		for (i = 0; i < CAP; i++)
			kept[slot[i]]++;
	}
	CHECK(bad == 0);
	for (i = 0; i < ITEMS; i++)
		bad += fabs(kept[i] - RUNS * p) > 5 * sd;
	CHECK(bad == 0);

	nfvp_sample_init(&s, CAP);
	nfvp_sample_init(&t, CAP);
	for (i = 0; i < 10000; i++)
		same &= nfvp_sample_slot(&s) == nfvp_sample_slot(&t);
	CHECK(same && s.seen == 10000 && s.n == CAP);
}

/* A long stream: late items still get in, at about cap / seen. */
static void
test_sample_late(void)
{
	struct nfvp_sample s;
	uint64_t i, in_last = 0;

	nfvp_sample_init(&s, 4096);
	for (i = 0; i < 1000000; i++)
		if (nfvp_sample_slot(&s) >= 0 && i >= 900000)
			in_last++;
	/* expected 4096 x ln(10/9) = 431.6 of the last 100 000; sd about 20 */
	CHECK(in_last > 330 && in_last < 530);
	CHECK(s.n == 4096 && s.seen == 1000000);
}

int
main(void)
{
	test_bounds(6, 6);  /* the generator's latencies */
	test_bounds(2, 2);  /* the vSwitch's sojourn times */
	test_bounds(8, 5);  /* cycles a packet */
	test_values(6, 6);
	test_values(8, 5);
	test_gen_bins();
	test_sample_fills();
	test_sample_uniform();
	test_sample_late();
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
