/* SPDX-License-Identifier: MIT */
/* cores.c: core-to-core trips: lines handed to another core and back, one and 32 at a time. */

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

struct xfer {
	volatile uint64_t turn __rte_cache_aligned;  /* ping-pong: odd = the worker's move */
	volatile uint64_t round __rte_cache_aligned; /* burst: the worker wrote round r */
	volatile uint64_t done __rte_cache_aligned;  /* burst: main read round r */
	volatile uint64_t stop;
	uint64_t rounds;
	uint8_t *lines;                              /* XFER_LINES lines */
};

static int
xfer_worker(void *arg)
{
	struct xfer *x = arg;
	uint64_t k, r = 0;

	for (k = 1; k < 2 * x->rounds; k += 2) { /* ping-pong */
		while (x->turn != k)
			rte_pause();
		x->turn = k + 1;
	}
	while (!x->stop) { /* bursts: write 32 lines, hand them over, wait until read */
		uint8_t *base = x->lines + (size_t)(r % (XFER_LINES / XFER_BURST)) * XFER_BURST *
				CAL_LINE;
		unsigned int i;

		for (i = 0; i < XFER_BURST; i++)
			*(volatile uint64_t *)(base + i * CAL_LINE) = r;
		x->round = ++r;
		while (x->done != r && !x->stop)
			rte_pause();
	}
	return 0;
}

/* One-way cycles of a line moving to the other core and back (ping-pong / 2), and cycles per
 * line of a burst of 32 lines written there and read here. "core_to_core": null with one
 * lcore. */
int
nfvp_cal_bench_core_to_core(FILE *f, const struct nfvp_cal_opts *o, unsigned int reps)
{
	static struct xfer x;
	double pp[CAL_MAX_REPS], burst[CAL_MAX_REPS];
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
	}
	nfvp_cal_sink += acc;
	fprintf(f, "\"core_to_core\": {\"cpus\": [%u, %u], ", rte_lcore_to_cpu_id(worker),
		rte_lcore_to_cpu_id(rte_lcore_id()));
	nfvp_cal_print_stat(f, "one_way_cycles", pp, reps);
	fprintf(f, ", ");
	nfvp_cal_print_stat(f, "burst_line_cycles", burst, reps);
	fprintf(f, "}, ");
	rte_free(x.lines);
	nfvp_cal_progress("core to core");
	return 0;
}
