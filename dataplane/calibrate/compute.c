/* SPDX-License-Identifier: MIT */
/* compute.c: work on packet bytes: IP checksums, incremental checksums, packet copies. */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_memcpy.h>

#include "nfvp_cksum.h"
#include "calibrate.h"

/* RFC 1624 as NFs use it: words 0..n) of a header change (e.g. a NAT's address and port), the
 * sum of ~m + m' over them folded into the header's checksum once (nfvp_cksum_adjust, the NFs'
 * own code). Each operation is on another packet's header (256 of them, in L1): independent
 * updates, as packet after packet, not one dependency chain. By number of changed words, for a
 * fixed cost and a cost per word. */
static void
bench_inc_checksum(FILE *f, const struct nfvp_cal_opts *o, uint64_t ops)
{
	static const unsigned int words[] = { 1, 2, 3, 4, 6, 8 };
	static uint16_t hdr[256][16];
	double v[CAL_MAX_REPS];
	unsigned int w, r, i;
	uint64_t k, t0;

	nfvp_cal_fill_random((uint8_t *)hdr, sizeof(hdr));
	fprintf(f, "\"inc_checksum\": [");
	for (w = 0; w < RTE_DIM(words); w++) {
		for (r = 0; r < o->reps; r++) {
			t0 = rte_rdtsc_precise();
			for (k = 0; k < ops; k++) {
				uint16_t *h = hdr[k & 255];
				uint32_t s = 0;

				for (i = 0; i < words[w]; i++) {
					uint16_t m2 = (uint16_t)(h[i] + k);

					s += (uint16_t)~h[i] + m2;
					h[i] = m2;
				}
				h[15] = nfvp_cksum_adjust(h[15], s);
			}
			v[r] = (double)(rte_rdtsc_precise() - t0) / ops;
		}
		fprintf(f, "%s{\"words\": %u, ", w ? ", " : "", words[w]);
		nfvp_cal_print_stat(f, "cycles", v, o->reps);
		fprintf(f, "}");
	}
	fprintf(f, "], ");
}

/* rte_raw_cksum of 20 .. 1500 bytes in L1, then the incremental updates. */
void
nfvp_cal_bench_checksum(FILE *f, const struct nfvp_cal_opts *o)
{
	static const unsigned int lens[] = { 20, 64, 128, 256, 512, 1024, 1500 };
	uint8_t buf[2048];
	double v[CAL_MAX_REPS];
	uint64_t ops = o->quick ? 200000 : 2000000, k, t0;
	unsigned int l, r;

	nfvp_cal_fill_random(buf, sizeof(buf));
	fprintf(f, "\"checksum\": [");
	for (l = 0; l < RTE_DIM(lens); l++) {
		for (r = 0; r < o->reps; r++) {
			uint64_t acc = 0;

			t0 = rte_rdtsc_precise();
			for (k = 0; k < ops; k++) {
				buf[k & 15] = (uint8_t)k; /* a new packet each time */
				acc += rte_raw_cksum(buf, lens[l]);
			}
			v[r] = (double)(rte_rdtsc_precise() - t0) / ops;
			nfvp_cal_sink += acc;
		}
		fprintf(f, "%s{\"bytes\": %u, ", l ? ", " : "", lens[l]);
		nfvp_cal_print_stat(f, "cycles", v, o->reps);
		fprintf(f, "}");
	}
	fprintf(f, "], ");
	bench_inc_checksum(f, o, ops);
	nfvp_cal_progress("checksums");
}

/* rte_memcpy of a packet from a pool of buffers larger than L2 (so it comes from L3 or DRAM, as
 * a packet the NIC wrote) into a buffer in L1. */
int
nfvp_cal_bench_copy(FILE *f, const struct nfvp_cal_opts *o)
{
	static const unsigned int lens[] = { 64, 128, 256, 512, 1024, 1518 };
	size_t slots = 4 * o->l2 / 2048, k;
	uint8_t *src = rte_malloc(NULL, slots * 2048, 4096), dst[2048];
	double v[CAL_MAX_REPS];
	uint64_t ops = o->quick ? 100000 : 1000000, t0, i;
	unsigned int l, r;

	if (src == NULL) {
		fprintf(stderr, CAL_NAME ": packet copies: %zu bytes: no memory\n", slots * 2048);
		return -ENOMEM;
	}
	memset(src, 7, slots * 2048);
	fprintf(f, "\"copy\": [");
	for (l = 0; l < RTE_DIM(lens); l++) {
		for (r = 0; r < o->reps; r++) {
			t0 = rte_rdtsc_precise();
			for (i = 0; i < ops; i++) {
				k = (i * 2654435761u) % slots;
				rte_memcpy(dst, src + k * 2048, lens[l]);
				nfvp_cal_sink += dst[i & 63];
			}
			v[r] = (double)(rte_rdtsc_precise() - t0) / ops;
		}
		fprintf(f, "%s{\"bytes\": %u, ", l ? ", " : "", lens[l]);
		nfvp_cal_print_stat(f, "cycles", v, o->reps);
		fprintf(f, "}");
	}
	fprintf(f, "], ");
	rte_free(src);
	nfvp_cal_progress("packet copies");
	return 0;
}
