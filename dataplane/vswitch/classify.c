/* SPDX-License-Identifier: MIT */
/* classify.c: a packet's chain by its destination MAC.
 *
 * mac2chain (rte_hash) holds the table; in front of it a direct-mapped cache keyed by the MAC,
 * as a software switch's exact-match cache: a burst's hits skip the hash's bulk lookup, its
 * misses go to it together. Every change of the table calls vs_classify_forget, which bumps
 * mac_gen and so voids the cache. */

#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_hash.h>

#include "vswitch.h"

/* Fibonacci hashing: the product's top bits, as many as the cache has slots */
static inline unsigned int
cache_slot(uint64_t key)
{
	return (unsigned int)((key * 0x9e3779b97f4a7c15ull) >> (64 - VS_MAC_CACHE_BITS));
}

/* The destination MAC as the table's key: its 6 bytes in the low bits of a word. One 8-byte
 * load, masked (a key built from a 6-byte copy into a zeroed word is read back before the
 * copy's two stores retire, which the store buffer cannot forward: a stall a packet); the 2
 * bytes past the MAC are the source MAC's, inside any buffer. */
static inline uint64_t
mac_key(const struct rte_mbuf *m)
{
	uint64_t w;

	memcpy(&w, rte_pktmbuf_mtod(m, const uint8_t *), sizeof(w));
	return rte_le_to_cpu_64(w) & ((1ull << (8 * RTE_ETHER_ADDR_LEN)) - 1);
}

void
vs_classify_forget(struct vswitch *vs)
{
	if (++vs->mac_gen == 0) /* the zeroed entries' gen: never current */
		vs->mac_gen = 1;
}

void
vs_classify(struct vswitch *vs, struct rte_mbuf **pkts, unsigned int n, int *chain)
{
	uint64_t keys[NFVP_BURST], hits = 0;
	const void *key_ptrs[NFVP_BURST];
	void *data[NFVP_BURST];
	unsigned int i, miss[NFVP_BURST], n_miss = 0;

	for (i = 0; i < n; i++)
		keys[i] = mac_key(pkts[i]);
	for (i = 0; i < n; i++) {
		const struct vs_mac_cached *e = &vs->mac_cache[cache_slot(keys[i])];

		if (e->gen == vs->mac_gen && e->key == keys[i]) {
			chain[i] = (int)e->chain;
		} else {
			key_ptrs[n_miss] = &keys[i];
			miss[n_miss++] = i;
		}
	}
	if (n_miss == 0)
		return;
	rte_hash_lookup_bulk_data(vs->mac2chain, key_ptrs, n_miss, &hits, data);
	for (i = 0; i < n_miss; i++) {
		unsigned int k = miss[i];

		if (hits & (1ull << i)) {
			chain[k] = (int)(uintptr_t)data[i];
			vs->mac_cache[cache_slot(keys[k])] = (struct vs_mac_cached){
				.key = keys[k], .chain = (uint32_t)chain[k], .gen = vs->mac_gen };
		} else {
			chain[k] = vs->default_chain;
		}
	}
}
