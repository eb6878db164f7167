/* SPDX-License-Identifier: MIT */
/* nflib.c: the NF side of every exchange architecture: the run loop (receive a burst, hand it
 * to the NF, send back what goes on), sleeping and waking, detach. Set-up: init.c.
 *
 * NF processes are plain processes, not EAL processes: they map what the vSwitch hands them
 * over the control socket (the arena at the vSwitch's address, or a private region in the
 * isolated architecture) and use only DPDK's inline ring and mbuf code. So neither
 * RTE_MAX_LCORE nor mempool caches limit how many NFs share a core, and an NF costs a few
 * hundred kB and a millisecond to start. */

#include <errno.h>
#include <stddef.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "nfvp_ctl.h"
#include "nfvp_nf.h"
#include "nfvp_parse.h"
#include "nfvp_shm.h"
#include "nflib_int.h"

#if RTE_BYTE_ORDER != RTE_LITTLE_ENDIAN
#error "describe() packs the header's fields for a little-endian CPU"
#endif

static volatile sig_atomic_t force_quit;

static void
on_signal(int sig)
{
	(void)sig;
	force_quit = 1;
}

void
nfvp_nf_catch_signals(void)
{
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
}

/* Isolated: describe the private buffers named by ring values as mbufs for the handler. */
static uint16_t
iso_receive(struct nfvp_nf *nf, struct rte_mbuf **pkts)
{
	uint64_t elems[NFVP_BURST];
	unsigned int i, n;

	n = rte_ring_dequeue_burst_elem(nf->to_nf, elems, sizeof(uint64_t), NFVP_BURST, NULL);
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = &nf->shells[i];
		uint16_t len = NFVP_ISO_LEN(elems[i]);

		m->buf_addr = nf->iso_bufs + (size_t)NFVP_ISO_IDX(elems[i]) * NFVP_ISO_BUF_SIZE;
		m->buf_len = NFVP_ISO_BUF_SIZE;
		m->data_off = NFVP_ISO_HEADROOM;
		m->data_len = len;
		m->pkt_len = len;
		m->nb_segs = 1;
		m->next = NULL;
		pkts[i] = m;
	}
	return n;
}

static void
iso_send(struct nfvp_nf *nf, struct rte_mbuf **pkts, uint16_t n, uint16_t k)
{
	uint64_t elems[NFVP_BURST];
	unsigned int i, sent = 0;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint8_t *buf = m->buf_addr;
		uint32_t idx = (buf - nf->iso_bufs) / NFVP_ISO_BUF_SIZE;

		if (m->data_off != NFVP_ISO_HEADROOM) /* the NF moved the start: put it back */
			memmove(buf + NFVP_ISO_HEADROOM, buf + m->data_off, m->data_len);
		elems[i] = nfvp_iso_elem(idx, m->data_len, i < k ? NFVP_PASS : NFVP_DROP);
	}
	while (sent < n && !nf->slot->stop)
		sent += rte_ring_enqueue_burst_elem(nf->from_nf, elems + sent, sizeof(uint64_t),
						    n - sent, NULL);
}

/* Shared architectures: a header of the NF's own for the packet descriptor i names (the
 * mbuf at arena offset off), so that the handler never touches the mbuf (nfvp_desc). Each
 * store costs the NF's loop about a cycle a packet, so its fields go in a word at a time, as
 * DPDK's vector receive paths write theirs (rearm_data, the receive descriptor's fields), and
 * the words that rarely change (data offset, port, buffer length) only when they do; next
 * and pool stay as zeroed at start. The buffer's address says which mbuf it is on the way
 * back (shell_off): handlers move a packet's start, never its buffer. */
static inline struct rte_mbuf *
describe(struct nfvp_nf *nf, uint16_t i, uint64_t off, uint16_t data_off, uint16_t len,
	 uint16_t port)
{
	struct rte_mbuf *m = &nf->shells[i];
	uint8_t *f = (uint8_t *)m;
	/* data_off, refcnt 1, nb_segs 1, port */
	uint64_t rearm = data_off | 1ull << 16 | 1ull << 32 | (uint64_t)port << 48;
	uint64_t lens = (uint64_t)len << 32; /* packet_type 0, pkt_len */
	uint64_t data = len;                 /* data_len, vlan_tci 0, the meta's first half 0 */
	/* the meta's second half 0, vlan_tci_outer 0, buf_len */
	uint64_t tail = (uint64_t)NFVP_BUF_SIZE << 48, was;

	RTE_BUILD_BUG_ON(offsetof(struct rte_mbuf, port) !=
			 offsetof(struct rte_mbuf, data_off) + 6);
	RTE_BUILD_BUG_ON(offsetof(struct rte_mbuf, pkt_len) !=
			 offsetof(struct rte_mbuf, packet_type) + 4);
	RTE_BUILD_BUG_ON(offsetof(struct rte_mbuf, hash) !=
			 offsetof(struct rte_mbuf, data_len) + 4);
	RTE_BUILD_BUG_ON(offsetof(struct rte_mbuf, buf_len) !=
			 offsetof(struct rte_mbuf, hash) + 10);
	m->buf_addr = nf->base + off + sizeof(struct rte_mbuf);
	memcpy(f + offsetof(struct rte_mbuf, packet_type), &lens, sizeof(lens));
	memcpy(f + offsetof(struct rte_mbuf, data_len), &data, sizeof(data));
	memcpy(&was, f + offsetof(struct rte_mbuf, data_off), sizeof(was));
	if (was != rearm)
		memcpy(f + offsetof(struct rte_mbuf, data_off), &rearm, sizeof(rearm));
	memcpy(&was, f + offsetof(struct rte_mbuf, hash) + 4, sizeof(was));
	if (was != tail)
		memcpy(f + offsetof(struct rte_mbuf, hash) + 4, &tail, sizeof(tail));
	return m;
}

/* The arena offset of the mbuf whose buffer a header describes (describe's off) */
static inline uint64_t
shell_off(const struct nfvp_nf *nf, const struct rte_mbuf *m)
{
	return (uint64_t)((uint8_t *)m->buf_addr - nf->base) - sizeof(struct rte_mbuf);
}

static uint16_t
shared_receive(struct nfvp_nf *nf, struct rte_mbuf **pkts)
{
	uint64_t descs[NFVP_BURST];
	uint16_t i, n;

	n = rte_ring_dequeue_burst_elem(nf->to_nf, descs, sizeof(uint64_t), NFVP_BURST, NULL);
	for (i = 0; i < n; i++)
		pkts[i] = describe(nf, i, NFVP_DESC_OFF(descs[i]), NFVP_DESC_DATA_OFF(descs[i]),
				   NFVP_DESC_LEN(descs[i]), NFVP_DESC_PORT(descs[i]));
	/* the vSwitch points the slot at a NIC queue when a chain starting here is added */
	if (nf->slot->nic_rx_off != 0 && n < NFVP_BURST) {
		/* fdir: packets straight from the NIC queue (mbufs, not descriptors) start the
		 * chain here */
		struct rte_mbuf *nic[NFVP_BURST];
		uint16_t m;

		nf->nic_rx = (struct rte_ring *)(nf->base + nf->slot->nic_rx_off);
		m = rte_ring_dequeue_burst(nf->nic_rx, (void **)nic, NFVP_BURST - n, NULL);
		for (i = 0; i < m; i++) {
			struct rte_mbuf *x = nic[i];

			*nfvp_meta(x) = (struct nfvp_meta){ .chain = nf->slot->nic_chain, .hop = 0,
							    .owner = nf->slot->id + 1 };
			pkts[n + i] = describe(nf, n + i, (uint8_t *)x - nf->base, x->data_off,
					       x->data_len, x->port);
		}
		nf->slot->stats.nic_rx += m;
		n += m;
	}
	return n;
}

static void
shared_send(struct nfvp_nf *nf, struct rte_mbuf **pkts, uint16_t n, uint16_t k)
{
	uint64_t descs[NFVP_BURST];
	unsigned int i, sent = 0;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];

		descs[i] = nfvp_desc(shell_off(nf, m), m->data_off, m->data_len,
				     nfvp_meta(m)->port, i < k ? NFVP_PASS : NFVP_DROP);
	}
	/* its ring back is twice its ring in: never full but for a moment at the end of a run */
	while (sent < n && !nf->slot->stop) {
		sent += rte_ring_enqueue_burst_elem(nf->from_nf, descs + sent, sizeof(uint64_t),
						    n - sent, NULL);
		if (sent < n)
			sched_yield();
	}
	if (nf->bells != NULL)
		nfvp_ring_bell(nf->bells, nf->slot->id);
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int
vswitch_gone(struct nfvp_nf *nf)
{
	struct pollfd p = { .fd = nf->ctl, .events = POLLIN };

	return poll(&p, 1, 0) > 0 && (p.revents & (POLLHUP | POLLERR | POLLIN));
}

/* Semaphore wait: announce the sleep, look once more, then wait (bounded). */
static void
nf_sleep(struct nfvp_nf *nf)
{
	struct nfvp_slot *s = nf->slot;
	struct timespec ts;

	s->sleeping = 1;
	rte_smp_mb();
	if (rte_ring_count(nf->to_nf) > 0 || s->stop) {
		s->sleeping = 0;
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_nsec += s->wait_timeout_ns % 1000000000ull;
	ts.tv_sec += s->wait_timeout_ns / 1000000000ull + ts.tv_nsec / 1000000000;
	ts.tv_nsec %= 1000000000;
	s->stats.sleeps++;
	while (sem_clockwait(&s->sem, CLOCK_MONOTONIC, &ts) < 0 && errno == EINTR && !force_quit)
		;
	s->sleeping = 0;
}

int
nfvp_nf_run(struct nfvp_nf *nf)
{
	struct nfvp_slot *s = nf->slot;
	struct nfvp_nf_stats *st = &s->stats;
	int sleeps = nf->arch == NFVP_ARCH_SEMAPHORE || nf->arch == NFVP_ARCH_ISOLATED;
	int iso = nf->arch == NFVP_ARCH_ISOLATED;
	double end_s = nf->duration_s > 0 ? now_s() + nf->duration_s : 1e300;
	struct rte_mbuf *pkts[NFVP_BURST];
	uint64_t loops = 0, idle_run = 0;

	while (!force_quit && !s->stop) {
		uint16_t n, k;
		uint64_t t0, t_loop = rte_rdtsc();

		st->heartbeat++;
		n = iso ? iso_receive(nf, pkts) : shared_receive(nf, pkts);
		if (n == 0) {
			st->idle_polls++;
			++idle_run;
			if (sleeps && idle_run == 1) {
				/* linger: one turn of the core, then look again before sleeping. On
				 * a core crowded with busy NFs a turn is long enough for the next
				 * packets to come, so a busy NF polls in turns, as double-buffer's
				 * do, and sleeps only once a turn brought nothing: a wake-up costs
				 * that core far more than a turn (a cold process, a remote post). */
				sched_yield();
				continue;
			}
			if (sleeps) {
				nf_sleep(nf);
			} else if (nf->idle == IDLE_YIELD) {
				sched_yield();
			} else {
				rte_pause();
			}
			if ((idle_run & 4095) == 0 || sleeps) {
				if (vswitch_gone(nf) || now_s() > end_s)
					break;
			}
			continue;
		}
		idle_run = 0;
		st->busy_polls++;
		t0 = rte_rdtsc();
		nf->explained = 0;
		k = nf->ops->burst(nf, pkts, n);
		t0 = rte_rdtsc() - t0;
		st->busy_cycles += t0;
		st->handler_hist[nfvp_cycle_bin(t0 / n)] += n;
		if (k > n)
			k = n;
		st->rx += n;
		st->tx += k;
		st->drop += n - k;
		if (nf->explained < (uint32_t)(n - k))
			st->drops_by[NFVP_DROP_OTHER] += n - k - nf->explained;
		if (iso)
			iso_send(nf, pkts, n, k);
		else
			shared_send(nf, pkts, n, k);
		t_loop = rte_rdtsc() - t_loop;
		st->loop_cycles += t_loop;
		st->loop_hist[nfvp_cycle_bin(t_loop / n)] += n;
		if (nf->max_pkts && st->rx >= nf->max_pkts)
			break;
		if ((++loops & 4095) == 0 && now_s() > end_s)
			break;
	}
	return 0;
}

void
nfvp_nf_close(struct nfvp_nf *nf)
{
	if (nf == NULL)
		return;
	if (nf->base != NULL)
		munmap(nf->base, nf->len);
	if (nf->ctl >= 0)
		close(nf->ctl);
	free(nf);
}

void
nfvp_nf_drop(struct nfvp_nf *nf, enum nfvp_drop_reason why, uint16_t n)
{
	if (why >= NFVP_DROP_REASONS)
		why = NFVP_DROP_OTHER;
	nf->slot->stats.drops_by[why] += n;
	nf->explained += n;
}

const char *
nfvp_nf_name(const struct nfvp_nf *nf)
{
	return nf->name;
}

void *
nfvp_nf_priv(const struct nfvp_nf *nf)
{
	return nf->priv;
}

void
nfvp_nf_set_priv(struct nfvp_nf *nf, void *priv)
{
	nf->priv = priv;
}
