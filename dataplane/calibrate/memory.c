/* SPDX-License-Identifier: MIT */
/* memory.c: load latency by working set, line writes and write-backs, the --reference check. */

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_random.h>

#include "calibrate.h"

/* One random cycle through the n lines of buf, a pointer at the start of each line to the next
 * (Sattolo's shuffle). */
void
nfvp_cal_link_cycle(uint8_t *buf, size_t n)
{
	uint64_t *perm = malloc(n * sizeof(*perm));
	size_t i;

	for (i = 0; i < n; i++)
		perm[i] = i;
	for (i = n - 1; i > 0; i--) {
		size_t j = rte_rand_max(i);
		uint64_t t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
	for (i = 0; i < n; i++)
		*(void **)(buf + perm[i] * CAL_LINE) = buf + perm[(i + 1) % n] * CAL_LINE;
	free(perm);
}

/* Cycles per dependent load, chasing a random cycle through ws bytes (one pointer per line).
 * Neither inlined nor cloned: one copy of the loop for every caller, as when one file held every
 * benchmark, so that --reference times the code the sweep timed. */
static __attribute__((noinline, noclone)) double
chase(uint8_t *buf, size_t ws, uint64_t loads)
{
	size_t n = ws / CAL_LINE;
	uint64_t t0, k;
	void **p;

	nfvp_cal_link_cycle(buf, n);
	p = (void **)buf;
	for (k = 0; k < n; k++) /* warm up: one lap */
		p = *p;
	t0 = rte_rdtsc_precise();
	for (k = 0; k < loads; k++)
		p = *p;
	t0 = rte_rdtsc_precise() - t0;
	nfvp_cal_sink += (uintptr_t)p;
	return (double)t0 / loads;
}

/* Cycles per load of independent random lines in ws bytes: loads that overlap, as those of a
 * burst of packets do (memory-level parallelism), where chase() measures one at a
 * time. */
static double
gather(uint8_t *buf, size_t ws, uint64_t loads)
{
	enum { N_IDX = 1 << 16 };
	static uint32_t idx[N_IDX];
	size_t n = ws / CAL_LINE, i;
	uint64_t t0, k, acc = 0;

	for (i = 0; i < N_IDX; i++)
		idx[i] = (uint32_t)rte_rand_max(n) * CAL_LINE;
	for (k = 0; k < N_IDX; k++)
		acc += buf[idx[k]];
	t0 = rte_rdtsc_precise();
	for (k = 0; k < loads; k++)
		acc += buf[idx[k & (N_IDX - 1)]];
	t0 = rte_rdtsc_precise() - t0;
	nfvp_cal_sink += acc;
	return (double)t0 / loads;
}

/* Cycles per load with K pointer chases interleaved through one random cycle of ws bytes: K
 * loads in flight at a time, each chase's next load waiting for its last. K = 1 is the latency;
 * as K grows the loads overlap, until the core's miss buffers (its memory-level parallelism) are
 * full. A copy of the loop per K keeps the K pointers in registers. */
#define CHASE_K(K)							\
static double								\
chase_##K(uint8_t *buf, size_t n, uint64_t steps)			\
{									\
	void **p[K];							\
	uint64_t t0, k;							\
	unsigned int j;							\
									\
	for (j = 0; j < K; j++) /* K points spread over the cycle */	\
		p[j] = (void **)(buf + (size_t)rte_rand_max(n) * CAL_LINE); \
	for (k = 0; k < 64; k++)					\
		for (j = 0; j < K; j++)					\
			p[j] = *p[j];					\
	t0 = rte_rdtsc_precise();					\
	for (k = 0; k < steps; k++)					\
		for (j = 0; j < K; j++)					\
			p[j] = *p[j];					\
	t0 = rte_rdtsc_precise() - t0;					\
	for (j = 0; j < K; j++)						\
		nfvp_cal_sink += (uintptr_t)p[j];			\
	return (double)t0 / ((double)steps * K);			\
}
CHASE_K(1) CHASE_K(2) CHASE_K(4) CHASE_K(8) CHASE_K(12) CHASE_K(16) CHASE_K(24) CHASE_K(32)

/* "overlap": cycles per load for K = 1 .. 32 chases in flight over the sweep's largest working
 * set (DRAM), the cycle left in buf by the last chase(). */
static void
bench_overlap(FILE *f, uint8_t *buf, size_t ws, const struct nfvp_cal_opts *o)
{
	static double (*const fn[])(uint8_t *, size_t, uint64_t) = {
		chase_1, chase_2, chase_4, chase_8, chase_12, chase_16, chase_24, chase_32 };
	static const unsigned int ks[] = { 1, 2, 4, 8, 12, 16, 24, 32 };
	uint64_t loads = o->quick ? 100000 : 400000;
	double v[CAL_MAX_REPS];
	unsigned int i, r;

	fprintf(f, "\"overlap\": {\"bytes\": %zu, \"loads\": [", ws);
	for (i = 0; i < RTE_DIM(ks); i++) {
		for (r = 0; r < o->reps; r++)
			v[r] = fn[i](buf, ws / CAL_LINE, loads / ks[i]);
		fprintf(f, "%s{\"in_flight\": %u, ", i ? ", " : "", ks[i]);
		nfvp_cal_print_stat(f, "cycles", v, o->reps);
		fprintf(f, "}");
	}
	fprintf(f, "]}, ");
	nfvp_cal_progress("memory-level parallelism");
}

/* Working sets of 4 KB, 8 KB .. --max-ws: dependent and independent loads over each; then the
 * overlap of dependent chases at the largest. */
int
nfvp_cal_bench_latency(FILE *f, const struct nfvp_cal_opts *o)
{
	uint8_t *buf = rte_malloc(NULL, o->max_ws, 4096);
	int hugepages = buf != NULL;
	double v[CAL_MAX_REPS];
	size_t ws;
	int first = 1;

	if (buf == NULL)
		buf = malloc(o->max_ws);
	if (buf == NULL) {
		fprintf(stderr, CAL_NAME ": --max-ws: %zu bytes: no memory\n", o->max_ws);
		return -ENOMEM;
	}
	fprintf(f, "\"load_latency\": [");
	for (ws = 4096; ws <= o->max_ws; ws *= 2) {
		uint64_t loads = RTE_MAX((uint64_t)(o->quick ? 200000 : 1000000),
					 ws / CAL_LINE * 2);
		double g[CAL_MAX_REPS];
		unsigned int r;

		for (r = 0; r < o->reps; r++) {
			v[r] = chase(buf, ws, loads);
			g[r] = gather(buf, ws, loads);
		}
		nfvp_cal_print_point(f, first, ws, v, "independent_cycles", g, o->reps);
		first = 0;
		nfvp_cal_progress("load latency");
	}
	fprintf(f, "], ");
	bench_overlap(f, buf, ws / 2, o);
	if (hugepages)
		rte_free(buf);
	else
		free(buf);
	return 0;
}

/* Cycles per 64-byte line written, visiting the lines of ws bytes in a random order. */
static double
line_writes(uint8_t *buf, size_t ws, unsigned int laps)
{
	size_t n = ws / CAL_LINE, i, *order = malloc(n * sizeof(size_t));
	unsigned int lap;
	uint64_t t0;

	for (i = 0; i < n; i++)
		order[i] = i;
	for (i = n - 1; i > 0; i--) {
		size_t j = rte_rand_max(i + 1), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (i = 0; i < n; i++) /* warm: every line present and dirty */
		memset(buf + order[i] * CAL_LINE, 1, CAL_LINE);
	t0 = rte_rdtsc_precise();
	for (lap = 0; lap < laps; lap++) {
		for (i = 0; i < n; i++) {
			volatile uint64_t *w = (volatile uint64_t *)(buf + order[i] * CAL_LINE);

			w[0] = lap; w[1] = lap; w[2] = lap; w[3] = lap;
			w[4] = lap; w[5] = lap; w[6] = lap; w[7] = lap;
		}
	}
	t0 = rte_rdtsc_precise() - t0;
	free(order);
	return (double)t0 / ((double)n * laps);
}

/* Line writes within half of L1, and over 4 x L2 (each one a write-back). */
int
nfvp_cal_bench_writes(FILE *f, const struct nfvp_cal_opts *o)
{
	size_t big = 4 * o->l2;
	uint8_t *buf = rte_malloc(NULL, big, 4096);
	double v[CAL_MAX_REPS];
	unsigned int r;

	if (buf == NULL) {
		fprintf(stderr, CAL_NAME ": write-backs: %zu bytes: no memory\n", big);
		return -ENOMEM;
	}
	for (r = 0; r < o->reps; r++)
		v[r] = line_writes(buf, o->l1 / 2, 200);
	nfvp_cal_print_stat(f, "line_write_cycles", v, o->reps);
	fprintf(f, ", \"line_write_bytes\": %zu, ", o->l1 / 2);
	nfvp_cal_progress("line writes");
	/* every write evicts a dirty line from L2: the write-back to L3 is in the cost */
	for (r = 0; r < o->reps; r++)
		v[r] = line_writes(buf, big, o->quick ? 4 : 20);
	nfvp_cal_print_stat(f, "writeback_cycles", v, o->reps);
	fprintf(f, ", \"writeback_bytes\": %zu, ", big);
	nfvp_cal_progress("write-backs");
	rte_free(buf);
	return 0;
}

/* The reference's rte_hash: the calibration's smallest table and its keys */
#define REF_HASH_ENTRIES 1024
#define REF_HASH_KEY 16

/* A quick health check (--reference): is this CPU, and the shared cache it reaches, as fast now
 * as when it was calibrated? Dependent loads within L1 and over 8 x L2, rte_hash lookups in a
 * small table (the core's speed on an NF's work), and core to core: a JSON object of its own. */
int
nfvp_cal_reference(FILE *f, const struct nfvp_cal_opts *o)
{
	size_t big = 8 * o->l2;
	uint8_t *buf = malloc(big);
	double v[CAL_MAX_REPS];
	unsigned int r;
	int rc = -ENOMEM;

	if (buf == NULL) {
		fprintf(stderr, CAL_NAME ": --reference: %zu bytes: no memory\n", big);
		goto fail;
	}
	for (r = 0; r < 5; r++)
		v[r] = chase(buf, 16384, 400000);
	fprintf(f, "{\"tsc_hz\": %" PRIu64 ", ", rte_get_tsc_hz());
	nfvp_cal_print_stat(f, "l1_chase_cycles", v, 5);
	for (r = 0; r < 3; r++)
		v[r] = chase(buf, big, 400000);
	fprintf(f, ", \"l3_bytes\": %zu, ", big);
	nfvp_cal_print_stat(f, "l3_chase_cycles", v, 3);
	for (r = 0; r < 5; r++)
		v[r] = nfvp_cal_hash_hit(REF_HASH_ENTRIES, REF_HASH_KEY, 100000);
	fprintf(f, ", \"hash_entries\": %u, \"hash_key_bytes\": %u, ", REF_HASH_ENTRIES,
		REF_HASH_KEY);
	nfvp_cal_print_stat(f, "hash_hit_cycles", v, 5);
	fprintf(f, ", ");
	rc = nfvp_cal_bench_core_to_core(f, &(struct nfvp_cal_opts){ .quick = 1 }, 3);
	if (rc < 0)
		goto fail;
	fprintf(f, "\"sink\": %" PRIu64 "}\n", nfvp_cal_sink & 1);
fail:
	free(buf);
	return rc;
}

/* A neighbour of known memory intensity (--hog): HOG_CHASES chases through a random cycle of
 * `bytes` for `seconds` or until SIGTERM/SIGINT, as many loads in flight as a busy table NF
 * keeps; one JSON object: the loads it made a second. */
#define HOG_CHASES 8

static volatile sig_atomic_t hog_stop;

static void
hog_signal(int sig)
{
	(void)sig;
	hog_stop = 1;
}

int
nfvp_cal_hog(FILE *f, size_t bytes, double seconds)
{
	size_t n = bytes / CAL_LINE;
	uint8_t *buf = malloc(n * CAL_LINE);
	uint64_t hz = rte_get_tsc_hz(), t0, end, loads = 0;
	void **p[HOG_CHASES];
	unsigned int j, k;

	if (buf == NULL || n < 2) {
		fprintf(stderr, CAL_NAME ": --hog: %zu bytes: %s\n", bytes,
			buf == NULL ? "no memory" : "two lines or more");
		free(buf);
		return -ENOMEM;
	}
	nfvp_cal_link_cycle(buf, n);
	for (j = 0; j < HOG_CHASES; j++)
		p[j] = (void **)(buf + (size_t)rte_rand_max(n) * CAL_LINE);
	signal(SIGTERM, hog_signal);
	signal(SIGINT, hog_signal);
	t0 = rte_rdtsc();
	end = t0 + (uint64_t)(seconds * (double)hz);
	do {
		for (k = 0; k < 1024; k++)
			for (j = 0; j < HOG_CHASES; j++)
				p[j] = *p[j];
		loads += 1024 * HOG_CHASES;
	} while (rte_rdtsc() < end && !hog_stop);
	for (j = 0; j < HOG_CHASES; j++)
		nfvp_cal_sink += (uintptr_t)p[j];
	fprintf(f, "{\"bytes\": %zu, \"in_flight\": %u, \"loads_per_s\": %.0f}\n", n * CAL_LINE,
		HOG_CHASES, (double)loads * (double)hz / (double)(rte_rdtsc() - t0));
	free(buf);
	return 0;
}
