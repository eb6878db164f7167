/* SPDX-License-Identifier: MIT */
/* control.c: the control channel: NFs and the generator attach, chains change, NFs die. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "nfvp_ctl.h"
#include "nfvp_parse.h"
#include "vswitch.h"

#define TAG_LISTEN UINT32_MAX
#define TAG_CLIENT (UINT32_MAX - 2) /* a controller connection, not an NF */

/* Each epoll entry carries the fd and a tag: an NF's id, or what else the peer is. */
static int
epoll_watch(struct vswitch *vs, int op, int fd, uint32_t tag)
{
	struct epoll_event ev = {
		.events = EPOLLIN | EPOLLRDHUP,
		.data.u64 = ((uint64_t)fd << 32) | tag,
	};

	return epoll_ctl(vs->epoll_fd, op, fd, &ev);
}

int
vs_ctl_open(struct vswitch *vs)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };

	vs->gen_fd = -1;
	if (strlen(vs->cfg.ctl_path) >= sizeof(addr.sun_path)) {
		fprintf(stderr, "vswitch: --ctl: expected a path shorter than %zu bytes, found "
			"\"%s\"\n", sizeof(addr.sun_path), vs->cfg.ctl_path);
		return -ENAMETOOLONG;
	}
	strcpy(addr.sun_path, vs->cfg.ctl_path);
	unlink(vs->cfg.ctl_path);
	vs->listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	vs->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (vs->listen_fd < 0 || vs->epoll_fd < 0 ||
	    bind(vs->listen_fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
	    listen(vs->listen_fd, 4096) < 0 ||
	    epoll_watch(vs, EPOLL_CTL_ADD, vs->listen_fd, TAG_LISTEN) < 0) {
		fprintf(stderr, "vswitch: --ctl: cannot listen on \"%s\": %s\n", vs->cfg.ctl_path,
			strerror(errno));
		return -errno;
	}
	return 0;
}

/* An SP/SC ring in the arena's heap. Not rte_ring_create: that takes a memzone, and DPDK
 * 22.11 has 2560 of them, which stopped the NFs at about 1275. */
static struct rte_ring *
arena_ring(struct vswitch *vs, const char *name, unsigned int size)
{
	struct rte_ring *r = rte_zmalloc_socket(name, rte_ring_get_memsize(size),
						RTE_CACHE_LINE_SIZE, vs->heap_socket);

	if (r != NULL && rte_ring_init(r, name, size, RING_F_SP_ENQ | RING_F_SC_DEQ) < 0) {
		rte_free(r);
		r = NULL;
	}
	return r;
}

/* Shared architectures: the NF's slot and rings in the arena. */
static int
nf_setup_shared(struct vswitch *vs, struct vs_nf *nf, uint32_t id)
{
	char name[RTE_RING_NAMESIZE];

	nf->slot = rte_zmalloc_socket("nfvp_slot", sizeof(*nf->slot), RTE_CACHE_LINE_SIZE,
				      vs->heap_socket);
	snprintf(name, sizeof(name), "nfvp_nf%u_to", id);
	nf->to_nf = arena_ring(vs, name, vs->cfg.ring_size);
	snprintf(name, sizeof(name), "nfvp_nf%u_from", id);
	/* twice the size of to_nf: an NF's enqueue back never finds it full */
	nf->from_nf = arena_ring(vs, name, 2 * vs->cfg.ring_size);
	if (nf->slot == NULL || nf->to_nf == NULL || nf->from_nf == NULL)
		return -ENOMEM;
	if (vs->bells != NULL)
		nf->slot->bell_off = vs_arena_off(vs, vs->bells);
	nf->slot->to_nf_off = vs_arena_off(vs, nf->to_nf);
	nf->slot->from_nf_off = vs_arena_off(vs, nf->from_nf);
	return 0;
}

/* Isolated: a private region (not hugepages: a thousand NFs would need 2 MiB each) with the
 * slot, two rings of buffer indices and the buffers; only this NF and the vSwitch map it. */
static int
nf_setup_isolated(struct vswitch *vs, struct vs_nf *nf, uint32_t id)
{
	size_t ring_bytes = rte_ring_get_memsize(vs->cfg.ring_size);
	size_t ring2_bytes = rte_ring_get_memsize(2 * vs->cfg.ring_size);
	size_t slot_bytes = RTE_ALIGN_CEIL(sizeof(struct nfvp_slot), RTE_CACHE_LINE_SIZE);
	size_t bufs_off, len;
	struct rte_ring *to, *from;
	char name[32];
	uint32_t i;

	bufs_off = RTE_ALIGN_CEIL(slot_bytes + ring_bytes + ring2_bytes, 4096);
	len = bufs_off + (size_t)vs->cfg.iso_bufs * NFVP_ISO_BUF_SIZE;
	snprintf(name, sizeof(name), "nfvp_nf%u", id);
	nf->region_fd = memfd_create(name, MFD_CLOEXEC);
	if (nf->region_fd < 0 || ftruncate(nf->region_fd, len) < 0)
		return -errno;
	nf->region = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, nf->region_fd, 0);
	if (nf->region == MAP_FAILED) {
		nf->region = NULL;
		return -errno;
	}
	nf->region_len = len;
	nf->slot = (struct nfvp_slot *)nf->region;
	to = (struct rte_ring *)(nf->region + slot_bytes);
	from = (struct rte_ring *)(nf->region + slot_bytes + ring_bytes);
	if (rte_ring_init(to, "to", vs->cfg.ring_size, RING_F_SP_ENQ | RING_F_SC_DEQ) < 0 ||
	    rte_ring_init(from, "from", 2 * vs->cfg.ring_size, RING_F_SP_ENQ | RING_F_SC_DEQ) < 0)
		return -EINVAL;
	nf->to_nf = to;
	nf->from_nf = from;
	nf->slot->to_nf_off = slot_bytes;
	nf->slot->from_nf_off = slot_bytes + ring_bytes;
	nf->slot->bufs_off = bufs_off;
	nf->slot->n_bufs = vs->cfg.iso_bufs;
	nf->bufs = nf->region + bufs_off;
	nf->free_idx = malloc(vs->cfg.iso_bufs * sizeof(*nf->free_idx));
	nf->held = calloc(vs->cfg.iso_bufs, sizeof(*nf->held));
	if (nf->free_idx == NULL || nf->held == NULL)
		return -ENOMEM;
	for (i = 0; i < vs->cfg.iso_bufs; i++)
		nf->free_idx[i] = vs->cfg.iso_bufs - 1 - i;
	nf->n_free = vs->cfg.iso_bufs;
	return 0;
}

static void
reply(int fd, const char *msg, int send_fd)
{
	(void)nfvp_ctl_send(fd, msg, send_fd);
}

int
vs_nf_find(const struct vswitch *vs, const char *name)
{
	unsigned int i;

	for (i = 0; i < vs->n_nf_ids; i++)
		if (vs->nfs[i].alive && strcmp(vs->nfs[i].name, name) == 0)
			return i;
	return -1;
}

static void
attach_nf(struct vswitch *vs, int fd, const char *name, pid_t pid)
{
	char msg[NFVP_CTL_MSG];
	uint32_t id = vs->n_nf_ids;
	struct vs_nf *nf;
	int rc, iso = vs->cfg.arch == NFVP_ARCH_ISOLATED;

	if (id >= vs->cfg.max_nfs) {
		snprintf(msg, sizeof(msg), "error --max-nfs: expected at most %u NFs, this is one "
			 "more", vs->cfg.max_nfs);
		reply(fd, msg, -1);
		return;
	}
	if (vs_nf_find(vs, name) >= 0) {
		snprintf(msg, sizeof(msg), "error name: expected a name no live NF has, found \"%s\"",
			 name);
		reply(fd, msg, -1);
		return;
	}
	nf = &vs->nfs[id];
	nf->region_fd = -1;
	rc = iso ? nf_setup_isolated(vs, nf, id) : nf_setup_shared(vs, nf, id);
	if (rc < 0) {
		snprintf(msg, sizeof(msg), "error no memory for NF %u: %s (raise --max-nfs or the "
			 "hugepages)", id, strerror(-rc));
		reply(fd, msg, -1);
		return;
	}
	nf->slot->id = id;
	nf->slot->arch = vs->cfg.arch;
	nf->slot->wait_timeout_ns = vs->cfg.nf_wait_ms * 1000000ull;
	sem_init(&nf->slot->sem, 1, 0);
	snprintf(nf->name, sizeof(nf->name), "%s", name);
	nf->sojourn_hist = calloc(VS_LAT_BINS, sizeof(*nf->sojourn_hist)); /* NULL: not measured */
	nf->pid = pid;
	nf->ctl_fd = fd;
	nf->alive = 1;
	vs->n_nf_ids++;
	vs->active[vs->n_active++] = id;
	epoll_watch(vs, EPOLL_CTL_MOD, fd, id);
	snprintf(msg, sizeof(msg), "ok id=%u arch=%s base=0x%" PRIxPTR " len=%zu slot=%" PRIu64,
		 id, nfvp_arch_names[vs->cfg.arch], iso ? 0 : (uintptr_t)vs->arena,
		 iso ? nf->region_len : vs->arena_len,
		 iso ? 0 : vs_arena_off(vs, nf->slot));
	reply(fd, msg, iso ? nf->region_fd : vs->arena_fd);
	if (iso) { /* the mapping stays; the descriptor is not needed once handed over */
		close(nf->region_fd);
		nf->region_fd = -1;
	}
}

static void
detach_nf(struct vswitch *vs, uint32_t id)
{
	struct vs_nf *nf = &vs->nfs[id];
	unsigned int i;

	if (!nf->alive)
		return;
	nf->alive = 0;
	for (i = 0; i < vs->n_active; i++) {
		if (vs->active[i] == id) {
			vs->active[i] = vs->active[--vs->n_active];
			break;
		}
	}
	vs_nf_reclaim(vs, nf);
	epoll_ctl(vs->epoll_fd, EPOLL_CTL_DEL, nf->ctl_fd, NULL);
	close(nf->ctl_fd);
	nf->ctl_fd = -1;
}

static void
attach_gen(struct vswitch *vs, int fd)
{
	char msg[256];

	snprintf(msg, sizeof(msg), "ok base=0x%" PRIxPTR " len=%zu ports=%u queues=%u",
		 (uintptr_t)vs->arena, vs->arena_len, vs->cfg.ring_ports,
		 vs->cfg.arch == NFVP_ARCH_FDIR ? vs->cfg.fdir_queues : 1);
	reply(fd, msg, vs->arena_fd);
	vs->gen_fd = fd;
}

static void
command(struct vswitch *vs, int fd, char *msg)
{
	char out[256], name[64];
	int pid;

	msg[strcspn(msg, "\n")] = '\0';
	if (sscanf(msg, "attach nf %63s %d", name, &pid) == 2) {
		attach_nf(vs, fd, name, pid);
	} else if (strncmp(msg, "attach gen", 10) == 0) {
		attach_gen(vs, fd);
	} else if (strncmp(msg, "chain ", 6) == 0) {
		vs_chain_command(vs, msg + 6, out, sizeof(out));
		reply(fd, out, -1);
	} else if (strncmp(msg, "service ", 8) == 0) {
		char big[NFVP_CTL_MSG];

		vs_service_command(vs, msg + 8, big, sizeof(big));
		reply(fd, big, -1);
	} else if (strcmp(msg, "status") == 0) {
		snprintf(out, sizeof(out), "ok nfs=%u chains=%u inflight=%" PRIu64 " pool_free=%u "
			 "pool_size=%u ports=%u", vs->n_active, vs->n_chains, vs_in_flight(vs),
			 rte_mempool_avail_count(vs->pool), vs->pool->size, vs->n_ports);
		reply(fd, out, -1);
	} else if (strncmp(msg, "stats ", 6) == 0) {
		reply(fd, vs_stats_write(vs, msg + 6) == 0 ? "ok" : "error cannot write stats", -1);
	} else if (strcmp(msg, "start") == 0) {
		vs->rx_enabled = 1;
		reply(fd, "ok", -1);
	} else if (strcmp(msg, "quit") == 0) {
		vs->quit = 1;
		reply(fd, "ok", -1);
	} else {
		snprintf(out, sizeof(out), "error expected attach, chain, service, start, status, stats "
			 "or quit, "
			 "found \"%.64s\"", msg);
		reply(fd, out, -1);
	}
}

static void
client_event(struct vswitch *vs, int fd, uint32_t tag, uint32_t events)
{
	char msg[NFVP_CTL_MSG];
	ssize_t n = 0;

	if (events & EPOLLIN)
		n = nfvp_ctl_recv(fd, msg, sizeof(msg), NULL);
	if (n > 0) {
		command(vs, fd, msg);
		return;
	}
	if (n == -EAGAIN)
		return;
	/* EOF or error: the peer is gone */
	if (tag < vs->cfg.max_nfs && vs->nfs[tag].ctl_fd == fd) {
		detach_nf(vs, tag);
		return;
	}
	epoll_ctl(vs->epoll_fd, EPOLL_CTL_DEL, fd, NULL);
	if (fd == vs->gen_fd)
		vs->gen_fd = -1;
	close(fd);
}

void
vs_ctl_poll(struct vswitch *vs)
{
	struct epoll_event ev[64];
	int i, n;

	n = epoll_wait(vs->epoll_fd, ev, RTE_DIM(ev), 0);
	for (i = 0; i < n; i++) {
		uint32_t tag = (uint32_t)ev[i].data.u64;
		int fd = (int)(ev[i].data.u64 >> 32);

		if (tag == TAG_LISTEN) {
			int c;

			while ((c = accept4(vs->listen_fd, NULL, NULL,
					    SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0)
				epoll_watch(vs, EPOLL_CTL_ADD, c, TAG_CLIENT);
			continue;
		}
		client_event(vs, fd, tag, ev[i].events);
	}
}

void
vs_ctl_close(struct vswitch *vs)
{
	unsigned int i;

	for (i = 0; i < vs->n_nf_ids; i++)
		if (vs->nfs[i].ctl_fd >= 0 && vs->nfs[i].alive)
			close(vs->nfs[i].ctl_fd);
	if (vs->listen_fd >= 0)
		close(vs->listen_fd);
	unlink(vs->cfg.ctl_path);
}
