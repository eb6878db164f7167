/* SPDX-License-Identifier: MIT */
/* main.c: the vSwitch: EAL, the arena, the control socket, the poll loop, the drain at the end. */

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_ring.h>

#include "vswitch.h"

static struct vswitch vswitch;

static void
on_signal(int sig)
{
	(void)sig;
	vswitch.quit = 1;
}

/* A stage's call that moved n packets in c cycles (calls that moved nothing are left out: an
 * empty poll costs what an idle loop shows). */
static inline void
stage_add(struct vs_stage *st, unsigned int n, uint64_t c)
{
	if (n == 0)
		return;
	st->calls++;
	st->packets += n;
	st->cycles += c;
	st->sum_pp += (double)n * n;
	st->sum_cp += (double)c * n;
}

/* Each stage is timed between two TSC reads, the end of one the start of the next; the rest
 * (ageing, control) ends at the next iteration's read, which is where an idle iteration's
 * cycles are known. */
static void
loop(struct vswitch *vs)
{
	uint64_t ctl_every = vs->hz / 5000; /* the control socket every 200 µs */
	int sems = vs_blocking(vs);
	uint64_t stall = vs->hz / 1000000 * NFVP_STALL_GAP_US;
	uint64_t now = rte_rdtsc(), prev = now;
	int idle = 0;

	while (!vs->quit) {
		unsigned int rx, nf, flushed;
		uint64_t t_rx, t_nf, t_flush;

		if (idle) {
			vs->idle_loops++;
			vs->idle_cycles += now - prev;
		}
		/* an iteration takes a few µs at most: one far longer lost the CPU */
		if (now - prev > stall) {
			if (vs->stalls < NFVP_STALLS_KEPT) {
				vs->stall_tsc[vs->stalls] = now - prev;
				vs->stall_end[vs->stalls] = now;
			}
			vs->stalls++;
		}
		prev = now;
		vs->now_tsc = now;
		rx = vs_poll_ports(vs, vs->rx_enabled);
		t_rx = rte_rdtsc();
		nf = vs_poll_nfs(vs, 0);
		t_nf = rte_rdtsc();
		flushed = vs_flush(vs);
		t_flush = rte_rdtsc();
		stage_add(&vs->stages[VS_STAGE_RX], rx, t_rx - now);
		stage_add(&vs->stages[VS_STAGE_NF], nf, t_nf - t_rx);
		stage_add(&vs->stages[VS_STAGE_FLUSH], flushed, t_flush - t_nf);
		idle = rx + nf + flushed == 0;
		if (sems)
			vs_age(vs, t_flush); /* after the flush: the clock of the packets it listed */
		if (now - vs->last_ctl_tsc > ctl_every) {
			vs_ctl_poll(vs);
			vs->last_ctl_tsc = now;
		}
		vs->loops++;
		now = rte_rdtsc();
	}
	if (idle) {
		vs->idle_loops++;
		vs->idle_cycles += now - prev;
	}
}

/* What the wire side (nfvp-gen) left in the ring ports at the end goes back to the pool. */
static void
drain_port_rings(struct vswitch *vs)
{
	struct rte_mbuf *pkts[NFVP_BURST];
	char name[64];
	unsigned int p, q, i, n;

	for (p = 0; p < vs->cfg.ring_ports; p++) {
		for (q = 0; q <= vs->cfg.fdir_queues; q++) {
			struct rte_ring *r;

			snprintf(name, sizeof(name), NFVP_PORT_RING_FMT, p, q == 0 ? "tx" : "rx",
				 q == 0 ? 0 : q - 1);
			r = rte_ring_lookup(name);
			if (r == NULL)
				continue;
			while ((n = rte_ring_dequeue_burst(r, (void **)pkts, NFVP_BURST, NULL)) > 0) {
				for (i = 0; i < n; i++)
					vs_free(vs, pkts[i]);
				vs->drops.in_flight_at_stop += n;
			}
		}
	}
}

/* Stop taking packets in, let the NFs finish what they have, then stop them and free the rest. */
static void
drain(struct vswitch *vs)
{
	uint64_t end = rte_rdtsc() + vs->cfg.drain_ms * vs->hz / 1000;
	unsigned int i;

	while (vs_in_flight(vs) > 0 && rte_rdtsc() < end) {
		vs_poll_nfs(vs, 1);
		vs_flush(vs);
		vs_age(vs, 0);
		for (i = 0; i < vs->n_active; i++) /* wake every sleeper: the aging is over */
			if (vs->nfs[vs->active[i]].slot->sleeping &&
			    rte_ring_count(vs->nfs[vs->active[i]].to_nf) > 0)
				sem_post(&vs->nfs[vs->active[i]].slot->sem);
		vs_ctl_poll(vs);
	}
	vs->drops.in_flight_at_stop += vs_nfs_stop(vs);
	drain_port_rings(vs);
}

/* One control connection per NF: a thousand NFs need more than the usual 1024 descriptors. */
static void
raise_fd_limit(unsigned int max_nfs)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < max_nfs + 256u) {
		rl.rlim_cur = RTE_MIN(rl.rlim_max, (rlim_t)max_nfs + 256u);
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur < max_nfs + 64u)
			fprintf(stderr, "vswitch: --max-nfs: %u NFs need about %u file descriptors, "
				"the limit is %lu (try: ulimit -n %u)\n", max_nfs, max_nfs + 256u,
				(unsigned long)rl.rlim_cur, max_nfs + 256u);
	}
}

int
main(int argc, char **argv)
{
	struct vswitch *vs = &vswitch;
	int n, rc = 1;

	n = rte_eal_init(argc, argv);
	if (n < 0) {
		fprintf(stderr, "vswitch: EAL: cannot start (hugepages? try: echo 512 > "
			"/proc/sys/vm/nr_hugepages)\n");
		return 1;
	}
	argc -= n;
	argv += n;
	if (vs_args_parse(argc, argv, &vs->cfg) < 0) {
		rte_eal_cleanup();
		return 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	raise_fd_limit(vs->cfg.max_nfs);
	if (vs_arena_create(vs) < 0 || vs_init(vs) < 0 || vs_ctl_open(vs) < 0)
		goto out;
	vs->rx_enabled = !vs->cfg.rx_hold;
	printf("ready arch=%s ports=%u ctl=%s\n", nfvp_arch_names[vs->cfg.arch], vs->n_ports,
	       vs->cfg.ctl_path);
	fflush(stdout);
	loop(vs);
	drain(vs);
	rc = 0;
	if (vs->cfg.stats_out != NULL && vs_stats_write(vs, vs->cfg.stats_out) < 0) {
		fprintf(stderr, "vswitch: --stats-out: cannot write \"%s\"\n", vs->cfg.stats_out);
		rc = 1;
	}
out:
	vs_ctl_close(vs);
	rte_eal_cleanup();
	return rc;
}
