/* SPDX-License-Identifier: MIT */
/* nfvp_limits.h: the limits, frame bounds and names that the C data plane and the Python driver
 * (src/nfvperf/limits.py) share. This is the one copy: limits.py mirrors it, and a test parses
 * this file and fails when the two differ. Plain C, no includes: keep each fact on one line. */

#ifndef NFVP_LIMITS_H
#define NFVP_LIMITS_H

/* Processes and chains of one vSwitch. */
#define NFVP_MAX_NFS 8192
#define NFVP_MAX_CHAINS 8192
#define NFVP_MAX_CHAIN_LEN 16
#define NFVP_MAX_PORTS 4

/* Packets an NF takes from its ring at most (one burst), and the default NF ring size: what
 * arrives while the NF is away from its core (the generator's runs and the kernel's turns on a
 * shared core, up to a millisecond) must fit. 512 did not at a few Mpps (151 us at 3.4 Mpps):
 * the overflow became a lasting collapse to a third of the rate. */
#define NFVP_NF_MAX_BURST 32
#define NFVP_NF_RING_SIZE 4096
/* the ring ports' rings (an rte_ring of this size holds one packet less): the generator's
 * receive ring holds what comes back while it is away from the core it shares with the NFs,
 * which beside a busy NF is up to ~850 us (at 3.9 Mpps, 3-4 % of its naps); 1024 lost 40 % of
 * what the NF carried there. */
#define NFVP_PORT_RING_SIZE 4096

/* Frames the generator builds and the mbufs carry (FCS included, as on the wire), and the
 * largest frame anything else takes (a jumbo frame: the EO models, nf-aware's threshold). */
#define NFVP_MIN_FRAME 64
#define NFVP_MAX_FRAME 1518
#define NFVP_MAX_JUMBO_FRAME 9216

/* Traffic: flows in all (flow f's source address NFVP_GEN_SRC_NET.0.(f >> 8).(f & 255) runs out
 * there) and flow classes sent together. */
#define NFVP_GEN_SRC_NET 10
#define NFVP_MAX_FLOWS 65536
#define NFVP_MAX_CLASSES 4

/* The generator's EAL lcore id, whatever CPU it runs on: it shares the vSwitch's mbuf pool,
 * whose cache is per lcore id, and the vSwitch's id is its CPU's; two processes with one id
 * would take from one cache at once (calibration runs the generator on the vSwitch's CPU). */
#define NFVP_GEN_LCORE 127

/* The generator's naps (--idle sleep): until the next full burst is due, but at most this long
 * (what comes back meanwhile waits in the ring, and that wait is in the latency it measures)
 * and none shorter than this (the sleep itself costs about that much). */
#define NFVP_GEN_NAP_MAX_US 20
#define NFVP_GEN_NAP_MIN_US 2

/* A stall: the host took the CPU away from a busy loop for longer than this (its clock jumped);
 * the vSwitch records the first NFVP_STALLS_KEPT of its own, calibration times them the same way. */
#define NFVP_STALL_GAP_US 20
#define NFVP_STALLS_KEPT 4096

/* The generator's address sweeps: --dst-*-count and --dst-ip-step (2^24, a MAC's low bits),
 * --src-mac-count and --vlan-count (QinQ tag pairs: 4094 VLAN IDs x 4094; gen.h checks it). */
#define NFVP_GEN_MAX_SWEEP 16777216
#define NFVP_GEN_MAX_VLANS 16760836

/* Blocking NFs (semaphore, isolated): the vSwitch wakes a sleeping NF when this many packets
 * wait for it, or when the oldest has waited this many µs; while the NFs are woken more often
 * than NFVP_WAKE_RATE_MAX times a second in all, both stretch (0: never). A wake-up costs the
 * NFs' core a context switch and cold caches, several µs, where a packet costs it tens of ns. */
#define NFVP_WAKE_BATCH 32
#define NFVP_WAKE_TIMEOUT_US 100
#define NFVP_WAKE_RATE_MAX 20000
/* the most each may be set to */
#define NFVP_WAKE_BATCH_MOST 65536
#define NFVP_WAKE_TIMEOUT_US_MOST 10000000
#define NFVP_WAKE_RATE_MOST 100000000
/* how often the wake-up rate is measured (µs), and the most the batch and timeout stretch */
#define NFVP_WAKE_WINDOW_US 10000
#define NFVP_WAKE_STRETCH_MAX 4096

/* Services: chain steps served by parallel instances of one NF. */
#define NFVP_MAX_SERVICES 64
#define NFVP_MAX_INSTANCES 16
#define NFVP_FLOW_ENTRIES 65536 /* pinned flows per service */
#define NFVP_WEIGHT_MAX 1000    /* an instance's weight: an integer 0..NFVP_WEIGHT_MAX */
#define NFVP_NF_AWARE_DECAY_MS 100 /* nf-aware: loads weigh the last ~100 ms */

/* Exchange architectures (Cerrato et al., Sec. IV), in enum nfvp_arch's order. */
#define NFVP_ARCH_NAMES "double-buffer", "semaphore", "shared-ring", "fdir", "isolated"

/* Why an NF drops a packet (per_nf's drops_by_reason), in enum nfvp_drop_reason's order: not
 * IPv4, IPv4 but a protocol it does not handle, headers cut short, a fragment it cannot place,
 * no route, TTL expired, no translation for it (a NAT's inbound miss), its table full, an
 * unknown destination, its policy (a rule, a signature), and what the NF did not say. */
#define NFVP_DROP_REASON_NAMES "not_ipv4", "protocol", "truncated", "fragment", "no_route", "ttl", "no_mapping", "table_full", "unknown_dst", "policy", "other"

/* Distribution policies of a service, in enum nfvp_policy's order. */
#define NFVP_POLICY_NAMES "flow", "weighted", "round-robin", "nf-aware"

enum nfvp_arch {
	NFVP_ARCH_DOUBLE_BUFFER = 0,
	NFVP_ARCH_SEMAPHORE,
	NFVP_ARCH_SHARED_RING,
	NFVP_ARCH_FDIR,
	NFVP_ARCH_ISOLATED,
	NFVP_ARCH_COUNT,
};

enum nfvp_drop_reason {
	NFVP_DROP_NOT_IPV4 = 0,
	NFVP_DROP_PROTOCOL,
	NFVP_DROP_TRUNCATED,
	NFVP_DROP_FRAGMENT,
	NFVP_DROP_NO_ROUTE,
	NFVP_DROP_TTL,
	NFVP_DROP_NO_MAPPING,
	NFVP_DROP_TABLE_FULL,
	NFVP_DROP_UNKNOWN_DST,
	NFVP_DROP_POLICY,
	NFVP_DROP_OTHER,
	NFVP_DROP_REASONS,
};

enum nfvp_policy {
	NFVP_POL_FLOW = 0,
	NFVP_POL_WEIGHTED,
	NFVP_POL_RR,
	NFVP_POL_NF_AWARE,
	NFVP_POL_COUNT,
};

#endif /* NFVP_LIMITS_H */
