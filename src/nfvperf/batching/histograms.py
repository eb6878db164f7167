"""Per-packet latency histograms, as MoonGen writes them (one row per distinct latency and its
count), for one configuration of the device under test at several offered rates.

The file is a CSV with a header: ``scenario,beta,pktsize,queuesize,rate_mbps,latency_us,count``
(``data/vpp/README.md``), every row of one configuration. A histogram keeps its bins sorted
and answers what a validation asks of it: the mean, quantiles, the CDF, and the same without
the packets beyond a bound.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from nfvperf.batching.fit import numeric_column
from nfvperf.errors import InputError

COLUMNS = ("scenario", "beta", "pktsize", "queuesize", "rate_mbps", "latency_us", "count")
#: the columns that name the configuration: one value each in a file
CONFIG = ("scenario", "beta", "pktsize", "queuesize")


@dataclass(frozen=True)
class Config:
    """The device's configuration the histograms were measured with."""

    scenario: str
    beta: int
    frame_bytes: int
    queue: int


class Weighted:
    """Statistics of weights over increasing values (``values`` and ``weights``): a measured
    histogram's packets over its latencies, or a model's pmf over its time grid."""

    values: np.ndarray
    weights: np.ndarray

    def mean(self, below: float = np.inf) -> float | None:
        """The weighted mean of the values at or under ``below`` (all by default); None when
        none has weight."""
        keep = self.values <= below
        n = self.weights[keep].sum()
        return float(self.values[keep] @ self.weights[keep] / n) if n else None

    def quantile(self, q: float) -> float:
        """The smallest value at or below which a share ``q`` of the weight lies."""
        cum = np.cumsum(self.weights)
        i = int(np.searchsorted(cum, (q - 1e-9) * cum[-1]))
        return float(self.values[min(i, cum.size - 1)])

    def cdf(self, x: np.ndarray) -> np.ndarray:
        """The share of the weight at or below each of ``x``."""
        cum = np.concatenate([[0.0], np.cumsum(self.weights)])
        return cum[np.searchsorted(self.values, x, side="right")] / cum[-1]


@dataclass(frozen=True, eq=False)
class Histogram(Weighted):
    """Latencies (µs, increasing, distinct) and how many packets had each, at one rate."""

    rate_mbps: float
    values: np.ndarray
    weights: np.ndarray

    @property
    def packets(self) -> int:
        return int(self.weights.sum())

    def beyond(self, bound_us: float) -> int:
        """Packets measured above ``bound_us``."""
        return int(self.weights[self.values > bound_us].sum())


def read_histograms(path: str | Path) -> tuple[Config, dict[float, Histogram]]:
    """The configuration and the histogram of each rate in ``path`` (see the module docstring).
    InputError naming the file, row and column on anything else."""
    from io import StringIO

    import pandas as pd

    from nfvperf.io import read_text

    file = str(path)
    text = read_text(path)
    try:
        df = pd.read_csv(StringIO(text), dtype=str, keep_default_na=False)
    except Exception as exc:  # pandas raises many kinds for bad CSV
        raise InputError("a CSV file with a header row", str(exc).splitlines()[0],
                         file=file) from None
    missing = [c for c in COLUMNS if c not in df.columns]
    if missing:
        raise InputError("columns " + ",".join(COLUMNS), ",".join(map(str, df.columns)),
                         file=file, field=missing[0])
    if df.empty:
        raise InputError("at least one histogram row", "none", file=file)
    values = {c: numeric_column(df, c, file) for c in COLUMNS[1:]}
    _check(values["latency_us"], values["latency_us"] > 0, "a latency > 0 µs", df, file,
           "latency_us")
    count = values["count"]
    _check(count, (count >= 0) & (count == np.round(count)), "a whole count ≥ 0", df, file,
           "count")
    _check(values["rate_mbps"], values["rate_mbps"] > 0, "a rate > 0 Mbps", df, file,
           "rate_mbps")
    for c in ("beta", "pktsize", "queuesize"):
        v = values[c]
        _check(v, (v >= 1) & (v == np.round(v)), "a whole number ≥ 1", df, file, c)
    for c in CONFIG:
        col = df[c].to_numpy() if c == "scenario" else values[c]
        other = np.flatnonzero(col != col[0])
        if other.size:
            raise InputError(f"one {c} in the file ({df[c].iloc[0]}, as in row 2)",
                             str(df[c].iloc[other[0]]), file=file, line=int(other[0]) + 2,
                             field=c)
    config = Config(str(df["scenario"].iloc[0]), int(values["beta"][0]),
                    int(values["pktsize"][0]), int(values["queuesize"][0]))
    if config.queue < config.beta:
        raise InputError(f"a queuesize ≥ beta ({config.beta})", config.queue, file=file,
                         line=2, field="queuesize")
    out = {}
    rates, lat = values["rate_mbps"], values["latency_us"]
    for rate in np.unique(rates):
        sel = rates == rate
        order = np.argsort(lat[sel], kind="stable")
        bins, inverse = np.unique(lat[sel][order], return_inverse=True)
        counts = np.bincount(inverse, weights=count[sel][order]).astype(np.int64)
        if counts.sum() == 0:
            row = int(np.flatnonzero(sel)[0]) + 2
            raise InputError(f"at least one packet at {rate:g} Mbps", "counts of 0 only",
                             file=file, line=row, field="count")
        out[float(rate)] = Histogram(float(rate), bins, counts)
    return config, out


def _check(values: np.ndarray, ok: np.ndarray, expected: str, df, file: str, col: str) -> None:
    bad = np.flatnonzero(~ok)
    if bad.size:
        raise InputError(expected, str(df[col].iloc[bad[0]]), file=file, line=int(bad[0]) + 2,
                         field=col)
