/* SPDX-License-Identifier: MIT */
/* args.c: the generator's options (after EAL's "--"), each checked with a one-line error. */

#include <errno.h>
#include <float.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "nfvp_parse.h"
#include "gen.h"

/* --encap's values, in enum nfvp_gen_encap's order. */
static const char *const encap_names[] = { "none", "mpls", "qinq", "gre" };

/* Keys of the options: past every character, so a short option is never one of them. */
enum {
	OPT_HELP = 256, OPT_CTL, OPT_FRAME_BYTES, OPT_RATE_PPS, OPT_DURATION, OPT_FLOWS, OPT_CLASS,
	OPT_MACS, OPT_IN_PORT, OPT_OUT_PORT, OPT_DRAIN_MS, OPT_ENCAP, OPT_MPLS, OPT_FDIR,
	OPT_DST_MAC_COUNT, OPT_DST_IP_COUNT, OPT_DST_IP_BASE, OPT_DST_IP_STEP, OPT_SRC_MAC_COUNT,
	OPT_VLAN_COUNT, OPT_IDLE, OPT_STATS_OUT,
};

static const struct option options[] = {
	{ "help", no_argument, NULL, OPT_HELP },
	{ "ctl", required_argument, NULL, OPT_CTL },
	{ "frame-bytes", required_argument, NULL, OPT_FRAME_BYTES },
	{ "rate-pps", required_argument, NULL, OPT_RATE_PPS },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "flows", required_argument, NULL, OPT_FLOWS },
	{ "class", required_argument, NULL, OPT_CLASS },
	{ "macs", required_argument, NULL, OPT_MACS },
	{ "in-port", required_argument, NULL, OPT_IN_PORT },
	{ "out-port", required_argument, NULL, OPT_OUT_PORT },
	{ "drain-ms", required_argument, NULL, OPT_DRAIN_MS },
	{ "encap", required_argument, NULL, OPT_ENCAP },
	{ "mpls", no_argument, NULL, OPT_MPLS },
	{ "fdir", no_argument, NULL, OPT_FDIR },
	{ "dst-mac-count", required_argument, NULL, OPT_DST_MAC_COUNT },
	{ "dst-ip-count", required_argument, NULL, OPT_DST_IP_COUNT },
	{ "dst-ip-base", required_argument, NULL, OPT_DST_IP_BASE },
	{ "dst-ip-step", required_argument, NULL, OPT_DST_IP_STEP },
	{ "src-mac-count", required_argument, NULL, OPT_SRC_MAC_COUNT },
	{ "vlan-count", required_argument, NULL, OPT_VLAN_COUNT },
	{ "idle", required_argument, NULL, OPT_IDLE },
	{ "stats-out", required_argument, NULL, OPT_STATS_OUT },
	{ NULL, 0, NULL, 0 },
};

void
nfvp_gen_print_usage(FILE *f)
{
	fprintf(f,
		"usage: " NFVP_GEN_NAME " EAL-ARGS -- --ctl PATH --macs MAC[,MAC...] [options]\n"
		"  --frame-bytes N   frame size with FCS, %u..%u (default "
		RTE_STR(NFVP_MIN_FRAME) ")\n"
		"  --rate-pps R      packets per second, 0 = as fast as possible (default 0)\n"
		"  --duration SEC    seconds of sending (default 1)\n"
		"  --flows F         flows, 1..%u (default 1)\n"
		"  --class B:R:F     a class of F flows of B-byte frames at R pps (repeatable, up to\n"
		"                    " RTE_STR(NFVP_MAX_CLASSES) "; instead of --frame-bytes, --rate-pps "
		"and --flows; packets\n"
		"                    of the classes interleave in proportion to their rates)\n"
		"  --macs LIST       dst MACs aa:bb:cc:dd:ee:ff, comma separated, 1..%u in all\n"
		"                    (may be repeated: the lists are joined)\n"
		"  --in-port P       port whose rx rings get the packets (default 0)\n"
		"  --out-port P      port whose tx ring 0 is read (default 1)\n"
		"  --drain-ms MS     receive time after the last send (default 200)\n"
		"  --encap E         none: Ethernet / IPv4 / UDP (default); mpls: an MPLS label\n"
		"                    before IPv4; qinq: S-tag and C-tag before IPv4; gre: MPLS /\n"
		"                    IPv4 / GRE with checksum and key / IPv4 / UDP (frames >= "
		RTE_STR(NFVP_GEN_GRE_MIN_FRAME) " B;\n"
		"                    the GRE checksum is the template's: the stamp is not in it)\n"
		"  --mpls            the same as --encap mpls\n"
		"  --fdir            pick the rx queue from the vSwitch's flow director table\n"
		"  --dst-mac-count N packet i's dst MAC: the first --macs + (i mod N), low 24 bits\n"
		"  --dst-ip-count N  packet i's dst IP: --dst-ip-base + (i mod N) x --dst-ip-step;\n"
		"                    with --encap gre the inner one, and the GRE key is i mod N\n"
		"  --src-mac-count N packet i's src MAC: 02:00:00 + (1 + i mod N), low 24 bits\n"
		"  --vlan-count N    qinq: packet i's S-VID 1 + k / " RTE_STR(NFVP_GEN_VIDS)
		", C-VID 1 + k mod " RTE_STR(NFVP_GEN_VIDS) ",\n"
		"                    k = i mod N (default: both 1)\n"
		"  --idle spin|sleep when paced and idle: spin (default) or nap until the next\n"
		"                    burst is due (for a CPU shared with NFs)\n"
		"  --stats-out PATH  write the JSON report there (default: stdout)\n",
		NFVP_MIN_FRAME, NFVP_MAX_FRAME, NFVP_MAX_FLOWS, NFVP_GEN_MAX_MACS);
}

/* An integer option in [lo, hi] into out: 0, or -EINVAL after the one-line error. */
static int
get_u32(const char *opt, const char *val, uint32_t lo, uint32_t hi, const char *expected,
	uint32_t *out)
{
	uint64_t v;

	if (nfvp_parse_u64(val, lo, hi, &v) != 0)
		return nfvp_bad_value(NFVP_GEN_NAME, opt, expected, val);
	*out = (uint32_t)v;
	return 0;
}

/* Append a comma-separated list of MACs (--macs may be repeated: one argument cannot hold
 * 8192 of them, the kernel limits a single argument to 128 KiB). */
static int
parse_macs(struct nfvp_gen_conf *c, const char *list)
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
		return nfvp_bad_value(NFVP_GEN_NAME, "--macs", "at most "
				      RTE_STR(NFVP_GEN_MAX_MACS) " MACs in all", found);
	}
	macs = realloc(c->macs, (c->n_macs + n) * sizeof(*macs));
	if (macs == NULL) {
		fprintf(stderr, NFVP_GEN_NAME ": --macs: out of memory\n");
		return -ENOMEM;
	}
	c->macs = macs;
	p = list;
	for (i = 0; i < n; i++) {
		size_t len = strcspn(p, ",");

		if (nfvp_parse_mac_n(p, len, macs[c->n_macs + i].addr_bytes) != 0) {
			char item[32];

			snprintf(item, sizeof(item), "%.*s",
				 (int)RTE_MIN(len, sizeof(item) - 1), p);
			return nfvp_bad_value(NFVP_GEN_NAME, "--macs", "a comma-separated list "
					      "of MACs aa:bb:cc:dd:ee:ff", item);
		}
		p += len + 1;
	}
	c->n_macs += n;
	return 0;
}

/* --class BYTES:PPS:FLOWS into k. */
static int
parse_class(const char *val, struct nfvp_gen_class *k)
{
	char bytes[16], pps[32], flows[16];
	uint64_t b, f;
	int end = 0;
	double r;

	if (sscanf(val, "%15[^:]:%31[^:]:%15[^:]%n", bytes, pps, flows, &end) != 3 ||
	    val[end] != '\0' || nfvp_parse_u64(bytes, NFVP_MIN_FRAME, NFVP_MAX_FRAME, &b) != 0 ||
	    nfvp_parse_double(pps, 0, DBL_MAX, &r) != 0 ||
	    nfvp_parse_u64(flows, 1, NFVP_MAX_FLOWS, &f) != 0)
		return -EINVAL;
	*k = (struct nfvp_gen_class){ .frame_bytes = (uint32_t)b, .rate_pps = r,
				      .flows = (uint32_t)f };
	return 0;
}

/* One option with its value (NULL for --mpls, --fdir). */
static int
parse_one(struct nfvp_gen_conf *c, int key, const char *opt, const char *val)
{
	char expected[40];
	unsigned int k;
	double d;

	switch (key) {
	case OPT_CTL:
	case OPT_STATS_OUT:
		if (*val == '\0')
			return nfvp_bad_value(NFVP_GEN_NAME, opt, key == OPT_CTL ? "a socket path" :
					      "a file path", val);
		*(key == OPT_CTL ? &c->ctl_path : &c->stats_out) = val;
		return 0;
	case OPT_FRAME_BYTES:
		return get_u32(opt, val, NFVP_MIN_FRAME, NFVP_MAX_FRAME, "an integer in "
			       RTE_STR(NFVP_MIN_FRAME) ".." RTE_STR(NFVP_MAX_FRAME), &c->frame_bytes);
	case OPT_RATE_PPS:
		if (nfvp_parse_double(val, 0, DBL_MAX, &c->rate_pps) != 0)
			return nfvp_bad_value(NFVP_GEN_NAME, opt, "a number ≥ 0", val);
		return 0;
	case OPT_DURATION:
		if (nfvp_parse_double(val, 0, DBL_MAX, &d) != 0 || d <= 0)
			return nfvp_bad_value(NFVP_GEN_NAME, opt, "a number > 0", val);
		c->duration_s = d;
		return 0;
	case OPT_FLOWS:
		return get_u32(opt, val, 1, NFVP_MAX_FLOWS,
			       "an integer in 1.." RTE_STR(NFVP_MAX_FLOWS), &c->flows);
	case OPT_CLASS:
		if (c->n_classes == NFVP_MAX_CLASSES)
			return nfvp_bad_value(NFVP_GEN_NAME, opt, "at most "
					      RTE_STR(NFVP_MAX_CLASSES) " classes", val);
		if (parse_class(val, &c->cls[c->n_classes]) != 0)
			return nfvp_bad_value(NFVP_GEN_NAME, opt, "BYTES:PPS:FLOWS ("
					      RTE_STR(NFVP_MIN_FRAME) ".." RTE_STR(NFVP_MAX_FRAME)
					      ", >= 0, 1.." RTE_STR(NFVP_MAX_FLOWS) ")", val);
		c->n_classes++;
		return 0;
	case OPT_MACS:
		return parse_macs(c, val);
	case OPT_IN_PORT:
	case OPT_OUT_PORT:
		snprintf(expected, sizeof(expected), "a port number in 0..%u", NFVP_MAX_PORTS - 1);
		return get_u32(opt, val, 0, NFVP_MAX_PORTS - 1, expected,
			       key == OPT_IN_PORT ? &c->in_port : &c->out_port);
	case OPT_DRAIN_MS:
		return get_u32(opt, val, 0, NFVP_GEN_MAX_DRAIN_MS, "an integer number of ms ≥ 0",
			       &c->drain_ms);
	case OPT_IDLE:
		if (strcmp(val, "spin") != 0 && strcmp(val, "sleep") != 0)
			return nfvp_bad_value(NFVP_GEN_NAME, opt, "spin or sleep", val);
		c->sleep_idle = strcmp(val, "sleep") == 0;
		return 0;
	case OPT_DST_MAC_COUNT:
	case OPT_DST_IP_COUNT:
	case OPT_DST_IP_STEP:
		return get_u32(opt, val, 1, NFVP_GEN_MAX_SWEEP,
			       "an integer in 1.." RTE_STR(NFVP_GEN_MAX_SWEEP),
			       key == OPT_DST_MAC_COUNT ? &c->dst_mac_count :
			       key == OPT_DST_IP_COUNT ? &c->dst_ip_count : &c->dst_ip_step);
	case OPT_DST_IP_BASE:
		if (nfvp_parse_ipv4(val, &c->dst_ip_base) != 0)
			return nfvp_bad_value(NFVP_GEN_NAME, opt, "an IPv4 address a.b.c.d", val);
		return 0;
	case OPT_SRC_MAC_COUNT:
	case OPT_VLAN_COUNT:
		return get_u32(opt, val, 1, NFVP_GEN_MAX_VLANS,
			       "an integer in 1.." RTE_STR(NFVP_GEN_MAX_VLANS),
			       key == OPT_SRC_MAC_COUNT ? &c->src_mac_count : &c->vlan_count);
	case OPT_ENCAP:
		for (k = 0; k < RTE_DIM(encap_names); k++)
			if (strcmp(val, encap_names[k]) == 0)
				break;
		if (k == RTE_DIM(encap_names))
			return nfvp_bad_value(NFVP_GEN_NAME, opt, "none, mpls, qinq or gre", val);
		c->encap = (enum nfvp_gen_encap)k;
		return 0;
	case OPT_MPLS:
		c->encap = NFVP_GEN_ENCAP_MPLS;
		return 0;
	case OPT_FDIR:
		c->fdir = true;
		return 0;
	}
	return -EINVAL;
}

/* What the options say together: the required ones, the classes (those of --class, or one
 * of --frame-bytes, --rate-pps and --flows), what the encapsulation needs. */
static int
finish(struct nfvp_gen_conf *c)
{
	unsigned int k, paced = 0, total = 0;

	if (c->ctl_path == NULL) {
		fprintf(stderr, NFVP_GEN_NAME ": --ctl: required (the vSwitch's control socket)\n");
		return -EINVAL;
	}
	if (c->n_macs == 0) {
		fprintf(stderr, NFVP_GEN_NAME ": --macs: required (at least one dst MAC)\n");
		return -EINVAL;
	}
	if (c->n_classes == 0)
		c->cls[c->n_classes++] = (struct nfvp_gen_class){
			.frame_bytes = c->frame_bytes, .rate_pps = c->rate_pps, .flows = c->flows };
	c->rate_pps = 0;
	for (k = 0; k < c->n_classes; k++) {
		c->cls[k].first_flow = total;
		total += c->cls[k].flows;
		c->rate_pps += c->cls[k].rate_pps;
		paced += c->cls[k].rate_pps > 0;
	}
	if (total > NFVP_MAX_FLOWS || (paced != 0 && paced != c->n_classes)) {
		fprintf(stderr, NFVP_GEN_NAME ": --class: expected at most " RTE_STR(NFVP_MAX_FLOWS)
			" flows in all and rates > 0 for all classes or for none\n");
		return -EINVAL;
	}
	c->flows = total;
	c->frame_bytes = c->cls[0].frame_bytes;
	for (k = 0; k < c->n_classes; k++)
		if (c->encap == NFVP_GEN_ENCAP_GRE && c->cls[k].frame_bytes < NFVP_GEN_GRE_MIN_FRAME) {
			fprintf(stderr, NFVP_GEN_NAME ": --frame-bytes: expected at least "
				RTE_STR(NFVP_GEN_GRE_MIN_FRAME) " with --encap gre (78 B of headers "
				"and the stamp), found %u\n", c->cls[k].frame_bytes);
			return -EINVAL;
		}
	if (c->vlan_count != 0 && c->encap != NFVP_GEN_ENCAP_QINQ) {
		fprintf(stderr, NFVP_GEN_NAME ": --vlan-count: needs --encap qinq\n");
		return -EINVAL;
	}
	return 0;
}

/* The option of key if arg spells it in full, --NAME or --NAME=VALUE (getopt_long would take
 * a prefix too); NULL otherwise. */
static const struct option *
find_option(int key, const char *arg)
{
	const struct option *o;

	for (o = options; o->name != NULL; o++) {
		size_t n = strlen(o->name);

		if (o->val == key && strncmp(arg, "--", 2) == 0 && strncmp(arg + 2, o->name, n) == 0 &&
		    (arg[n + 2] == '\0' || arg[n + 2] == '='))
			return o;
	}
	return NULL;
}

static int
unknown(const char *arg)
{
	fprintf(stderr, NFVP_GEN_NAME ": unknown option \"%s\" (see --help)\n", arg);
	return -EINVAL;
}

/* Parse the options after "--" (argv[0]: the "--"; long options only, --name value or
 * --name=value). Returns 0, 1 for --help, -errno on an error (already reported). */
int
nfvp_gen_parse_args(struct nfvp_gen_conf *c, int argc, char **argv)
{
	int key, ret, done;

	*c = (struct nfvp_gen_conf){ .frame_bytes = NFVP_MIN_FRAME, .duration_s = 1.0, .flows = 1,
				     .out_port = 1, .drain_ms = 200, .dst_ip_base = NFVP_GEN_DST_IP,
				     .dst_ip_step = 1 };
	optind = done = 1;
	opterr = 0; /* the errors below name the option as it was written */
	while ((key = getopt_long(argc, argv, ":h", options, NULL)) != -1) {
		/* the argument that named the option: before its value if that came apart */
		const char *arg = argv[optind - (optarg != NULL && optarg == argv[optind - 1] ? 2 : 1)];
		const struct option *o = find_option(key == ':' || key == '?' ? optopt : key, arg);
		char opt[32];

		if (key == 'h' || (key == '?' && optopt > 0 && optopt < OPT_HELP)) {
			/* a short option, in the argument getopt_long is still in (-hx) or has
			 * just left (-h): only -h is one */
			int ch = key == 'h' ? 'h' : optopt;

			arg = optind < argc && argv[optind][0] == '-' && argv[optind][1] == ch ?
			      argv[optind] : argv[optind - 1];
			return strcmp(arg, "-h") == 0 ? 1 : unknown(arg);
		}
		if (o == NULL)
			return unknown(arg);
		if (key == OPT_HELP)
			return 1;
		snprintf(opt, sizeof(opt), "--%s", o->name);
		if (key == ':') {
			fprintf(stderr, NFVP_GEN_NAME ": %s: expected a value\n", opt);
			return -EINVAL;
		}
		if (key == '?') {
			fprintf(stderr, NFVP_GEN_NAME ": %s: takes no value, found \"%s\"\n", opt,
				strchr(arg, '=') + 1);
			return -EINVAL;
		}
		ret = parse_one(c, key, opt, optarg);
		if (ret != 0)
			return ret;
		done = optind;
	}
	if (optind == done + 1 && strcmp(argv[done], "--") == 0)
		optind = done; /* getopt_long took a "--" for the end of the options */
	if (optind < argc)
		return unknown(argv[optind]);
	return finish(c);
}
