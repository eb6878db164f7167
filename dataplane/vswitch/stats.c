/* SPDX-License-Identifier: MIT */
/* stats.c: the vSwitch's report as JSON: ports, drops by place, batch sizes, the poll loop's
 * stages, pool, per NF. */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_mempool.h>

#include "vswitch.h"

static void
hist(FILE *f, const char *name, const uint64_t *h)
{
	unsigned int i;

	fprintf(f, "\"%s\": [", name);
	for (i = 0; i < VS_HIST; i++)
		fprintf(f, "%s%" PRIu64, i ? ", " : "", h[i]);
	fprintf(f, "]");
}

/* The median of a cycles-per-packet histogram (packets weigh; a bin's middle), or -1 when
 * empty. */
static double
hist_median(const uint64_t *h)
{
	return nfvp_hist_quantile(h, NFVP_CYCLE_BINS, 0.5, NFVP_CYCLE_EXACT_BITS,
				  NFVP_CYCLE_SUB_BITS);
}

/* A cycles-per-packet histogram's filled bins, as [middle, packets] pairs: what a reader needs
 * for the median of the packets between two reports (a run's steadiness). */
static void
cycle_hist_json(FILE *f, const char *name, const uint64_t *h)
{
	unsigned int b, n = 0;

	fprintf(f, "\"%s\": [", name);
	for (b = 0; b < NFVP_CYCLE_BINS; b++)
		if (h[b] != 0)
			fprintf(f, "%s[%.1f, %" PRIu64 "]", n++ ? ", " : "", nfvp_cycle_bin_mid(b),
				h[b]);
	fprintf(f, "], ");
}

static double
lat_quantile(const struct vs_nf *nf, double q)
{
	return nfvp_hist_quantile(nf->sojourn_hist, VS_LAT_BINS, q, VS_LAT_SUB_BITS,
				  VS_LAT_SUB_BITS);
}

/* Sojourn in the NF (queue, processing, way back) in µs: null when nothing came back. */
static void
sojourn_json(FILE *f, const struct vs_nf *nf, double us_per_tsc)
{
	if (nf->sojourn_hist == NULL || nf->sojourn_n == 0) {
		fprintf(f, "\"sojourn_us\": {\"count\": 0, \"mean\": null, \"p50\": null, "
			"\"p90\": null, \"p99\": null}");
		return;
	}
	fprintf(f, "\"sojourn_us\": {\"count\": %" PRIu64 ", \"mean\": %.3f, \"p50\": %.3f, "
		"\"p90\": %.3f, \"p99\": %.3f}", nf->sojourn_n,
		nf->sojourn_sum / (double)nf->sojourn_n * us_per_tsc,
		lat_quantile(nf, 0.5) * us_per_tsc, lat_quantile(nf, 0.9) * us_per_tsc,
		lat_quantile(nf, 0.99) * us_per_tsc);
}

static void
nf_json(FILE *f, const struct vs_nf *nf, double us_per_tsc)
{
	const struct nfvp_nf_stats *s = &nf->slot->stats;
	unsigned int i;

	fprintf(f, "{\"id\": %u, \"name\": \"%s\", \"pid\": %d, \"alive\": %s, "
		"\"rx\": %" PRIu64 ", \"nic_rx\": %" PRIu64 ", \"tx\": %" PRIu64 ", "
		"\"drop\": %" PRIu64 ", \"busy_polls\": %" PRIu64 ", \"idle_polls\": %" PRIu64 ", "
		"\"sleeps\": %" PRIu64 ", \"busy_cycles\": %" PRIu64 ", \"loop_cycles\": %" PRIu64
		", "
		"\"sent_by_vswitch\": %" PRIu64 ", \"returned\": %" PRIu64 ", "
		"\"wakeups\": %" PRIu64 ", \"lost_at_death\": %" PRIu64 ", "
		"\"loop_cycles_median\": %.1f, \"handler_cycles_median\": %.1f, "
		"\"bytes_sent_by_vswitch\": %" PRIu64 ", \"ring_full\": %" PRIu64 ", ",
		nf->slot->id, nf->name, (int)nf->pid, nf->alive ? "true" : "false", s->rx,
		s->nic_rx, s->tx, s->drop, s->busy_polls, s->idle_polls, s->sleeps, s->busy_cycles,
		s->loop_cycles,
		nf->sent, nf->returned, nf->wakeups, nf->lost_at_death, hist_median(s->loop_hist),
		hist_median(s->handler_hist), nf->bytes, nf->ring_full);
	fprintf(f, "\"drops_by_reason\": {");
	for (i = 0; i < NFVP_DROP_REASONS; i++)
		fprintf(f, "%s\"%s\": %" PRIu64, i ? ", " : "", nfvp_drop_reason_names[i],
			s->drops_by[i]);
	fprintf(f, "}, ");
	cycle_hist_json(f, "loop_cycles_hist", s->loop_hist);
	cycle_hist_json(f, "handler_cycles_hist", s->handler_hist);
	sojourn_json(f, nf, us_per_tsc);
	fprintf(f, "}");
}

/* The poll loop's stages (main.c loop()): per stage, over the calls that moved a packet, what
 * a least-squares fit of cycles = a + b * packets needs; and the iterations that moved none. */
static void
stages_json(FILE *f, const struct vswitch *vs)
{
	static const char *const names[VS_STAGES] = { "rx", "nf", "flush" };
	unsigned int i;

	fprintf(f, "\"stages\": {");
	for (i = 0; i < VS_STAGES; i++) {
		const struct vs_stage *st = &vs->stages[i];

		fprintf(f, "\"%s\": {\"calls\": %" PRIu64 ", \"packets\": %" PRIu64
			", \"cycles\": %" PRIu64 ", \"sum_pp\": %.17g, \"sum_cp\": %.17g}, ",
			names[i], st->calls, st->packets, st->cycles, st->sum_pp, st->sum_cp);
	}
	fprintf(f, "\"idle_loops\": %" PRIu64 ", \"idle_cycles\": %" PRIu64 "}", vs->idle_loops,
		vs->idle_cycles);
}

/* The loop's stalls (main.c loop()): how many, and the first ones' lengths in µs and the TSC
 * when each ended. */
static void
stalls_json(FILE *f, const struct vswitch *vs)
{
	uint64_t i, kept = vs->stalls < NFVP_STALLS_KEPT ? vs->stalls : NFVP_STALLS_KEPT;

	fprintf(f, "\"stalls\": {\"count\": %" PRIu64 ", \"durations_us\": [", vs->stalls);
	for (i = 0; i < kept; i++)
		fprintf(f, "%s%.1f", i ? ", " : "", (double)vs->stall_tsc[i] * 1e6 / vs->hz);
	fprintf(f, "], \"end_tsc\": [");
	for (i = 0; i < kept; i++)
		fprintf(f, "%s%" PRIu64, i ? ", " : "", vs->stall_end[i]);
	fprintf(f, "]}");
}

/* Blocking NFs: wake-ups by count and by age, the aging timeout they came at (mean), what a
 * post cost the vSwitch (mean), and how far batch and timeout were stretched (mean, most). */
static void
wakes_json(FILE *f, const struct vswitch *vs)
{
	const struct vs_wakes *w = &vs->wakes;
	uint64_t posts = w->by_count + w->by_age;

	fprintf(f, "\"wakes\": {\"by_count\": %" PRIu64 ", \"by_age\": %" PRIu64 ", "
		"\"batch\": %u, \"timeout_us\": %" PRIu64 ", \"rate_max\": %u, "
		"\"timeout_mean_us\": %.1f, \"post_us_mean\": %.3f, \"stretch_mean\": %.2f, "
		"\"stretch_max\": %.2f}", w->by_count, w->by_age, vs->cfg.wake_batch,
		vs->cfg.wake_timeout_us, vs->cfg.wake_rate_max,
		w->by_age ? w->timeout_sum_us / (double)w->by_age : 0.0,
		posts ? (double)w->post_cycles / (double)posts * 1e6 / vs->hz : 0.0,
		w->windows ? w->stretch_sum / (double)w->windows : 1.0, w->stretch_max);
}

static int
write_json(const struct vswitch *vs, FILE *f)
{
	const struct vs_drops *d = &vs->drops;
	unsigned int i;

	fprintf(f, "{\"arch\": \"%s\", \"tsc_hz\": %" PRIu64 ", \"elapsed_s\": %.6f, ",
		nfvp_arch_names[vs->cfg.arch], vs->hz,
		(double)(rte_rdtsc() - vs->start_tsc) / vs->hz);
	fprintf(f, "\"loops\": %" PRIu64 ", \"nfs_attached\": %u, \"chains\": %u, ", vs->loops,
		vs->n_active, vs->n_chains);
	fprintf(f, "\"dropped\": {\"port_tx\": %" PRIu64 ", \"ring_full\": %" PRIu64
		", \"nf\": %" PRIu64 ", \"no_chain\": %" PRIu64 ", \"nf_absent\": %" PRIu64
		", \"nf_dead\": %" PRIu64 ", \"in_flight_at_stop\": %" PRIu64 "}, ",
		d->port_tx, d->ring_full, d->nf, d->no_chain, d->nf_absent, d->nf_dead,
		d->in_flight_at_stop);
	fprintf(f, "\"in_flight\": %" PRIu64 ", ", vs_in_flight(vs));
	fprintf(f, "\"arena\": {\"mib\": %zu, \"iova\": \"%s\", \"mbuf_iova\": %s, "
		"\"dma_map_ports\": %u, \"dma_map_refused\": %u}, ", vs->arena_len >> 20,
		vs->arena_iova, vs->mbuf_iova_ok ? "true" : "false", vs->dma_ports,
		vs->dma_refused);
	fprintf(f, "\"pool\": {\"size\": %u, \"free\": %u}, ", vs->pool->size,
		rte_mempool_avail_count(vs->pool));
	hist(f, "rx_batch_hist", vs->rx_hist);
	fprintf(f, ", ");
	hist(f, "nf_batch_hist", vs->nf_hist);
	fprintf(f, ", ");
	stages_json(f, vs);
	fprintf(f, ", ");
	stalls_json(f, vs);
	fprintf(f, ", ");
	wakes_json(f, vs);
	fprintf(f, ", \"ports\": [");
	for (i = 0; i < vs->n_ports; i++) {
		const struct vs_port *p = &vs->ports[i];

		fprintf(f, "%s{\"port\": %u, \"name\": \"%s\", \"rx\": %" PRIu64 ", \"tx\": %" PRIu64
			", \"tx_dropped\": %" PRIu64 "}", i ? ", " : "", i, p->name, p->rx, p->tx,
			p->tx_dropped);
	}
	fprintf(f, "], \"per_nf\": [");
	for (i = 0; i < vs->n_nf_ids; i++) {
		fprintf(f, "%s", i ? ", " : "");
		nf_json(f, &vs->nfs[i], 1e6 / (double)vs->hz);
	}
	fprintf(f, "], ");
	vs_service_json(f, vs);
	fprintf(f, "}\n");
	return ferror(f) ? -EIO : 0;
}

/* Written to PATH.tmp, then renamed: a reader never sees half a report. */
int
vs_stats_write(const struct vswitch *vs, const char *path)
{
	char tmp[4096];
	FILE *f;
	int rc;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	f = fopen(tmp, "w");
	if (f == NULL)
		return -errno;
	rc = write_json(vs, f);
	if (fclose(f) != 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && rename(tmp, path) < 0)
		rc = -errno;
	if (rc < 0)
		unlink(tmp);
	return rc;
}
