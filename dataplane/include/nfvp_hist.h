/* SPDX-License-Identifier: MIT */
/* nfvp_hist.h: log-linear histograms, for the generator's latencies, the vSwitch's sojourn
 * times and the NFs' cycles a packet: values below 2^exact have a bin each; above, each power
 * of two is cut into 2^sub bins (each 2^-sub wide, relative: the middle is within half that of
 * every value in the bin). */

#ifndef NFVP_HIST_H
#define NFVP_HIST_H

#include <stdint.h>

/* Bins for all of uint64_t. */
#define NFVP_HIST_BINS(exact, sub) ((1u << (exact)) + ((64u - (exact)) << (sub)))

static inline unsigned int
nfvp_hist_bin(uint64_t v, unsigned int exact, unsigned int sub)
{
	unsigned int e;

	if (v < (UINT64_C(1) << exact))
		return (unsigned int)v;
	e = 63 - (unsigned int)__builtin_clzll(v);
	return (1u << exact) + ((e - exact) << sub) +
	       (unsigned int)((v >> (e - sub)) & ((1u << sub) - 1));
}

/* The smallest value of bin b. */
static inline uint64_t
nfvp_hist_lo(unsigned int b, unsigned int exact, unsigned int sub)
{
	unsigned int e, k;

	if (b < (1u << exact))
		return b;
	e = exact + ((b - (1u << exact)) >> sub);
	k = (b - (1u << exact)) & ((1u << sub) - 1);
	return (UINT64_C(1) << e) + ((uint64_t)k << (e - sub));
}

/* Where bin b ends, exclusive: the next bin's smallest value. The last bin holds UINT64_MAX
 * too, and 2^64 has no uint64_t: it says UINT64_MAX. */
static inline uint64_t
nfvp_hist_hi(unsigned int b, unsigned int exact, unsigned int sub)
{
	if (b + 1 >= NFVP_HIST_BINS(exact, sub))
		return UINT64_MAX;
	return nfvp_hist_lo(b + 1, exact, sub);
}

/* The middle of a bin's (integer) values. */
static inline double
nfvp_hist_mid(unsigned int b, unsigned int exact, unsigned int sub)
{
	unsigned int e, k;
	double width;

	if (b < (1u << exact))
		return b;
	e = exact + ((b - (1u << exact)) >> sub);
	k = (b - (1u << exact)) & ((1u << sub) - 1);
	width = (double)(UINT64_C(1) << (e - sub));
	return (double)(UINT64_C(1) << e) + k * width + (width - 1) / 2;
}

/* The q-quantile (nearest rank) of the n bins of h: its bin's middle; -1 when h is empty. */
static inline double
nfvp_hist_quantile(const uint64_t *h, unsigned int n, double q, unsigned int exact,
		   unsigned int sub)
{
	uint64_t total = 0, cum = 0, rank;
	unsigned int b;

	for (b = 0; b < n; b++)
		total += h[b];
	if (total == 0)
		return -1;
	rank = (uint64_t)(q * (double)total);
	if ((double)rank < q * (double)total || rank == 0)
		rank++;
	for (b = 0; b < n; b++) {
		cum += h[b];
		if (cum >= rank)
			break;
	}
	return nfvp_hist_mid(b < n ? b : n - 1, exact, sub);
}

#endif /* NFVP_HIST_H */
