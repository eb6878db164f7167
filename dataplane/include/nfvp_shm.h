/* SPDX-License-Identifier: MIT */
/* nfvp_shm.h: names, limits and the shared-memory layout that the vSwitch, nflib and the
 * traffic generator agree on. Nothing else may spell a ring, pool or heap name. */

#ifndef NFVP_SHM_H
#define NFVP_SHM_H

#include <semaphore.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#include "nfvp_hist.h"
#include "nfvp_limits.h"
#include "nfvp_nf.h"

#define NFVP_BURST NFVP_NF_MAX_BURST
#define NFVP_CTL_MSG 4096

/* The arena: one hugetlb memfd that the vSwitch maps and hands to DPDK as an external heap.
 * The mbuf pool, every ring and every NF slot of the shared architectures live in it, and NF
 * processes (which are not EAL processes) map it at the same virtual address, so mbuf and ring
 * pointers mean the same thing on both sides. */
#define NFVP_HEAP_NAME "nfvp_arena"
#define NFVP_POOL_NAME "nfvp_pool"
#define NFVP_PORT_RING_FMT "nfvp_p%u_%s%u" /* port, "rx" | "tx", queue */
#define NFVP_FDIR_HASH_NAME "nfvp_fdir"      /* dst MAC -> NIC rx queue, for arch fdir */

static const char *const nfvp_arch_names[NFVP_ARCH_COUNT] = { NFVP_ARCH_NAMES };
static const char *const nfvp_drop_reason_names[NFVP_DROP_REASONS] = { NFVP_DROP_REASON_NAMES };

/* Per-packet state carried across hops in the 8 bytes of the mbuf's hash field (first cache
 * line, unused by the ring and null PMDs; the vSwitch overwrites it on receive). */
enum nfvp_verdict {
	NFVP_PASS = 0,
	NFVP_DROP = 1,
};

struct nfvp_meta {
	uint16_t chain;
	uint8_t hop;     /* index in the chain of the NF that has (or last had) the packet */
	uint8_t spare;   /* (an NF's verdict rides on its ring: nfvp_desc) */
	uint16_t owner;  /* 0: the vSwitch; n: NF slot n - 1 (to reclaim a dead NF's mbufs) */
	uint16_t port;   /* 0: the chain's port; p + 1: an NF chose port p (nfvp_nf_set_port) */
};

static inline struct nfvp_meta *
nfvp_meta(struct rte_mbuf *m)
{
	RTE_BUILD_BUG_ON(sizeof(struct nfvp_meta) != sizeof(m->hash));
	return (struct nfvp_meta *)&m->hash;
}

/* The generator's stamp, in the last bytes of every frame (before the FCS that DPDK does not
 * carry). NFs only touch headers, so it survives every hop; the sink reads it back. */
#define NFVP_STAMP_MAGIC 0x6e66u
struct nfvp_stamp {
	uint64_t tsc;
	uint16_t magic;
	uint16_t gen_flow;
} __rte_packed;

/* Cycles-per-packet histograms (nfvp_hist.h): 1-cycle bins below 256, then 32 per power of
 * two (about 3 % wide) up to 65535; above, the last bin. */
#define NFVP_CYCLE_EXACT_BITS 8
#define NFVP_CYCLE_SUB_BITS 5
#define NFVP_CYCLE_BINS 512

static inline unsigned int
nfvp_cycle_bin(uint64_t c)
{
	return nfvp_hist_bin(c > 0xffff ? 0xffff : c, NFVP_CYCLE_EXACT_BITS, NFVP_CYCLE_SUB_BITS);
}

static inline double
nfvp_cycle_bin_mid(unsigned int b)
{
	return nfvp_hist_mid(b, NFVP_CYCLE_EXACT_BITS, NFVP_CYCLE_SUB_BITS);
}

/* Counters of one NF, written only by that NF (nflib), read by the vSwitch for its report. */
struct nfvp_nf_stats {
	uint64_t rx;
	uint64_t nic_rx;      /* fdir: of rx, how many came straight from the NIC queue */
	uint64_t tx;
	uint64_t drop;        /* dropped by the NF's handler */
	uint64_t drops_by[NFVP_DROP_REASONS]; /* and why (nfvp_nf_drop; the rest: other) */
	uint64_t busy_polls;  /* polls that found packets */
	uint64_t idle_polls;
	uint64_t sleeps;      /* semaphore waits */
	uint64_t busy_cycles; /* TSC cycles inside the NF's burst handler */
	uint64_t loop_cycles; /* TSC cycles of busy loops: dequeue, handler, enqueue back */
	uint64_t heartbeat;   /* bumps every loop: shows the NF is alive */
	/* per busy loop, its cycles per packet (bin = whole cycles, the last bin: more),
	 * counted in packets: a loop the scheduler interrupted lands far out, not in the median */
	uint64_t loop_hist[NFVP_CYCLE_BINS];
	uint64_t handler_hist[NFVP_CYCLE_BINS];
} __rte_cache_aligned;

/* An NF's slot: where its rings are and how to wake it. In the shared architectures it lives in
 * the arena and offsets are from the arena's base; in the isolated architecture it heads the
 * NF's private region and offsets are from that region's base (each side maps it anywhere). */
struct nfvp_slot {
	uint64_t to_nf_off;    /* rte_ring: vSwitch -> NF */
	uint64_t from_nf_off;  /* rte_ring: NF -> vSwitch */
	uint64_t bell_off;     /* shared-ring: the doorbells, a bit an NF (nfvp_ring_bell) */
	uint64_t nic_rx_off;   /* fdir: the NIC queue of the chain this NF heads, else 0 */
	uint64_t bufs_off;     /* isolated: the NF's private packet buffers */
	uint32_t n_bufs;
	uint32_t id;
	uint32_t arch;
	uint16_t nic_chain;    /* fdir: the chain whose first hop this NF is */
	uint16_t spare;
	volatile uint32_t stop;     /* set by the vSwitch at the end of a run */
	volatile uint32_t sleeping; /* set by the NF before it waits on sem */
	uint64_t wait_timeout_ns;   /* the NF's own bound on one wait (aging backstop) */
	sem_t sem;                  /* posted by the vSwitch (semaphore, isolated) */
	struct nfvp_nf_stats stats;
} __rte_cache_aligned;

/* shared-ring: after it hands packets back, NF id rings its bit of the doorbells that every NF
 * shares, so that the vSwitch reads which NFs have returns from a word per 64 NFs instead of
 * looking at every ring. An atomic OR cannot be left half done: an NF killed anywhere stalls
 * no one (a shared multi-producer ring of packets stalls for good when a producer dies between
 * taking its slots and publishing them). */
static inline void
nfvp_ring_bell(uint64_t *bells, uint32_t id)
{
	__atomic_fetch_or(&bells[id >> 6], 1ull << (id & 63), __ATOMIC_RELEASE);
}

/* The shared architectures: a packet on an NF's rings is a descriptor, not the mbuf's address:
 * where the mbuf is in the arena, where its data starts and how long it is, the port it came
 * in on (towards the NF) or the port the NF chose (0: the chain's; p + 1: port p) and the
 * verdict (back). nflib hands the NF's handler a header of the NF's own that describes the
 * pool's buffer, so the NF reads and writes the frame in place but never the mbuf: the mbuf's
 * line stays in the vSwitch's core, where a line the NF had read would have to come back from
 * the NF's core before the vSwitch could write the mbuf again (the round trip's cost, see the
 * benchmarks). The pool's mbufs carry no private area, so the buffer follows the mbuf. */
#define NFVP_BUF_SIZE RTE_MBUF_DEFAULT_BUF_SIZE
#define NFVP_DESC_FIELD_MAX 0xfffu /* a data offset or length */
#define NFVP_DESC_PORT_MAX 0x7fu
#define NFVP_DESC_ALIGN_SHIFT 6 /* mbufs start on a cache line (the mempool's objects do) */
static inline uint64_t
nfvp_desc(uint64_t arena_off, uint16_t data_off, uint16_t len, uint16_t port, uint8_t verdict)
{
	if (port > NFVP_DESC_PORT_MAX) /* none (an mbuf no port received), or beyond the field */
		port = NFVP_DESC_PORT_MAX;
	return (arena_off >> NFVP_DESC_ALIGN_SHIFT) |
	       (uint64_t)(data_off & NFVP_DESC_FIELD_MAX) << 32 |
	       (uint64_t)(len & NFVP_DESC_FIELD_MAX) << 44 | (uint64_t)port << 56 |
	       (uint64_t)(verdict & 1) << 63;
}
#define NFVP_DESC_OFF(d) (((d) & 0xffffffffull) << NFVP_DESC_ALIGN_SHIFT)
#define NFVP_DESC_DATA_OFF(d) ((uint16_t)(((d) >> 32) & NFVP_DESC_FIELD_MAX))
#define NFVP_DESC_LEN(d) ((uint16_t)(((d) >> 44) & NFVP_DESC_FIELD_MAX))
#define NFVP_DESC_PORT(d) ((uint8_t)(((d) >> 56) & NFVP_DESC_PORT_MAX))
#define NFVP_DESC_VERDICT(d) ((uint8_t)((d) >> 63))

/* Isolated architecture: ring elements are values, not pointers. */
#define NFVP_ISO_BUF_SIZE 2048u
#define NFVP_ISO_HEADROOM RTE_PKTMBUF_HEADROOM
static inline uint64_t
nfvp_iso_elem(uint32_t idx, uint16_t len, uint8_t verdict)
{
	return (uint64_t)idx | ((uint64_t)len << 32) | ((uint64_t)verdict << 48);
}
#define NFVP_ISO_IDX(e) ((uint32_t)(e))
#define NFVP_ISO_LEN(e) ((uint16_t)((e) >> 32))
#define NFVP_ISO_VERDICT(e) ((uint8_t)((e) >> 48))

#endif /* NFVP_SHM_H */
