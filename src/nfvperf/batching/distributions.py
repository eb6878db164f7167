"""Probability mass functions on the Δt grid (k = 0, 1, 2, ... time steps or counts).

A :class:`Pmf` is an array of probabilities that sums to 1 (its far tail, below ``TAIL``, is cut
and the rest renormalised). Constructors follow the distributions of Geissler et al. Sec. 5.1:
deterministic, Poisson, geometric, negative binomial with a given mean and coefficient of
variation, and empirical (from samples or probabilities). :data:`REGISTRY` maps the names used on
the command line (``poisson``, ``negbin:0.5``) to constructors.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from nfvperf.errors import InputError

#: Probability mass left out at the far tail of a constructed pmf.
TAIL = 1e-14


@dataclass(frozen=True, eq=False)
class Pmf:
    """A pmf over 0..len-1 (in time steps or counts); ``p`` sums to 1."""

    p: np.ndarray

    def __post_init__(self) -> None:
        p = np.asarray(self.p, dtype=float)
        if p.ndim != 1 or p.size == 0 or not np.all(np.isfinite(p)) or np.any(p < -1e-12):
            raise InputError("probabilities: finite, ≥ 0, at least one", "other values",
                             field="pmf")
        p = np.clip(p, 0.0, None)
        total = p.sum()
        if total <= 0:
            raise InputError("probabilities with a positive sum", 0, field="pmf")
        nz = np.flatnonzero(p)
        object.__setattr__(self, "p", p[: nz[-1] + 1] / total)

    def __len__(self) -> int:
        return self.p.size

    @property
    def support(self) -> np.ndarray:
        return np.arange(self.p.size)

    def mean(self) -> float:
        return float(self.support @ self.p)

    def var(self) -> float:
        k = self.support
        return float(k * k @ self.p - self.mean() ** 2)

    def cv(self) -> float:
        m = self.mean()
        return math.sqrt(max(self.var(), 0.0)) / m if m > 0 else 0.0

    def cdf(self) -> np.ndarray:
        return np.minimum(np.cumsum(self.p), 1.0)

    def percentile(self, q: float) -> int:
        """The smallest k with P(X ≤ k) ≥ q/100."""
        return int(np.searchsorted(self.cdf(), q / 100.0 - 1e-12))

    def recurrence(self) -> Pmf:
        """The recurrence (residual) time R of Eq. 7: r(t) = (1 - A(t)) / E[A], t ≥ 0."""
        m = self.mean()
        if m <= 0:
            return Pmf(np.array([1.0]))
        return Pmf(np.clip(1.0 - self.cdf(), 0.0, None) / m)

    def sample(self, rng: np.random.Generator, size: int) -> np.ndarray:
        """Draws by inversion of the cdf."""
        return np.searchsorted(self.cdf(), rng.random(size), side="right")

    def __add__(self, other: Pmf) -> Pmf:
        """The pmf of the sum of two independent variables (a convolution)."""
        return Pmf(convolve(self.p, other.p))


def convolve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Linear convolution, by FFT when both are long."""
    if min(a.size, b.size) < 64:
        return np.convolve(a, b)
    from scipy.signal import fftconvolve

    return np.clip(fftconvolve(a, b), 0.0, None)


def _check_mean(mean: float, what: str) -> float:
    if isinstance(mean, bool) or not isinstance(mean, (int, float)) or not math.isfinite(mean) \
            or mean < 0:
        raise InputError(f"a finite mean ≥ 0 for {what}", mean, field="mean")
    return float(mean)


def deterministic(mean: float) -> Pmf:
    """All mass at ``mean`` time steps; a non-integer mean splits between its two neighbours so
    that the mean is exact (the variance is the smallest possible on the grid)."""
    mean = _check_mean(mean, "deterministic")
    lo = math.floor(mean)
    frac = mean - lo
    p = np.zeros(lo + 2)
    p[lo] = 1.0 - frac
    p[lo + 1] = frac
    return Pmf(p)


def poisson(mean: float) -> Pmf:
    """Poisson with the given mean: coefficient of variation 1/√mean (Sec. 5.1)."""
    from scipy.stats import poisson as dist

    mean = _check_mean(mean, "poisson")
    if mean == 0:
        return Pmf(np.array([1.0]))
    return _from_scipy(dist(mean))


def geometric(mean: float) -> Pmf:
    """Geometric on {0, 1, ...} (failures before a success) with the given mean."""
    from scipy.stats import geom

    mean = _check_mean(mean, "geometric")
    if mean == 0:
        return Pmf(np.array([1.0]))
    return _from_scipy(geom(1.0 / (1.0 + mean), loc=-1))


def negative_binomial(mean: float, cv: float) -> Pmf:
    """Negative binomial on {0, 1, ...} with the given mean and coefficient of variation.

    Its variance exceeds its mean, so ``cv`` must exceed 1/√mean (Poisson's)."""
    from scipy.stats import nbinom

    mean = _check_mean(mean, "negbin")
    if isinstance(cv, bool) or not isinstance(cv, (int, float)) or not math.isfinite(cv) or cv <= 0:
        raise InputError("a coefficient of variation > 0", cv, field="negbin")
    if mean == 0:
        return Pmf(np.array([1.0]))
    var = (cv * mean) ** 2
    if var <= mean:
        raise InputError(f"a coefficient of variation above 1/√mean = {1 / math.sqrt(mean):.3g}"
                         f" for a negative binomial of mean {mean:g}", cv, field="negbin")
    p = mean / var
    n = mean * p / (1.0 - p)
    return _from_scipy(nbinom(n, p))


def empirical(values: np.ndarray, *, weights: np.ndarray | None = None) -> Pmf:
    """The pmf of samples on the grid (``values`` rounded to the nearest step)."""
    values = np.asarray(values, dtype=float)
    if values.size == 0 or not np.all(np.isfinite(values)) or np.any(values < 0):
        raise InputError("samples: finite, ≥ 0, at least one", "other values", field="samples")
    k = np.rint(values).astype(np.int64)
    return Pmf(np.bincount(k, weights=weights))


def _from_scipy(dist) -> Pmf:
    hi = int(dist.isf(TAIL)) + 2
    return Pmf(dist.pmf(np.arange(hi)))


#: Interarrival distributions by name, each a function of the mean (in time steps).
REGISTRY: dict[str, Callable[[float], Pmf]] = {
    "deterministic": deterministic,
    "poisson": poisson,
    "geometric": geometric,
}


def by_name(spec: str, mean: float, *, field: str = "arrivals") -> Pmf:
    """``poisson``, ``geometric``, ``deterministic`` or ``negbin:CV`` with the given mean."""
    name, _, arg = spec.partition(":")
    name = name.strip().lower()
    if name == "negbin":
        try:
            cv = float(arg)
        except ValueError:
            raise InputError("negbin:CV with a number CV, such as negbin:0.5", spec,
                             field=field) from None
        return negative_binomial(mean, cv)
    if name in REGISTRY and not arg:
        return REGISTRY[name](mean)
    raise InputError(f"one of {', '.join(REGISTRY)} or negbin:CV", spec, field=field)
