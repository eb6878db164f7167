/* SPDX-License-Identifier: MIT */
/* wake.c: blocking NFs (semaphore, isolated): when the vSwitch wakes a sleeping NF, and which
 * NFs it looks at for returns.
 *
 * A wake-up is a futex post and, on the NFs' core, a context switch into a process whose lines
 * are cold: several µs, where a packet costs tens of ns. When an NF sees a few packets a
 * millisecond (a thousand NFs at 1 Mpps) a wake-up per few packets swamps that core. So:
 * - an NF is posted only when it is asleep and has work: when the batch waits for it, or when
 *   the oldest has waited the aging timeout;
 * - batch and timeout stretch together, doubling each NFVP_WAKE_WINDOW_US in which the NFs
 *   were woken more than --wake-rate-max times a second, and shrinking back by an eighth in a
 *   window under half of it: with many NFs each waits longer and takes more per wake-up;
 * - the aging queue is a FIFO in the order packets began to wait, so each loop looks only at
 *   the NFs whose timeout has come (and one more), never at every NF;
 * - the poll for returns looks only at NFs that may have some: those given packets or woken
 *   since they were last seen asleep with nothing to return. An NF that wakes by itself (its
 *   own bound on a wait, or work it found just before sleeping) is found by a sweep of every
 *   NF every VS_SWEEP_US;
 * - a woken NF drains its ring, and looks once more after a turn of its core before it sleeps
 *   (nflib): on a core crowded with busy NFs it then finds work again and polls in turns,
 *   which costs that core less than the wake-ups would. */

#include <rte_cycles.h>
#include <rte_ring.h>

#include "vswitch.h"

void
vs_awake_add(struct vswitch *vs, struct vs_nf *nf)
{
	if (nf->awake_listed)
		return;
	nf->awake_listed = 1;
	vs->awake[vs->n_awake++] = nf->slot->id;
}

static void
wake(struct vswitch *vs, struct vs_nf *nf)
{
	uint64_t t0 = rte_rdtsc();

	nf->slot->sleeping = 0;
	sem_post(&nf->slot->sem);
	vs->wakes.post_cycles += rte_rdtsc() - t0;
	vs->wakes.in_window++;
	nf->wakeups++;
	nf->pending_since = 0;
	vs_awake_add(vs, nf);
}

/* The stretch of batch and timeout, once a window: doubled while the NFs were woken more often
 * than the rate allows, an eighth off while less than half as often, within 1..STRETCH_MAX. */
static void
restretch(struct vswitch *vs, uint64_t now)
{
	struct vs_wakes *w = &vs->wakes;
	uint64_t window = NFVP_WAKE_WINDOW_US * vs->hz / 1000000;
	double rate;

	if (w->window_start == 0 || now < w->window_start) {
		w->window_start = now;
		return;
	}
	if (now - w->window_start < window)
		return;
	rate = (double)w->in_window * vs->hz / (double)(now - w->window_start);
	if (vs->cfg.wake_rate_max > 0 && rate > vs->cfg.wake_rate_max)
		w->stretch = RTE_MIN(w->stretch * 2, (double)NFVP_WAKE_STRETCH_MAX);
	else if (rate < vs->cfg.wake_rate_max / 2.0 || vs->cfg.wake_rate_max == 0)
		w->stretch = RTE_MAX(w->stretch * 7 / 8, 1.0);
	w->stretch_max = RTE_MAX(w->stretch_max, w->stretch);
	w->windows++;
	w->stretch_sum += w->stretch;
	w->in_window = 0;
	w->window_start = now;
}

/* Packets that wake a sleeping NF now: the batch, stretched, at most half its ring (never
 * below the batch itself). */
static unsigned int
batch_now(const struct vswitch *vs)
{
	double most = RTE_MAX(vs->cfg.ring_size / 2.0, (double)vs->cfg.wake_batch);

	return (unsigned int)RTE_MIN(vs->cfg.wake_batch * vs->wakes.stretch, most);
}

static void
aging_push(struct vswitch *vs, struct vs_nf *nf, uint64_t since)
{
	unsigned int cap = vs->cfg.max_nfs;

	vs->aging[(vs->aging_head + vs->n_aging) % cap] = (struct vs_aging){ nf->slot->id, since };
	vs->n_aging++;
	nf->aging_listed = 1;
}

/* After k > 0 packets went into a blocking NF's ring: post it, or let it age. */
void
vs_announce(struct vswitch *vs, struct vs_nf *nf)
{
	vs_awake_add(vs, nf);
	rte_smp_mb(); /* the enqueue before the look at sleeping; nflib mirrors it */
	if (!nf->slot->sleeping)
		return;
	if (rte_ring_count(nf->to_nf) >= batch_now(vs)) {
		vs->wakes.by_count++;
		wake(vs, nf);
	} else if (nf->pending_since == 0) {
		nf->pending_since = rte_rdtsc();
		if (!nf->aging_listed)
			aging_push(vs, nf, nf->pending_since);
	}
}

/* The aging timeout in TSC cycles now: the floor, stretched. */
static uint64_t
aging_limit(const struct vswitch *vs)
{
	return (uint64_t)((double)vs->cfg.wake_timeout_us * vs->hz / 1e6 * vs->wakes.stretch);
}

/* Post every NF at the head of the aging queue whose oldest packet has waited the timeout. */
void
vs_age(struct vswitch *vs, uint64_t now)
{
	uint64_t limit;
	unsigned int cap = vs->cfg.max_nfs, seen = 0, n = vs->n_aging;

	if (now != 0)
		restretch(vs, now);
	limit = aging_limit(vs);

	while (vs->n_aging > 0 && seen++ < n) {
		struct vs_aging e = vs->aging[vs->aging_head];
		struct vs_nf *nf = &vs->nfs[e.id];
		int done = !nf->alive || nf->pending_since == 0 || rte_ring_count(nf->to_nf) == 0 ||
			   !nf->slot->sleeping;

		/* (a packet may have begun to wait after the loop read its clock: not due) */
		if (!done && nf->pending_since == e.since && now != 0 &&
		    (now < nf->pending_since || now - nf->pending_since < limit))
			break; /* the oldest entry is not due: nor is any behind it */
		vs->aging_head = (vs->aging_head + 1) % cap;
		vs->n_aging--;
		nf->aging_listed = 0;
		if (done) {
			nf->pending_since = 0;
		} else if (nf->pending_since != e.since && now != 0) {
			aging_push(vs, nf, nf->pending_since); /* announced, then waiting anew */
		} else {
			vs->wakes.by_age++;
			vs->wakes.timeout_sum_us += (double)limit * 1e6 / vs->hz;
			wake(vs, nf);
		}
	}
}

/* Once every VS_SWEEP_US, every NF onto the awake list: one that woke by itself is polled too
 * (the poll takes off again those seen asleep with nothing to return). */
void
vs_awake_sweep(struct vswitch *vs, uint64_t now)
{
	unsigned int i;

	if (now < vs->next_sweep_tsc)
		return;
	for (i = 0; i < vs->n_active; i++)
		vs_awake_add(vs, &vs->nfs[vs->active[i]]);
	vs->next_sweep_tsc = now + VS_SWEEP_US * vs->hz / 1000000;
}

/* Drop entry i of the awake list (the last takes its place). */
void
vs_awake_drop(struct vswitch *vs, unsigned int i)
{
	vs->nfs[vs->awake[i]].awake_listed = 0;
	vs->awake[i] = vs->awake[--vs->n_awake];
}
