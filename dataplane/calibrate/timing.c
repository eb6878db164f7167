/* SPDX-License-Identifier: MIT */
/* timing.c: the harness: the sink, progress lines, median/min/max of repetitions, the TSC. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_random.h>

#include "calibrate.h"

volatile uint64_t nfvp_cal_sink;
static unsigned int step, steps;

void
nfvp_cal_progress_init(unsigned int n)
{
	step = 0;
	steps = n;
}

void
nfvp_cal_progress(const char *what)
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

void
nfvp_cal_print_stat(FILE *f, const char *name, double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	fprintf(f, "\"%s\": {\"median\": %.3f, \"min\": %.3f, \"max\": %.3f}", name, v[n / 2], v[0],
		v[n - 1]);
}

void
nfvp_cal_print_point(FILE *f, int first, size_t bytes, double *cycles, const char *other,
		     double *v, unsigned int n)
{
	fprintf(f, "%s{\"bytes\": %zu, ", first ? "" : ", ", bytes);
	nfvp_cal_print_stat(f, "cycles", cycles, n);
	fprintf(f, ", ");
	nfvp_cal_print_stat(f, other, v, n);
	fprintf(f, "}");
}

double
nfvp_cal_measure_tsc_hz(void)
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

void
nfvp_cal_fill_random(uint8_t *bytes, size_t n)
{
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		uint64_t r = rte_rand();

		memcpy(bytes + i, &r, 8);
	}
}
