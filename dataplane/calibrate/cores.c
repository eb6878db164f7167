/* SPDX-License-Identifier: MIT */
/* cores.c: core-to-core trips: lines handed to another core and back, one and 32 at a time,
 * and what one core's own side of a burst costs it. */

#include <errno.h>
#include <stdio.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_pause.h>

#include "calibrate.h"

/* Cache lines between two cores: the data plane hands every packet from the vSwitch's core to
 * an NF's and back. A worker lcore on the other core plays the vSwitch. */
#define XFER_LINES 1024u
#define XFER_BURST 32u
#define XFER_SETS (XFER_LINES / XFER_BURST)

/* What the worker does to a burst's lines before it hands them over: writes them (an NF then
 * reads what the vSwitch wrote: the mbuf's first line) or reads them (an NF then writes what
 * it wrote before and the vSwitch read since: the frame's first line, which the vSwitch
 * classifies by). */
enum xfer_mode { XFER_WRITES, XFER_READS };

struct xfer {
	volatile uint64_t turn __rte_cache_aligned;  /* ping-pong: odd = the worker's move */
	volatile uint64_t round __rte_cache_aligned; /* burst: the worker wrote round r */
	volatile uint64_t done __rte_cache_aligned;  /* burst: main read round r */
	volatile uint64_t stop;
	volatile enum xfer_mode mode;
	uint64_t rounds;
	uint8_t *lines;                              /* XFER_LINES lines */
};

/* The worker's bursts: write (or read) 32 lines, hand them over, wait until they are done. */
static int
xfer_worker_bursts(void *arg)
{
	struct xfer *x = arg;
	uint64_t r = 0, acc = 0;

	while (!x->stop) {
		uint8_t *base = x->lines + (size_t)(r % XFER_SETS) * XFER_BURST * CAL_LINE;
		unsigned int i;

		for (i = 0; i < XFER_BURST; i++) {
			if (x->mode == XFER_WRITES)
				*(volatile uint64_t *)(base + i * CAL_LINE) = r;
			else
				acc += *(const volatile uint64_t *)(base + i * CAL_LINE);
		}
		x->round = ++r;
		while (x->done != r && !x->stop)
			rte_pause();
	}
	nfvp_cal_sink += acc;
	return 0;
}

/* Ping-pong, then bursts. */
static int
xfer_worker(void *arg)
{
	struct xfer *x = arg;
	uint64_t k;

	for (k = 1; k < 2 * x->rounds; k += 2) {
		while (x->turn != k)
			rte_pause();
		x->turn = k + 1;
	}
	return xfer_worker_bursts(x);
}

/* This core's own cycles per line of a burst the worker handed over (its waits excluded): one
 * word of each line read (XFER_WRITES: the worker wrote them), or written (XFER_READS: the
 * worker read them since this core wrote them), to the last store done (a fence). The first
 * pass over the sets is not timed (its lines were nobody's yet). */
static double
xfer_side(struct xfer *x, unsigned int worker, enum xfer_mode mode)
{
	uint64_t k, t, cycles = 0, acc = 0, timed = 0;

	x->round = 0;
	x->done = 0;
	x->stop = 0;
	x->mode = mode;
	rte_eal_remote_launch(xfer_worker_bursts, x, worker);
	for (k = 1; k <= x->rounds / 4 + XFER_SETS; k++) {
		volatile uint64_t *base;
		unsigned int i;

		while (x->round != k)
			rte_pause();
		base = (volatile uint64_t *)(x->lines + (size_t)((k - 1) % XFER_SETS) *
					     XFER_BURST * CAL_LINE);
		t = rte_rdtsc_precise();
		for (i = 0; i < XFER_BURST; i++) {
			if (mode == XFER_WRITES)
				acc += base[i * CAL_LINE / 8];
			else
				base[i * CAL_LINE / 8 + 1] = k;
		}
		t = rte_rdtsc_precise() - t; /* its fence: the stores are done */
		if (k > XFER_SETS) {
			cycles += t;
			timed++;
		}
		x->done = k;
	}
	x->stop = 1;
	rte_eal_wait_lcore(worker);
	nfvp_cal_sink += acc;
	return (double)cycles / timed / XFER_BURST;
}

/* One-way cycles of a line moving to the other core and back (ping-pong / 2); cycles per line
 * of a burst of 32 lines written there and read here, the hand-over included; and this core's
 * own share of a burst: a line read that the other core wrote, a line written that the other
 * core read. "core_to_core": null with one lcore. */
int
nfvp_cal_bench_core_to_core(FILE *f, const struct nfvp_cal_opts *o, unsigned int reps)
{
	static struct xfer x;
	double pp[CAL_MAX_REPS], burst[CAL_MAX_REPS], rd[CAL_MAX_REPS], up[CAL_MAX_REPS];
	unsigned int worker = rte_get_next_lcore(-1, 1, 0), r;
	uint64_t k, t0, acc = 0;

	if (worker >= RTE_MAX_LCORE) {
		fprintf(f, "\"core_to_core\": null, ");
		return 0;
	}
	x.rounds = o->quick ? 20000 : 100000;
	x.lines = rte_zmalloc(NULL, (size_t)XFER_LINES * CAL_LINE, CAL_LINE);
	if (x.lines == NULL) {
		fprintf(stderr, CAL_NAME ": core to core: no memory\n");
		return -ENOMEM;
	}
	for (r = 0; r < reps; r++) {
		x.turn = 0;
		x.round = 0;
		x.done = 0;
		x.stop = 0;
		x.mode = XFER_WRITES;
		rte_eal_remote_launch(xfer_worker, &x, worker);
		t0 = rte_rdtsc_precise();
		for (k = 0; k < 2 * x.rounds; k += 2) {
			x.turn = k + 1;
			while (x.turn != k + 2)
				rte_pause();
		}
		pp[r] = (double)(rte_rdtsc_precise() - t0) / x.rounds / 2;
		t0 = rte_rdtsc_precise();
		for (k = 1; k <= x.rounds / 4; k++) {
			const uint8_t *base;
			unsigned int i;

			while (x.round != k)
				rte_pause();
			base = x.lines + (size_t)((k - 1) % (XFER_LINES / XFER_BURST)) *
			       XFER_BURST * CAL_LINE;
			for (i = 0; i < XFER_BURST; i++)
				acc += *(const volatile uint64_t *)(base + i * CAL_LINE);
			x.done = k;
		}
		burst[r] = (double)(rte_rdtsc_precise() - t0) / (x.rounds / 4) / XFER_BURST;
		x.stop = 1;
		rte_eal_wait_lcore(worker);
		rd[r] = xfer_side(&x, worker, XFER_WRITES);
		up[r] = xfer_side(&x, worker, XFER_READS);
	}
	nfvp_cal_sink += acc;
	fprintf(f, "\"core_to_core\": {\"cpus\": [%u, %u], ", rte_lcore_to_cpu_id(worker),
		rte_lcore_to_cpu_id(rte_lcore_id()));
	nfvp_cal_print_stat(f, "one_way_cycles", pp, reps);
	fprintf(f, ", ");
	nfvp_cal_print_stat(f, "burst_line_cycles", burst, reps);
	fprintf(f, ", ");
	nfvp_cal_print_stat(f, "read_line_cycles", rd, reps);
	fprintf(f, ", ");
	nfvp_cal_print_stat(f, "upgrade_line_cycles", up, reps);
	fprintf(f, "}, ");
	rte_free(x.lines);
	nfvp_cal_progress("core to core");
	return 0;
}
