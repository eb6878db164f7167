"""Packet rates, interarrival times, and X_{τ,a}: the number of arrivals in an interval.

Conventions shared with the simulator: time is slotted in steps of Δt; an interval of j steps
that starts at a polling instant covers the offsets 0..j-1, so an arrival in the same step as a
poll is *not* picked up by it (it waits for the next). Interarrival times may be 0 (several
packets in one step).

X_{τ,a} (Geissler et al., Table 1, after Tran-Gia's discrete-time analysis [21]): seen from an
arbitrary instant, the first arrival comes after the recurrence time R_A of Eq. 7, the next ones
after i.i.d. interarrival times A. With S_k = R_A + A_1 + ... + A_{k-1} the time of the k-th
arrival, the number N(j) of arrivals in j steps satisfies P(N(j) ≥ k) = P(S_k ≤ j - 1), so

    x_{j,a}(k) = P(S_k ≤ j-1) - P(S_{k+1} ≤ j-1),     x_{j,a}(0) = 1 - P(R_A ≤ j-1),

and for an interval of random length τ, x_{τ,a}(k) = Σ_j τ(j) x_{j,a}(k).
"""

from __future__ import annotations

import math

import numpy as np

from nfvperf import units
from nfvperf.batching.distributions import TAIL, Pmf, by_name
from nfvperf.errors import InputError


def packet_rate_pps(*, rate_bps: float | None = None, frame_bytes: int | None = None,
                    rate_pps: float | None = None) -> float:
    """Packets per second from a bit rate and a frame size (20 B per frame on the wire:
    10 Gbps at 64 B is 14.88 Mpps), or a packet rate as given."""
    if rate_pps is not None:
        value, field = rate_pps, "rate_pps"
    elif rate_bps is not None and frame_bytes is not None:
        units.check_frame_bytes(frame_bytes)
        value, field = rate_bps, "rate_bps"
    else:
        raise InputError("a packet rate, or a bit rate and a frame size", "neither",
                         field="rate_bps")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or value < 0:
        raise InputError("a finite rate ≥ 0", value, field=field)
    return float(value) if rate_pps is not None else units.line_rate_pps(rate_bps, frame_bytes)


def interarrival(kind: str, rate_pps: float, dt_s: float) -> Pmf | None:
    """The interarrival time pmf (in steps of ``dt_s``) of ``kind`` at ``rate_pps``; None when
    the rate is 0 (no arrivals at all)."""
    if rate_pps == 0:
        return None
    return by_name(kind, 1.0 / (rate_pps * dt_s))


def arrival_counts(a: Pmf | None, max_len: int) -> np.ndarray:
    """The matrix X[j, k] = x_{j,a}(k) for interval lengths j = 0..max_len (see the module)."""
    if a is None:
        out = np.zeros((max_len + 1, 1))
        out[:, 0] = 1.0
        return out
    J = max_len
    if J == 0:
        return np.ones((1, 1))
    s = np.zeros(J)
    r = a.recurrence().p[:J]
    s[: r.size] = r
    ge = [np.ones(J)]                       # P(N(j) >= 0) = 1
    while True:
        c = np.minimum(np.cumsum(s), 1.0)   # c[t] = P(S_k <= t)
        ge.append(c)
        if c[-1] < TAIL:
            break
        s = np.convolve(s, a.p)[:J]
    ge.append(np.zeros(J))
    G = np.array(ge)                        # G[k, t] = P(N(t + 1) >= k)
    X = np.zeros((J + 1, G.shape[0] - 1))
    X[0, 0] = 1.0
    X[1:, :] = (G[:-1] - G[1:]).T
    X = np.clip(X, 0.0, None)
    X /= X.sum(axis=1, keepdims=True)
    return X


def counts_in(tau: Pmf, X: np.ndarray) -> np.ndarray:
    """x_{τ,a}: the number of arrivals in an interval whose length is distributed as ``tau``."""
    if len(tau) > X.shape[0]:
        raise ValueError("X is shorter than the interval lengths")
    return tau.p @ X[: len(tau)]
