/* SPDX-License-Identifier: MIT */
/* main.c: main(): the options, attach to the vSwitch, EAL, run, report, clean up. */

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "nfvp_ctl.h"
#include "gen.h"

volatile sig_atomic_t nfvp_gen_stop;

static void
nfvp_gen_on_signal(int sig __rte_unused)
{
	nfvp_gen_stop = 1;
}

/* Attach to the vSwitch and map its arena at the vSwitch's address (before rte_eal_init). */
static int
nfvp_gen_attach(struct nfvp_gen *g)
{
	char msg[NFVP_CTL_MSG];
	uint64_t base;
	ssize_t n;
	void *p;
	int fd = -1;
	int ret;

	g->ctl = nfvp_ctl_connect(g->conf.ctl_path);
	if (g->ctl < 0) {
		fprintf(stderr, NFVP_GEN_NAME ": cannot connect to %s: %s (is the vSwitch "
			"running?)\n", g->conf.ctl_path, strerror(-g->ctl));
		goto fail;
	}
	snprintf(msg, sizeof(msg), "attach gen %d", (int)getpid());
	ret = nfvp_ctl_send(g->ctl, msg, -1);
	if (ret < 0) {
		fprintf(stderr, NFVP_GEN_NAME ": cannot send to %s: %s\n", g->conf.ctl_path,
			strerror(-ret));
		goto fail;
	}
	n = nfvp_ctl_recv(g->ctl, msg, sizeof(msg), &fd);
	if (n <= 0) {
		fprintf(stderr, NFVP_GEN_NAME ": no reply from the vSwitch on %s: %s\n",
			g->conf.ctl_path, n == 0 ? "connection closed" : strerror((int)-n));
		goto fail;
	}
	msg[strcspn(msg, "\n")] = '\0';
	if (strncmp(msg, "error", 5) == 0) {
		fprintf(stderr, NFVP_GEN_NAME ": vSwitch: %s\n", msg);
		goto fail;
	}
	if (strncmp(msg, "ok", 2) != 0 || nfvp_ctl_kv_u64(msg, "base", &base) != 0 ||
	    nfvp_ctl_kv_u64(msg, "len", &g->len) != 0 ||
	    nfvp_ctl_kv_u64(msg, "ports", &g->ports) != 0 ||
	    nfvp_ctl_kv_u64(msg, "queues", &g->queues) != 0 || g->len == 0) {
		fprintf(stderr, NFVP_GEN_NAME ": unexpected reply to attach: \"%s\"\n", msg);
		goto fail;
	}
	if (fd < 0) {
		fprintf(stderr, NFVP_GEN_NAME ": the vSwitch's reply carried no arena fd\n");
		goto fail;
	}
	if (g->conf.in_port >= g->ports || g->conf.out_port >= g->ports) {
		fprintf(stderr, NFVP_GEN_NAME ": port %u does not exist: the vSwitch has %" PRIu64
			" ports\n", RTE_MAX(g->conf.in_port, g->conf.out_port), g->ports);
		goto fail;
	}
	p = mmap((void *)(uintptr_t)base, g->len, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED_NOREPLACE, fd, 0);
	if (p == MAP_FAILED) {
		fprintf(stderr, NFVP_GEN_NAME ": cannot map the arena (%" PRIu64 " bytes) at %#"
			PRIx64 ": %s%s\n", g->len, base, strerror(errno),
			errno == EEXIST ? " (address taken in this process)" : "");
		goto fail;
	}
	if (p != (void *)(uintptr_t)base) {
		munmap(p, g->len);
		fprintf(stderr, NFVP_GEN_NAME ": cannot map the arena at %#" PRIx64
			" (kernel without MAP_FIXED_NOREPLACE?)\n", base);
		goto fail;
	}
	g->base = p;
	close(fd);
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	return -1;
}

static struct rte_ring *
nfvp_gen_ring(uint32_t port, const char *dir, uint32_t queue)
{
	char name[RTE_RING_NAMESIZE];
	struct rte_ring *r;

	snprintf(name, sizeof(name), NFVP_PORT_RING_FMT, port, dir, queue);
	r = rte_ring_lookup(name);
	if (r == NULL)
		fprintf(stderr, NFVP_GEN_NAME ": ring %s not found (no such port or queue?)\n",
			name);
	return r;
}

/* Find the pool and the rings; with --fdir, which rx ring each MAC goes to. */
static int
nfvp_gen_lookup(struct nfvp_gen *g)
{
	uint32_t n_macs = g->conf.n_macs;
	uint32_t *queue_of = NULL;
	uint16_t *ring_of_queue = NULL;
	uint32_t max_q = 0;
	uint32_t k;

	g->pool = rte_mempool_lookup(NFVP_POOL_NAME);
	if (g->pool == NULL) {
		fprintf(stderr, NFVP_GEN_NAME ": mbuf pool %s not found (wrong --file-prefix?)\n",
			NFVP_POOL_NAME);
		goto fail;
	}
	for (k = 0; k < g->n_cls; k++)
		if (rte_pktmbuf_data_room_size(g->pool) < RTE_PKTMBUF_HEADROOM + g->cls[k].data_len) {
			fprintf(stderr, NFVP_GEN_NAME ": --frame-bytes %u: the pool's buffers are "
				"too small\n", g->cls[k].frame_bytes);
			goto fail;
		}
	g->tx_ring = nfvp_gen_ring(g->conf.out_port, "tx", 0);
	if (g->tx_ring == NULL)
		goto fail;

	queue_of = calloc(n_macs, sizeof(*queue_of));
	g->mac_ring = calloc(n_macs, sizeof(*g->mac_ring));
	if (queue_of == NULL || g->mac_ring == NULL)
		goto nomem;
	if (g->conf.fdir && nfvp_gen_map_fdir(g, queue_of) != 0)
		goto fail;
	for (k = 0; k < n_macs; k++)
		max_q = RTE_MAX(max_q, queue_of[k]);
	ring_of_queue = malloc((max_q + 1) * sizeof(*ring_of_queue));
	g->rx_rings = calloc(RTE_MIN(n_macs, max_q + 1), sizeof(*g->rx_rings));
	g->rx_queue = calloc(RTE_MIN(n_macs, max_q + 1), sizeof(*g->rx_queue));
	if (ring_of_queue == NULL || g->rx_rings == NULL || g->rx_queue == NULL)
		goto nomem;
	memset(ring_of_queue, 0xff, (max_q + 1) * sizeof(*ring_of_queue));
	for (k = 0; k < n_macs; k++) {
		uint32_t q = queue_of[k];

		if (ring_of_queue[q] == UINT16_MAX) {
			g->rx_rings[g->n_rx] = nfvp_gen_ring(g->conf.in_port, "rx", q);
			if (g->rx_rings[g->n_rx] == NULL)
				goto fail;
			g->rx_queue[g->n_rx] = (uint16_t)q;
			ring_of_queue[q] = (uint16_t)g->n_rx++;
		}
		g->mac_ring[k] = ring_of_queue[q];
	}
	if (g->n_rx > 1) {
		g->stage = calloc((size_t)g->n_rx * NFVP_BURST, sizeof(*g->stage));
		g->stage_n = calloc(g->n_rx, sizeof(*g->stage_n));
		if (g->stage == NULL || g->stage_n == NULL)
			goto nomem;
	}
	free(ring_of_queue);
	free(queue_of);
	return 0;
nomem:
	fprintf(stderr, NFVP_GEN_NAME ": out of memory\n");
fail:
	free(ring_of_queue);
	free(queue_of);
	return -1;
}

static void
nfvp_gen_free(struct nfvp_gen *g)
{
	unsigned int k;

	free(g->naps.pairs);
	free(g->st.hist);
	for (k = 0; k < g->n_cls; k++) {
		free(g->cls[k].st.hist);
		free(g->cls[k].tail);
		free(g->cls[k].tmpl);
	}
	free(g->stage_n);
	free(g->stage);
	free(g->mpls);
	free(g->mac_ring);
	free(g->rx_queue);
	free(g->rx_rings);
	free(g->conf.macs);
	if (g->ctl >= 0)
		close(g->ctl);
}

/* nfvp-gen, the traffic generator: a DPDK secondary of the vSwitch that plays the NIC's far end.
 * Exit status 0, 1 at run time, 2 for a bad option. */
int
main(int argc, char **argv)
{
	struct nfvp_gen g = { .ctl = -1 };
	struct sigaction sa = { .sa_handler = nfvp_gen_on_signal };
	int eal_argc, ret;
	int rc = 1;

	for (eal_argc = 1; eal_argc < argc; eal_argc++)
		if (strcmp(argv[eal_argc], "--") == 0)
			break;
	/* the generator's options: after the "--", which stands in for argv[0] */
	ret = nfvp_gen_parse_args(&g.conf, argc - eal_argc, argv + eal_argc);
	if (ret != 0) {
		if (ret > 0)
			nfvp_gen_print_usage(stdout);
		rc = ret > 0 ? 0 : 2;
		goto out;
	}
	g.cls = g.conf.cls;
	g.n_cls = g.conf.n_classes;
	nfvp_gen_size_classes(&g);
	if (nfvp_gen_alloc_stats(&g) != 0)
		goto out;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	if (nfvp_gen_attach(&g) != 0)
		goto out;
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0); /* naps of µs, not the default 50 µs slack */
	ret = rte_eal_init(eal_argc, argv);
	if (ret < 0) {
		fprintf(stderr, NFVP_GEN_NAME ": EAL init failed%s%s (is the vSwitch running, and "
			"are --proc-type=secondary and its --file-prefix given?)\n",
			rte_errno != 0 ? ": " : "", rte_errno != 0 ? rte_strerror(rte_errno) : "");
		goto out;
	}
	if (rte_eal_process_type() != RTE_PROC_SECONDARY) {
		fprintf(stderr, NFVP_GEN_NAME ": EAL started a primary process: give "
			"--proc-type=secondary and the vSwitch's --file-prefix\n");
		goto out;
	}
	if (rte_malloc_heap_memory_attach(NFVP_HEAP_NAME, g.base, g.len) != 0) {
		fprintf(stderr, NFVP_GEN_NAME ": cannot attach heap %s at %p: %s (not the "
			"vSwitch's --file-prefix?)\n", NFVP_HEAP_NAME, g.base,
			rte_strerror(rte_errno));
		goto out;
	}
	if (nfvp_gen_lookup(&g) != 0 || nfvp_gen_build(&g) != 0)
		goto out;

	g.hz = rte_get_tsc_hz();
	g.ns_per_tsc = 1e9 / (double)g.hz;
	g.pkts_per_tsc = g.conf.rate_pps / (double)g.hz;
	nfvp_gen_run(&g);

	if (nfvp_gen_write_stats(&g) != 0)
		goto out;
	if (g.conf.stats_out != NULL)
		nfvp_gen_print_summary(&g);
	rc = 0;
out:
	/* no rte_eal_cleanup: the vSwitch owns the shared state */
	nfvp_gen_free(&g);
	return rc;
}
