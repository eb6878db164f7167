"""A discrete-event simulator of the batched polling queue of ``batching.model``.

It runs the real system the model abstracts: a renewal arrival process (or a replayed trace), a
queue of capacity L, a server that polls, takes up to β packets and serves them for a time drawn
from b_i. Unlike the model it keeps the arrival process's phase across polls, and it can drop
like a real RX ring (``drop="ring"``: the oldest packet is overwritten) instead of the model's
FIFO tail drop (``drop="tail"``). KPIs come with 99 % confidence half-widths from batch means.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from nfvperf.batching.model import BatchingRecord, BatchingResult, BatchQueue
from nfvperf.errors import InputError
from nfvperf.output import contract

DROPS = ("tail", "ring")
CHUNK = 1 << 20


@contract
class SimulationRecord(BatchingRecord):
    """What ``nfvperf simulate --format json`` prints: the model's KPIs, measured on the
    simulated queue, and the 99 % half-widths of the means (batch means; inf: too few)."""

    mean_batch_size_ci99: float
    loss_probability_ci99: float
    mean_waiting_time_us_ci99: float
    mean_sojourn_time_us_ci99: float
    mean_queue_size_ci99: float
    simulated_packets: int
    drop: str
    """``tail`` (the model's FIFO tail drop) or ``ring`` (an RX ring: the oldest overwritten)."""
    simulated_loss_probability: float


@dataclass(frozen=True)
class Confidence:
    """Batch-means estimate: the mean over batches and the 99 % half-width."""

    mean: float
    ci99: float


def simulate(queue: BatchQueue, *, packets: int = 10**7, rng: np.random.Generator,
             drop: str = "tail", warmup: float = 0.05, batches: int = 30,
             interarrivals: np.ndarray | None = None, progress=None) -> BatchingResult:
    """Simulate ``packets`` arrivals (after a warm-up share ``warmup``); returns the model's
    result type with the same pmfs, plus ``*_ci99`` half-widths in ``extra``.

    ``interarrivals`` replays a trace (gaps in steps of Δt) instead of drawing from
    ``queue.arrivals``; ``progress(done, total)`` is called between chunks."""
    from nfvperf.sim import kernels as kn

    if drop not in DROPS:
        raise InputError("a drop policy: tail or ring", drop, field="drop")
    if isinstance(packets, bool) or not isinstance(packets, int) or packets < 1000:
        raise InputError("a number of packets ≥ 1000", packets, field="packets")
    if queue.arrivals is None and interarrivals is None:
        raise InputError("a positive arrival rate to simulate", 0, field="rate")
    L, beta = queue.capacity, queue.max_batch
    n_warm = int(packets * warmup)
    total = packets + n_warm
    per_batch = max(1, packets // batches)
    J = max(len(b) for b in queue.service)
    cdf = np.ones((beta + 1, J))
    for i, b in enumerate(queue.service):
        c = b.cdf()
        cdf[i, : c.size] = c
    state = np.zeros(kn.STATE_SIZE, dtype=np.int64)
    buf = np.zeros(L, dtype=np.int64)
    stats = np.zeros((batches, kn.STATS))
    batch_hist = np.zeros((batches, beta + 1))
    horizon = (L // beta + 2) * J
    wait_hist = np.zeros(horizon)
    soj_hist = np.zeros(horizon + J)
    qa_hist = np.zeros(L + 1)
    qr_hist = np.zeros(L + 1)
    if interarrivals is not None:
        gaps_all = np.asarray(interarrivals, dtype=np.int64)
        if gaps_all.size < 2 or np.any(gaps_all < 0):
            raise InputError("interarrival gaps ≥ 0, at least two", "other values",
                             field="interarrivals")
    first = True
    done = 0
    while done < total:
        n = min(CHUNK, total - done)
        if interarrivals is not None:
            idx = np.arange(done, done + n) % gaps_all.size
            gaps = gaps_all[idx]
        else:
            gaps = queue.arrivals.sample(rng, n).astype(np.int64)
        if first:
            state[kn.NEXT_ARR] = gaps[0]
            gaps = gaps[1:]
            first = False
        consumed = kn.run_chunk(rng, gaps, cdf, L, beta, drop == "ring", n_warm, per_batch,
                                batches, state, buf, stats, batch_hist, wait_hist, soj_hist,
                                qa_hist, qr_hist)
        done += consumed + (1 if done == 0 else 0)
        if progress is not None:
            progress(min(done, total), total)
    return _result(queue, stats, batch_hist, wait_hist, soj_hist, qa_hist, qr_hist, drop,
                   packets)


def _ci(values: np.ndarray) -> Confidence:
    from scipy.stats import t as student

    values = values[np.isfinite(values)]
    n = values.size
    if n < 2:
        return Confidence(float(values.mean()) if n else math.nan, math.inf)
    half = student.ppf(0.995, n - 1) * values.std(ddof=1) / math.sqrt(n)
    return Confidence(float(values.mean()), float(half))


def _result(queue, stats, batch_hist, wait_hist, soj_hist, qa_hist, qr_hist, drop, packets):
    from nfvperf.sim import kernels as kn

    dt_us = queue.dt_s * 1e6
    with np.errstate(invalid="ignore", divide="ignore"):
        per = {
            "mean_batch_size": stats[:, kn.S_PICKED] / stats[:, kn.S_POLLS],
            "loss_probability": stats[:, kn.S_LOST] / stats[:, kn.S_ARRIVALS],
            "mean_waiting_time_us": stats[:, kn.S_WAIT] / stats[:, kn.S_SERVED] * dt_us,
            "mean_sojourn_time_us": stats[:, kn.S_SOJOURN] / stats[:, kn.S_SERVED] * dt_us,
            "mean_queue_size": stats[:, kn.S_QTIME] / stats[:, kn.S_TIME],
        }
    cis = {k: _ci(v) for k, v in per.items()}
    tot = stats.sum(axis=0)
    batch = batch_hist.sum(axis=0)
    norm = lambda h: h / h.sum() if h.sum() > 0 else h  # noqa: E731
    extra = {f"{k}_ci99": c.ci99 for k, c in cis.items()}
    extra.update(simulated_packets=packets, drop=drop,
                 simulated_loss_probability=float(tot[kn.S_LOST] / tot[kn.S_ARRIVALS]))
    loss = float(tot[kn.S_LOST] / tot[kn.S_ARRIVALS]) if tot[kn.S_ARRIVALS] else 0.0
    service_all = np.zeros(max(len(b) for b in queue.service))
    v = norm(batch)
    for i, b in enumerate(queue.service):
        service_all[: len(b)] += v[i] * b.p
    return BatchingResult(queue, norm(qr_hist), v, loss, norm(qa_hist), norm(qr_hist),
                          service_all, norm(wait_hist), norm(soj_hist), 0, 0.0, extra)
