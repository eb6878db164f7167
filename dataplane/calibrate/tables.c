/* SPDX-License-Identifier: MIT */
/* tables.c: lookups in tables: rte_hash (lookups, inserts) by table size, rte_lpm, a DFA walk. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>
#include <rte_lpm.h>
#include <rte_memory.h>
#include <rte_random.h>

#include "calibrate.h"

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
	nfvp_cal_sink += found;
	return (double)t0 / ops;
}

/* Lookups that hit, that miss, and inserts: 4, 16 and 64-byte keys in a table of 65536 entries,
 * and 16-byte keys in tables of 1024 .. 1048576 (65536 with --quick). */
int
nfvp_cal_bench_hash(FILE *f, const struct nfvp_cal_opts *o)
{
	static const unsigned int full_sizes[] = { 1024, 65536, 1048576 };
	static const unsigned int quick_sizes[] = { 1024, 65536 };
	static const unsigned int key_lens[] = { 4, 16, 64 };
	const unsigned int *sizes = o->quick ? quick_sizes : full_sizes;
	unsigned int n_sizes = o->quick ? RTE_DIM(quick_sizes) : RTE_DIM(full_sizes);
	unsigned int s, kl, first = 1, id = 0;
	uint8_t *keys = NULL, *other = NULL;

	fprintf(f, "\"hash\": [");
	for (s = 0; s < n_sizes; s++) {
		for (kl = 0; kl < RTE_DIM(key_lens); kl++) {
			unsigned int entries = sizes[s], key_len = key_lens[kl], r, i;
			uint64_t ops = o->quick ? 100000 : 1000000;
			double hit[CAL_MAX_REPS], miss[CAL_MAX_REPS], ins[CAL_MAX_REPS];
			char name[32];

			/* key sizes at one table size, table sizes at 16 B keys */
			if (key_len != 16 && entries != 65536)
				continue;
			keys = malloc((size_t)entries * key_len);
			other = malloc((size_t)entries * key_len);
			if (keys == NULL || other == NULL)
				goto fail;
			for (r = 0; r < o->reps; r++) {
				struct rte_hash_parameters hp = {
					.name = name, .entries = entries * 2, .key_len = key_len,
					.hash_func = rte_hash_crc, .socket_id = SOCKET_ID_ANY,
				};
				struct rte_hash *h;
				uint64_t t0;

				snprintf(name, sizeof(name), "calib%u", id++);
				h = rte_hash_create(&hp);
				if (h == NULL)
					goto fail;
				nfvp_cal_fill_random(keys, (size_t)entries * key_len);
				nfvp_cal_fill_random(other, (size_t)entries * key_len);
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
			nfvp_cal_print_stat(f, "lookup_hit_cycles", hit, o->reps);
			fprintf(f, ", ");
			nfvp_cal_print_stat(f, "lookup_miss_cycles", miss, o->reps);
			fprintf(f, ", ");
			nfvp_cal_print_stat(f, "insert_cycles", ins, o->reps);
			fprintf(f, "}");
			first = 0;
			free(keys);
			free(other);
			keys = other = NULL;
			nfvp_cal_progress("rte_hash");
		}
	}
	fprintf(f, "], ");
	return 0;
fail:
	fprintf(stderr, CAL_NAME ": rte_hash of %u entries: no memory\n", sizes[s]);
	free(keys);
	free(other);
	return -ENOMEM;
}

/* The core's speed on an NF's own work (--reference): rte_hash lookups that hit, in a table of
 * `entries` random keys of `key_len` bytes (in L1 and L2 for the calibration's smallest table),
 * as the calibration measures them; cycles a lookup, or -1 where the table cannot be made. A
 * neighbour on the core's other hardware thread slows these by half or more while the lines
 * between cores and the loads in L1 hardly move. */
double
nfvp_cal_hash_hit(unsigned int entries, unsigned int key_len, uint64_t ops)
{
	struct rte_hash_parameters hp = {
		.name = "calib_probe", .entries = entries * 2, .key_len = key_len,
		.hash_func = rte_hash_crc, .socket_id = SOCKET_ID_ANY,
	};
	uint8_t *keys = malloc((size_t)entries * key_len);
	struct rte_hash *h = keys == NULL ? NULL : rte_hash_create(&hp);
	double cycles = -1;
	unsigned int i;

	if (h != NULL) {
		nfvp_cal_fill_random(keys, (size_t)entries * key_len);
		for (i = 0; i < entries; i++)
			rte_hash_add_key(h, keys + (size_t)i * key_len);
		cycles = hash_ops(h, keys, key_len, entries, ops, 1);
		rte_hash_free(h);
	}
	free(keys);
	return cycles;
}

/* rte_hash_add_key by the table's load: a table of 16384 entries of 16 B keys (its buckets and
 * keys within L2: the load, not the cache, decides), made as the NFs make theirs (buckets that
 * overflow into a list), filled from empty to full; the cycles of the inserts of each tenth of
 * its entries. A fuller table finds its key's two buckets full more often and moves keys (cuckoo
 * displacement) or chains. */
int
nfvp_cal_bench_hash_load(FILE *f, const struct nfvp_cal_opts *o)
{
	enum { ENTRIES = 16384, KEY = 16, STEPS = 10 };
	double v[STEPS][CAL_MAX_REPS];
	uint8_t *keys = malloc((size_t)ENTRIES * KEY);
	unsigned int r, s, i;
	char name[32];

	if (keys == NULL)
		return -ENOMEM;
	for (r = 0; r < o->reps; r++) {
		struct rte_hash_parameters hp = {
			.name = name, .entries = ENTRIES, .key_len = KEY,
			.hash_func = rte_hash_crc, .socket_id = SOCKET_ID_ANY,
			.extra_flag = RTE_HASH_EXTRA_FLAGS_EXT_TABLE,
		};
		struct rte_hash *h;

		snprintf(name, sizeof(name), "calib_load%u", r);
		h = rte_hash_create(&hp);
		if (h == NULL) {
			free(keys);
			fprintf(stderr, CAL_NAME ": rte_hash of %u entries: no memory\n", ENTRIES);
			return -ENOMEM;
		}
		nfvp_cal_fill_random(keys, (size_t)ENTRIES * KEY);
		for (s = 0; s < STEPS; s++) {
			unsigned int lo = ENTRIES * s / STEPS, hi = ENTRIES * (s + 1) / STEPS;
			uint64_t t0 = rte_rdtsc_precise();

			for (i = lo; i < hi; i++)
				nfvp_cal_sink += rte_hash_add_key(h, keys + (size_t)i * KEY) < 0;
			v[s][r] = (double)(rte_rdtsc_precise() - t0) / (hi - lo);
		}
		rte_hash_free(h);
	}
	free(keys);
	fprintf(f, "\"hash_insert_by_load\": {\"entries\": %u, \"key_bytes\": %u, \"steps\": [",
		ENTRIES, KEY);
	for (s = 0; s < STEPS; s++) {
		fprintf(f, "%s{\"load\": %.2f, ", s ? ", " : "", (s + 1.0) / STEPS);
		nfvp_cal_print_stat(f, "insert_cycles", v[s], o->reps);
		fprintf(f, "}");
	}
	fprintf(f, "]}, ");
	nfvp_cal_progress("rte_hash inserts by load");
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
	nfvp_cal_sink += acc;
	return (double)t0 / ops;
}

/* DIR-24-8: a /24-or-shorter match is one tbl24 read; a longer one reads a tbl8 too. */
int
nfvp_cal_bench_lpm(FILE *f, const struct nfvp_cal_opts *o)
{
	unsigned int short_rules = o->quick ? 10000 : 100000, long_rules = short_rules / 10;
	struct rte_lpm_config cfg = {
		.max_rules = short_rules + long_rules + 16, .number_tbl8s = long_rules + 16,
	};
	double vs[CAL_MAX_REPS], vl[CAL_MAX_REPS];
	uint32_t *short_ips, *long_ips;
	uint64_t ops = o->quick ? 200000 : 2000000;
	struct rte_lpm *lpm;
	unsigned int i, r;
	int rc = -ENOMEM;

	lpm = rte_lpm_create("calib_lpm", SOCKET_ID_ANY, &cfg);
	short_ips = malloc(short_rules * sizeof(uint32_t));
	long_ips = malloc(long_rules * sizeof(uint32_t));
	if (lpm == NULL || short_ips == NULL || long_ips == NULL) {
		fprintf(stderr, CAL_NAME ": rte_lpm: no memory\n");
		goto fail;
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
	nfvp_cal_print_stat(f, "short_prefix_cycles", vs, o->reps);
	fprintf(f, ", ");
	nfvp_cal_print_stat(f, "long_prefix_cycles", vl, o->reps);
	fprintf(f, "}, ");
	nfvp_cal_progress("rte_lpm");
	rc = 0;
fail:
	rte_lpm_free(lpm);
	free(short_ips);
	free(long_ips);
	return rc;
}

/* The random text the DFA benchmarks walk (a power of two: its offsets wrap by a mask), and
 * the longest scan by length, which may start at its last offset */
#define DFA_TEXT 16384u
#define DFA_LONGEST_SCAN 1024u

/* Scans of n bytes one after another, each from the start state, as a payload scanner takes
 * packets (with the IDS's match flag a state): a scan's loads depend on one another, but the
 * next packet's do not depend on this one's, so short scans of consecutive packets overlap in
 * the core and long ones wait on every byte. Cycles per byte. The lengths take turns within
 * each repetition, so that a busy spell of the machine (a sibling thread taking the core's
 * resources) falls on all of them alike and the medians keep their order. */
static void
dfa_by_length(FILE *f, const struct nfvp_cal_opts *o, const uint16_t *delta,
	      const uint8_t *match, const uint8_t *text, size_t text_mask)
{
	static const unsigned int lens[] = { 8, 16, 32, 64, 128, 256, DFA_LONGEST_SCAN };
	uint64_t bytes = o->quick ? 2000000 : 20000000, t0, k;
	double v[RTE_DIM(lens)][CAL_MAX_REPS];
	unsigned int l, r, hit = 0;

	for (r = 0; r < o->reps; r++) {
		for (l = 0; l < RTE_DIM(lens); l++) {
			uint64_t scans = bytes / lens[l];

			t0 = rte_rdtsc_precise();
			for (k = 0; k < scans; k++) {
				const uint8_t *p = text + ((k * 64) & text_mask);
				unsigned int j, s = 0;

				for (j = 0; j < lens[l]; j++) {
					s = delta[(size_t)s * 256 + p[j]];
					hit |= match[s];
				}
			}
			v[l][r] = (double)(rte_rdtsc_precise() - t0) / (double)(scans * lens[l]);
		}
	}
	nfvp_cal_sink += hit;
	fprintf(f, "\"dfa_by_length\": [");
	for (l = 0; l < RTE_DIM(lens); l++) {
		fprintf(f, "%s{\"bytes\": %u, ", l ? ", " : "", lens[l]);
		nfvp_cal_print_stat(f, "cycles_per_byte", v[l], o->reps);
		fprintf(f, "}");
	}
	fprintf(f, "], ");
}

/* A DFA walk as a payload scanner does it (the IDS's Aho-Corasick automaton): per byte, the
 * next state from a table of 256 two-byte transitions a state, each load depending on the one
 * before. Random tables of 64, 1024 and 8192 states (32 KB, 512 KB, 4 MB), over 16 KB of
 * random bytes. Cycles per byte; then scans by length over the 64-state table. */
int
nfvp_cal_bench_dfa(FILE *f, const struct nfvp_cal_opts *o)
{
	static const unsigned int states[] = { 64, 1024, 8192 };
	static uint8_t text[DFA_TEXT + DFA_LONGEST_SCAN];
	static uint8_t match[64];
	uint64_t bytes = o->quick ? 2000000 : 20000000, t0, k;
	uint16_t *smallest = NULL;
	double v[CAL_MAX_REPS];
	unsigned int t, r, s = 0;

	nfvp_cal_fill_random(text, sizeof(text));
	nfvp_cal_fill_random(match, sizeof(match));
	for (t = 0; t < sizeof(match); t++)
		match[t] = match[t] < 4;   /* a few states end a signature */
	fprintf(f, "\"dfa\": [");
	for (t = 0; t < RTE_DIM(states); t++) {
		uint16_t *delta = malloc((size_t)states[t] * 256 * sizeof(*delta));
		uint64_t i;

		if (delta == NULL) {
			fprintf(stderr, CAL_NAME ": DFA of %u states: no memory\n", states[t]);
			free(smallest);
			return -ENOMEM;
		}
		for (i = 0; i < (uint64_t)states[t] * 256; i++)
			delta[i] = (uint16_t)(rte_rand() % states[t]);
		for (r = 0; r < o->reps; r++) {
			t0 = rte_rdtsc_precise();
			for (k = 0; k < bytes; k++)
				s = delta[(size_t)s * 256 + text[k & (DFA_TEXT - 1)]];
			v[r] = (double)(rte_rdtsc_precise() - t0) / (double)bytes;
		}
		nfvp_cal_sink += s;
		fprintf(f, "%s{\"states\": %u, ", t ? ", " : "", states[t]);
		nfvp_cal_print_stat(f, "cycles_per_byte", v, o->reps);
		fprintf(f, "}");
		if (t == 0)
			smallest = delta;
		else
			free(delta);
	}
	fprintf(f, "], ");
	dfa_by_length(f, o, smallest, match, text, DFA_TEXT - 1);
	free(smallest);
	nfvp_cal_progress("DFA scan");
	return 0;
}
