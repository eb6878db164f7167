/* SPDX-License-Identifier: MIT */
/* nfvp-gen: the traffic generator, a DPDK secondary of the vSwitch that plays the NIC's far end. */

#ifndef _GNU_SOURCE
#endif

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ether.h>
#include <rte_hash.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_memcpy.h>
#include <rte_mempool.h>
#include <rte_pause.h>
#include <rte_ring.h>
#include <rte_udp.h>

#include "nfvp_ctl.h"
#include "nfvp_shm.h"

#define NFVP_GEN_NAME "nfvp-gen"
#define NFVP_GEN_MAX_MACS 8192
#define NFVP_GEN_TMPL_SIZE 128 /* per-flow template: the first bytes of the frame */
#define NFVP_GEN_SRC_MAC { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 }
#define NFVP_GEN_DST_IP RTE_IPV4(192, 168, 0, 1)
#define NFVP_GEN_UDP_DST 9
#define NFVP_GEN_UDP_SRC_BASE 1024
#define NFVP_GEN_UDP_SRC_SPAN 60000
#define NFVP_GEN_MPLS_LABEL_BASE 100
#define NFVP_GEN_TTL 64
#define NFVP_GEN_VIDS 4094 /* VLAN IDs 1..4094 */
#define NFVP_GEN_GRE_FLAGS 0xa000 /* checksum and key present (RFC 2784, 2890) */
#define NFVP_GEN_GRE_LEN 12
#define NFVP_GEN_TUNNEL_SRC RTE_IPV4(198, 51, 100, 1)
#define NFVP_GEN_TUNNEL_DST RTE_IPV4(198, 51, 100, 2)

/* What the IPv4/UDP packet is carried in. */
enum nfvp_gen_encap {
	NFVP_GEN_ENCAP_NONE, /* Ethernet / IPv4 / UDP */
	NFVP_GEN_ENCAP_MPLS, /* Ethernet / MPLS / IPv4 / UDP */
	NFVP_GEN_ENCAP_QINQ, /* Ethernet / S-tag / C-tag / IPv4 / UDP (a BNG's access side) */
	NFVP_GEN_ENCAP_GRE,  /* Ethernet / MPLS / IPv4 / GRE (checksum, key) / IPv4 / UDP: core */
};
static const char *const nfvp_gen_encap_names[] = { "none", "mpls", "qinq", "gre" };
/* Bytes before the (inner) IPv4 header, by encapsulation. */
static const uint16_t nfvp_gen_l3_off[] = { 14, 18, 22, 14 + 4 + 20 + NFVP_GEN_GRE_LEN };

/* Latency histogram, log-linear: values below 64 ns exact, then 64 sub-buckets per power of
 * two (resolution 1/64, about 1.6 %), up to 2^64 ns so nothing ever needs clamping. */
#define NFVP_GEN_HIST_SUB_BITS 6
#define NFVP_GEN_HIST_BUCKETS NFVP_HIST_BINS(NFVP_GEN_HIST_SUB_BITS, NFVP_GEN_HIST_SUB_BITS)

struct nfvp_gen_stats {
	uint64_t sent;
	uint64_t tx_dropped;
	uint64_t pool_empty;
	uint64_t received;
	uint64_t received_bytes;
	uint64_t bad_stamp;
	uint64_t lat_count;
	uint64_t lat_min;
	uint64_t lat_max;
	double lat_sum;
	uint64_t *hist; /* NFVP_GEN_HIST_BUCKETS */
};

/* A class of flows: frame size, rate, flows (--class; without it, one class made of
 * --frame-bytes, --rate-pps and --flows). Flows are numbered across classes. */
struct nfvp_gen_class {
	uint32_t frame_bytes;
	double rate_pps;
	uint32_t flows;
	uint32_t first_flow;
	uint16_t data_len;
	uint16_t head_len;
	uint16_t tail_len;
	uint16_t stamp_off;
	uint8_t *tmpl;              /* per flow: the first head_len bytes of the frame */
	uint8_t *tail;              /* bytes head_len .. data_len, the same for every flow */
	uint32_t next_flow;
	uint64_t built;             /* packets of this class built so far: for the mix */
	struct nfvp_gen_stats st;
};

struct nfvp_gen_conf {
	const char *ctl_path;
	const char *stats_out;
	uint32_t frame_bytes;
	double rate_pps;   /* 0: as fast as possible */
	double duration_s;
	uint32_t flows;
	uint32_t n_macs;
	struct rte_ether_addr *macs;
	uint32_t in_port;
	uint32_t out_port;
	uint32_t drain_ms;
	enum nfvp_gen_encap encap;
	bool fdir;
	bool sleep_idle; /* --idle sleep: sleep until the next burst is due instead of spinning */
	uint32_t dst_mac_count; /* > 0: packet i's dst MAC is macs[0] + i mod count (low 24 bits) */
	uint32_t dst_ip_count;  /* > 0: packet i's dst IP is dst_ip_base + (i mod count) x step */
	uint32_t dst_ip_base;
	uint32_t dst_ip_step;
	uint32_t src_mac_count; /* > 0: packet i's src MAC is the default + i mod count */
	uint32_t vlan_count;    /* > 0 (qinq): packet i's tag pair k = i mod count, see usage */
	unsigned int n_classes; /* --class given: how many */
	struct nfvp_gen_class cls[NFVP_MAX_CLASSES];
};

struct nfvp_gen {
	struct nfvp_gen_conf conf;
	/* the vSwitch */
	int ctl;
	void *base;
	uint64_t len;
	uint64_t ports;
	uint64_t queues;
	struct rte_mempool *pool;
	struct rte_ring *tx_ring;   /* out port, tx queue 0: what the vSwitch sent */
	struct rte_ring **rx_rings; /* in port rx queues in use, compacted */
	uint32_t n_rx;
	uint16_t *rx_queue;         /* per rx_rings entry: the NIC queue number */
	uint16_t *mac_ring;         /* per MAC: index in rx_rings */
	/* packets */
	struct nfvp_gen_class *cls; /* conf.cls, conf.n_classes of them */
	unsigned int n_cls;
	rte_be32_t *mpls;           /* per MAC: the label stack entry, or NULL */
	uint32_t next_mac;
	uint64_t seq;               /* packets built so far: drives the dst MAC / IP sweeps */
	struct rte_mbuf **stage;    /* fdir: NFVP_BURST per rx ring */
	uint16_t *stage_n;
	/* time */
	uint64_t hz;
	double ns_per_tsc;
	double pkts_per_tsc;
	uint64_t start_tsc;
	uint64_t send_tsc;          /* TSC cycles spent sending */
	struct nfvp_gen_stats st;
};

static volatile sig_atomic_t nfvp_gen_stop;

static void
nfvp_gen_on_signal(int sig __rte_unused)
{
	nfvp_gen_stop = 1;
}

static void
nfvp_gen_usage(FILE *f)
{
	fprintf(f,
		"usage: " NFVP_GEN_NAME " EAL-ARGS -- --ctl PATH --macs MAC[,MAC...] [options]\n"
		"  --frame-bytes N   frame size with FCS, %u..%u (default 64)\n"
		"  --rate-pps R      packets per second, 0 = as fast as possible (default 0)\n"
		"  --duration SEC    seconds of sending (default 1)\n"
		"  --flows F         flows, 1..%u (default 1)\n"
		"  --class B:R:F     a class of F flows of B-byte frames at R pps (repeatable, up to\n"
		"                    4; instead of --frame-bytes, --rate-pps and --flows; packets\n"
		"                    of the classes interleave in proportion to their rates)\n"
		"  --macs LIST       dst MACs aa:bb:cc:dd:ee:ff, comma separated, 1..%u in all\n"
		"                    (may be repeated: the lists are joined)\n"
		"  --in-port P       port whose rx rings get the packets (default 0)\n"
		"  --out-port P      port whose tx ring 0 is read (default 1)\n"
		"  --drain-ms MS     receive time after the last send (default 200)\n"
		"  --encap E         none: Ethernet / IPv4 / UDP (default); mpls: an MPLS label\n"
		"                    before IPv4; qinq: S-tag and C-tag before IPv4; gre: MPLS /\n"
		"                    IPv4 / GRE with checksum and key / IPv4 / UDP (frames >= 96 B;\n"
		"                    the GRE checksum is the template's: the stamp is not in it)\n"
		"  --mpls            the same as --encap mpls\n"
		"  --fdir            pick the rx queue from the vSwitch's flow director table\n"
		"  --dst-mac-count N packet i's dst MAC: the first --macs + (i mod N), low 24 bits\n"
		"  --dst-ip-count N  packet i's dst IP: --dst-ip-base + (i mod N) x --dst-ip-step;\n"
		"                    with --encap gre the inner one, and the GRE key is i mod N\n"
		"  --src-mac-count N packet i's src MAC: 02:00:00 + (1 + i mod N), low 24 bits\n"
		"  --vlan-count N    qinq: packet i's S-VID 1 + k / 4094, C-VID 1 + k mod 4094,\n"
		"                    k = i mod N (default: both 1)\n"
		"  --idle spin|sleep when paced and idle: spin (default) or nap until the next\n"
		"                    burst is due (for a CPU shared with NFs)\n"
		"  --stats-out PATH  write the JSON report there (default: stdout)\n",
		NFVP_MIN_FRAME, NFVP_MAX_FRAME, NFVP_MAX_FLOWS, NFVP_GEN_MAX_MACS);
}

static int
nfvp_gen_bad_arg(const char *opt, const char *expected, const char *found)
{
	fprintf(stderr, NFVP_GEN_NAME ": %s: expected %s, found \"%s\"\n", opt, expected, found);
	return -1;
}

/* A decimal integer in [min, max], nothing around it. */
static int
nfvp_gen_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static int
nfvp_gen_parse_double(const char *s, double *out)
{
	char *end;
	double v;

	if (*s == '\0' || *s == ' ' || *s == '\t')
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || *end != '\0' || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

static int
nfvp_gen_hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Exactly aa:bb:cc:dd:ee:ff, n characters long. */
static int
nfvp_gen_parse_mac(const char *s, size_t n, struct rte_ether_addr *mac)
{
	unsigned int i;

	if (n != 17)
		return -1;
	for (i = 0; i < RTE_ETHER_ADDR_LEN; i++) {
		int hi = nfvp_gen_hex(s[3 * i]);
		int lo = nfvp_gen_hex(s[3 * i + 1]);

		if (hi < 0 || lo < 0 || (i < RTE_ETHER_ADDR_LEN - 1 && s[3 * i + 2] != ':'))
			return -1;
		mac->addr_bytes[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

/* Append a comma-separated list of MACs (--macs may be repeated: one argument cannot hold
 * 8192 of them, the kernel limits a single argument to 128 KiB). */
static int
nfvp_gen_parse_macs(struct nfvp_gen_conf *c, const char *list)
{
	struct rte_ether_addr *macs;
	const char *p;
	uint32_t n = 1, i;

	for (p = list; *p != '\0'; p++)
		if (*p == ',')
			n++;
	if (n > NFVP_GEN_MAX_MACS - c->n_macs) {
		char found[32];

		snprintf(found, sizeof(found), "%" PRIu32 " MACs", c->n_macs + n);
		return nfvp_gen_bad_arg("--macs", "at most " RTE_STR(NFVP_GEN_MAX_MACS)
					" MACs in all", found);
	}
	macs = realloc(c->macs, (c->n_macs + n) * sizeof(*macs));
	if (macs == NULL) {
		fprintf(stderr, NFVP_GEN_NAME ": --macs: out of memory\n");
		return -1;
	}
	c->macs = macs;
	p = list;
	for (i = 0; i < n; i++) {
		size_t len = strcspn(p, ",");

		if (nfvp_gen_parse_mac(p, len, &macs[c->n_macs + i]) != 0) {
			char item[32];

			snprintf(item, sizeof(item), "%.*s",
				 (int)RTE_MIN(len, sizeof(item) - 1), p);
			return nfvp_gen_bad_arg("--macs", "a comma-separated list of MACs "
						"aa:bb:cc:dd:ee:ff", item);
		}
		p += len + 1;
	}
	c->n_macs += n;
	return 0;
}

/* Parse the arguments after "--". Returns 0, 1 for --help, -1 on an error (already reported). */
static int
nfvp_gen_parse_args(struct nfvp_gen_conf *c, int argc, char **argv)
{
	static const char *const with_value[] = {
		"--ctl", "--frame-bytes", "--rate-pps", "--duration", "--flows", "--macs",
		"--in-port", "--out-port", "--drain-ms", "--stats-out", "--idle",
		"--dst-mac-count", "--dst-ip-count", "--dst-ip-base", "--dst-ip-step",
		"--encap", "--src-mac-count", "--vlan-count", "--class",
	};
	int i;

	c->frame_bytes = NFVP_MIN_FRAME;
	c->rate_pps = 0;
	c->duration_s = 1.0;
	c->flows = 1;
	c->in_port = 0;
	c->out_port = 1;
	c->drain_ms = 200;
	c->dst_ip_base = NFVP_GEN_DST_IP;
	c->dst_ip_step = 1;

	for (i = 0; i < argc; i++) {
		char name[32];
		const char *arg = argv[i];
		const char *val = NULL;
		const char *eq = strchr(arg, '=');
		bool needs_value = false;
		uint64_t u;
		unsigned int k;

		if (strncmp(arg, "--", 2) == 0 && eq != NULL && (size_t)(eq - arg) < sizeof(name)) {
			snprintf(name, sizeof(name), "%.*s", (int)(eq - arg), arg);
			val = eq + 1;
		} else {
			snprintf(name, sizeof(name), "%s", strlen(arg) < sizeof(name) ? arg : "?");
		}
		for (k = 0; k < RTE_DIM(with_value); k++)
			if (strcmp(name, with_value[k]) == 0)
				needs_value = true;
		if (needs_value && val == NULL) {
			if (i + 1 >= argc) {
				fprintf(stderr, NFVP_GEN_NAME ": %s: expected a value\n", name);
				return -1;
			}
			val = argv[++i];
		} else if (!needs_value && val != NULL) {
			fprintf(stderr, NFVP_GEN_NAME ": %s: takes no value, found \"%s\"\n",
				name, val);
			return -1;
		}

		if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
			return 1;
		} else if (strcmp(name, "--ctl") == 0) {
			if (*val == '\0')
				return nfvp_gen_bad_arg(name, "a socket path", val);
			c->ctl_path = val;
		} else if (strcmp(name, "--stats-out") == 0) {
			if (*val == '\0')
				return nfvp_gen_bad_arg(name, "a file path", val);
			c->stats_out = val;
		} else if (strcmp(name, "--frame-bytes") == 0) {
			if (nfvp_gen_parse_uint(val, NFVP_MIN_FRAME, NFVP_MAX_FRAME,
						&u) != 0)
				return nfvp_gen_bad_arg(name, "an integer in "
					RTE_STR(NFVP_MIN_FRAME) ".."
					RTE_STR(NFVP_MAX_FRAME), val);
			c->frame_bytes = (uint32_t)u;
		} else if (strcmp(name, "--rate-pps") == 0) {
			if (nfvp_gen_parse_double(val, &c->rate_pps) != 0 || c->rate_pps < 0)
				return nfvp_gen_bad_arg(name, "a number ≥ 0", val);
		} else if (strcmp(name, "--duration") == 0) {
			if (nfvp_gen_parse_double(val, &c->duration_s) != 0 || c->duration_s <= 0)
				return nfvp_gen_bad_arg(name, "a number > 0", val);
		} else if (strcmp(name, "--flows") == 0) {
			if (nfvp_gen_parse_uint(val, 1, NFVP_MAX_FLOWS, &u) != 0)
				return nfvp_gen_bad_arg(name, "an integer in 1.."
					RTE_STR(NFVP_MAX_FLOWS), val);
			c->flows = (uint32_t)u;
		} else if (strcmp(name, "--macs") == 0) {
			if (nfvp_gen_parse_macs(c, val) != 0)
				return -1;
		} else if (strcmp(name, "--in-port") == 0 || strcmp(name, "--out-port") == 0) {
			if (nfvp_gen_parse_uint(val, 0, NFVP_MAX_PORTS - 1, &u) != 0) {
				char expected[40];

				snprintf(expected, sizeof(expected), "a port number in 0..%u",
					 NFVP_MAX_PORTS - 1);
				return nfvp_gen_bad_arg(name, expected, val);
			}
			if (name[2] == 'i')
				c->in_port = (uint32_t)u;
			else
				c->out_port = (uint32_t)u;
		} else if (strcmp(name, "--drain-ms") == 0) {
			if (nfvp_gen_parse_uint(val, 0, 3600000, &u) != 0)
				return nfvp_gen_bad_arg(name, "an integer number of ms ≥ 0", val);
			c->drain_ms = (uint32_t)u;
		} else if (strcmp(name, "--idle") == 0) {
			if (strcmp(val, "spin") != 0 && strcmp(val, "sleep") != 0)
				return nfvp_gen_bad_arg(name, "spin or sleep", val);
			c->sleep_idle = strcmp(val, "sleep") == 0;
		} else if (strcmp(name, "--dst-mac-count") == 0 ||
			   strcmp(name, "--dst-ip-count") == 0 || strcmp(name, "--dst-ip-step") == 0) {
			if (nfvp_gen_parse_uint(val, 1, 1u << 24, &u) != 0)
				return nfvp_gen_bad_arg(name, "an integer in 1..16777216", val);
			if (name[6] == 'm')
				c->dst_mac_count = (uint32_t)u;
			else if (name[9] == 'c')
				c->dst_ip_count = (uint32_t)u;
			else
				c->dst_ip_step = (uint32_t)u;
		} else if (strcmp(name, "--dst-ip-base") == 0) {
			unsigned int a, b, cc, dd;
			char tail;

			if (sscanf(val, "%u.%u.%u.%u%c", &a, &b, &cc, &dd, &tail) != 4 || a > 255 ||
			    b > 255 || cc > 255 || dd > 255)
				return nfvp_gen_bad_arg(name, "an IPv4 address a.b.c.d", val);
			c->dst_ip_base = RTE_IPV4(a, b, cc, dd);
		} else if (strcmp(name, "--src-mac-count") == 0 ||
			   strcmp(name, "--vlan-count") == 0) {
			if (nfvp_gen_parse_uint(val, 1, (uint64_t)NFVP_GEN_VIDS * NFVP_GEN_VIDS,
						&u) != 0)
				return nfvp_gen_bad_arg(name, "an integer in 1..16760836", val);
			if (name[2] == 's')
				c->src_mac_count = (uint32_t)u;
			else
				c->vlan_count = (uint32_t)u;
		} else if (strcmp(name, "--class") == 0) {
			struct nfvp_gen_class *k2 = &c->cls[c->n_classes];
			unsigned int b, f;
			double r;
			char tail;

			if (c->n_classes == NFVP_MAX_CLASSES)
				return nfvp_gen_bad_arg(name, "at most " RTE_STR(NFVP_MAX_CLASSES)
							" classes", val);
			if (sscanf(val, "%u:%lf:%u%c", &b, &r, &f, &tail) != 3 ||
			    b < NFVP_MIN_FRAME || b > NFVP_MAX_FRAME || !(r >= 0) ||
			    f == 0 || f > NFVP_MAX_FLOWS)
				return nfvp_gen_bad_arg(name, "BYTES:PPS:FLOWS (" RTE_STR(NFVP_MIN_FRAME) ".."
							RTE_STR(NFVP_MAX_FRAME) ", >= 0, 1.."
							RTE_STR(NFVP_MAX_FLOWS) ")", val);
			*k2 = (struct nfvp_gen_class){ .frame_bytes = b, .rate_pps = r, .flows = f };
			c->n_classes++;
		} else if (strcmp(name, "--encap") == 0) {
			for (k = 0; k < RTE_DIM(nfvp_gen_encap_names); k++)
				if (strcmp(val, nfvp_gen_encap_names[k]) == 0)
					break;
			if (k == RTE_DIM(nfvp_gen_encap_names))
				return nfvp_gen_bad_arg(name, "none, mpls, qinq or gre", val);
			c->encap = (enum nfvp_gen_encap)k;
		} else if (strcmp(name, "--mpls") == 0) {
			c->encap = NFVP_GEN_ENCAP_MPLS;
		} else if (strcmp(name, "--fdir") == 0) {
			c->fdir = true;
		} else {
			fprintf(stderr, NFVP_GEN_NAME ": unknown option \"%s\" (see --help)\n",
				arg);
			return -1;
		}
	}
	if (c->ctl_path == NULL) {
		fprintf(stderr, NFVP_GEN_NAME ": --ctl: required (the vSwitch's control socket)\n");
		return -1;
	}
	if (c->n_macs == 0) {
		fprintf(stderr, NFVP_GEN_NAME ": --macs: required (at least one dst MAC)\n");
		return -1;
	}
	if (c->n_classes == 0) {
		c->cls[0] = (struct nfvp_gen_class){ .frame_bytes = c->frame_bytes,
						     .rate_pps = c->rate_pps, .flows = c->flows };
		c->n_classes = 1;
	} else {
		unsigned int k, paced = 0, total = 0;

		c->rate_pps = 0;
		c->frame_bytes = c->cls[0].frame_bytes;
		for (k = 0; k < c->n_classes; k++) {
			c->cls[k].first_flow = total;
			total += c->cls[k].flows;
			c->rate_pps += c->cls[k].rate_pps;
			paced += c->cls[k].rate_pps > 0;
		}
		if (total > NFVP_MAX_FLOWS || (paced != 0 && paced != c->n_classes)) {
			fprintf(stderr, NFVP_GEN_NAME ": --class: expected at most %u flows in all "
				"and rates > 0 for all classes or for none\n", NFVP_MAX_FLOWS);
			return -1;
		}
		c->flows = total;
	}
	for (unsigned int k = 0; k < c->n_classes; k++)
		if (c->encap == NFVP_GEN_ENCAP_GRE && c->cls[k].frame_bytes < 96) {
			fprintf(stderr, NFVP_GEN_NAME ": --frame-bytes: expected at least 96 with "
				"--encap gre (78 B of headers and the stamp), found %u\n",
				c->cls[k].frame_bytes);
			return -1;
		}
	if (c->vlan_count != 0 && c->encap != NFVP_GEN_ENCAP_QINQ) {
		fprintf(stderr, NFVP_GEN_NAME ": --vlan-count: needs --encap qinq\n");
		return -1;
	}
	return 0;
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

struct nfvp_gen_mac_key {
	uint64_t key;
	uint32_t mac;
};

static int
nfvp_gen_cmp_key(const void *a, const void *b)
{
	const struct nfvp_gen_mac_key *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->mac < y->mac ? -1 : x->mac > y->mac;
}

/* Flow director: the queue of each of our MACs, from the vSwitch's table. The table is read
 * with rte_hash_iterate: a lookup would call the table's hash function through a pointer that
 * is only valid in the vSwitch's process. */
static int
nfvp_gen_fdir_queues(struct nfvp_gen *g, uint32_t *queue_of)
{
	struct nfvp_gen_mac_key *keys;
	struct rte_hash *h;
	const void *key;
	uint32_t next = 0;
	uint32_t k;
	void *data;

	h = rte_hash_find_existing(NFVP_FDIR_HASH_NAME);
	if (h == NULL) {
		fprintf(stderr, NFVP_GEN_NAME ": --fdir: table %s not found (is the vSwitch "
			"running the fdir architecture?)\n", NFVP_FDIR_HASH_NAME);
		return -1;
	}
	keys = calloc(g->conf.n_macs, sizeof(*keys));
	if (keys == NULL) {
		fprintf(stderr, NFVP_GEN_NAME ": out of memory\n");
		return -1;
	}
	for (k = 0; k < g->conf.n_macs; k++) {
		memcpy(&keys[k].key, &g->conf.macs[k], RTE_ETHER_ADDR_LEN);
		keys[k].mac = k;
		queue_of[k] = 0;
	}
	qsort(keys, g->conf.n_macs, sizeof(*keys), nfvp_gen_cmp_key);
	while (rte_hash_iterate(h, &key, &data, &next) >= 0) {
		uint64_t kv;
		uint32_t lo = 0, hi = g->conf.n_macs;

		memcpy(&kv, key, sizeof(kv));
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (keys[mid].key < kv)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < g->conf.n_macs && keys[lo].key == kv; lo++) {
			uintptr_t q = (uintptr_t)data;

			if (q > UINT16_MAX) {
				fprintf(stderr, NFVP_GEN_NAME ": --fdir: table %s maps a MAC "
					"to queue %" PRIuPTR "\n", NFVP_FDIR_HASH_NAME, q);
				free(keys);
				return -1;
			}
			queue_of[keys[lo].mac] = (uint32_t)q;
		}
	}
	free(keys);
	return 0;
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
	if (g->conf.fdir && nfvp_gen_fdir_queues(g, queue_of) != 0)
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

/* An IPv4 header of total length len, protocol proto, from src to dst, checksum set. */
static void
nfvp_gen_ipv4(struct rte_ipv4_hdr *ip, uint16_t len, uint8_t proto, uint32_t src, uint32_t dst)
{
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->type_of_service = 0;
	ip->total_length = rte_cpu_to_be_16(len);
	ip->packet_id = 0;
	ip->fragment_offset = 0;
	ip->time_to_live = NFVP_GEN_TTL;
	ip->next_proto_id = proto;
	ip->src_addr = rte_cpu_to_be_32(src);
	ip->dst_addr = rte_cpu_to_be_32(dst);
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
}

/* Write the encapsulation before the inner IPv4 header: after the Ethernet header, an MPLS
 * label, a QinQ tag pair (VIDs 1, 1) or a GRE tunnel over MPLS and IPv4 (key 0). */
static void
nfvp_gen_build_encap(const struct nfvp_gen *g, uint16_t data_len, uint8_t *buf)
{
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)buf;
	struct rte_vlan_hdr *tag = (struct rte_vlan_hdr *)(eth + 1);
	uint8_t *p = (uint8_t *)(eth + 1);
	uint16_t ip_len = data_len - nfvp_gen_l3_off[g->conf.encap];

	switch (g->conf.encap) {
	case NFVP_GEN_ENCAP_NONE:
		eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
		break;
	case NFVP_GEN_ENCAP_QINQ:
		eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_QINQ);
		tag[0].vlan_tci = rte_cpu_to_be_16(1);
		tag[0].eth_proto = rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN);
		tag[1].vlan_tci = rte_cpu_to_be_16(1);
		tag[1].eth_proto = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
		break;
	case NFVP_GEN_ENCAP_MPLS:
	case NFVP_GEN_ENCAP_GRE:
		eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_MPLS);
		memcpy(p, &g->mpls[0], sizeof(g->mpls[0]));
		if (g->conf.encap == NFVP_GEN_ENCAP_GRE) {
			uint16_t gre[2] = { rte_cpu_to_be_16(NFVP_GEN_GRE_FLAGS),
					    rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) };
			struct rte_ipv4_hdr *outer = (struct rte_ipv4_hdr *)(p + 4);
			uint8_t *h = (uint8_t *)(outer + 1);

			nfvp_gen_ipv4(outer, ip_len + 20 + NFVP_GEN_GRE_LEN, IPPROTO_GRE,
				      NFVP_GEN_TUNNEL_SRC, NFVP_GEN_TUNNEL_DST);
			memcpy(h, gre, sizeof(gre)); /* checksum (nfvp_gen_build_frame), reserved
						       * and key (per packet) follow */
		}
		break;
	}
}

/* Write flow f's frame (headers, zero payload, no stamp) into buf of data_len bytes. */
static void
nfvp_gen_build_frame(const struct nfvp_gen *g, uint16_t data_len, uint32_t f, uint8_t *buf)
{
	static const uint8_t src_mac[RTE_ETHER_ADDR_LEN] = NFVP_GEN_SRC_MAC;
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)buf;
	uint16_t l3 = nfvp_gen_l3_off[g->conf.encap];
	uint16_t ip_len = (uint16_t)(data_len - l3);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(buf + l3);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);

	memset(buf, 0, data_len);
	rte_ether_addr_copy(&g->conf.macs[0], &eth->dst_addr);
	memcpy(eth->src_addr.addr_bytes, src_mac, sizeof(src_mac));
	nfvp_gen_build_encap(g, data_len, buf);
	nfvp_gen_ipv4(ip, ip_len, IPPROTO_UDP, RTE_IPV4(10, 0, (f >> 8) & 0xff, f & 0xff),
		      g->conf.dst_ip_base);
	udp->src_port = rte_cpu_to_be_16(NFVP_GEN_UDP_SRC_BASE + f % NFVP_GEN_UDP_SRC_SPAN);
	udp->dst_port = rte_cpu_to_be_16(NFVP_GEN_UDP_DST);
	udp->dgram_len = rte_cpu_to_be_16(ip_len - sizeof(*ip));
	udp->dgram_cksum = 0;
	if (g->conf.encap == NFVP_GEN_ENCAP_GRE) {
		uint8_t *gre = buf + l3 - NFVP_GEN_GRE_LEN;
		uint16_t sum = (uint16_t)~rte_raw_cksum(gre, NFVP_GEN_GRE_LEN + ip_len);

		memcpy(gre + 4, &sum, sizeof(sum));
	}
}

/* The templates: per flow the first head_len bytes (all the headers), and one shared tail.
 * Per packet only the dst MAC, the MPLS label (both per MAC) and the stamp are written. */
static int
nfvp_gen_build(struct nfvp_gen *g)
{
	uint8_t *frame = NULL;
	uint32_t f, k;

	if (g->conf.encap == NFVP_GEN_ENCAP_MPLS || g->conf.encap == NFVP_GEN_ENCAP_GRE) {
		g->mpls = calloc(g->conf.n_macs, sizeof(*g->mpls));
		if (g->mpls == NULL)
			goto nomem;
		for (k = 0; k < g->conf.n_macs; k++)
			g->mpls[k] = rte_cpu_to_be_32((NFVP_GEN_MPLS_LABEL_BASE + k) << 12 |
						      1u << 8 | NFVP_GEN_TTL);
	}
	frame = malloc(NFVP_MAX_FRAME);
	if (frame == NULL)
		goto nomem;
	for (k = 0; k < g->n_cls; k++) {
		struct nfvp_gen_class *c = &g->cls[k];

		c->tmpl = aligned_alloc(RTE_CACHE_LINE_SIZE, (size_t)c->flows * NFVP_GEN_TMPL_SIZE);
		c->tail = malloc(RTE_MAX(c->tail_len, 1));
		if (c->tmpl == NULL || c->tail == NULL)
			goto nomem;
		for (f = 0; f < c->flows; f++) {
			nfvp_gen_build_frame(g, c->data_len, c->first_flow + f, frame);
			memcpy(c->tmpl + (size_t)f * NFVP_GEN_TMPL_SIZE, frame, c->head_len);
			if (f == 0)
				memcpy(c->tail, frame + c->head_len, c->tail_len);
		}
	}
	free(frame);
	return 0;
nomem:
	free(frame);
	fprintf(stderr, NFVP_GEN_NAME ": out of memory\n");
	return -1;
}

/* The class a flow (as its stamp names it) belongs to. */
static inline struct nfvp_gen_class *
nfvp_gen_class_of(struct nfvp_gen *g, uint32_t flow)
{
	unsigned int k = 0;

	while (k + 1 < g->n_cls && flow >= g->cls[k + 1].first_flow)
		k++;
	return &g->cls[k];
}

/* Enqueue n packets into an rx ring; what does not fit is the NIC's missed packets. */
static inline void
nfvp_gen_enqueue(struct nfvp_gen *g, struct rte_ring *r, struct rte_mbuf **pkts, unsigned int n)
{
	unsigned int ok = rte_ring_enqueue_burst(r, (void **)pkts, n, NULL), i;

	g->st.sent += ok;
	if (unlikely(ok < n)) {
		/* a class counted its packets sent as it built them; the refused ones, still
		 * ours (those enqueued belong to the vSwitch now: not to be read), go back */
		for (i = ok; i < n; i++) {
			struct rte_mbuf *m = pkts[i];
			const struct nfvp_stamp *st = rte_pktmbuf_mtod_offset(
				m, const struct nfvp_stamp *, m->data_len - sizeof(*st));
			struct nfvp_gen_class *c = nfvp_gen_class_of(g, st->gen_flow);

			c->st.sent--;
			c->st.tx_dropped++;
		}
		rte_pktmbuf_free_bulk(pkts + ok, n - ok);
		g->st.tx_dropped += n - ok;
	}
}

/* The class of the next packet: the one furthest behind its share of the rate. */
static inline struct nfvp_gen_class *
nfvp_gen_next_class(struct nfvp_gen *g)
{
	struct nfvp_gen_class *best = &g->cls[0];
	unsigned int k;

	for (k = 1; k < g->n_cls; k++) {
		struct nfvp_gen_class *c = &g->cls[k];
		double wc = c->rate_pps > 0 ? c->rate_pps : 1, wb = best->rate_pps > 0 ?
			    best->rate_pps : 1;

		if ((double)c->built * wb < (double)best->built * wc)
			best = c;
	}
	best->built++;
	return best;
}

/* Build and send n (<= NFVP_BURST) packets. Returns how many were built (0: pool empty). */
static unsigned int
nfvp_gen_send(struct nfvp_gen *g, unsigned int n)
{
	struct rte_mbuf *pkts[NFVP_BURST];
	uint16_t ring_of[NFVP_BURST];
	uint16_t touched[NFVP_BURST];
	uint16_t stamp_off[NFVP_BURST];
	uint32_t mac = g->next_mac;
	unsigned int i, n_touched = 0;
	uint64_t tsc;

	if (unlikely(rte_pktmbuf_alloc_bulk(g->pool, pkts, n) != 0)) {
		/* all or nothing: with the pool nearly empty, send a shorter burst */
		n = RTE_MIN(n, rte_mempool_avail_count(g->pool));
		if (n == 0 || rte_pktmbuf_alloc_bulk(g->pool, pkts, n) != 0) {
			g->st.pool_empty++;
			return 0;
		}
	}
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);
		struct nfvp_gen_class *c = g->n_cls == 1 ? g->cls : nfvp_gen_next_class(g);
		uint32_t flow = c->next_flow;
		struct nfvp_stamp *s = (struct nfvp_stamp *)(d + c->stamp_off);

		rte_memcpy(d, c->tmpl + (size_t)flow * NFVP_GEN_TMPL_SIZE, c->head_len);
		if (c->tail_len != 0)
			rte_memcpy(d + c->head_len, c->tail, c->tail_len);
		memcpy(d, &g->conf.macs[mac], RTE_ETHER_ADDR_LEN);
		if (g->mpls != NULL)
			memcpy(d + sizeof(struct rte_ether_hdr), &g->mpls[mac], sizeof(g->mpls[0]));
		if (g->conf.dst_mac_count != 0) {
			uint32_t low = (uint32_t)(g->seq % g->conf.dst_mac_count) +
				       ((uint32_t)d[3] << 16 | (uint32_t)d[4] << 8 | d[5]);

			d[3] = (uint8_t)(low >> 16);
			d[4] = (uint8_t)(low >> 8);
			d[5] = (uint8_t)low;
		}
		if (g->conf.src_mac_count != 0) {
			uint32_t low = 1 + (uint32_t)(g->seq % g->conf.src_mac_count);

			d[9] = (uint8_t)(low >> 16);
			d[10] = (uint8_t)(low >> 8);
			d[11] = (uint8_t)low;
		}
		if (g->conf.vlan_count != 0) {
			uint32_t k = (uint32_t)(g->seq % g->conf.vlan_count);
			struct rte_vlan_hdr *tag = (struct rte_vlan_hdr *)(d +
				sizeof(struct rte_ether_hdr));

			tag[0].vlan_tci = rte_cpu_to_be_16((uint16_t)(1 + k / NFVP_GEN_VIDS));
			tag[1].vlan_tci = rte_cpu_to_be_16((uint16_t)(1 + k % NFVP_GEN_VIDS));
		}
		if (g->conf.dst_ip_count != 0) {
			uint32_t k = (uint32_t)(g->seq % g->conf.dst_ip_count);
			struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(d +
				nfvp_gen_l3_off[g->conf.encap]);

			ip->dst_addr = rte_cpu_to_be_32(g->conf.dst_ip_base +
							k * g->conf.dst_ip_step);
			ip->hdr_checksum = 0;
			ip->hdr_checksum = rte_ipv4_cksum(ip);
			if (g->conf.encap == NFVP_GEN_ENCAP_GRE) /* the key */
				*(rte_be32_t *)((uint8_t *)ip - 4) = rte_cpu_to_be_32(k);
		}
		g->seq++;
		c->st.sent++;
		s->magic = NFVP_STAMP_MAGIC;
		s->gen_flow = (uint16_t)(c->first_flow + flow);
		stamp_off[i] = c->stamp_off;
		m->data_len = c->data_len;
		m->pkt_len = c->data_len;
		m->port = (uint16_t)g->conf.in_port;
		ring_of[i] = g->mac_ring[mac];
		if (++c->next_flow == c->flows)
			c->next_flow = 0;
		if (++mac == g->conf.n_macs)
			mac = 0;
	}
	g->next_mac = mac;

	tsc = rte_rdtsc();
	for (i = 0; i < n; i++)
		rte_pktmbuf_mtod_offset(pkts[i], struct nfvp_stamp *, stamp_off[i])->tsc = tsc;

	if (g->n_rx == 1) {
		nfvp_gen_enqueue(g, g->rx_rings[0], pkts, n);
		return n;
	}
	for (i = 0; i < n; i++) {
		uint16_t r = ring_of[i];

		if (g->stage_n[r] == 0)
			touched[n_touched++] = r;
		g->stage[(size_t)r * NFVP_BURST + g->stage_n[r]++] = pkts[i];
	}
	for (i = 0; i < n_touched; i++) {
		uint16_t r = touched[i];

		nfvp_gen_enqueue(g, g->rx_rings[r], &g->stage[(size_t)r * NFVP_BURST],
				 g->stage_n[r]);
		g->stage_n[r] = 0;
	}
	return n;
}

static inline void
nfvp_gen_record_in(struct nfvp_gen_stats *st, uint64_t ns)
{
	st->hist[nfvp_hist_bin(ns, NFVP_GEN_HIST_SUB_BITS, NFVP_GEN_HIST_SUB_BITS)]++;
	st->lat_sum += (double)ns;
	if (ns < st->lat_min)
		st->lat_min = ns;
	if (ns > st->lat_max)
		st->lat_max = ns;
	st->lat_count++;
}

static inline void
nfvp_gen_record(struct nfvp_gen *g, struct nfvp_gen_class *c, uint64_t cycles)
{
	uint64_t ns = (uint64_t)((double)cycles * g->ns_per_tsc + 0.5);

	nfvp_gen_record_in(&g->st, ns);
	nfvp_gen_record_in(&c->st, ns);
}

/* Receive one burst from the out port. Returns the number of packets. */
static unsigned int
nfvp_gen_recv(struct nfvp_gen *g)
{
	struct rte_mbuf *pkts[NFVP_BURST];
	unsigned int i, n;
	uint64_t now;

	n = rte_ring_dequeue_burst(g->tx_ring, (void **)pkts, NFVP_BURST, NULL);
	if (n == 0)
		return 0;
	now = rte_rdtsc();
	for (i = 0; i < n; i++) {
		const struct rte_mbuf *m = pkts[i];
		const struct nfvp_stamp *s;
		struct nfvp_gen_class *c;
		struct nfvp_stamp copy;

		g->st.received_bytes += m->pkt_len + RTE_ETHER_CRC_LEN;
		if (unlikely(m->pkt_len < sizeof(copy))) {
			g->st.bad_stamp++;
			continue;
		}
		s = rte_pktmbuf_read(m, m->pkt_len - sizeof(copy), sizeof(copy), &copy);
		/* a stamp from before this run (a recycled buffer) is no stamp of ours */
		if (unlikely(s == NULL || s->magic != NFVP_STAMP_MAGIC || s->tsc < g->start_tsc ||
			     s->tsc > now)) {
			g->st.bad_stamp++;
			continue;
		}
		c = nfvp_gen_class_of(g, s->gen_flow);
		c->st.received++;
		c->st.received_bytes += m->pkt_len + RTE_ETHER_CRC_LEN;
		nfvp_gen_record(g, c, now - s->tsc);
	}
	g->st.received += n;
	rte_pktmbuf_free_bulk(pkts, n);
	return n;
}

/* --idle sleep: give the CPU away until the next full burst is due (the generator shares a
 * CPU with the NFs on a small machine), at most 20 µs: packets that come back wait in the
 * ring until it wakes, and that wait is part of the latency it measures. */
static void
nfvp_gen_nap(const struct nfvp_gen *g, uint64_t start, uint64_t now)
{
	double next = (double)(g->st.sent + g->st.tx_dropped + NFVP_BURST) / g->pkts_per_tsc;
	double wait_s = (next - (double)(now - start)) / (double)g->hz;
	struct timespec ts = { 0 };

	if (wait_s < 2e-6)
		return;
	ts.tv_nsec = (long)(RTE_MIN(wait_s, 20e-6) * 1e9);
	nanosleep(&ts, NULL);
}

/* Send for --duration (or until a signal), then keep receiving for --drain-ms. */
static void
nfvp_gen_run(struct nfvp_gen *g)
{
	uint64_t start, end, drain_end, now;
	bool paced = g->conf.rate_pps > 0;

	g->start_tsc = start = rte_rdtsc();
	end = start + (uint64_t)RTE_MIN(g->conf.duration_s * (double)g->hz, 9e18); /* < 2^63 */
	now = start;
	while (!nfvp_gen_stop && now < end) {
		unsigned int sent = 0, n = NFVP_BURST;

		if (paced) {
			uint64_t due = (uint64_t)((double)(now - start) * g->pkts_per_tsc);
			uint64_t attempted = g->st.sent + g->st.tx_dropped;

			n = due > attempted ? (unsigned int)RTE_MIN(due - attempted,
								    (uint64_t)NFVP_BURST) : 0;
		}
		if (n != 0)
			sent = nfvp_gen_send(g, n);
		if (nfvp_gen_recv(g) == 0 && sent == 0) {
			if (paced && g->conf.sleep_idle)
				nfvp_gen_nap(g, start, now);
			else
				rte_pause();
		}
		now = rte_rdtsc();
	}
	g->send_tsc = now - start;

	drain_end = now + g->hz / 1000 * g->conf.drain_ms;
	while (rte_rdtsc() < drain_end)
		if (nfvp_gen_recv(g) == 0)
			rte_pause();
}

/* A percentile from the histogram: its bucket's midpoint, kept within the exact extremes. */
static double
nfvp_gen_percentile(const struct nfvp_gen_stats *st, double q)
{
	double v = nfvp_hist_quantile(st->hist, NFVP_GEN_HIST_BUCKETS, q, NFVP_GEN_HIST_SUB_BITS,
				      NFVP_GEN_HIST_SUB_BITS);

	v = RTE_MAX(v, (double)st->lat_min);
	return RTE_MIN(v, (double)st->lat_max);
}

static void
nfvp_gen_print_latency(const struct nfvp_gen_stats *st, FILE *f)
{
	fprintf(f, "{\"count\": %" PRIu64, st->lat_count);
	if (st->lat_count == 0) {
		fprintf(f, ", \"mean\": null, \"min\": null, \"p50\": null, \"p90\": null, "
			"\"p99\": null, \"p999\": null, \"max\": null}");
		return;
	}
	fprintf(f, ", \"mean\": %.1f, \"min\": %.1f", st->lat_sum / (double)st->lat_count,
		(double)st->lat_min);
	fprintf(f, ", \"p50\": %.1f, \"p90\": %.1f, \"p99\": %.1f, \"p999\": %.1f",
		nfvp_gen_percentile(st, 0.50), nfvp_gen_percentile(st, 0.90),
		nfvp_gen_percentile(st, 0.99), nfvp_gen_percentile(st, 0.999));
	fprintf(f, ", \"max\": %.1f}", (double)st->lat_max);
}

static void
nfvp_gen_print_json(const struct nfvp_gen *g, FILE *f)
{
	const struct nfvp_gen_stats *st = &g->st;
	unsigned int k;
	double dur = (double)g->send_tsc / (double)g->hz;
	double per_s = dur > 0 ? 1.0 / dur : 0;

	fprintf(f, "{\"sent\": %" PRIu64 ", \"tx_dropped\": %" PRIu64 ", \"pool_empty\": %" PRIu64
		", \"received\": %" PRIu64 ", \"received_bytes\": %" PRIu64
		", \"bad_stamp\": %" PRIu64 ",\n",
		st->sent, st->tx_dropped, st->pool_empty, st->received, st->received_bytes,
		st->bad_stamp);
	fprintf(f, " \"frame_bytes\": %u, \"flows\": %u, \"macs\": %u, \"rate_pps\": %.15g,"
		" \"duration_s\": %.6f,\n", g->conf.frame_bytes, g->conf.flows, g->conf.n_macs,
		g->conf.rate_pps, dur);
	fprintf(f, " \"offered_pps\": %.1f, \"sent_pps\": %.1f, \"received_pps\": %.1f,"
		" \"tsc_hz\": %" PRIu64 ",\n",
		(double)(st->sent + st->tx_dropped) * per_s, (double)st->sent * per_s,
		(double)st->received * per_s, g->hz);
	fprintf(f, " \"latency_ns\": ");
	nfvp_gen_print_latency(st, f);
	fprintf(f, ",\n \"classes\": [");
	for (k = 0; k < g->n_cls; k++) {
		const struct nfvp_gen_class *c = &g->cls[k];

		fprintf(f, "%s{\"frame_bytes\": %u, \"rate_pps\": %.15g, \"flows\": %u, "
			"\"first_flow\": %u, \"sent\": %" PRIu64 ", \"tx_dropped\": %" PRIu64
			", \"received\": %" PRIu64 ", \"received_bytes\": %" PRIu64
			", \"sent_pps\": %.1f, \"received_pps\": %.1f, \"latency_ns\": ",
			k ? ",\n  " : "", c->frame_bytes, c->rate_pps, c->flows, c->first_flow,
			c->st.sent, c->st.tx_dropped, c->st.received, c->st.received_bytes,
			(double)c->st.sent * per_s, (double)c->st.received * per_s);
		nfvp_gen_print_latency(&c->st, f);
		fprintf(f, "}");
	}
	fprintf(f, "]}\n");
}

/* The JSON report: to stdout, or atomically to --stats-out (temp file, then rename). */
static int
nfvp_gen_write_stats(const struct nfvp_gen *g)
{
	const char *path = g->conf.stats_out;
	char tmp[PATH_MAX];
	FILE *f = NULL;

	if (path == NULL) {
		nfvp_gen_print_json(g, stdout);
		fflush(stdout);
		return 0;
	}
	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >= (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		goto fail;
	}
	f = fopen(tmp, "w");
	if (f == NULL)
		goto fail;
	nfvp_gen_print_json(g, f);
	if (fflush(f) != 0 || fsync(fileno(f)) != 0)
		goto fail;
	if (fclose(f) != 0) {
		f = NULL;
		goto fail;
	}
	f = NULL;
	if (rename(tmp, path) != 0)
		goto fail;
	return 0;
fail:
	fprintf(stderr, NFVP_GEN_NAME ": cannot write %s: %s\n", path, strerror(errno));
	if (f != NULL)
		fclose(f);
	unlink(tmp);
	return -1;
}

static void
nfvp_gen_print_summary(const struct nfvp_gen *g)
{
	double dur = (double)g->send_tsc / (double)g->hz;

	printf(NFVP_GEN_NAME ": sent %" PRIu64 " (%.3f Mpps) tx_dropped %" PRIu64 " received %"
	       PRIu64 " in %.3f s", g->st.sent, dur > 0 ? (double)g->st.sent / dur / 1e6 : 0.0,
	       g->st.tx_dropped, g->st.received, dur);
	if (g->st.lat_count != 0)
		printf(", latency p50 %.0f ns p99 %.0f ns", nfvp_gen_percentile(&g->st, 0.50),
		       nfvp_gen_percentile(&g->st, 0.99));
	printf("\n");
	fflush(stdout);
}

static void
nfvp_gen_free(struct nfvp_gen *g)
{
	unsigned int k;

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
	ret = nfvp_gen_parse_args(&g.conf, eal_argc < argc ? argc - eal_argc - 1 : 0,
				  argv + RTE_MIN(eal_argc + 1, argc));
	if (ret != 0) {
		if (ret > 0)
			nfvp_gen_usage(stdout);
		rc = ret > 0 ? 0 : 2;
		goto out;
	}
	g.cls = g.conf.cls;
	g.n_cls = g.conf.n_classes;
	for (unsigned int k = 0; k < g.n_cls; k++) {
		struct nfvp_gen_class *c = &g.cls[k];

		c->data_len = (uint16_t)(c->frame_bytes - RTE_ETHER_CRC_LEN);
		c->head_len = RTE_MIN(c->data_len, NFVP_GEN_TMPL_SIZE);
		c->tail_len = c->data_len - c->head_len;
		c->stamp_off = c->data_len - sizeof(struct nfvp_stamp);
		c->st.lat_min = UINT64_MAX;
		c->st.hist = calloc(NFVP_GEN_HIST_BUCKETS, sizeof(*c->st.hist));
		if (c->st.hist == NULL) {
			fprintf(stderr, NFVP_GEN_NAME ": out of memory\n");
			goto out;
		}
	}
	g.st.lat_min = UINT64_MAX;
	g.st.hist = calloc(NFVP_GEN_HIST_BUCKETS, sizeof(*g.st.hist));
	if (g.st.hist == NULL) {
		fprintf(stderr, NFVP_GEN_NAME ": out of memory\n");
		goto out;
	}

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
