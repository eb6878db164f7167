/* SPDX-License-Identifier: MIT */
/* frames.c: a table's loads while frames stream through the caches (--stream). */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>

#include "calibrate.h"

/* The frames: 2 KB buffers (an mbuf's) of a 64 MB pool, written in turn, as the data plane's
 * generator fills the buffers of its mbuf pool (which hands them out oldest first). */
#define FRAME_SLOT 2048
#define FRAME_POOL (64u << 20)
#define FRAME_LOADS 200000
#define FRAME_ROUND 16

/* Cycles per load of a chase through ws bytes (one pointer per line, a random cycle) in rounds
 * of FRAME_ROUND loads, `frame` bytes of a frame written before each load of a round (none: 0)
 * and drained before the round's loads are timed: what the frames do to the table's lines,
 * without their own cost. The timer's share is the same with frames and without. */
static __attribute__((noinline, noclone)) double
chase_frames(uint8_t *buf, size_t ws, uint8_t *pool, size_t frame)
{
	static uint8_t tmpl[FRAME_SLOT];
	size_t n = ws / CAL_LINE, slot = 0, k, j;
	uint64_t t = 0, t0;
	void **p;

	nfvp_cal_link_cycle(buf, n);
	p = (void **)buf;
	for (k = 0; k < n; k++)
		p = *p;
	for (k = 0; k < FRAME_LOADS; k += FRAME_ROUND) {
		for (j = 0; frame != 0 && j < FRAME_ROUND; j++) {
			memcpy(pool + slot * FRAME_SLOT, tmpl, frame);
			slot = (slot + 1) % (FRAME_POOL / FRAME_SLOT);
		}
		t0 = rte_rdtsc_precise();
		for (j = 0; j < FRAME_ROUND; j++)
			p = *p;
		t += rte_rdtsc_precise() - t0;
	}
	nfvp_cal_sink += (uintptr_t)p + pool[slot * FRAME_SLOT];
	return (double)t / FRAME_LOADS;
}

/* Working sets of 16 KB, 32 KB .. --max-ws: the chase alone and with o->stream bytes of a
 * frame written a load. One JSON object: per working set "cycles" (with the frames) and
 * "alone_cycles". */
int
nfvp_cal_bench_stream(FILE *f, const struct nfvp_cal_opts *o)
{
	uint8_t *buf = malloc(o->max_ws), *pool = malloc(FRAME_POOL);
	double v[CAL_MAX_REPS], a[CAL_MAX_REPS];
	unsigned int r;
	size_t ws;
	int first = 1;

	if (buf == NULL || pool == NULL) {
		fprintf(stderr, CAL_NAME ": --stream: %zu bytes: no memory\n",
			o->max_ws + FRAME_POOL);
		free(buf);
		free(pool);
		return -ENOMEM;
	}
	memset(pool, 1, FRAME_POOL);
	fprintf(f, "{\"stream_bytes\": %zu, \"frame_slot\": %u, \"pool_bytes\": %u, ", o->stream,
		FRAME_SLOT, FRAME_POOL);
	fprintf(f, "\"load_latency\": [");
	for (ws = 16384; ws <= o->max_ws; ws *= 2) {
		for (r = 0; r < o->reps; r++) {
			v[r] = chase_frames(buf, ws, pool, o->stream);
			a[r] = chase_frames(buf, ws, pool, 0);
		}
		nfvp_cal_print_point(f, first, ws, v, "alone_cycles", a, o->reps);
		first = 0;
	}
	fprintf(f, "], \"sink\": %" PRIu64 "}\n", nfvp_cal_sink & 1);
	free(buf);
	free(pool);
	return 0;
}
