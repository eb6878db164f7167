"""The discrete-time model of a batched, polling packet processor (Geissler et al., Sec. 3).

A :class:`BatchQueue` holds the inputs: time step Δt, queue capacity L, maximum batch size β, the
interarrival time pmf a and the service time pmf b_i of a batch of each size i = 0..β (a poll that
finds the queue empty takes b_0). :meth:`BatchQueue.solve` finds the steady state of the embedded
Markov chain of Eq. 1 (queue size just before each poll) and derives every KPI of Sec. 3.2 as a
:class:`BatchingResult`:

- batch size distribution v (Eq. 2), loss probability (Eq. 3), queue size seen by arrivals q_A
  (Eq. 4);
- waiting time W = R_S + Σ_{n=1}^{⌊Q_A/β⌋} B_β (Eq. 5) with R_S the recurrence time (Eq. 7) of the
  service time among all batches s = Σ_i v(i) b_i, and sojourn time D = W + S (Eq. 6). W is
  taken over the packets that enter the queue (Q_A < L): a packet that finds the queue full is
  lost and never waits, which Eq. 5 as printed does not separate;
- queue size at random times (the quantity of Eq. 8-9). The paper approximates the time the queue
  spends on each level between two polls by mean interarrival and recurrence times; here it is
  summed step by step over the service interval, Σ_t P(B > t) P(m + N(t) = k), which is exact for
  the discrete-time model and weights each interval by its length, as a random observer does.

The stationary distribution comes from a sparse direct solve of π(P - I) = 0, Σπ = 1, refined by
power iterations until the residual ‖πP - π‖₁ is below ``tol``; both are reported. Zero load
(no arrivals) and overload (ρ > 1) are ordinary inputs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from typing_extensions import TypedDict

from nfvperf.batching.arrivals import arrival_counts
from nfvperf.batching.distributions import Pmf, convolve
from nfvperf.errors import InputError
from nfvperf.output import contract

PERCENTILES = ("50", "90", "99", "99.9")
#: Transition probabilities below this are left out of the sparse matrix of Eq. 1.
PRUNE = 1e-16


@dataclass(frozen=True, eq=False)
class BatchQueue:
    """The model's inputs (see the module docstring). Times are in steps of ``dt_s``."""

    capacity: int
    max_batch: int
    arrivals: Pmf | None
    service: tuple[Pmf, ...]
    dt_s: float = 10e-9

    @staticmethod
    def check_sizes(capacity: int, max_batch: int) -> None:
        """β ≥ 1 and L ≥ β, both integers (what reading service times for β needs first)."""
        if isinstance(max_batch, bool) or not isinstance(max_batch, int) or max_batch < 1:
            raise InputError("a maximum batch size β ≥ 1", max_batch, field="max_batch")
        if isinstance(capacity, bool) or not isinstance(capacity, int) or capacity < max_batch:
            raise InputError(f"a queue capacity L ≥ β = {max_batch}", capacity,
                             field="capacity")

    def __post_init__(self) -> None:
        self.check_sizes(self.capacity, self.max_batch)
        beta = self.max_batch
        if len(self.service) != beta + 1:
            raise InputError(f"service times for batch sizes 0..{beta}", len(self.service),
                             field="service")
        for i, b in enumerate(self.service):
            if b.mean() <= 0:
                raise InputError("a service time with a positive mean", 0,
                                 field=f"service[{i}]")
        if not (self.dt_s > 0 and math.isfinite(self.dt_s)):
            raise InputError("a time step > 0", self.dt_s, field="dt_s")

    @property
    def arrival_rate_pps(self) -> float:
        return 0.0 if self.arrivals is None else 1.0 / (self.arrivals.mean() * self.dt_s)

    @property
    def load(self) -> float:
        """ρ: arrival rate over the largest batch rate β / E[B_β]."""
        return self.arrival_rate_pps * self.service[-1].mean() * self.dt_s / self.max_batch

    def solve(self, *, tol: float = 1e-12, max_iter: int = 10_000) -> BatchingResult:
        return _solve(self, tol, max_iter)


@contract
class BatchingRecord(TypedDict):
    """The KPIs of a batched polling NF's queue (Geissler et al., Eq. 1-9), as ``nfvperf
    batching --format json`` prints them."""

    queue_capacity: int
    """L: packets the queue holds."""
    max_batch: int
    """β: the most packets a poll takes."""
    dt_ns: float
    """The model's time step."""
    arrival_rate_mpps: float
    load: float
    """Arrival rate over the largest batch's service rate."""
    mean_batch_size: float
    loss_probability: float
    """Share of arriving packets lost at the full queue (Eq. 3)."""
    throughput_mpps: float
    batch_size_pmf: list[float]
    """Probability of each batch size 0..β (Eq. 2)."""
    mean_queue_size: float
    """At a random time (Eq. 8-9)."""
    mean_queue_size_at_arrival: float
    """Seen by an arriving packet (Eq. 4)."""
    mean_queue_size_at_poll: float
    """Just before a poll."""
    mean_service_time_us: float
    """Of a batch, over all batches."""
    mean_waiting_time_us: float
    """A packet's wait before its batch's service starts (Eq. 5)."""
    mean_sojourn_time_us: float
    """Arrival to the end of its batch's service (Eq. 6)."""
    waiting_time_us_percentiles: dict[str, float]
    """p50, p90, p99 and p99.9 of the waiting time, keyed "50", "90", "99", "99.9"."""
    sojourn_time_us_percentiles: dict[str, float]
    """The same of the sojourn time."""
    iterations: int
    """Of the fixed-point solution (0: simulated)."""
    residual: float
    """Its last change (0: simulated)."""


@dataclass(frozen=True, eq=False)
class BatchingResult:
    """KPIs of the model (or of a simulation); pmfs are arrays indexed by size or time step."""

    queue: BatchQueue
    q_embedded: np.ndarray            # Q: queue size just before a poll
    batch_size: np.ndarray            # v (Eq. 2)
    loss_probability: float           # Eq. 3
    queue_at_arrival: np.ndarray      # q_A (Eq. 4)
    queue_random: np.ndarray          # q̄ (Eq. 8-9)
    service_all: np.ndarray           # s: service time among all batches
    waiting: np.ndarray               # W (Eq. 5), in steps
    sojourn: np.ndarray               # D (Eq. 6), in steps
    iterations: int = 0
    residual: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def mean_batch_size(self) -> float:
        return _mean(self.batch_size)

    def time_us(self, steps: float) -> float:
        return steps * self.queue.dt_s * 1e6

    def percentiles_us(self, pmf: np.ndarray) -> dict[str, float]:
        cdf = np.cumsum(pmf)
        return {q: self.time_us(float(np.searchsorted(cdf, float(q) / 100 - 1e-12)))
                for q in PERCENTILES}

    def to_dict(self) -> BatchingRecord:
        """What ``nfvperf batching --format json`` prints (the contract: BatchingRecord; a
        simulation's adds SimulationRecord's fields)."""
        q = self.queue
        return {
            "queue_capacity": q.capacity,
            "max_batch": q.max_batch,
            "dt_ns": q.dt_s * 1e9,
            "arrival_rate_mpps": q.arrival_rate_pps / 1e6,
            "load": q.load,
            "mean_batch_size": self.mean_batch_size,
            "loss_probability": self.loss_probability,
            "throughput_mpps": q.arrival_rate_pps * (1 - self.loss_probability) / 1e6,
            "batch_size_pmf": self.batch_size.tolist(),
            "mean_queue_size": _mean(self.queue_random),
            "mean_queue_size_at_arrival": _mean(self.queue_at_arrival),
            "mean_queue_size_at_poll": _mean(self.q_embedded),
            "mean_service_time_us": self.time_us(_mean(self.service_all)),
            "mean_waiting_time_us": self.time_us(_mean(self.waiting)),
            "mean_sojourn_time_us": self.time_us(_mean(self.sojourn)),
            "waiting_time_us_percentiles": self.percentiles_us(self.waiting),
            "sojourn_time_us_percentiles": self.percentiles_us(self.sojourn),
            "iterations": self.iterations,
            "residual": self.residual,
            **self.extra,
        }


def _mean(p: np.ndarray) -> float:
    return float(np.arange(p.size) @ p)


def _start(p: np.ndarray) -> int:
    """The first index where ``p`` has mass worth computing with."""
    return int(np.argmax(p > 1e-300 + 1e-17 * p.max()))


def _normalise(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 0.0, None)
    return p / p.sum()


def _solve(qm: BatchQueue, tol: float, max_iter: int) -> BatchingResult:
    L, beta = qm.capacity, qm.max_batch
    J = max(len(b) for b in qm.service) - 1
    X = arrival_counts(qm.arrivals, J)                        # X[j, k]
    K = X.shape[1]
    # x_i(k): arrivals during a batch of size i (Eq. 1's x_{b_i,a}); each b_i only over the
    # steps where it has mass (a Poisson service time of mean 7500 steps starts near 7000)
    Xb = np.array([b.p[lo:] @ X[lo: len(b)] for b, lo in ((b, _start(b.p)) for b in qm.service)])
    states = np.arange(L + 1)
    batch = np.minimum(states, beta)
    after = states - batch                                    # queue right after pick-up

    pi, iterations, residual = _stationary(Xb, batch, after, L, tol, max_iter)

    v = np.zeros(beta + 1)
    np.add.at(v, batch, pi)
    ks = np.arange(K)
    mean_x = Xb @ ks                                          # E[X_i]
    arrivals_per_poll = float(v @ mean_x)
    # expected overflow E[(after + X - L)^+] per state, then Eq. 3
    overflow = _overflow(Xb, batch, after, L)
    lost = float(pi @ overflow)
    loss = lost / arrivals_per_poll if arrivals_per_poll > 0 else 0.0

    q_arr = _queue_at_arrival(Xb, pi, beta, L, arrivals_per_poll)
    s = np.zeros(J + 1)
    for i, b in enumerate(qm.service):
        s[: len(b)] += v[i] * b.p
    s = _normalise(s)
    accepted = q_arr[:L] if q_arr[:L].sum() > 0 else q_arr
    waiting = _waiting(Pmf(s).recurrence().p, qm.service[beta].p, accepted / accepted.sum(), beta)
    sojourn = _normalise(convolve(waiting, s))
    q_rand = _queue_random(qm, X, pi, beta, L)
    return BatchingResult(qm, pi, _normalise(v), loss, q_arr, q_rand, s, waiting, sojourn,
                          iterations, residual)


def _transition(Xb: np.ndarray, batch: np.ndarray, after: np.ndarray, L: int):
    """The sparse transition matrix of Eq. 1: from i to min(i - min(i,β) + k, L) w.p. x_i(k)."""
    from scipy import sparse

    n, K = L + 1, Xb.shape[1]
    rows = np.repeat(np.arange(n), K)
    cols = np.minimum((after[:, None] + np.arange(K)[None, :]).ravel(), L)
    vals = Xb[batch].ravel()
    keep = vals > PRUNE          # negligible transitions only cost fill-in in the solve
    return sparse.csr_matrix((vals[keep], (rows[keep], cols[keep])), shape=(n, n))


def _stationary(Xb, batch, after, L, tol, max_iter):
    from scipy import sparse
    from scipy.sparse.linalg import spsolve

    P = _transition(Xb, batch, after, L)
    n = L + 1
    A = (P.T - sparse.identity(n, format="csr")).tolil()
    A[0, :] = np.ones(n)
    rhs = np.zeros(n)
    rhs[0] = 1.0
    with np.errstate(all="ignore"):
        pi = spsolve(A.tocsc(), rhs, permc_spec="NATURAL")   # P is banded: keep the order
    if not np.all(np.isfinite(pi)):
        pi = np.full(n, 1.0 / n)
    pi = _normalise(pi)
    PT = P.T.tocsr()
    iterations = 0
    residual = float(np.abs(PT @ pi - pi).sum())
    while residual > tol and iterations < max_iter:
        pi = _normalise(PT @ pi)
        iterations += 1
        residual = float(np.abs(PT @ pi - pi).sum())
    return pi, iterations, residual


def _overflow(Xb, batch, after, L):
    """E[(after + X - L)^+] for every state: the packets lost in the next service interval."""
    K = Xb.shape[1]
    ks = np.arange(K)
    # tail[b, m] = E[(X_b - m)^+] for m = 0..K
    surv = 1.0 - np.cumsum(Xb, axis=1)                         # P(X_b > k)
    tail = np.concatenate([np.cumsum(np.clip(surv[:, ::-1], 0, None), axis=1)[:, ::-1],
                           np.zeros((Xb.shape[0], 1))], axis=1)
    del ks
    need = np.clip(L - after, 0, K)                            # room left after pick-up
    return tail[batch, need]


def _queue_at_arrival(Xb, pi, beta, L, arrivals_per_poll):
    """Eq. 4: the share of arrivals that find k packets in the queue (levels above L fold into L)."""
    if arrivals_per_poll <= 0:
        out = np.zeros(L + 1)
        out[0] = 1.0
        return out
    surv = np.clip(1.0 - np.cumsum(Xb, axis=1), 0.0, None)     # P(X_b > n): the (n+1)-th arrival
    visits = pi[:beta] @ surv[:beta]                           # states below β empty the queue
    tail_states = pi[beta:]                                    # state β + m leaves m behind
    visits_full = convolve(tail_states, surv[beta])
    total = np.zeros(max(visits.size, visits_full.size))
    total[: visits.size] += visits
    total[: visits_full.size] += visits_full
    out = np.zeros(L + 1)
    out[: min(L, total.size)] = total[:L]
    out[L] = total[L:].sum()
    return _normalise(out)


def _waiting(r_s: np.ndarray, b_beta: np.ndarray, q_arr: np.ndarray, beta: int) -> np.ndarray:
    """Eq. 5: W = R_S + Σ_{n=1}^{⌊Q_A/β⌋} B_β, by FFT (the sum of n i.i.d. B_β is B_β^n there)."""
    groups = np.bincount(np.arange(q_arr.size) // beta, weights=q_arr)
    n_max = int(np.flatnonzero(groups > 1e-300)[-1]) if np.any(groups > 1e-300) else 0
    if n_max == 0:
        return _normalise(r_s.copy())
    size = r_s.size + n_max * (b_beta.size - 1)
    nfft = 1 << int(math.ceil(math.log2(size)))
    R = np.fft.rfft(r_s, nfft)
    B = np.fft.rfft(b_beta, nfft)
    poly = np.full_like(B, groups[n_max])
    for n in range(n_max - 1, -1, -1):                          # Horner: Σ_n p_n B^n
        poly = poly * B + groups[n]
    return _normalise(np.fft.irfft(R * poly, nfft)[:size])


def _queue_random(qm: BatchQueue, X: np.ndarray, pi: np.ndarray, beta: int, L: int) -> np.ndarray:
    """Queue size at random times: Σ_i q(i) Σ_t P(B_{b(i)} > t) P(min(m_i + N(t), L) = k) / E[cycle].

    N(t) counts arrivals in the first t steps of the interval (N(0) = 0)."""
    K = X.shape[1]
    H = np.zeros((beta + 1, K))
    cycle = np.zeros(beta + 1)
    before = np.cumsum(X, axis=0)                                # Σ_{u ≤ t} X[u]
    for i, b in enumerate(qm.service):
        surv = np.clip(1.0 - np.cumsum(b.p), 0.0, None)         # P(B > t), t = 0..len-1
        lo = _start(b.p)                                         # P(B > t) = 1 for t < lo
        H[i] = surv[lo:] @ X[lo: surv.size] + (before[lo - 1] if lo > 0 else 0.0)
        cycle[i] = surv.sum()                                    # = E[B]
    v_states = pi
    total_time = float(pi[:beta] @ cycle[:beta] + pi[beta:].sum() * cycle[beta])
    if total_time <= 0:
        out = np.zeros(L + 1)
        out[0] = 1.0
        return out
    level = pi[:beta] @ H[:beta]
    full = convolve(v_states[beta:], H[beta])
    total = np.zeros(max(level.size, full.size))
    total[: level.size] += level
    total[: full.size] += full
    out = np.zeros(L + 1)
    out[: min(L, total.size)] = total[:L]
    out[L] = total[L:].sum()
    return _normalise(out)
