/* SPDX-License-Identifier: MIT */
/* args.c: the vSwitch's own options (after EAL's "--"), each checked with a one-line error. */

#include <errno.h>
#include <inttypes.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ring.h>

#include "nfvp_parse.h"
#include "vswitch.h"

/* An integer option in [lo, hi] (nfvp_parse.h), or its one-line error. */
static int
parse_uint(const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char range[64];

	if (nfvp_parse_u64(s, lo, hi, out) == 0)
		return 0;
	snprintf(range, sizeof(range), "%" PRIu64 "..%" PRIu64, lo, hi);
	return nfvp_bad_value("vswitch", opt, range, s);
}

int
vs_args_parse(int argc, char **argv, struct vs_config *cfg)
{
	static const struct option longopts[] = {
		{ "arch", required_argument, NULL, 'a' },
		{ "ctl", required_argument, NULL, 'c' },
		{ "stats-out", required_argument, NULL, 's' },
		{ "ring-ports", required_argument, NULL, 'p' },
		{ "rx-ports", required_argument, NULL, 'x' },
		{ "rx-hold", no_argument, NULL, 'h' },
		{ "fdir-queues", required_argument, NULL, 'q' },
		{ "ring-size", required_argument, NULL, 'r' },
		{ "pool-mbufs", required_argument, NULL, 'm' },
		{ "max-nfs", required_argument, NULL, 'n' },
		{ "iso-bufs", required_argument, NULL, 'i' },
		{ "wake-batch", required_argument, NULL, 'w' },
		{ "wake-timeout-us", required_argument, NULL, 't' },
		{ "wake-rate-max", required_argument, NULL, 'B' },
		{ "nf-wait-ms", required_argument, NULL, 'W' },
		{ "drain-ms", required_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v = 0;
	int opt, i, rc = 0;

	*cfg = (struct vs_config){
		.arch = NFVP_ARCH_DOUBLE_BUFFER,
		.ring_ports = 2,
		.fdir_queues = 16,
		.ring_size = NFVP_NF_RING_SIZE,
		.pool_mbufs = 32767,
		.max_nfs = 2048,
		.iso_bufs = 1024,
		.wake_batch = NFVP_WAKE_BATCH,
		.wake_timeout_us = NFVP_WAKE_TIMEOUT_US,
		.wake_rate_max = NFVP_WAKE_RATE_MAX,
		.nf_wait_ms = 100,
		.drain_ms = 500,
	};
	optind = 1;
	while (rc == 0 && (opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 'a':
			for (i = 0; i < NFVP_ARCH_COUNT; i++)
				if (strcmp(optarg, nfvp_arch_names[i]) == 0)
					break;
			if (i == NFVP_ARCH_COUNT) {
				fprintf(stderr, "vswitch: --arch: expected double-buffer, semaphore, "
					"shared-ring, fdir or isolated, found \"%s\"\n", optarg);
				return -EINVAL;
			}
			cfg->arch = i;
			break;
		case 'c':
			cfg->ctl_path = optarg;
			break;
		case 's':
			cfg->stats_out = optarg;
			break;
		case 'p':
			rc = parse_uint("--ring-ports", optarg, 0, NFVP_MAX_PORTS, &v);
			cfg->ring_ports = v;
			break;
		case 'h':
			cfg->rx_hold = 1;
			break;
		case 'x':
			rc = parse_uint("--rx-ports", optarg, 0, NFVP_MAX_PORTS, &v);
			cfg->rx_ports = v;
			break;
		case 'q':
			rc = parse_uint("--fdir-queues", optarg, 1, 64, &v);
			cfg->fdir_queues = v;
			break;
		case 'r':
			rc = parse_uint("--ring-size", optarg, 64, 65536, &v);
			cfg->ring_size = v;
			break;
		case 'm':
			rc = parse_uint("--pool-mbufs", optarg, 1024, 1 << 22, &v);
			cfg->pool_mbufs = v;
			break;
		case 'n':
			rc = parse_uint("--max-nfs", optarg, 1, NFVP_MAX_NFS, &v);
			cfg->max_nfs = v;
			break;
		case 'i':
			rc = parse_uint("--iso-bufs", optarg, 64, 65536, &v);
			cfg->iso_bufs = v;
			break;
		case 'w':
			rc = parse_uint("--wake-batch", optarg, 1, NFVP_WAKE_BATCH_MOST, &v);
			cfg->wake_batch = v;
			break;
		case 't':
			rc = parse_uint("--wake-timeout-us", optarg, 1, NFVP_WAKE_TIMEOUT_US_MOST, &v);
			cfg->wake_timeout_us = v;
			break;
		case 'B':
			rc = parse_uint("--wake-rate-max", optarg, 0, NFVP_WAKE_RATE_MOST, &v);
			cfg->wake_rate_max = v;
			break;
		case 'W':
			rc = parse_uint("--nf-wait-ms", optarg, 1, 60000, &v);
			cfg->nf_wait_ms = v;
			break;
		case 'd':
			rc = parse_uint("--drain-ms", optarg, 0, 600000, &v);
			cfg->drain_ms = v;
			break;
		default:
			fprintf(stderr, "vswitch: usage: nfvp-vswitch EAL-OPTIONS -- --arch A --ctl PATH "
				"[--stats-out PATH] [--ring-ports N] [--ring-size N] ...\n");
			return -EINVAL;
		}
	}
	if (rc != 0)
		return rc;
	if (optind != argc) {
		fprintf(stderr, "vswitch: expected options only, found \"%s\"\n", argv[optind]);
		return -EINVAL;
	}
	if (cfg->ctl_path == NULL) {
		fprintf(stderr, "vswitch: --ctl: expected a path for the control socket, found "
			"nothing\n");
		return -EINVAL;
	}
	if (cfg->arch == NFVP_ARCH_FDIR && cfg->ring_ports == 0) {
		fprintf(stderr, "vswitch: --ring-ports: expected ≥ 1 with --arch fdir (port 0 is "
			"the NIC whose queues feed the NFs), found \"0\"\n");
		return -EINVAL;
	}
	return 0;
}
