/* SPDX-License-Identifier: MIT */
/* nfvp_sample.h: a uniform sample of at most `cap` items from a stream of unknown length
 * (reservoir sampling, Vitter's Algorithm R) on its own xorshift64 generator with a fixed seed:
 * the caller keeps the items, this says where each one goes. */

#ifndef NFVP_SAMPLE_H
#define NFVP_SAMPLE_H

#include <stdint.h>

/* Any nonzero seed does; a fixed one makes a run's sample depend on its stream only. */
#define NFVP_SAMPLE_SEED UINT64_C(0x9e3779b97f4a7c15)

struct nfvp_sample {
	uint64_t seen; /* items offered so far */
	uint64_t rng;  /* xorshift64 state, never 0 */
	uint32_t cap;  /* slots */
	uint32_t n;    /* slots filled: min(seen, cap) */
};

static inline void
nfvp_sample_init(struct nfvp_sample *s, uint32_t cap)
{
	s->seen = 0;
	s->rng = NFVP_SAMPLE_SEED;
	s->cap = cap;
	s->n = 0;
}

/* Marsaglia's xorshift64 (13, 7, 17): period 2^64 - 1, plenty for picking slots. */
static inline uint64_t
nfvp_sample_rand(struct nfvp_sample *s)
{
	uint64_t x = s->rng;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	s->rng = x;
	return x;
}

/* Offer the next item: the slot to store it in (replacing what was there), or -1 to drop it.
 * The first cap items fill the slots; item i (from 0) after them is kept with probability
 * cap / (i + 1), in a uniformly drawn slot, so after any number of items each of them is in
 * the sample with the same probability cap / seen. */
static inline int64_t
nfvp_sample_slot(struct nfvp_sample *s)
{
	uint64_t i = s->seen++, j;

	if (i < s->cap) {
		s->n++;
		return (int64_t)i;
	}
	/* uniform in [0, i] by multiply-shift (Lemire): no division, a bias of (i + 1) / 2^64 */
	j = (uint64_t)(((unsigned __int128)nfvp_sample_rand(s) * (i + 1)) >> 64);
	return j < s->cap ? (int64_t)j : -1;
}

#endif /* NFVP_SAMPLE_H */
