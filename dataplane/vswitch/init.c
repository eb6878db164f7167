/* SPDX-License-Identifier: MIT */
/* init.c: the arena (external heap), the mbuf pool, the ports, the tables and the doorbells. */

/* rte_dev_dma_map is still experimental in DPDK 22.11 */
#define ALLOW_EXPERIMENTAL_API

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_hash_crc.h>
#include <rte_malloc.h>
#include <rte_mempool.h>

#include "vswitch.h"

#define HUGEPAGE (2u << 20)

#define ARENA_HINT 0x3e0000000000ull

static size_t
arena_bytes(const struct vs_config *c)
{
	size_t mbuf = 2560, ring_slot = sizeof(void *);
	size_t b = 0;

	b += (size_t)c->pool_mbufs * (mbuf + 2 * ring_slot);
	/* an NF's to_nf ring and its from_nf, twice the size */
	b += (size_t)c->max_nfs * (3 * c->ring_size * ring_slot + 2 * 256 + sizeof(struct nfvp_slot) +
				   2 * 256);
	b += ((size_t)c->max_nfs / 64 + 1) * sizeof(uint64_t) + 256; /* doorbells */
	b += (size_t)c->ring_ports * (c->fdir_queues + 1) * NFVP_PORT_RING_SIZE * ring_slot;
	b += 1024 * 256 + (16u << 20); /* fdir table, memzone headers */
	b += b / 4;
	return RTE_ALIGN_CEIL(b, HUGEPAGE);
}

/* A hugetlb memfd given to DPDK as an external heap; NF processes map the same fd at the same
 * address. */
/* The arena's pages' IO addresses, for a NIC's DMA: their virtual addresses where DPDK runs in
 * IOVA-as-VA mode, their physical ones (from /proc/self/pagemap, root only) in IOVA-as-PA.
 * Returns the mode's name, or "none" (the pages then carry RTE_BAD_IOVA: rings and virtual
 * devices need none, a physical NIC could not use the pool). */
static const char *
arena_iovas(const struct vswitch *vs, rte_iova_t *iovas, unsigned int n)
{
	unsigned int i;
	int fd;

	if (rte_eal_iova_mode() == RTE_IOVA_VA) {
		for (i = 0; i < n; i++)
			iovas[i] = (uintptr_t)vs->arena + (size_t)i * HUGEPAGE;
		return "va";
	}
	fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	for (i = 0; fd >= 0 && i < n; i++) {
		uintptr_t va = (uintptr_t)vs->arena + (size_t)i * HUGEPAGE;
		uint64_t entry = 0, pfn;

		if (pread(fd, &entry, sizeof(entry), (off_t)(va / 4096 * sizeof(entry))) !=
		    (ssize_t)sizeof(entry))
			break;
		pfn = entry & ((1ull << 55) - 1);
		if (!(entry & (1ull << 63)) || pfn == 0) /* not present, or hidden without root */
			break;
		iovas[i] = pfn * 4096 + va % 4096;
	}
	if (fd >= 0)
		close(fd);
	return fd >= 0 && i == n ? "pa" : "none";
}

int
vs_arena_create(struct vswitch *vs)
{
	rte_iova_t *iovas;
	vs->arena_len = arena_bytes(&vs->cfg);
	if (vs->arena_len > NFVP_DESC_OFF(0xffffffffull)) { /* where a descriptor can point */
		fprintf(stderr, "vswitch: arena: %zu MiB is more than descriptors reach\n",
			vs->arena_len >> 20);
		return -EINVAL;
	}
	vs->arena_fd = memfd_create("nfvp_arena", MFD_HUGETLB | MFD_CLOEXEC);
	if (vs->arena_fd < 0 || ftruncate(vs->arena_fd, vs->arena_len) < 0) {
		fprintf(stderr, "vswitch: arena: cannot get %zu MiB of hugepages: %s (try: echo "
			"1024 > /proc/sys/vm/nr_hugepages)\n", vs->arena_len >> 20, strerror(errno));
		return -ENOMEM;
	}
	/* NFs map the arena at this same address, so keep it away from where the loader puts
	 * libraries (near 0x7f..): a collision there would stop an NF from attaching */
	vs->arena = mmap((void *)ARENA_HINT, vs->arena_len, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_POPULATE | MAP_FIXED_NOREPLACE, vs->arena_fd, 0);
	if (vs->arena == MAP_FAILED)
		vs->arena = mmap(NULL, vs->arena_len, PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_POPULATE, vs->arena_fd, 0);
	if (vs->arena == MAP_FAILED) {
		fprintf(stderr, "vswitch: arena: cannot map %zu MiB of hugepages: %s (try: echo "
			"1024 > /proc/sys/vm/nr_hugepages)\n", vs->arena_len >> 20, strerror(errno));
		vs->arena = NULL;
		return -ENOMEM;
	}
	iovas = calloc(vs->arena_len / HUGEPAGE, sizeof(*iovas));
	vs->arena_iova = iovas == NULL ? "none" : arena_iovas(vs, iovas, vs->arena_len / HUGEPAGE);
	if (strcmp(vs->arena_iova, "none") == 0) {
		free(iovas);
		iovas = NULL;
	}
	vs->arena_iovas = iovas;
	if (rte_malloc_heap_create(NFVP_HEAP_NAME) < 0 ||
	    rte_malloc_heap_memory_add(NFVP_HEAP_NAME, vs->arena, vs->arena_len, iovas,
				       vs->arena_len / HUGEPAGE, HUGEPAGE) < 0) {
		fprintf(stderr, "vswitch: arena: DPDK refused the external heap: %s\n",
			rte_strerror(rte_errno));
		return -rte_errno;
	}
	vs->heap_socket = rte_malloc_heap_get_socket(NFVP_HEAP_NAME);
	return 0;
}

/* Every port's device is given the arena's pages for DMA (rte_dev_dma_map): a device that maps
 * DMA itself takes them, a virtual one accepts and needs nothing, and a bus with an IOMMU
 * (VFIO) was told when the heap was added with its IO addresses. */
static void
dma_map(struct vswitch *vs, struct vs_port *p)
{
	struct rte_eth_dev_info info;
	size_t i, n = vs->arena_len / HUGEPAGE;
	int rc = -ENOTSUP;

	if (vs->arena_iovas == NULL || rte_eth_dev_info_get(p->id, &info) != 0 ||
	    info.device == NULL)
		return;
	for (i = 0, rc = 0; rc == 0 && i < n; i++)
		rc = rte_dev_dma_map(info.device, vs->arena + i * HUGEPAGE, vs->arena_iovas[i],
				     HUGEPAGE);
	if (rc == 0)
		vs->dma_ports++;
	else
		vs->dma_refused++;
}

static int
port_start(struct vswitch *vs, struct vs_port *p)
{
	struct rte_eth_conf conf;
	uint16_t q;
	int rc;

	memset(&conf, 0, sizeof(conf));
	rc = rte_eth_dev_configure(p->id, p->rx_queues, 1, &conf);
	for (q = 0; rc == 0 && q < p->rx_queues; q++)
		rc = rte_eth_rx_queue_setup(p->id, q, NFVP_PORT_RING_SIZE, rte_eth_dev_socket_id(p->id), NULL,
					    vs->pool);
	if (rc == 0)
		rc = rte_eth_tx_queue_setup(p->id, 0, NFVP_PORT_RING_SIZE, rte_eth_dev_socket_id(p->id), NULL);
	if (rc == 0)
		rc = rte_eth_dev_start(p->id);
	if (rc < 0) {
		fprintf(stderr, "vswitch: port %s: cannot start it: %s\n", p->name, rte_strerror(-rc));
		return rc;
	}
	rte_eth_promiscuous_enable(p->id);
	dma_map(vs, p);
	return 0;
}

static int
ring_port_create(struct vswitch *vs, unsigned int idx)
{
	struct rte_ring *rx[64], *tx[1];
	struct vs_port *p = &vs->ports[vs->n_ports];
	unsigned int q, nrx = 1;
	char name[RTE_RING_NAMESIZE];
	int id;

	if (vs->cfg.arch == NFVP_ARCH_FDIR && idx == 0)
		nrx = vs->cfg.fdir_queues;
	for (q = 0; q < nrx + 1; q++) {
		int is_tx = q == nrx;
		struct rte_ring *r;

		snprintf(name, sizeof(name), NFVP_PORT_RING_FMT, idx, is_tx ? "tx" : "rx",
			 is_tx ? 0 : q);
		r = rte_ring_create(name, NFVP_PORT_RING_SIZE, vs->heap_socket, RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (r == NULL) {
			fprintf(stderr, "vswitch: ring %s: %s\n", name, rte_strerror(rte_errno));
			return -rte_errno;
		}
		if (is_tx)
			tx[0] = r;
		else
			rx[q] = r;
	}
	if (vs->cfg.arch == NFVP_ARCH_FDIR && idx == 0)
		memcpy(vs->nic_queue, rx, nrx * sizeof(rx[0]));
	snprintf(p->name, sizeof(p->name), "nfvp_port%u", idx);
	id = rte_eth_from_rings(p->name, rx, nrx, tx, 1, vs->heap_socket);
	if (id < 0) {
		fprintf(stderr, "vswitch: port %s: %s\n", p->name, rte_strerror(rte_errno));
		return -rte_errno;
	}
	p->id = id;
	p->rx_queues = nrx;
	vs->n_ports++;
	return port_start(vs, p);
}

/* An 8 B key (a MAC, zero-padded) compared as one word: rte_hash calls memcmp for key lengths
 * it has no compare of its own for, and 8 is one of them. */
static int
key8_cmp(const void *a, const void *b, size_t len)
{
	uint64_t x, y;

	(void)len;
	memcpy(&x, a, sizeof(x));
	memcpy(&y, b, sizeof(y));
	return x != y;
}

/* and hashed as one word (rte_hash_crc walks any length) */
static uint32_t
key8_hash(const void *key, uint32_t len, uint32_t init)
{
	uint64_t x;

	(void)len;
	memcpy(&x, key, sizeof(x));
	return rte_hash_crc_8byte(x, init);
}

static int
tables_create(struct vswitch *vs)
{
	struct rte_hash_parameters hp = {
		.name = "nfvp_mac2chain",
		.entries = NFVP_MAX_CHAINS,
		.key_len = sizeof(uint64_t),
		.hash_func = key8_hash,
		.socket_id = SOCKET_ID_ANY,
	};

	vs->mac2chain = rte_hash_create(&hp);
	if (vs->mac2chain == NULL)
		goto fail;
	rte_hash_set_cmp_func(vs->mac2chain, key8_cmp);
	if (vs->cfg.arch == NFVP_ARCH_FDIR) {
		/* the NIC's flow director, in the arena: nfvp-gen (the wire side) reads it */
		hp.name = NFVP_FDIR_HASH_NAME;
		hp.hash_func = rte_hash_crc; /* as the generator's lookups compute it */
		hp.entries = 1024;
		hp.socket_id = vs->heap_socket;
		vs->fdir = rte_hash_create(&hp);
		if (vs->fdir == NULL)
			goto fail;
	}
	if (vs->cfg.arch == NFVP_ARCH_SHARED_RING) {
		vs->bells = rte_zmalloc_socket("nfvp_bells", (vs->cfg.max_nfs / 64 + 1) *
					       sizeof(uint64_t), RTE_CACHE_LINE_SIZE,
					       vs->heap_socket);
		if (vs->bells == NULL) {
			rte_errno = ENOMEM;
			goto fail;
		}
	}
	return 0;
fail:
	fprintf(stderr, "vswitch: tables: %s\n", rte_strerror(rte_errno));
	return -rte_errno;
}

int
vs_init(struct vswitch *vs)
{
	uint16_t pid;
	unsigned int i;
	int rc;

	/* what a descriptor on an NF's ring can say (nfvp_desc) */
	RTE_BUILD_BUG_ON(NFVP_BUF_SIZE > NFVP_DESC_FIELD_MAX);
	RTE_BUILD_BUG_ON(NFVP_MAX_PORTS >= NFVP_DESC_PORT_MAX);
	RTE_BUILD_BUG_ON(RTE_MEMPOOL_ALIGN % (1u << NFVP_DESC_ALIGN_SHIFT) != 0);
	vs->hz = rte_get_tsc_hz();
	/* no private area: nflib finds an mbuf's buffer right after it */
	vs->pool = rte_pktmbuf_pool_create(NFVP_POOL_NAME, vs->cfg.pool_mbufs, VS_POOL_CACHE, 0,
					   NFVP_BUF_SIZE, vs->heap_socket);
	if (vs->pool == NULL) {
		fprintf(stderr, "vswitch: mbuf pool: %s\n", rte_strerror(rte_errno));
		return -rte_errno;
	}
	{ /* does a packet buffer carry an IO address a NIC could DMA to? */
		struct rte_mbuf *m = rte_pktmbuf_alloc(vs->pool);

		vs->mbuf_iova_ok = m != NULL && m->buf_iova != RTE_BAD_IOVA && m->buf_iova != 0;
		rte_pktmbuf_free(m);
	}
	vs->chains = calloc(NFVP_MAX_CHAINS, sizeof(*vs->chains));
	vs->default_chain = -1;
	vs_classify_forget(vs); /* gen 1: the cache's zeroed entries (gen 0) hold nothing */
	vs->wakes.stretch = vs->wakes.stretch_max = 1;
	for (i = 0; i < NFVP_MAX_PORTS; i++)
		vs->port_chain[i] = -1;
	vs->nfs = calloc(vs->cfg.max_nfs, sizeof(*vs->nfs));
	vs->active = calloc(vs->cfg.max_nfs, sizeof(*vs->active));
	vs->dirty = calloc(vs->cfg.max_nfs, sizeof(*vs->dirty));
	vs->aging = calloc(vs->cfg.max_nfs, sizeof(*vs->aging));
	vs->awake = calloc(vs->cfg.max_nfs, sizeof(*vs->awake));
	vs->services = calloc(NFVP_MAX_SERVICES, sizeof(*vs->services));
	if (!vs->chains || !vs->nfs || !vs->active || !vs->dirty || !vs->aging || !vs->awake ||
	    !vs->services)
		return -ENOMEM;
	rc = tables_create(vs);
	/* EAL's --vdev ports first (they exist already), then the ring ports for nfvp-gen */
	RTE_ETH_FOREACH_DEV(pid) {
		struct vs_port *p = &vs->ports[vs->n_ports];

		if (rc < 0 || vs->n_ports == NFVP_MAX_PORTS)
			break;
		p->id = pid;
		p->rx_queues = 1;
		rte_eth_dev_get_name_by_port(pid, p->name);
		vs->n_ports++;
		rc = port_start(vs, p);
	}
	for (i = 0; rc == 0 && i < vs->cfg.ring_ports; i++) {
		if (vs->n_ports == NFVP_MAX_PORTS) {
			fprintf(stderr, "vswitch: --ring-ports: expected at most %u ports in all, "
				"found %u more\n", NFVP_MAX_PORTS, vs->cfg.ring_ports - i);
			return -EINVAL;
		}
		rc = ring_port_create(vs, i);
	}
	if (rc == 0 && vs->n_ports == 0) {
		fprintf(stderr, "vswitch: ports: expected at least one (--ring-ports or --vdev), "
			"found none\n");
		return -EINVAL;
	}
	vs->start_tsc = rte_rdtsc();
	return rc;
}
