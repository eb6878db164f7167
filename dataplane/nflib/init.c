/* SPDX-License-Identifier: MIT */
/* init.c: an NF's set-up: nflib's options and the NF's own (each error names its option), the
 * NF's setup hook, attaching to the vSwitch and mapping what it hands over; nfvp_nf_main. */

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
	nf->bells = nf->slot->bell_off ? (uint64_t *)(nf->base + nf->slot->bell_off) : NULL;
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
	nfvp_nf_catch_signals();
	*nfp = nf;
	return consumed;
fail:
	nfvp_nf_close(nf);
	return rc;
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
