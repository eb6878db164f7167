"""numba kernels of the batched polling queue (arrays and scalars only; see ``batch_queue``).

Time is in integer steps of Δt. A packet whose interarrival slot is u arrives at the end of it
(time u + 1), so a poll at time t picks up packets that arrived in slots < t and the waiting time is
t - (u + 1): the conventions of the model (``batching.arrivals``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

# indices into the state vector that carries a run over chunks of arrivals
T_POLL, NEXT_ARR, HEAD, COUNT, LAST_T, ARRIVED = range(6)
STATE_SIZE = 6
# per-batch accumulators (batch means)
(S_ARRIVALS, S_LOST, S_POLLS, S_PICKED, S_SERVED, S_WAIT, S_SOJOURN, S_QTIME, S_TIME) = range(9)
STATS = 9


@njit(cache=True)
def _sample(cdf, u):
    return np.searchsorted(cdf, u, side="right")


@njit(cache=True)
def run_chunk(rng, gaps, service_cdf, capacity, beta, ring, warmup, per_batch, n_batches,
              state, buf, stats, batch_hist, wait_hist, soj_hist, qa_hist, qr_hist):
    """Advance the queue over the arrivals whose interarrival gaps are ``gaps``.

    Returns the number of gaps consumed; the run stops at a poll once the next arrival is beyond
    the last gap. Statistics start after ``warmup`` arrivals and go to batch ``(arrived - warmup)
    // per_batch`` (clipped to the last)."""
    n_gaps = gaps.shape[0]
    g = 0
    t = state[T_POLL]
    nxt = state[NEXT_ARR]
    head = state[HEAD]
    count = state[COUNT]
    last_t = state[LAST_T]
    arrived = state[ARRIVED]
    wmax = wait_hist.shape[0] - 1
    smax = soj_hist.shape[0] - 1
    while True:
        # arrivals before the poll at t (they happen at the end of their slot: time nxt + 1)
        while nxt < t:
            if g >= n_gaps:
                state[T_POLL] = t
                state[NEXT_ARR] = nxt
                state[HEAD] = head
                state[COUNT] = count
                state[LAST_T] = last_t
                state[ARRIVED] = arrived
                return g
            at = nxt + 1
            rec = arrived >= warmup
            b = min((arrived - warmup) // per_batch, n_batches - 1) if rec else 0
            if rec:
                qr_hist[count] += at - last_t
                stats[b, S_QTIME] += count * (at - last_t)
                stats[b, S_TIME] += at - last_t
                stats[b, S_ARRIVALS] += 1
                qa_hist[count] += 1
            last_t = at
            if count < capacity:
                buf[(head + count) % capacity] = at
                count += 1
            else:
                if rec:
                    stats[b, S_LOST] += 1
                if ring:
                    buf[head] = at          # the oldest is overwritten: the ring moves on
                    head = (head + 1) % capacity
            arrived += 1
            nxt += gaps[g]
            g += 1
        # the poll at t
        rec = arrived > warmup
        b = min((arrived - warmup) // per_batch, n_batches - 1) if rec else 0
        if rec:
            qr_hist[count] += t - last_t
            stats[b, S_QTIME] += count * (t - last_t)
            stats[b, S_TIME] += t - last_t
        last_t = t
        k = min(count, beta)
        svc = _sample(service_cdf[k], rng.random())
        if rec:
            batch_hist[b, k] += 1
            stats[b, S_POLLS] += 1
            stats[b, S_PICKED] += k
        for _ in range(k):
            w = t - buf[head]
            head = (head + 1) % capacity
            if rec:
                stats[b, S_SERVED] += 1
                stats[b, S_WAIT] += w
                stats[b, S_SOJOURN] += w + svc
                wait_hist[min(w, wmax)] += 1
                soj_hist[min(w + svc, smax)] += 1
        count -= k
        t += svc
