"""Comparing distributions and means (Geissler et al., Sec. 5.1.2)."""

from __future__ import annotations

import numpy as np


def relative_error(reference: float, value: float) -> float:
    """|E[P] - E[Q]| / E[P], the relative error of means of Sec. 5.1.2 (P the reference)."""
    return abs(reference - value) / abs(reference) if reference else abs(value)


def jensen_shannon(p: np.ndarray, q: np.ndarray) -> float:
    """Jensen-Shannon divergence (natural log, bounded by ln 2) of two pmfs on 0..n."""
    n = max(len(p), len(q))
    P = np.zeros(n)
    Q = np.zeros(n)
    P[: len(p)] = p
    Q[: len(q)] = q
    P, Q = P / P.sum(), Q / Q.sum()
    M = 0.5 * (P + Q)
    with np.errstate(divide="ignore", invalid="ignore"):
        kp = np.where(P > 0, P * np.log(P / M), 0.0)
        kq = np.where(Q > 0, Q * np.log(Q / M), 0.0)
    return float(0.5 * kp.sum() + 0.5 * kq.sum())
