/* SPDX-License-Identifier: MIT */
/* gen.h: the traffic generator's own state: options, flow classes, counters, rings. */

#ifndef NFVP_GEN_H
#define NFVP_GEN_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "nfvp_sample.h"
#include "nfvp_shm.h"

#define NFVP_GEN_NAME "nfvp-gen"
#define NFVP_GEN_MAX_MACS 8192
#define NFVP_GEN_MAX_DRAIN_MS 3600000
#define NFVP_GEN_TMPL_SIZE 128 /* per-flow template: the first bytes of the frame */
#define NFVP_GEN_DST_IP RTE_IPV4(192, 168, 0, 1)
#define NFVP_GEN_VIDS 4094 /* VLAN IDs 1..4094 */
_Static_assert(NFVP_GEN_MAX_VLANS == NFVP_GEN_VIDS * NFVP_GEN_VIDS, "one of each tag pair");
#define NFVP_GEN_GRE_MIN_FRAME 96 /* 78 B of headers, the stamp and the FCS */

/* What the IPv4/UDP packet is carried in. */
enum nfvp_gen_encap {
	NFVP_GEN_ENCAP_NONE, /* Ethernet / IPv4 / UDP */
	NFVP_GEN_ENCAP_MPLS, /* Ethernet / MPLS / IPv4 / UDP */
	NFVP_GEN_ENCAP_QINQ, /* Ethernet / S-tag / C-tag / IPv4 / UDP (a BNG's access side) */
	NFVP_GEN_ENCAP_GRE,  /* Ethernet / MPLS / IPv4 / GRE (checksum, key) / IPv4 / UDP: core */
};

/* Latency histogram, log-linear: values below 64 ns exact, then 64 sub-buckets per power of
 * two (resolution 1/64, about 1.6 %), up to 2^64 ns so nothing ever needs clamping. */
#define NFVP_GEN_HIST_SUB_BITS 6
#define NFVP_GEN_HIST_BUCKETS NFVP_HIST_BINS(NFVP_GEN_HIST_SUB_BITS, NFVP_GEN_HIST_SUB_BITS)

struct nfvp_gen_stats {
	uint64_t sent;
	uint64_t tx_dropped;
	uint64_t pool_empty;
	uint64_t received;
	uint64_t received_bytes;
	uint64_t bad_stamp;
	uint64_t lat_count;
	uint64_t lat_min;
	uint64_t lat_max;
	double lat_sum;
	uint64_t *hist; /* NFVP_GEN_HIST_BUCKETS */
};

/* --idle sleep: every nap, as asked and as slept (TSC before and after nanosleep), and a
 * uniform sample of them: how long a sleep really takes is part of what a packet waits. */
#define NFVP_GEN_NAP_SAMPLES 4096

struct nfvp_gen_naps {
	uint64_t requested_ns_sum;
	uint64_t slept_ns_sum;
	struct nfvp_sample sample; /* its seen: the naps */
	uint64_t (*pairs)[2];      /* NFVP_GEN_NAP_SAMPLES of (requested ns, slept ns) */
};

/* A class of flows: frame size, rate, flows (--class; without it, one class made of
 * --frame-bytes, --rate-pps and --flows). Flows are numbered across classes. */
struct nfvp_gen_class {
	uint32_t frame_bytes;
	double rate_pps;
	uint32_t flows;
	uint32_t first_flow;
	uint16_t data_len;
	uint16_t head_len;
	uint16_t tail_len;
	uint16_t stamp_off;
	uint8_t *tmpl;              /* per flow: the first head_len bytes of the frame */
	uint8_t *tail;              /* bytes head_len .. data_len, the same for every flow */
	uint32_t next_flow;
	uint64_t built;             /* packets of this class built so far: for the mix */
	struct nfvp_gen_stats st;
};

struct nfvp_gen_conf {
	const char *ctl_path;
	const char *stats_out;
	uint32_t frame_bytes;
	double rate_pps;   /* 0: as fast as possible */
	double duration_s;
	uint32_t flows;
	uint32_t n_macs;
	struct rte_ether_addr *macs;
	uint32_t in_port;
	uint32_t out_port;
	uint32_t drain_ms;
	enum nfvp_gen_encap encap;
	bool fdir;
	bool sleep_idle; /* --idle sleep: sleep until the next burst is due instead of spinning */
	uint32_t dst_mac_count; /* > 0: packet i's dst MAC is macs[0] + i mod count (low 24 bits) */
	uint32_t dst_ip_count;  /* > 0: packet i's dst IP is dst_ip_base + (i mod count) x step */
	uint32_t dst_ip_base;
	uint32_t dst_ip_step;
	uint32_t src_mac_count; /* > 0: packet i's src MAC is the default + i mod count */
	uint32_t vlan_count;    /* > 0 (qinq): packet i's tag pair k = i mod count, see usage */
	unsigned int n_classes; /* --class given: how many */
	struct nfvp_gen_class cls[NFVP_MAX_CLASSES];
};

struct nfvp_gen {
	struct nfvp_gen_conf conf;
	/* the vSwitch */
	int ctl;
	void *base;
	uint64_t len;
	uint64_t ports;
	uint64_t queues;
	struct rte_mempool *pool;
	struct rte_ring *tx_ring;   /* out port, tx queue 0: what the vSwitch sent */
	struct rte_ring **rx_rings; /* in port rx queues in use, compacted */
	uint32_t n_rx;
	uint16_t *rx_queue;         /* per rx_rings entry: the NIC queue number */
	uint16_t *mac_ring;         /* per MAC: index in rx_rings */
	/* packets */
	struct nfvp_gen_class *cls; /* conf.cls, conf.n_classes of them */
	unsigned int n_cls;
	rte_be32_t *mpls;           /* per MAC: the label stack entry, or NULL */
	uint32_t next_mac;
	uint64_t seq;               /* packets built so far: drives the dst MAC / IP sweeps */
	struct rte_mbuf **stage;    /* fdir: NFVP_BURST per rx ring */
	uint16_t *stage_n;
	/* time */
	uint64_t hz;
	double ns_per_tsc;
	double pkts_per_tsc;
	uint64_t start_tsc;
	uint64_t send_tsc;          /* TSC cycles spent sending */
	uint64_t send_cpu_ns;       /* CPU time of this thread while sending */
	struct nfvp_gen_stats st;
	struct nfvp_gen_naps naps;
};

/* Set by SIGINT and SIGTERM (main.c): stop sending. */
extern volatile sig_atomic_t nfvp_gen_stop;

/* The class a flow (as its stamp names it) belongs to. */
static inline struct nfvp_gen_class *
nfvp_gen_find_class(struct nfvp_gen *g, uint32_t flow)
{
	unsigned int k = 0;

	while (k + 1 < g->n_cls && flow >= g->cls[k + 1].first_flow)
		k++;
	return &g->cls[k];
}

/* args.c */
void nfvp_gen_print_usage(FILE *f);
int nfvp_gen_parse_args(struct nfvp_gen_conf *c, int argc, char **argv);
/* frames.c */
void nfvp_gen_size_classes(struct nfvp_gen *g);
int nfvp_gen_build(struct nfvp_gen *g);
void nfvp_gen_fill(struct nfvp_gen *g, struct rte_mbuf **pkts, unsigned int n, uint16_t *ring_of);
/* tx.c */
int nfvp_gen_map_fdir(struct nfvp_gen *g, uint32_t *queue_of);
void nfvp_gen_run(struct nfvp_gen *g);
/* rx.c */
int nfvp_gen_alloc_stats(struct nfvp_gen *g);
unsigned int nfvp_gen_recv(struct nfvp_gen *g);
/* report.c */
int nfvp_gen_write_stats(const struct nfvp_gen *g);
void nfvp_gen_print_summary(const struct nfvp_gen *g);

#endif /* NFVP_GEN_H */
