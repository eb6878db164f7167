/* SPDX-License-Identifier: MIT */
/* nflib.c: the NF side of every exchange architecture: attach, map, the run loop, detach.
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

_Static_assert(offsetof(struct nfvp_meta, port) == 6, "nfvp_nf_set_port writes meta.port");

enum idle_mode {
	IDLE_PAUSE,
	IDLE_YIELD,
};

struct nfvp_nf {
	const struct nfvp_nf_ops *ops;
	char name[64];
	void *priv;
	int ctl;
	uint8_t *base; /* the arena, or the private region (isolated) */
	size_t len;
	struct nfvp_slot *slot;
	struct rte_ring *to_nf;
	struct rte_ring *from_nf;
	struct rte_ring *nic_rx;
	enum nfvp_arch arch;
	enum idle_mode idle;
	uint64_t max_pkts;
	double duration_s;
	/* isolated: mbuf headers that describe the private buffers to the handler */
	struct rte_mbuf iso_mbufs[NFVP_BURST];
	uint8_t *iso_bufs;
};

static volatile sig_atomic_t force_quit;

static void
on_signal(int sig)
{
	(void)sig;
	force_quit = 1;
}

static int
parse_arch(const char *s)
{
	int i;

	for (i = 0; i < NFVP_ARCH_COUNT; i++)
		if (strcmp(s, nfvp_arch_names[i]) == 0)
			return i;
	return -1;
}

static int
nf_attach(struct nfvp_nf *nf, const char *ctl_path)
{
	char msg[NFVP_CTL_MSG], arch[32];
	uint64_t base, len, slot_off;
	void *want, *got;
	int fd = -1, rc;

	nf->ctl = nfvp_ctl_connect(ctl_path);
	if (nf->ctl < 0) {
		fprintf(stderr, "%s: --ctl: cannot connect to \"%s\": %s (is the vSwitch running?)\n",
			nf->name, ctl_path, strerror(-nf->ctl));
		return nf->ctl;
	}
	snprintf(msg, sizeof(msg), "attach nf %s %d", nf->name, (int)getpid());
	rc = nfvp_ctl_send(nf->ctl, msg, -1);
	if (rc == 0)
		rc = nfvp_ctl_recv(nf->ctl, msg, sizeof(msg), &fd) > 0 ? 0 : -EPIPE;
	if (rc < 0) {
		fprintf(stderr, "%s: attach: %s\n", nf->name, strerror(-rc));
		return rc;
	}
	if (strncmp(msg, "ok", 2) != 0 || fd < 0 ||
	    nfvp_ctl_kv_u64(msg, "base", &base) || nfvp_ctl_kv_u64(msg, "len", &len) ||
	    nfvp_ctl_kv_u64(msg, "slot", &slot_off) ||
	    nfvp_ctl_kv_str(msg, "arch", arch, sizeof(arch)) || parse_arch(arch) < 0) {
		fprintf(stderr, "%s: attach: the vSwitch said \"%s\"\n", nf->name, msg);
		if (fd >= 0)
			close(fd);
		return -EPROTO;
	}
	nf->arch = parse_arch(arch);
	want = nf->arch == NFVP_ARCH_ISOLATED ? NULL : (void *)(uintptr_t)base;
	got = mmap(want, len, PROT_READ | PROT_WRITE,
		   MAP_SHARED | (want != NULL ? MAP_FIXED_NOREPLACE : 0), fd, 0);
	close(fd);
	if (got == MAP_FAILED || (want != NULL && got != want)) {
		fprintf(stderr, "%s: attach: cannot map the shared region at %p: %s\n", nf->name,
			want, strerror(errno));
		return -ENOMEM;
	}
	nf->base = got;
	nf->len = len;
	nf->slot = (struct nfvp_slot *)(nf->base + slot_off);
	nf->to_nf = (struct rte_ring *)(nf->base + nf->slot->to_nf_off);
	nf->from_nf = (struct rte_ring *)(nf->base + nf->slot->from_nf_off);
	nf->iso_bufs = nf->base + nf->slot->bufs_off;
	return 0;
}

int
nfvp_nf_init(int argc, char **argv, const char *name, const struct nfvp_nf_ops *ops,
	     struct nfvp_nf **nfp)
{
	static const struct option longopts[] = {
		{ "ctl", required_argument, NULL, 'c' },
		{ "name", required_argument, NULL, 'n' },
		{ "cpu", required_argument, NULL, 'u' },
		{ "max-pkts", required_argument, NULL, 'm' },
		{ "duration", required_argument, NULL, 'd' },
		{ "idle", required_argument, NULL, 'i' },
		{ NULL, 0, NULL, 0 },
	};
	const char *ctl_path = NULL;
	struct nfvp_nf *nf;
	int opt, consumed, rc = -EINVAL;
	uint64_t v;

	nf = calloc(1, sizeof(*nf));
	if (nf == NULL)
		return -ENOMEM;
	nf->ops = ops;
	nf->ctl = -1;
	nf->idle = IDLE_YIELD; /* a polling NF that finds nothing lets the others on its core run */
	snprintf(nf->name, sizeof(nf->name), "%s", name);
	optind = 1;
	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			ctl_path = optarg;
			break;
		case 'n':
			if (strlen(optarg) == 0 || strlen(optarg) >= sizeof(nf->name) ||
			    strpbrk(optarg, " ,\n") != NULL) {
				nfvp_bad_value(name, "--name", "1-63 characters without spaces or "
					       "commas", optarg);
				goto fail;
			}
			snprintf(nf->name, sizeof(nf->name), "%s", optarg);
			break;
		case 'u': {
			cpu_set_t set;

			if (nfvp_parse_u64(optarg, 0, CPU_SETSIZE - 1, &v) != 0) {
				nfvp_bad_value(name, "--cpu", "a CPU number", optarg);
				goto fail;
			}
			CPU_ZERO(&set);
			CPU_SET(v, &set);
			if (sched_setaffinity(0, sizeof(set), &set) < 0) {
				fprintf(stderr, "%s: --cpu: cannot run on CPU %" PRIu64 ": %s\n", name,
					v, strerror(errno));
				rc = -EIO;
				goto fail;
			}
			break;
		}
		case 'm':
			if (nfvp_parse_u64(optarg, 0, UINT64_MAX, &nf->max_pkts) != 0) {
				nfvp_bad_value(name, "--max-pkts", "a count", optarg);
				goto fail;
			}
			break;
		case 'd':
			if (nfvp_parse_double(optarg, 1e-9, 1e9, &nf->duration_s) != 0) {
				nfvp_bad_value(name, "--duration", "seconds > 0", optarg);
				goto fail;
			}
			break;
		case 'i':
			if (strcmp(optarg, "pause") == 0) {
				nf->idle = IDLE_PAUSE;
			} else if (strcmp(optarg, "yield") == 0) {
				nf->idle = IDLE_YIELD;
			} else {
				nfvp_bad_value(name, "--idle", "pause or yield", optarg);
				goto fail;
			}
			break;
		default:
			fprintf(stderr, "%s: usage: %s --ctl PATH [--name NAME] [--cpu N] "
				"[--max-pkts N] [--duration S] [--idle pause|yield] [-- NF options]\n",
				name, name);
			goto fail;
		}
	}
	if (ctl_path == NULL) {
		nfvp_bad_value(name, "--ctl", "the vSwitch's control socket", "");
		goto fail;
	}
	consumed = optind - 1;
	/* set up first (tables can take seconds to fill), attach when ready for packets; a
	 * failure from here on is no bad option: never -EINVAL */
	if (ops->setup != NULL) {
		rc = ops->setup(nf);
		if (rc < 0) {
			fprintf(stderr, "%s: setup: %s\n", nf->name, strerror(-rc));
			rc = rc == -EINVAL ? -EIO : rc;
			goto fail;
		}
	}
	rc = nf_attach(nf, ctl_path);
	if (rc < 0) {
		rc = rc == -EINVAL ? -EIO : rc;
		goto fail;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	*nfp = nf;
	return consumed;
fail:
	nfvp_nf_close(nf);
	return rc;
}

/* Isolated: describe the private buffers named by ring values as mbufs for the handler. */
static uint16_t
iso_receive(struct nfvp_nf *nf, struct rte_mbuf **pkts)
{
	uint64_t elems[NFVP_BURST];
	unsigned int i, n;

	n = rte_ring_dequeue_burst_elem(nf->to_nf, elems, sizeof(uint64_t), NFVP_BURST, NULL);
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = &nf->iso_mbufs[i];
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

static uint16_t
shared_receive(struct nfvp_nf *nf, struct rte_mbuf **pkts)
{
	uint16_t n = rte_ring_dequeue_burst(nf->to_nf, (void **)pkts, NFVP_BURST, NULL);

	/* the vSwitch points the slot at a NIC queue when a chain starting here is added */
	if (nf->slot->nic_rx_off != 0 && n < NFVP_BURST) {
		nf->nic_rx = (struct rte_ring *)(nf->base + nf->slot->nic_rx_off);
		/* fdir: packets straight from the NIC queue start the chain here */
		uint16_t i, m;

		m = rte_ring_dequeue_burst(nf->nic_rx, (void **)pkts + n, NFVP_BURST - n, NULL);

		for (i = n; i < n + m; i++) {
			struct nfvp_meta *meta = nfvp_meta(pkts[i]);

			meta->chain = nf->slot->nic_chain;
			meta->hop = 0;
			meta->owner = nf->slot->id + 1;
		}
		nf->slot->stats.nic_rx += m;
		n += m;
	}
	return n;
}

static void
shared_send(struct nfvp_nf *nf, struct rte_mbuf **pkts, uint16_t n, uint16_t k)
{
	unsigned int i, sent = 0;

	for (i = 0; i < n; i++)
		nfvp_meta(pkts[i])->verdict = i < k ? NFVP_PASS : NFVP_DROP;
	/* a per-NF ring is never fuller than its twin; the shared ring may be for a moment */
	while (sent < n && !nf->slot->stop) {
		sent += rte_ring_enqueue_burst(nf->from_nf, (void **)pkts + sent, n - sent, NULL);
		if (sent < n)
			sched_yield();
	}
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
			if (sleeps) {
				nf_sleep(nf);
			} else if (nf->idle == IDLE_YIELD) {
				sched_yield();
			} else {
				rte_pause();
			}
			if ((++idle_run & 4095) == 0 || sleeps) {
				if (vswitch_gone(nf) || now_s() > end_s)
					break;
			}
			continue;
		}
		idle_run = 0;
		st->busy_polls++;
		t0 = rte_rdtsc();
		k = nf->ops->burst(nf, pkts, n);
		t0 = rte_rdtsc() - t0;
		st->busy_cycles += t0;
		st->handler_hist[nfvp_cycle_bin(t0 / n)] += n;
		if (k > n)
			k = n;
		st->rx += n;
		st->tx += k;
		st->drop += n - k;
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

/* The long name of the option of key, for messages. */
static const char *
opt_name(const struct option *opts, int key)
{
	for (; opts != NULL && opts->name != NULL; opts++)
		if (opts->val == key)
			return opts->name;
	return "?";
}

int
nfvp_nf_main(int argc, char **argv, const char *name, const struct nfvp_nf_ops *ops,
	     const struct option *opts, nfvp_nf_opt_fn opt)
{
	struct nfvp_nf *nf;
	int rc, key, own = argc;

	/* the NF's own options come after "--": read them first, so that setup sees them */
	for (rc = 1; rc < argc; rc++) {
		if (strcmp(argv[rc], "--") == 0) {
			own = rc;
			break;
		}
	}
	if (own < argc) {
		char *saved = argv[own];

		argv[own] = argv[0]; /* getopt wants a program name first */
		optind = 1;
		while ((key = getopt_long(argc - own, argv + own, "", opts, NULL)) != -1) {
			const char *expected;
			char what[64];

			if (key == '?' || opts == NULL)
				return 2; /* getopt said which option it did not know */
			expected = opt(key, optarg);
			if (expected != NULL) {
				snprintf(what, sizeof(what), "--%s", opt_name(opts, key));
				nfvp_bad_value(name, what, expected, optarg);
				return 2;
			}
		}
		argv[own] = saved;
	}
	rc = nfvp_nf_init(own, argv, name, ops, &nf);
	if (rc < 0)
		return rc == -EINVAL ? 2 : 1;
	rc = nfvp_nf_run(nf);
	nfvp_nf_close(nf);
	return rc < 0 ? 1 : 0;
}
