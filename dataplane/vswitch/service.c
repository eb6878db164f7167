/* SPDX-License-Identifier: MIT */
/* service.c: a service is one step of a chain served by n parallel instances of an NF; the
 * vSwitch picks the instance of each packet by the service's policy (Hajji et al.):
 *
 *   flow        flow-affine by the 5-tuple: a new flow takes its instance from a Maglev table
 *               (consistent hashing: changing the instances remaps about 1/n of the hash
 *               space, where hash mod n remaps most of it) and keeps it in the service's flow
 *               table, so that a flow stays on its instance until that instance is removed;
 *   weighted    the same with a weight per instance (the Maglev table gives each instance a
 *               share of its slots proportional to its weight);
 *   round-robin per packet, for NFs declared stateless only;
 *   nf-aware    flows are large or small by their first frame (--large-bytes); each class gets
 *               a group of instances sized by its share of what drives the NF's cost (packets
 *               for header NFs, bytes for payload NFs, measured as the traffic goes), and a
 *               new flow goes to the least loaded instance of its class's group, by that cost.
 *
 * The flow key is the IPv4 5-tuple (the MAC addresses for anything else) as the packet reaches
 * the service. Instances change at run time ("service set"); flows of removed instances are
 * forgotten (counted as moved) and the others keep their instance. */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_hash_crc.h>
#include <rte_ip.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "vswitch.h"

struct vs_flow_key {
	uint32_t a, b;   /* src and dst IPv4 address, or the MAC addresses' first 8 bytes */
	uint16_t sp, dp; /* ports, or the MACs' last 4 bytes */
	uint8_t proto;
	uint8_t pad[3];
};

static void
flow_key(const struct rte_mbuf *m, struct vs_flow_key *k)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(eth + 1);

	memset(k, 0, sizeof(*k));
	if (eth->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) &&
	    m->data_len >= sizeof(*eth) + sizeof(*ip)) {
		unsigned int hl = (ip->version_ihl & 0xf) * 4;

		k->a = ip->src_addr;
		k->b = ip->dst_addr;
		k->proto = ip->next_proto_id;
		if ((k->proto == IPPROTO_UDP || k->proto == IPPROTO_TCP) &&
		    m->data_len >= sizeof(*eth) + hl + 4) {
			const uint16_t *ports = (const uint16_t *)((const uint8_t *)ip + hl);

			k->sp = ports[0];
			k->dp = ports[1];
		}
		return;
	}
	memcpy(&k->a, eth, 8);
	memcpy(&k->sp, (const uint8_t *)eth + 8, 4);
}

static uint32_t
name_hash(const char *s, uint32_t seed)
{
	return rte_hash_crc(s, strlen(s), seed);
}

/* Maglev (Eisenbud et al., NSDI 2016): each instance walks its own permutation of the table's
 * slots and claims the next free one, in turns. Weighted turns are spread as smooth weighted
 * round-robin orders them (each turn goes to the instance furthest behind its share), so that
 * every prefix of the filling -- the last, partial round included -- follows the weights; equal
 * weights take turns in index order. The permutations depend on the instances' names only, so
 * the same set gives the same table. */
static void
maglev_build(struct vs_service *s, const struct vs_nf *nfs)
{
	uint32_t offset[NFVP_MAX_INSTANCES], skip[NFVP_MAX_INSTANCES], next[NFVP_MAX_INSTANCES];
	int64_t credit[NFVP_MAX_INSTANCES], total = 0;
	uint32_t filled, i;

	memset(s->maglev, 0xff, sizeof(s->maglev));
	for (i = 0; i < s->n; i++) {
		offset[i] = name_hash(nfs[s->nf[i]].name, 0x9e3779b9) % VS_MAGLEV_M;
		skip[i] = name_hash(nfs[s->nf[i]].name, 0x85ebca6b) % (VS_MAGLEV_M - 1) + 1;
		next[i] = 0;
		credit[i] = 0;
		total += s->weight[i];
	}
	for (filled = 0; filled < VS_MAGLEV_M; filled++) {
		uint32_t best = 0, c;

		for (i = 0; i < s->n; i++) {
			credit[i] += s->weight[i];
			if (credit[i] > credit[best])
				best = i;
		}
		credit[best] -= total;
		do {
			c = (offset[best] + (uint64_t)next[best]++ * skip[best]) % VS_MAGLEV_M;
		} while (s->maglev[c] != UINT16_MAX);
		s->maglev[c] = (uint16_t)best;
	}
}

static inline uint32_t
key_hash(const struct vs_flow_key *k)
{
	return rte_hash_crc(k, sizeof(*k), 0);
}

/* nf-aware: the groups of instances for large and small flows, sized by each class's share
 * of the NF's cost driver; a class that has been seen lately (or is being placed: `placing`,
 * 0 small, 1 large, -1 none) gets at least one instance while n >= 2. Flows placed before the
 * other class shows up may share its instances: they stay where they are. */
static void
nf_aware_groups(struct vs_service *s, int placing)
{
	int has_large = s->class_load[1] > 0 || placing == 1;
	int has_small = s->class_load[0] > 0 || placing == 0;
	double total = s->class_load[0] + s->class_load[1];
	unsigned int n_large;

	if (!has_large || s->n < 2) {
		s->n_large = has_large ? s->n : 0;
		return;
	}
	if (!has_small) {
		s->n_large = s->n;
		return;
	}
	n_large = total > 0 ? (unsigned int)lround(s->n * s->class_load[1] / total) : s->n / 2;
	s->n_large = RTE_MIN(RTE_MAX(n_large, 1u), s->n - 1u);
}

/* The least loaded instance of a class's group, by the cost driver per weight. */
static uint16_t
nf_aware_pick(struct vs_service *s, int large)
{
	unsigned int lo = large ? 0 : s->n_large, hi = large ? s->n_large : s->n, i, best;

	if (lo >= hi) { /* no group for this class yet: all instances */
		lo = 0;
		hi = s->n;
	}
	best = lo;
	for (i = lo; i < hi && s->weight[i] == 0; i++)
		best = i + 1;
	if (best == hi) /* every instance of the group weighs 0 */
		best = lo;
	for (i = best + 1; i < hi; i++)
		if (s->weight[i] != 0 &&
		    s->inst_load[i] * s->weight[best] < s->inst_load[best] * s->weight[i])
			best = i;
	return (uint16_t)best;
}

/* Decay the nf-aware loads: they weigh the last ~100 ms (tau) most. */
static void
nf_aware_decay(struct vswitch *vs, struct vs_service *s, uint64_t now)
{
	double f;
	unsigned int i;

	if (now - s->decay_tsc < vs->hz / 100)
		return;
	f = exp(-(double)(now - s->decay_tsc) / (NFVP_NF_AWARE_DECAY_MS * 1e-3 * (double)vs->hz));
	s->decay_tsc = now;
	s->class_load[0] *= f;
	s->class_load[1] *= f;
	for (i = 0; i < s->n; i++)
		s->inst_load[i] *= f;
}

/* A pinned flow's entry: its instance and its class (large or small, as its first frame
 * was: nf-aware charges the flow's later packets to the class it was placed by) */
#define PIN_LARGE (1u << 15)
#define PIN(inst, large) ((void *)(uintptr_t)((inst) | ((large) ? PIN_LARGE : 0)))
#define PIN_INST(data) ((uint16_t)((uintptr_t)(data) & (PIN_LARGE - 1)))

int
vs_service_pick(struct vswitch *vs, struct vs_service *s, struct rte_mbuf *m)
{
	struct vs_flow_key k;
	uint16_t inst;
	void *data;
	int large = 0;

	if (s->n == 0)
		return -1;
	if (s->policy == NFVP_POL_RR) {
		inst = (uint16_t)(s->rr++ % s->n);
		goto out;
	}
	flow_key(m, &k);
	if (rte_hash_lookup_data(s->flows, &k, &data) >= 0) {
		inst = PIN_INST(data);
		large = ((uintptr_t)data & PIN_LARGE) != 0;
		goto out;
	}
	large = m->pkt_len + RTE_ETHER_CRC_LEN >= s->large_bytes;
	if (s->policy == NFVP_POL_NF_AWARE) {
		nf_aware_decay(vs, s, vs->now_tsc);
		nf_aware_groups(s, large);
		inst = nf_aware_pick(s, large);
	} else {
		inst = s->maglev[key_hash(&k) % VS_MAGLEV_M];
	}
	if (rte_hash_add_key_data(s->flows, &k, PIN(inst, large)) < 0) {
		/* the flow table is full: this flow is not remembered; its Maglev slot keeps it
		 * on one instance all the same */
		s->unpinned++;
		inst = s->maglev[key_hash(&k) % VS_MAGLEV_M];
	} else {
		s->inst_flows[inst]++;
	}
out:
	s->inst_pkts[inst]++;
	s->inst_bytes[inst] += m->pkt_len;
	if (s->policy == NFVP_POL_NF_AWARE) {
		double cost = s->cost_bytes ? (double)m->pkt_len : 1.0;

		s->inst_load[inst] += cost;
		s->class_load[large] += cost;
	}
	return s->nf[inst];
}

int
vs_service_find(const struct vswitch *vs, const char *name)
{
	unsigned int i;

	for (i = 0; i < NFVP_MAX_SERVICES; i++)
		if (vs->services[i].used && strcmp(vs->services[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* Set a service's instances (and weights). Flows pinned to an instance that stays keep it
 * (its index may change: the table is renumbered); flows of removed instances are forgotten.
 * Also measures, over the flows pinned before, how many the new Maglev table would move, and how
 * many hash mod n would. */
void
vs_service_set(struct vswitch *vs, struct vs_service *s, const uint16_t *nf,
	       const uint32_t *weight, unsigned int n)
{
	int16_t new_index[NFVP_MAX_INSTANCES];
	uint16_t old_maglev[VS_MAGLEV_M], old_nf[NFVP_MAX_INSTANCES], old_n = s->n;
	uint64_t old_pkts[NFVP_MAX_INSTANCES], old_bytes[NFVP_MAX_INSTANCES], old_flows[NFVP_MAX_INSTANCES];
	double old_load[NFVP_MAX_INSTANCES];
	const void *key;
	void *data;
	uint32_t it = 0, i, j;
	uint64_t seen = 0, hash_moved = 0, mod_moved = 0, moved = 0;

	memcpy(old_maglev, s->maglev, sizeof(old_maglev));
	memcpy(old_nf, s->nf, sizeof(old_nf));
	for (i = 0; i < old_n; i++) {
		new_index[i] = -1;
		for (j = 0; j < n; j++)
			if (s->nf[i] == nf[j])
				new_index[i] = (int16_t)j;
		old_pkts[i] = s->inst_pkts[i];
		old_bytes[i] = s->inst_bytes[i];
		old_flows[i] = s->inst_flows[i];
		old_load[i] = s->inst_load[i];
	}
	memset(s->inst_pkts, 0, sizeof(s->inst_pkts));
	memset(s->inst_bytes, 0, sizeof(s->inst_bytes));
	memset(s->inst_flows, 0, sizeof(s->inst_flows));
	memset(s->inst_load, 0, sizeof(s->inst_load));
	for (i = 0; i < old_n; i++)
		if (new_index[i] >= 0) {
			s->inst_pkts[new_index[i]] = old_pkts[i];
			s->inst_bytes[new_index[i]] = old_bytes[i];
			s->inst_flows[new_index[i]] = old_flows[i];
			s->inst_load[new_index[i]] = old_load[i];
		} else {
			s->gone_pkts += old_pkts[i];
			s->gone_bytes += old_bytes[i];
		}
	memcpy(s->nf, nf, n * sizeof(nf[0]));
	memcpy(s->weight, weight, n * sizeof(weight[0]));
	s->n = (uint16_t)n;
	maglev_build(s, vs->nfs);

	while (rte_hash_iterate(s->flows, &key, &data, &it) >= 0) {
		const struct vs_flow_key *k = key;
		uint16_t old = PIN_INST(data);
		uint32_t h = key_hash(k);

		seen++;
		if (old_n > 0 && n > 0) {
			hash_moved += s->nf[s->maglev[h % VS_MAGLEV_M]] !=
				      old_nf[old_maglev[h % VS_MAGLEV_M]];
			mod_moved += s->nf[h % n] != old_nf[h % old_n];
		}
		if (new_index[old] < 0) {
			rte_hash_del_key(s->flows, k);
			moved++;
		} else {
			rte_hash_add_key_data(s->flows, k,
					      PIN(new_index[old], ((uintptr_t)data & PIN_LARGE) != 0));
		}
	}
	s->scalings++;
	s->flows_moved += moved;
	s->last_flows = seen;
	s->last_moved = moved;
	s->last_hash_moved = hash_moved;
	s->last_mod_moved = mod_moved;
	if (s->policy == NFVP_POL_NF_AWARE)
		nf_aware_groups(s, -1);
}

int
vs_service_reset(struct vs_service *s, int id)
{
	struct rte_hash_parameters hp = {
		.entries = NFVP_FLOW_ENTRIES, .key_len = sizeof(struct vs_flow_key),
		.hash_func = rte_hash_crc, .socket_id = SOCKET_ID_ANY,
	};
	char hname[RTE_HASH_NAMESIZE];
	struct rte_hash *flows;

	if (s->flows == NULL) {
		snprintf(hname, sizeof(hname), "vs_flows_%d", id);
		hp.name = hname;
		s->flows = rte_hash_create(&hp);
		if (s->flows == NULL)
			return -ENOMEM;
	}
	rte_hash_reset(s->flows);
	flows = s->flows;
	memset(s, 0, sizeof(*s));
	s->flows = flows;
	return 0;
}
