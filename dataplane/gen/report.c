/* SPDX-License-Identifier: MIT */
/* report.c: the JSON report (stdout or --stats-out): counts, latency with its histogram, the
 * naps; and the one-line summary. */

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_lcore.h>

#include "gen.h"

/* A percentile from the histogram: its bucket's midpoint, kept within the exact extremes. */
static double
nfvp_gen_percentile(const struct nfvp_gen_stats *st, double q)
{
	double v = nfvp_hist_quantile(st->hist, NFVP_GEN_HIST_BUCKETS, q, NFVP_GEN_HIST_SUB_BITS,
				      NFVP_GEN_HIST_SUB_BITS);

	v = RTE_MAX(v, (double)st->lat_min);
	return RTE_MIN(v, (double)st->lat_max);
}

/* The histogram's non-empty bins as [lo, hi, count] in ns (it counts ns: nfvp_gen_record),
 * lo inclusive and hi exclusive. */
static void
nfvp_gen_print_hist(const struct nfvp_gen_stats *st, FILE *f)
{
	unsigned int b, n = 0;

	fprintf(f, ", \"hist\": [");
	for (b = 0; b < NFVP_GEN_HIST_BUCKETS; b++) {
		if (st->hist[b] == 0)
			continue;
		fprintf(f, "%s[%" PRIu64 ", %" PRIu64 ", %" PRIu64 "]", n++ ? ", " : "",
			nfvp_hist_lo(b, NFVP_GEN_HIST_SUB_BITS, NFVP_GEN_HIST_SUB_BITS),
			nfvp_hist_hi(b, NFVP_GEN_HIST_SUB_BITS, NFVP_GEN_HIST_SUB_BITS), st->hist[b]);
	}
	fprintf(f, "]");
}

static void
nfvp_gen_print_latency(const struct nfvp_gen_stats *st, FILE *f)
{
	fprintf(f, "{\"count\": %" PRIu64, st->lat_count);
	if (st->lat_count == 0) {
		fprintf(f, ", \"mean\": null, \"min\": null, \"p50\": null, \"p90\": null, "
			"\"p99\": null, \"p999\": null, \"max\": null, \"hist\": []}");
		return;
	}
	fprintf(f, ", \"mean\": %.1f, \"min\": %.1f", st->lat_sum / (double)st->lat_count,
		(double)st->lat_min);
	fprintf(f, ", \"p50\": %.1f, \"p90\": %.1f, \"p99\": %.1f, \"p999\": %.1f",
		nfvp_gen_percentile(st, 0.50), nfvp_gen_percentile(st, 0.90),
		nfvp_gen_percentile(st, 0.99), nfvp_gen_percentile(st, 0.999));
	fprintf(f, ", \"max\": %.1f", (double)st->lat_max);
	nfvp_gen_print_hist(st, f);
	fprintf(f, "}");
}

/* --idle sleep's naps: how many, their sums, and the sample as [requested_ns, slept_ns]. */
static void
nfvp_gen_print_naps(const struct nfvp_gen_naps *z, FILE *f)
{
	uint32_t i;

	fprintf(f, "{\"count\": %" PRIu64 ", \"requested_ns_sum\": %" PRIu64
		", \"slept_ns_sum\": %" PRIu64 ", \"samples\": [", z->sample.seen,
		z->requested_ns_sum, z->slept_ns_sum);
	for (i = 0; i < z->sample.n; i++)
		fprintf(f, "%s[%" PRIu64 ", %" PRIu64 "]", i ? ", " : "", z->pairs[i][0],
			z->pairs[i][1]);
	fprintf(f, "]}");
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
		" \"tsc_hz\": %" PRIu64 ", \"lcore\": %u,\n",
		(double)(st->sent + st->tx_dropped) * per_s, (double)st->sent * per_s,
		(double)st->received * per_s, g->hz, rte_lcore_id());
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
	fprintf(f, "],\n \"naps\": ");
	nfvp_gen_print_naps(&g->naps, f);
	fprintf(f, ",\n \"send_cpu_ns\": %" PRIu64, g->send_cpu_ns);
	/* the traffic's window on the TSC every CPU shares (the vSwitch's stalls are read in it) */
	fprintf(f, ",\n \"start_tsc\": %" PRIu64 ", \"end_tsc\": %" PRIu64, g->start_tsc,
		g->start_tsc + g->send_tsc);
	fprintf(f, "}\n");
}

/* The JSON report: to stdout, or atomically to --stats-out (temp file, then rename). */
int
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

void
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
