/* SPDX-License-Identifier: MIT */
/* vswitch.h: the vSwitch's own state: configuration, ports, chains, NFs and counters. */

#ifndef NFVP_VSWITCH_H
#define NFVP_VSWITCH_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <rte_ether.h>
#include <rte_hash.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "nfvp_shm.h"

#define VS_HIST 33 /* burst sizes 0..32 */
/* mbufs each allocating lcore (the vSwitch's, the generator's: NFVP_GEN_LCORE) keeps at hand:
 * the pool's ring is then taken once per this many, not once per burst. NFs never allocate or
 * free. */
#define VS_POOL_CACHE 256
#define VS_SWEEP_US 1000 /* blocking NFs: every NF's returns looked at, at least this often */
#define VS_PREFETCH 4 /* packets ahead whose lines are fetched while one is handled */
#define VS_MAC_CACHE_BITS 8 /* the MAC -> chain cache holds 2^this entries */
#define VS_MAC_CACHE (1u << VS_MAC_CACHE_BITS)
/* Sojourn times in an NF (sent to it .. back), in TSC cycles: log-linear, 4 bins an octave. */
#define VS_LAT_SUB_BITS 2
#define VS_LAT_BINS NFVP_HIST_BINS(VS_LAT_SUB_BITS, VS_LAT_SUB_BITS)

struct vs_config {
	enum nfvp_arch arch;
	const char *ctl_path;
	const char *stats_out;
	unsigned int ring_ports;     /* ports made of arena rings, for nfvp-gen */
	unsigned int rx_ports;       /* poll rx on the first rx_ports ports only (0: all) */
	int rx_hold;                 /* take nothing from the ports until the "start" command */
	unsigned int fdir_queues;    /* NIC rx queues of port 0 in arch fdir (queue 0: the rest) */
	unsigned int ring_size;      /* per-NF rings */
	unsigned int pool_mbufs;
	unsigned int max_nfs;
	unsigned int iso_bufs;       /* private buffers per NF, isolated */
	unsigned int wake_batch;     /* blocking NFs: post when this many packets wait */
	uint64_t wake_timeout_us;    /* blocking NFs: aging, post anyway after this long (at least) */
	unsigned int wake_rate_max;  /* both stretch while NFs are woken more often a second */
	uint64_t nf_wait_ms;         /* an NF's own bound on one wait */
	uint64_t drain_ms;
};

/* An NF waiting in the aging queue, and the TSC its oldest unannounced packet came at. */
struct vs_aging {
	uint16_t id;
	uint64_t since;
};

/* How the vSwitch woke blocking NFs: by count, by age (and the timeout then in force), what
 * its posts cost, timed as they ran; and the stretch of batch and timeout (wake.c). */
struct vs_wakes {
	uint64_t by_count;
	uint64_t by_age;
	uint64_t post_cycles;    /* sum over posts */
	double timeout_sum_us;   /* the aging timeout at each wake by age */
	double stretch;          /* batch and timeout stretched this many times (>= 1; vs_init) */
	double stretch_max;
	double stretch_sum;      /* over windows */
	uint64_t windows;
	uint64_t window_start;   /* TSC */
	uint64_t in_window;      /* posts since */
};

/* Packets bound for one NF in this loop iteration, flushed together. */
struct vs_pending {
	uint16_t n;
	uint16_t listed; /* in vs->dirty (once a loop, however many bursts it is handed) */
	union {
		struct rte_mbuf *pkts[NFVP_BURST]; /* shared architectures */
		uint64_t elems[NFVP_BURST];        /* isolated: buffer, length, verdict */
	};
};

struct vs_nf {
	int alive;
	int ctl_fd;
	pid_t pid;
	char name[64];
	struct nfvp_slot *slot;
	struct rte_ring *to_nf;
	struct rte_ring *from_nf;
	/* isolated: the private region and which mbuf each buffer stands for */
	uint8_t *region;
	size_t region_len;
	int region_fd;
	uint8_t *bufs;
	uint32_t *free_idx;
	uint32_t n_free;
	struct rte_mbuf **held;
	/* blocking NFs (semaphore, isolated) */
	uint64_t pending_since; /* TSC of the oldest packet not yet announced; 0: none */
	int aging_listed;       /* in vs->aging (at most once) */
	int awake_listed;       /* in vs->awake: polled for returns each loop */
	uint64_t wakeups;
	/* what the vSwitch counted */
	uint64_t sent;
	uint64_t returned;
	uint64_t lost_at_death;
	uint64_t bytes;         /* sent to it */
	uint64_t ring_full;     /* meant for it, dropped: its ring was full */
	uint64_t sojourn_n;
	uint64_t sojourn_sum; /* cycles */
	uint64_t *sojourn_hist; /* VS_LAT_BINS, allocated when it attaches */
	struct vs_pending pend;
};

#define VS_MAGLEV_M 4093       /* prime; over 100 slots an instance keeps their shares even */

extern const char *const vs_policy_names[];

/* A chain step served by parallel instances of an NF (service.c). */
struct vs_service {
	int used;
	char name[64];
	enum nfvp_policy policy;
	int stateless;
	int cost_bytes;          /* nf-aware: the NF's cost follows bytes (else packets) */
	uint32_t large_bytes;    /* nf-aware: a flow whose first frame has this many is large */
	uint16_t n;
	uint16_t nf[NFVP_MAX_INSTANCES];
	uint32_t weight[NFVP_MAX_INSTANCES];
	uint16_t maglev[VS_MAGLEV_M];
	uint64_t rr;
	struct rte_hash *flows;  /* flow key -> instance index */
	uint64_t inst_pkts[NFVP_MAX_INSTANCES], inst_bytes[NFVP_MAX_INSTANCES], inst_flows[NFVP_MAX_INSTANCES];
	double inst_load[NFVP_MAX_INSTANCES];  /* nf-aware: decayed cost given to each instance */
	double class_load[2];           /* nf-aware: decayed cost of small [0] and large [1] */
	unsigned int n_large;           /* nf-aware: instances 0..n_large) serve large flows */
	uint64_t decay_tsc;
	uint64_t unpinned, scalings, flows_moved, gone_pkts, gone_bytes;
	uint64_t last_flows, last_moved, last_hash_moved, last_mod_moved;
};

struct vs_chain {
	int used;
	uint8_t len;
	uint16_t out_port;
	int16_t nic_queue; /* fdir: the queue the NIC steers this chain to, -1: none */
	uint16_t nf[NFVP_MAX_CHAIN_LEN];
	uint16_t svc[NFVP_MAX_CHAIN_LEN]; /* s + 1: this step is service s (nf[] unused); 0: nf[] */
	struct rte_ether_addr mac;
};

struct vs_port {
	uint16_t id;
	char name[64];
	uint16_t rx_queues;
	uint64_t rx;
	uint64_t tx;
	uint64_t tx_dropped;
	uint16_t n_tx;
	struct rte_mbuf *tx_buf[NFVP_BURST];
};

/* One stage of the poll loop, over its calls that moved at least one packet: what a fit of
 * cycles = a + b * packets by least squares needs (n, sum x, sum y, sum x^2, sum xy). */
struct vs_stage {
	uint64_t calls;
	uint64_t packets;
	uint64_t cycles;
	double sum_pp; /* packets^2 */
	double sum_cp; /* cycles * packets */
};

enum vs_stage_id {
	VS_STAGE_RX,    /* vs_poll_ports: receive, classify, hand to the first NF */
	VS_STAGE_NF,    /* vs_poll_nfs: take back from the NFs, on to the next NF or a port */
	VS_STAGE_FLUSH, /* vs_flush: the gathered bursts into the NF rings and the ports */
	VS_STAGES,
};

struct vs_drops {
	uint64_t port_tx;
	uint64_t ring_full;
	uint64_t nf;
	uint64_t no_chain;
	uint64_t nf_absent;
	uint64_t nf_dead;
	uint64_t in_flight_at_stop;
};

struct vswitch {
	struct vs_config cfg;
	uint64_t hz;
	uint64_t start_tsc;
	/* the arena */
	int arena_fd;
	uint8_t *arena;
	size_t arena_len;
	int heap_socket;
	const char *arena_iova;       /* "va", "pa" or "none": the IO addresses of its pages */
	rte_iova_t *arena_iovas;      /* one a hugepage, or NULL */
	unsigned int dma_ports;       /* ports whose device accepted a DMA map of the arena */
	unsigned int dma_refused;     /* and those whose device refused it */
	int mbuf_iova_ok;             /* the pool's buffers carry IO addresses */
	struct rte_mempool *pool;
	/* ports */
	uint16_t n_ports;
	struct vs_port ports[NFVP_MAX_PORTS];
	/* chains */
	struct rte_hash *mac2chain;
	/* a direct-mapped cache in front of mac2chain (as a software switch's exact-match cache):
	 * an entry holds while its gen is mac_gen, which every change of the table bumps */
	struct vs_mac_cached {
		uint64_t key;
		uint32_t chain;
		uint32_t gen;
	} mac_cache[VS_MAC_CACHE];
	uint32_t mac_gen;
	struct rte_hash *fdir;
	struct rte_ring *nic_queue[64];
	struct vs_chain *chains;
	unsigned int n_chains;
	int default_chain;            /* where packets whose MAC no chain has go; -1: dropped */
	int port_chain[NFVP_MAX_PORTS]; /* where every packet from a port goes; -1: by MAC */
	struct vs_service *services;  /* NFVP_MAX_SERVICES */
	/* NFs */
	struct vs_nf *nfs;
	unsigned int n_nf_ids;        /* ids handed out so far */
	uint16_t *active;             /* ids of live NFs, for the poll loop */
	unsigned int n_active;
	uint16_t *dirty;              /* NFs with pending packets this iteration */
	unsigned int n_dirty;
	/* blocking NFs: a FIFO of NFs with unannounced packets, oldest first (an NF whose packets
	 * were announced meanwhile leaves when it reaches the head), and the NFs that may have
	 * returns: those given packets or woken since they were last seen asleep with nothing
	 * to return (a sweep of every NF, every VS_SWEEP_US, finds one that woke by itself) */
	struct vs_aging *aging;
	unsigned int aging_head;
	unsigned int n_aging;
	uint16_t *awake;
	unsigned int n_awake;
	uint64_t next_sweep_tsc;
	struct vs_wakes wakes;
	uint64_t *bells;              /* shared-ring: a bit an NF, rung when it hands back */
	/* control */
	int listen_fd;
	int epoll_fd;
	int gen_fd;
	uint64_t last_ctl_tsc;
	volatile int quit;
	int rx_enabled;
	/* counters */
	struct vs_drops drops;
	uint64_t loops;
	uint64_t now_tsc;             /* this poll loop's TSC: stamps packets handed to NFs */
	uint64_t rx_hist[VS_HIST];
	uint64_t nf_hist[VS_HIST];
	struct vs_stage stages[VS_STAGES];
	uint64_t idle_loops;          /* poll loop iterations that moved nothing */
	uint64_t idle_cycles;         /* and their cycles, ageing and control included */
	uint64_t stalls;              /* loop iterations longer than NFVP_STALL_GAP_US */
	uint64_t stall_tsc[NFVP_STALLS_KEPT]; /* the first ones' lengths, in TSC cycles */
	uint64_t stall_end[NFVP_STALLS_KEPT]; /* and the TSC when each ended */
};

/* args.c */
int vs_args_parse(int argc, char **argv, struct vs_config *cfg);
/* init.c */
int vs_arena_create(struct vswitch *vs);
int vs_init(struct vswitch *vs);
/* an arena address as the offset descriptors and slots carry (every process maps the arena
 * at its own address) */
static inline uint64_t
vs_arena_off(const struct vswitch *vs, const void *p)
{
	return (uint64_t)((const uint8_t *)p - vs->arena);
}

/* control.c */
int vs_ctl_open(struct vswitch *vs);
void vs_ctl_poll(struct vswitch *vs);
void vs_ctl_close(struct vswitch *vs);
/* exchange.c */
void vs_dispatch(struct vswitch *vs, struct rte_mbuf *m, const uint8_t *src);
/* Each returns how many packets it moved: received, taken back, handed to rings and ports. */
unsigned int vs_poll_ports(struct vswitch *vs, int rx);
unsigned int vs_poll_nfs(struct vswitch *vs, int all); /* all: every NF, not only the awake */
unsigned int vs_flush(struct vswitch *vs);
void vs_age(struct vswitch *vs, uint64_t now);
/* wake.c */
void vs_awake_add(struct vswitch *vs, struct vs_nf *nf);
void vs_announce(struct vswitch *vs, struct vs_nf *nf);
void vs_awake_sweep(struct vswitch *vs, uint64_t now);
void vs_awake_drop(struct vswitch *vs, unsigned int i);
static inline int
vs_blocking(const struct vswitch *vs)
{
	return vs->cfg.arch == NFVP_ARCH_SEMAPHORE || vs->cfg.arch == NFVP_ARCH_ISOLATED;
}
void vs_nf_reclaim(struct vswitch *vs, struct vs_nf *nf);
/* The end of a run: stop every NF, free what they hold; returns how many packets that was. */
uint64_t vs_nfs_stop(struct vswitch *vs);
uint64_t vs_in_flight(const struct vswitch *vs);
void vs_free(struct vswitch *vs, struct rte_mbuf *m);
void vs_free_bulk(struct vswitch *vs, struct rte_mbuf **pkts, unsigned int n);
/* control.c */
int vs_nf_find(const struct vswitch *vs, const char *name);     /* an attached NF's id, or -1 */
/* chains.c: "chain add|del|default ..." (args after "chain "); the reply into out */
void vs_chain_command(struct vswitch *vs, char *args, char *out, size_t len);
/* classify.c: each packet's chain by destination MAC (-1: none and no default), through the
 * cache; vs_classify_forget voids the cache, after every change of mac2chain. */
void vs_classify(struct vswitch *vs, struct rte_mbuf **pkts, unsigned int n, int *chain);
void vs_classify_forget(struct vswitch *vs);
/* service.c */
int vs_service_find(const struct vswitch *vs, const char *name);
int vs_service_pick(struct vswitch *vs, struct vs_service *s, struct rte_mbuf *m);
/* A service with an empty flow table (made the first time); 0 or -ENOMEM. */
int vs_service_reset(struct vs_service *s, int id);
/* Its instances and weights: flows on instances that stay keep them, the others are moved. */
void vs_service_set(struct vswitch *vs, struct vs_service *s, const uint16_t *nf,
		    const uint32_t *weight, unsigned int n);
/* service_ctl.c */
void vs_service_command(struct vswitch *vs, char *args, char *out, size_t len);
void vs_service_json(FILE *f, const struct vswitch *vs);
/* stats.c */
int vs_stats_write(const struct vswitch *vs, const char *path);

#endif /* NFVP_VSWITCH_H */
