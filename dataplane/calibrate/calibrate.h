/* SPDX-License-Identifier: MIT */
/* calibrate.h: what nfvp-calibrate's files share: its options, the harness, the benchmarks. */

#ifndef NFVP_CALIBRATE_H
#define NFVP_CALIBRATE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CAL_NAME "nfvp-calibrate"
#define CAL_LINE 64u     /* a cache line */
#define CAL_MAX_REPS 15  /* the most samples of one measurement */

struct nfvp_cal_opts {
	int quick;
	int reference;      /* the quick health check only (--reference) */
	size_t hog;         /* --hog BYTES: be a neighbour of known memory intensity, only */
	double hog_seconds; /* for this long (--hog-seconds) */
	size_t stream;      /* --stream BYTES: a chase with frames written between loads, only */
	size_t l1;          /* L1 data cache bytes: sizes the line writes */
	size_t l2;          /* L2 bytes: sizes the write-backs, the copies' pool, --reference */
	size_t max_ws;      /* largest working set for the load-latency sweep */
	unsigned int reps;  /* repetitions of every measurement (median, min, max) */
};

/* timing.c: the harness */
/* Where benchmarks put what they computed, so that the compiler keeps the work. */
extern volatile uint64_t nfvp_cal_sink;
/* "progress STEP STEPS WHAT" lines on stderr: the number of steps to come, then each step. */
void nfvp_cal_progress_init(unsigned int steps);
void nfvp_cal_progress(const char *what);
/* "name": {"median": m, "min": a, "max": b} of n samples (sorts v). */
void nfvp_cal_print_stat(FILE *f, const char *name, double *v, unsigned int n);
/* One working set of a sweep: {"bytes": B, "cycles": stat, "<other>": stat}, after a comma
 * unless it is the first. */
void nfvp_cal_print_point(FILE *f, int first, size_t bytes, double *cycles, const char *other,
			  double *v, unsigned int n);
/* The TSC's rate against CLOCK_MONOTONIC over 200 ms. */
double nfvp_cal_measure_tsc_hz(void);
/* Random bytes from rte_rand(), n rounded down to a multiple of 8. */
void nfvp_cal_fill_random(uint8_t *bytes, size_t n);

/* Each nfvp_cal_bench_* prints its members of the JSON object, each followed by ", ", and
 * returns 0 or -errno (reported on stderr). */
/* memory.c: loads, line writes and write-backs; the whole document of --reference */
int nfvp_cal_bench_latency(FILE *f, const struct nfvp_cal_opts *o);
int nfvp_cal_bench_writes(FILE *f, const struct nfvp_cal_opts *o);
int nfvp_cal_reference(FILE *f, const struct nfvp_cal_opts *o);
int nfvp_cal_hog(FILE *f, size_t bytes, double seconds);
/* One random cycle through the n lines of buf: a pointer at each line's start to the next. */
void nfvp_cal_link_cycle(uint8_t *buf, size_t n);
/* frames.c: a chase with frames streaming through the caches */
int nfvp_cal_bench_stream(FILE *f, const struct nfvp_cal_opts *o);
/* cores.c: lines between cores ("core_to_core": null with one lcore) */
int nfvp_cal_bench_core_to_core(FILE *f, const struct nfvp_cal_opts *o, unsigned int reps);
/* tables.c: rte_hash, rte_lpm, a DFA */
int nfvp_cal_bench_hash(FILE *f, const struct nfvp_cal_opts *o);
int nfvp_cal_bench_hash_load(FILE *f, const struct nfvp_cal_opts *o);
double nfvp_cal_hash_hit(unsigned int entries, unsigned int key_len, uint64_t ops);
int nfvp_cal_bench_lpm(FILE *f, const struct nfvp_cal_opts *o);
int nfvp_cal_bench_dfa(FILE *f, const struct nfvp_cal_opts *o);
/* compute.c: checksums, incremental checksums, copies */
void nfvp_cal_bench_checksum(FILE *f, const struct nfvp_cal_opts *o);
int nfvp_cal_bench_copy(FILE *f, const struct nfvp_cal_opts *o);

#endif /* NFVP_CALIBRATE_H */
