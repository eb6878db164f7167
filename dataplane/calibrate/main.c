/* SPDX-License-Identifier: MIT */
/* main.c: nfvp-calibrate: its options, EAL, the measurements in their order, the JSON document. */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_lcore.h>

#include "nfvp_parse.h"
#include "calibrate.h"

/* Keys of the options: past every character, so a short option is never one of them. */
enum { OPT_QUICK = 256, OPT_L1, OPT_L2, OPT_MAX_WS, OPT_REFERENCE, OPT_HOG, OPT_HOG_SECONDS,
       OPT_STREAM };

static const struct option options[] = {
	{ "quick", no_argument, NULL, OPT_QUICK },
	{ "l1", required_argument, NULL, OPT_L1 },
	{ "l2", required_argument, NULL, OPT_L2 },
	{ "max-ws", required_argument, NULL, OPT_MAX_WS },
	{ "reference", no_argument, NULL, OPT_REFERENCE },
	{ "hog", required_argument, NULL, OPT_HOG },
	{ "hog-seconds", required_argument, NULL, OPT_HOG_SECONDS },
	{ "stream", required_argument, NULL, OPT_STREAM },
	{ NULL, 0, NULL, 0 },
};

#define SIZE_SYNTAX "(K or M after the number: KiB, MiB)"

static int
usage(void)
{
	fprintf(stderr, CAL_NAME ": usage: " CAL_NAME " EAL-ARGS -- [--quick] [--l1 SIZE] "
		"[--l2 SIZE] [--max-ws SIZE] | --reference [--l2 SIZE] | --hog SIZE "
		"[--hog-seconds S] | --stream BYTES [--max-ws SIZE]\n");
	return -EINVAL;
}

/* Bytes in [lo, hi] into out: a number, K or M after it for KiB or MiB (64K, 1.5M). 0 or
 * -EINVAL; says nothing. */
static int
parse_size(const char *s, uint64_t lo, uint64_t hi, size_t *out)
{
	size_t n = strlen(s);
	double v, unit = 1;
	char num[32];

	if (n > 0 && (s[n - 1] == 'K' || s[n - 1] == 'k')) {
		unit = 1024;
		n--;
	} else if (n > 0 && (s[n - 1] == 'M' || s[n - 1] == 'm')) {
		unit = 1 << 20;
		n--;
	}
	if (n >= sizeof(num))
		return -EINVAL;
	memcpy(num, s, n);
	num[n] = '\0';
	if (nfvp_parse_double(num, 0, (double)hi, &v) != 0 || v * unit < lo || v * unit > hi)
		return -EINVAL;
	*out = (size_t)(v * unit);
	return 0;
}

/* "--NAME" of the option of key. */
static const char *
option_name(int key, char *buf, size_t len)
{
	const struct option *opt;

	for (opt = options; opt->name != NULL && opt->val != key; opt++)
		;
	snprintf(buf, len, "--%s", opt->name != NULL ? opt->name : "?");
	return buf;
}

/* A getopt_long error: an unknown option, a value missing or one too many. */
static int
bad_option(int key, char **argv)
{
	const char *arg = argv[optind - 1];
	char name[32];

	if (key == ':')
		return nfvp_bad_value(CAL_NAME, option_name(optopt, name, sizeof(name)), "a size",
				      "");
	if (optopt >= OPT_QUICK && strchr(arg, '=') != NULL)
		return nfvp_bad_value(CAL_NAME, option_name(optopt, name, sizeof(name)),
				      "no value", strchr(arg, '=') + 1);
	if (optopt > 0 && optopt < OPT_QUICK) /* a short option: there are none */
		fprintf(stderr, CAL_NAME ": unknown option \"-%c\"\n", optopt);
	else
		fprintf(stderr, CAL_NAME ": unknown option \"%s\"\n", arg);
	return usage();
}

/* The options after EAL's "--" (argv[0]: the program). 0, or -EINVAL after the error. */
static int
parse_args(int argc, char **argv, struct nfvp_cal_opts *o)
{
	const char *l1_arg = NULL;
	char expected[64];
	int key;

	*o = (struct nfvp_cal_opts){ .l1 = 32768, .l2 = 1 << 20, .reps = 7, .hog_seconds = 1 };
	optind = 1;
	opterr = 0; /* the errors below name the option */
	while ((key = getopt_long(argc, argv, ":", options, NULL)) != -1) {
		switch (key) {
		case OPT_QUICK:
			o->quick = 1;
			o->reps = 3;
			break;
		case OPT_REFERENCE:
			o->reference = 1;
			break;
		case OPT_L1:
			l1_arg = optarg;
			if (parse_size(optarg, 1 << 10, 1 << 30, &o->l1) != 0)
				return nfvp_bad_value(CAL_NAME, "--l1", "bytes in 1K..1024M "
						      SIZE_SYNTAX, optarg);
			break;
		case OPT_L2:
			if (parse_size(optarg, 4 << 10, 1 << 30, &o->l2) != 0)
				return nfvp_bad_value(CAL_NAME, "--l2", "bytes in 4K..1024M "
						      SIZE_SYNTAX, optarg);
			break;
		case OPT_HOG:
			if (parse_size(optarg, 4 << 10, UINT64_C(1) << 40, &o->hog) != 0)
				return nfvp_bad_value(CAL_NAME, "--hog", "bytes in 4K..1048576M "
						      SIZE_SYNTAX, optarg);
			break;
		case OPT_HOG_SECONDS:
			if (nfvp_parse_double(optarg, 0.001, 3600, &o->hog_seconds) != 0)
				return nfvp_bad_value(CAL_NAME, "--hog-seconds", "seconds in "
						      "0.001..3600", optarg);
			break;
		case OPT_STREAM:
			if (parse_size(optarg, 64, 2048, &o->stream) != 0)
				return nfvp_bad_value(CAL_NAME, "--stream", "bytes of a frame in "
						      "64..2048", optarg);
			break;
		case OPT_MAX_WS:
			if (parse_size(optarg, 0, 0, &o->max_ws) != 0 &&
			    parse_size(optarg, 4 << 10, UINT64_C(1) << 40, &o->max_ws) != 0)
				return nfvp_bad_value(CAL_NAME, "--max-ws", "0 (the default) or "
						      "bytes in 4K..1048576M " SIZE_SYNTAX,
						      optarg);
			break;
		default:
			return bad_option(key, argv);
		}
	}
	if (optind < argc) {
		fprintf(stderr, CAL_NAME ": expected options only, found \"%s\"\n", argv[optind]);
		return usage();
	}
	if (o->l1 / 2 > 4 * o->l2) { /* the line writes are within the write-backs' buffer */
		snprintf(expected, sizeof(expected), "at most 8 x --l2 (%zu bytes)", 8 * o->l2);
		return nfvp_bad_value(CAL_NAME, "--l1", expected, l1_arg);
	}
	if (o->max_ws == 0)
		o->max_ws = o->stream ? 32u << 20 : o->quick ? 64u << 20 : 512u << 20;
	if (o->stream)
		o->reps = 3;
	return 0;
}

/* The calibration: microbenchmarks of this host for the EO cost functions (Baldi & Sapio,
 * Sec. 2.2): TSC rate, load latency by working set, line writes and write-backs, rte_hash,
 * rte_lpm, a DFA walk, IP checksums, packet copies, lines between cores. One JSON object on
 * stdout; progress lines on stderr. */
static int
calibrate(const struct nfvp_cal_opts *o)
{
	unsigned int steps = 0;
	size_t ws;

	/* progress steps: a working set each, writes and write-backs, a hash table each, rte_lpm,
	 * inserts by load, checksums, the DFA, copies, core to core where there is a second
	 * lcore */
	for (ws = 4096; ws <= o->max_ws; ws *= 2)
		steps++;
	steps += 3 + (o->quick ? 4 : 5) + 1 + 1 + 1 + 1 + 1 + (rte_lcore_count() > 1);
	nfvp_cal_progress_init(steps);
	printf("{\"tsc_hz\": %" PRIu64 ", \"tsc_measured_hz\": %.0f, \"quick\": %s, "
	       "\"repetitions\": %u, ", rte_get_tsc_hz(), nfvp_cal_measure_tsc_hz(),
	       o->quick ? "true" : "false", o->reps);
	if (nfvp_cal_bench_latency(stdout, o) < 0 || nfvp_cal_bench_writes(stdout, o) < 0 ||
	    nfvp_cal_bench_hash(stdout, o) < 0 || nfvp_cal_bench_hash_load(stdout, o) < 0 ||
	    nfvp_cal_bench_lpm(stdout, o) < 0)
		return -1;
	nfvp_cal_bench_checksum(stdout, o);
	if (nfvp_cal_bench_dfa(stdout, o) < 0 || nfvp_cal_bench_copy(stdout, o) < 0 ||
	    nfvp_cal_bench_core_to_core(stdout, o, o->reps) < 0)
		return -1;
	printf("\"sink\": %" PRIu64 "}\n", nfvp_cal_sink & 1);
	return 0;
}

int
main(int argc, char **argv)
{
	struct nfvp_cal_opts o;
	int n, rc;

	n = rte_eal_init(argc, argv);
	if (n < 0) {
		fprintf(stderr, CAL_NAME ": EAL did not start\n");
		return 1;
	}
	argc -= n;
	argv += n;
	if (parse_args(argc, argv, &o) < 0) {
		rte_eal_cleanup();
		return 2;
	}
	rc = o.hog ? nfvp_cal_hog(stdout, o.hog, o.hog_seconds) :
	     o.stream ? nfvp_cal_bench_stream(stdout, &o) :
	     o.reference ? nfvp_cal_reference(stdout, &o) : calibrate(&o);
	rte_eal_cleanup();
	return rc < 0 ? 1 : 0;
}
