/* SPDX-License-Identifier: MIT */
/* calibrate: microbenchmarks of this host for the EO cost functions (Baldi & Sapio, Sec. 2.2):
 * TSC rate, load latency by working set, line writes and write-backs, rte_hash, rte_lpm, IP
 * checksums and packet copies. One JSON object on stdout; progress lines on stderr. */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_ip.h>
#include <rte_lpm.h>
#include <rte_malloc.h>
#include <rte_memcpy.h>
#include <rte_random.h>

#include "nfvp_cksum.h"

#define LINE 64u
#define MAX_REPS 15

struct opts {
	int quick;
	size_t max_ws;      /* largest working set for the load-latency sweep */
	unsigned int reps;  /* repetitions of every measurement (median, min, max) */
};

static volatile uint64_t sink;
static unsigned int step, steps;

static void
progress(const char *what)
{
	fprintf(stderr, "progress %u %u %s\n", ++step, steps, what);
	fflush(stderr);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* "name": {"median": m, "min": a, "max": b} of reps samples */
static void
json_stat(FILE *f, const char *name, double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	fprintf(f, "\"%s\": {\"median\": %.3f, \"min\": %.3f, \"max\": %.3f}", name, v[n / 2], v[0],
		v[n - 1]);
}

/* The TSC against CLOCK_MONOTONIC over 200 ms. */
static double
tsc_measured_hz(void)
{
	struct timespec a, b;
	uint64_t t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &a);
	t0 = rte_rdtsc_precise();
	do {
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec) < 2e8);
	t1 = rte_rdtsc_precise();
	return (t1 - t0) / ((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9);
}

/* Cycles per dependent load, chasing a random cycle through ws bytes (one pointer per line). */
static double
chase(uint8_t *buf, size_t ws, uint64_t loads)
{
	size_t n = ws / LINE, i;
	uint64_t *perm, t0, k;
	void **p;

	perm = malloc(n * sizeof(*perm));
	for (i = 0; i < n; i++)
		perm[i] = i;
	for (i = n - 1; i > 0; i--) { /* Sattolo: one cycle through every line */
		size_t j = rte_rand_max(i);
		uint64_t t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
	for (i = 0; i < n; i++)
		*(void **)(buf + perm[i] * LINE) = buf + perm[(i + 1) % n] * LINE;
	free(perm);
	p = (void **)buf;
	for (k = 0; k < n; k++) /* warm up: one lap */
		p = *p;
	t0 = rte_rdtsc_precise();
	for (k = 0; k < loads; k++)
		p = *p;
	t0 = rte_rdtsc_precise() - t0;
	sink += (uintptr_t)p;
	return (double)t0 / loads;
}

/* Cycles per load of independent random lines in ws bytes: loads that overlap, as those of a
 * burst of packets do (memory-level parallelism), where chase() measures one at a time. */
static double
gather(uint8_t *buf, size_t ws, uint64_t loads)
{
	enum { N_IDX = 1 << 16 };
	static uint32_t idx[N_IDX];
	size_t n = ws / LINE, i;
	uint64_t t0, k, acc = 0;

	for (i = 0; i < N_IDX; i++)
		idx[i] = (uint32_t)rte_rand_max(n) * LINE;
	for (k = 0; k < N_IDX; k++)
		acc += buf[idx[k]];
	t0 = rte_rdtsc_precise();
	for (k = 0; k < loads; k++)
		acc += buf[idx[k & (N_IDX - 1)]];
	t0 = rte_rdtsc_precise() - t0;
	sink += acc;
	return (double)t0 / loads;
}

static void
bench_latency(FILE *f, const struct opts *o)
{
	uint8_t *buf = rte_malloc(NULL, o->max_ws, 4096);
	double v[MAX_REPS];
	size_t ws;
	int first = 1;

	if (buf == NULL)
		buf = malloc(o->max_ws);
	fprintf(f, "\"load_latency\": [");
	for (ws = 4096; ws <= o->max_ws; ws *= 2) {
		uint64_t loads = RTE_MAX((uint64_t)(o->quick ? 200000 : 1000000), ws / LINE * 2);
		double g[MAX_REPS];
		unsigned int r;

		for (r = 0; r < o->reps; r++) {
			v[r] = chase(buf, ws, loads);
			g[r] = gather(buf, ws, loads);
		}
		fprintf(f, "%s{\"bytes\": %zu, ", first ? "" : ", ", ws);
		json_stat(f, "cycles", v, o->reps);
		fprintf(f, ", ");
		json_stat(f, "independent_cycles", g, o->reps);
		fprintf(f, "}");
		first = 0;
		progress("load latency");
	}
	fprintf(f, "], ");
	rte_free(buf);
}

/* Cycles per 64-byte line written, visiting the lines of ws bytes in a random order. */
static double
line_writes(uint8_t *buf, size_t ws, unsigned int laps)
{
	size_t n = ws / LINE, i, *order = malloc(n * sizeof(size_t));
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
		memset(buf + order[i] * LINE, 1, LINE);
	t0 = rte_rdtsc_precise();
	for (lap = 0; lap < laps; lap++) {
		for (i = 0; i < n; i++) {
			volatile uint64_t *w = (volatile uint64_t *)(buf + order[i] * LINE);

			w[0] = lap; w[1] = lap; w[2] = lap; w[3] = lap;
			w[4] = lap; w[5] = lap; w[6] = lap; w[7] = lap;
		}
	}
	t0 = rte_rdtsc_precise() - t0;
	free(order);
	return (double)t0 / ((double)n * laps);
}

static void
bench_writes(FILE *f, const struct opts *o, size_t l1, size_t l2)
{
	size_t big = 4 * l2;
	uint8_t *buf = rte_malloc(NULL, big, 4096);
	double v[MAX_REPS];
	unsigned int r;

	for (r = 0; r < o->reps; r++)
		v[r] = line_writes(buf, l1 / 2, 200);
	json_stat(f, "line_write_cycles", v, o->reps);
	fprintf(f, ", \"line_write_bytes\": %zu, ", l1 / 2);
	progress("line writes");
	/* every write evicts a dirty line from L2: the write-back to L3 is in the cost */
	for (r = 0; r < o->reps; r++)
		v[r] = line_writes(buf, big, o->quick ? 4 : 20);
	json_stat(f, "writeback_cycles", v, o->reps);
	fprintf(f, ", \"writeback_bytes\": %zu, ", big);
	progress("write-backs");
	rte_free(buf);
}

static double
hash_ops(struct rte_hash *h, const uint8_t *keys, unsigned int key_len, unsigned int n_keys,
	 uint64_t ops, int lookup)
{
	uint64_t t0, k, found = 0;

	t0 = rte_rdtsc_precise();
	for (k = 0; k < ops; k++) {
		const uint8_t *key = keys + (size_t)((k * 2654435761u) % n_keys) * key_len;

		found += lookup ? (rte_hash_lookup(h, key) >= 0) : 0;
	}
	t0 = rte_rdtsc_precise() - t0;
	sink += found;
	return (double)t0 / ops;
}

static void
random_keys(uint8_t *keys, size_t n)
{
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		uint64_t r = rte_rand();

		memcpy(keys + i, &r, 8);
	}
}

static int
bench_hash(FILE *f, const struct opts *o)
{
	static const unsigned int full_sizes[] = { 1024, 65536, 1048576 };
	static const unsigned int quick_sizes[] = { 1024, 65536 };
	static const unsigned int key_lens[] = { 4, 16, 64 };
	const unsigned int *sizes = o->quick ? quick_sizes : full_sizes;
	unsigned int n_sizes = o->quick ? RTE_DIM(quick_sizes) : RTE_DIM(full_sizes);
	unsigned int s, kl, first = 1, id = 0;

	fprintf(f, "\"hash\": [");
	for (s = 0; s < n_sizes; s++) {
		for (kl = 0; kl < RTE_DIM(key_lens); kl++) {
			unsigned int entries = sizes[s], key_len = key_lens[kl], r, i;
			uint64_t ops = o->quick ? 100000 : 1000000;
			double hit[MAX_REPS], miss[MAX_REPS], ins[MAX_REPS];
			uint8_t *keys, *other;
			char name[32];

			if (key_len != 16 && entries != 65536)
				continue; /* key sizes at one table size; table sizes at 16 B keys */
			keys = malloc((size_t)entries * key_len);
			other = malloc((size_t)entries * key_len);
			for (r = 0; r < o->reps; r++) {
				struct rte_hash_parameters hp = {
					.name = name, .entries = entries * 2, .key_len = key_len,
					.hash_func = rte_hash_crc, .socket_id = SOCKET_ID_ANY,
				};
				struct rte_hash *h;
				uint64_t t0;

				snprintf(name, sizeof(name), "calib%u", id++);
				h = rte_hash_create(&hp);
				if (h == NULL) {
					fprintf(stderr, "calibrate: rte_hash of %u entries: no memory\n",
						entries);
					return -ENOMEM;
				}
				random_keys(keys, (size_t)entries * key_len);
				random_keys(other, (size_t)entries * key_len);
				t0 = rte_rdtsc_precise();
				for (i = 0; i < entries; i++)
					rte_hash_add_key(h, keys + (size_t)i * key_len);
				ins[r] = (double)(rte_rdtsc_precise() - t0) / entries;
				hit[r] = hash_ops(h, keys, key_len, entries, ops, 1);
				miss[r] = hash_ops(h, other, key_len, entries, ops, 1);
				rte_hash_free(h);
			}
			fprintf(f, "%s{\"entries\": %u, \"key_bytes\": %u, ", first ? "" : ", ",
				entries, key_len);
			json_stat(f, "lookup_hit_cycles", hit, o->reps);
			fprintf(f, ", ");
			json_stat(f, "lookup_miss_cycles", miss, o->reps);
			fprintf(f, ", ");
			json_stat(f, "insert_cycles", ins, o->reps);
			fprintf(f, "}");
			first = 0;
			free(keys);
			free(other);
			progress("rte_hash");
		}
	}
	fprintf(f, "], ");
	return 0;
}

static double
lpm_lookups(struct rte_lpm *lpm, const uint32_t *ips, unsigned int n, uint64_t ops)
{
	uint64_t t0, k, acc = 0;
	uint32_t hop;

	t0 = rte_rdtsc_precise();
	for (k = 0; k < ops; k++) {
		if (rte_lpm_lookup(lpm, ips[k % n], &hop) == 0)
			acc += hop;
	}
	t0 = rte_rdtsc_precise() - t0;
	sink += acc;
	return (double)t0 / ops;
}

/* DIR-24-8: a /24-or-shorter match is one tbl24 read; a longer one reads a tbl8 too. */
static int
bench_lpm(FILE *f, const struct opts *o)
{
	unsigned int short_rules = o->quick ? 10000 : 100000, long_rules = short_rules / 10;
	struct rte_lpm_config cfg = {
		.max_rules = short_rules + long_rules + 16, .number_tbl8s = long_rules + 16,
	};
	double vs[MAX_REPS], vl[MAX_REPS];
	uint32_t *short_ips, *long_ips;
	uint64_t ops = o->quick ? 200000 : 2000000;
	struct rte_lpm *lpm;
	unsigned int i, r;

	lpm = rte_lpm_create("calib_lpm", SOCKET_ID_ANY, &cfg);
	short_ips = malloc(short_rules * sizeof(uint32_t));
	long_ips = malloc(long_rules * sizeof(uint32_t));
	if (lpm == NULL || short_ips == NULL || long_ips == NULL) {
		fprintf(stderr, "calibrate: rte_lpm: no memory\n");
		return -ENOMEM;
	}
	for (i = 0; i < short_rules; i++) { /* /16../24 routes in 10.0.0.0/8 .. 126.0.0.0/8 */
		uint8_t depth = 16 + i % 9;
		uint32_t ip = (((10 + i % 100) << 24) | (rte_rand() & 0x00ffffff));

		ip &= ~((1u << (32 - depth)) - 1);
		rte_lpm_add(lpm, ip, depth, i + 1);
		short_ips[i] = ip | (rte_rand() & ((1u << (32 - depth)) - 1) & 0xff);
	}
	for (i = 0; i < long_rules; i++) { /* /25../32 routes in 200.0.0.0/8 */
		uint8_t depth = 25 + i % 8;
		uint32_t ip = (200u << 24) | (rte_rand() & 0x00ffffff);

		ip &= depth == 32 ? ~0u : ~((1u << (32 - depth)) - 1);
		rte_lpm_add(lpm, ip, depth, 100000 + i);
		long_ips[i] = ip;
	}
	for (r = 0; r < o->reps; r++) {
		vs[r] = lpm_lookups(lpm, short_ips, short_rules, ops);
		vl[r] = lpm_lookups(lpm, long_ips, long_rules, ops);
	}
	fprintf(f, "\"lpm\": {\"short_rules\": %u, \"long_rules\": %u, ", short_rules, long_rules);
	json_stat(f, "short_prefix_cycles", vs, o->reps);
	fprintf(f, ", ");
	json_stat(f, "long_prefix_cycles", vl, o->reps);
	fprintf(f, "}, ");
	rte_lpm_free(lpm);
	free(short_ips);
	free(long_ips);
	progress("rte_lpm");
	return 0;
}

/* RFC 1624 as NFs use it: words 0..n) of a header change (e.g. a NAT's address and port), the
 * sum of ~m + m' over them folded into the header's checksum once (nfvp_cksum_adjust, the NFs'
 * own code). Each operation is on another
 * packet's header (256 of them, in L1): independent updates, as packet after packet, not one
 * dependency chain. By number of changed words, for a fixed cost and a cost per word. */
static void
bench_inc_checksum(FILE *f, const struct opts *o, uint64_t ops)
{
	static const unsigned int words[] = { 1, 2, 3, 4, 6, 8 };
	static uint16_t hdr[256][16];
	double v[MAX_REPS];
	unsigned int w, r, i;
	uint64_t k, t0;

	random_keys((uint8_t *)hdr, sizeof(hdr));
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
		json_stat(f, "cycles", v, o->reps);
		fprintf(f, "}");
	}
	fprintf(f, "], ");
}

static void
bench_checksum(FILE *f, const struct opts *o)
{
	static const unsigned int lens[] = { 20, 64, 128, 256, 512, 1024, 1500 };
	uint8_t buf[2048];
	double v[MAX_REPS];
	uint64_t ops = o->quick ? 200000 : 2000000, k, t0;
	unsigned int l, r;

	random_keys(buf, sizeof(buf));
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
			sink += acc;
		}
		fprintf(f, "%s{\"bytes\": %u, ", l ? ", " : "", lens[l]);
		json_stat(f, "cycles", v, o->reps);
		fprintf(f, "}");
	}
	fprintf(f, "], ");
	bench_inc_checksum(f, o, ops);
	progress("checksums");
}

/* A DFA walk as a payload scanner does it (the IDS's Aho-Corasick automaton): per byte, the
 * next state from a table of 256 two-byte transitions a state, each load depending on the one
 * before. Random tables of 64, 1024 and 8192 states (32 KB, 512 KB, 4 MB), over 16 KB of
 * random bytes. Cycles per byte. */
static int
bench_dfa(FILE *f, const struct opts *o)
{
	static const unsigned int states[] = { 64, 1024, 8192 };
	static uint8_t text[16384];
	uint64_t bytes = o->quick ? 2000000 : 20000000, t0, k;
	double v[MAX_REPS];
	unsigned int t, r, s = 0;

	random_keys(text, sizeof(text));
	fprintf(f, "\"dfa\": [");
	for (t = 0; t < RTE_DIM(states); t++) {
		uint16_t *delta = malloc((size_t)states[t] * 256 * sizeof(*delta));
		uint64_t i;

		if (delta == NULL)
			return -1;
		for (i = 0; i < (uint64_t)states[t] * 256; i++)
			delta[i] = (uint16_t)(rte_rand() % states[t]);
		for (r = 0; r < o->reps; r++) {
			t0 = rte_rdtsc_precise();
			for (k = 0; k < bytes; k++)
				s = delta[(size_t)s * 256 + text[k & (sizeof(text) - 1)]];
			v[r] = (double)(rte_rdtsc_precise() - t0) / (double)bytes;
		}
		sink += s;
		free(delta);
		fprintf(f, "%s{\"states\": %u, ", t ? ", " : "", states[t]);
		json_stat(f, "cycles_per_byte", v, o->reps);
		fprintf(f, "}");
	}
	fprintf(f, "], ");
	progress("DFA scan");
	return 0;
}

/* rte_memcpy of a packet from a pool of buffers larger than L2 (so it comes from L3 or DRAM, as
 * a packet the NIC wrote) into a buffer in L1. */
static void
bench_copy(FILE *f, const struct opts *o, size_t l2)
{
	static const unsigned int lens[] = { 64, 128, 256, 512, 1024, 1518 };
	size_t slots = 4 * l2 / 2048, k;
	uint8_t *src = rte_malloc(NULL, slots * 2048, 4096), dst[2048];
	double v[MAX_REPS];
	uint64_t ops = o->quick ? 100000 : 1000000, t0, i;
	unsigned int l, r;

	memset(src, 7, slots * 2048);
	fprintf(f, "\"copy\": [");
	for (l = 0; l < RTE_DIM(lens); l++) {
		for (r = 0; r < o->reps; r++) {
			t0 = rte_rdtsc_precise();
			for (i = 0; i < ops; i++) {
				k = (i * 2654435761u) % slots;
				rte_memcpy(dst, src + k * 2048, lens[l]);
				sink += dst[i & 63];
			}
			v[r] = (double)(rte_rdtsc_precise() - t0) / ops;
		}
		fprintf(f, "%s{\"bytes\": %u, ", l ? ", " : "", lens[l]);
		json_stat(f, "cycles", v, o->reps);
		fprintf(f, "}");
	}
	fprintf(f, "], ");
	rte_free(src);
	progress("packet copies");
}

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
		uint8_t *base = x->lines + (size_t)(r % (XFER_LINES / XFER_BURST)) * XFER_BURST * LINE;
		unsigned int i;

		for (i = 0; i < XFER_BURST; i++)
			*(volatile uint64_t *)(base + i * LINE) = r;
		x->round = ++r;
		while (x->done != r && !x->stop)
			rte_pause();
	}
	return 0;
}

/* One-way cycles of a line moving to the other core and back (ping-pong / 2), and cycles per
 * line of a burst of 32 lines written there and read here. */
static int
bench_core_to_core(FILE *f, const struct opts *o, unsigned int reps)
{
	static struct xfer x;
	double pp[MAX_REPS], burst[MAX_REPS];
	unsigned int worker = rte_get_next_lcore(-1, 1, 0), r;
	uint64_t k, t0, acc = 0;

	if (worker >= RTE_MAX_LCORE) {
		fprintf(f, "\"core_to_core\": null, ");
		return 0;
	}
	x.rounds = o->quick ? 20000 : 100000;
	x.lines = rte_zmalloc(NULL, (size_t)XFER_LINES * LINE, LINE);
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
			base = x.lines + (size_t)((k - 1) % (XFER_LINES / XFER_BURST)) * XFER_BURST * LINE;
			for (i = 0; i < XFER_BURST; i++)
				acc += *(const volatile uint64_t *)(base + i * LINE);
			x.done = k;
		}
		burst[r] = (double)(rte_rdtsc_precise() - t0) / (x.rounds / 4) / XFER_BURST;
		x.stop = 1;
		rte_eal_wait_lcore(worker);
	}
	sink += acc;
	fprintf(f, "\"core_to_core\": {\"cpus\": [%u, %u], ", rte_lcore_to_cpu_id(worker),
		rte_lcore_to_cpu_id(rte_lcore_id()));
	json_stat(f, "one_way_cycles", pp, reps);
	fprintf(f, ", ");
	json_stat(f, "burst_line_cycles", burst, reps);
	fprintf(f, "}, ");
	rte_free(x.lines);
	progress("core to core");
	return 0;
}

static size_t
arg_size(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (*end == 'K' || *end == 'k')
		v *= 1024;
	else if (*end == 'M' || *end == 'm')
		v *= 1 << 20;
	return (size_t)v;
}

int
main(int argc, char **argv)
{
	struct opts o = { .reps = 7 };
	size_t l1 = 32768, l2 = 1 << 20, ws;
	int n, i;

	n = rte_eal_init(argc, argv);
	if (n < 0) {
		fprintf(stderr, "calibrate: EAL did not start\n");
		return 1;
	}
	for (i = n + 1; i < argc; i++) {
		if (strcmp(argv[i], "--reference") == 0 && i + 1 == argc) {
			/* a quick health check: is this CPU, and the shared cache it reaches, as fast
			 * now as when it was calibrated? (--l2 sizes the second working set) */
			size_t big = 8 * l2;
			uint8_t *buf = malloc(big);
			double v[MAX_REPS];
			unsigned int r;

			for (r = 0; r < 5; r++)
				v[r] = chase(buf, 16384, 400000);
			printf("{\"tsc_hz\": %" PRIu64 ", ", rte_get_tsc_hz());
			json_stat(stdout, "l1_chase_cycles", v, 5);
			for (r = 0; r < 3; r++)
				v[r] = chase(buf, big, 400000);
			printf(", \"l3_bytes\": %zu, ", big);
			json_stat(stdout, "l3_chase_cycles", v, 3);
			printf(", ");
			bench_core_to_core(stdout, &(struct opts){ .quick = 1 }, 3);
			printf("\"sink\": %" PRIu64 "}\n", sink & 1);
			free(buf);
			return 0;
		} else if (strcmp(argv[i], "--quick") == 0) {
			o.quick = 1;
			o.reps = 3;
		} else if (strcmp(argv[i], "--l1") == 0 && i + 1 < argc) {
			l1 = arg_size(argv[++i]);
		} else if (strcmp(argv[i], "--l2") == 0 && i + 1 < argc) {
			l2 = arg_size(argv[++i]);
		} else if (strcmp(argv[i], "--max-ws") == 0 && i + 1 < argc) {
			o.max_ws = arg_size(argv[++i]);
		} else {
			fprintf(stderr, "calibrate: usage: nfvp-calibrate EAL-ARGS -- [--quick] "
				"[--l1 SIZE] [--l2 SIZE] [--max-ws SIZE]\n");
			return 2;
		}
	}
	if (o.max_ws == 0)
		o.max_ws = o.quick ? 64u << 20 : 512u << 20;
	for (ws = 4096, steps = 0; ws <= o.max_ws; ws *= 2)
		steps++;
	steps += 2 + (o.quick ? 4 : 5) + 1 + 1 + 1 + 1 + (rte_lcore_count() > 1);
	printf("{\"tsc_hz\": %" PRIu64 ", \"tsc_measured_hz\": %.0f, \"quick\": %s, "
	       "\"repetitions\": %u, ", rte_get_tsc_hz(), tsc_measured_hz(),
	       o.quick ? "true" : "false", o.reps);
	bench_latency(stdout, &o);
	bench_writes(stdout, &o, l1, l2);
	if (bench_hash(stdout, &o) < 0 || bench_lpm(stdout, &o) < 0)
		return 1;
	bench_checksum(stdout, &o);
	if (bench_dfa(stdout, &o) < 0)
		return 1;
	bench_copy(stdout, &o, l2);
	bench_core_to_core(stdout, &o, o.reps);
	printf("\"sink\": %" PRIu64 "}\n", sink & 1);
	return 0;
}
