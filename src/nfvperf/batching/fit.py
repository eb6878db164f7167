"""Batch service times from measurements (Geissler et al., Sec. 5.1 and 5.1.1).

From (batch size, service time) samples: the mean service time of each batch size; a linear fit
of those means against the batch size, over all rates (global) or per rate; and the table the
model takes: the measured mean where a size was seen at least ``min_samples`` times, the fitted
mean elsewhere. The model then draws Poisson service times around those means, as the paper does,
or (``measured``) spreads each mean as the samples spread around theirs: every sample's time
over its size's mean, pooled over the sizes, the rare long stalls included.

Samples come as ``vecsize,service_time_ns[,rate_mbps]`` or in the raw published form: TSC
timestamps ``t1`` of consecutive polls within a ``chunk``, whose differences are the service
times (the batch picked up at one ``t1`` is served until the next).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from typing_extensions import NotRequired, TypedDict

from nfvperf.batching.distributions import Pmf, deterministic, empirical, poisson
from nfvperf.errors import InputError
from nfvperf.output import contract

#: The authors' preprocessing keeps 0 < Δt1 < 600 000 TSC cycles (data/vpp/README.md).
MAX_GAP_CYCLES = 600_000
SERVICE_KINDS = {"poisson": poisson, "deterministic": deterministic}
#: the service time kinds a table's pmfs take: the above, and the samples' own spread
SERVICE_CHOICES = (*SERVICE_KINDS, "measured")


@contract
class FitRow(TypedDict):
    """One batch size's mean service time, as ``nfvperf fit`` writes it (CSV by default, the
    file ``nfvperf batching --service-times`` reads; these rows with ``--format json``)."""

    batch_size: int
    """0..β."""
    mean_service_time_ns: float
    source: str
    """``measured`` (the size was seen at least ``--min-samples`` times) or ``fitted`` (the
    linear fit)."""
    rate_mbps: NotRequired[float]
    """With ``--per-rate``: the rate the row was fitted at."""


@dataclass(frozen=True)
class Samples:
    """Service time samples: batch size, service time in ns and, optionally, the offered rate."""

    batch_size: np.ndarray
    service_time_ns: np.ndarray
    rate_mbps: np.ndarray | None = None


@dataclass(frozen=True)
class ServiceTable:
    """Mean service time (ns) of each batch size 0..β, with where each value came from."""

    mean_ns: np.ndarray
    measured: np.ndarray          # bool: a measured mean (else fitted or interpolated)
    slope_ns: float
    intercept_ns: float
    rate_mbps: float | None = None
    #: each sample's service time over the table's mean at its size (None: no samples)
    ratios: np.ndarray | None = None

    @property
    def beta(self) -> int:
        return self.mean_ns.size - 1

    def pmfs(self, dt_s: float, kind: str = "poisson") -> tuple[Pmf, ...]:
        """Service time pmfs on the grid: ``kind`` (Poisson, as the paper) around each mean,
        or ``measured``: each mean times the samples' ratios to theirs."""
        if kind == "measured":
            if self.ratios is None or self.ratios.size == 0:
                raise InputError("service time samples for measured service times",
                                 "a table of means only", field="service")
            return tuple(empirical(m * 1e-9 / dt_s * self.ratios) for m in self.mean_ns)
        if kind not in SERVICE_KINDS:
            raise InputError("one of " + ", ".join(SERVICE_CHOICES), kind, field="service")
        make = SERVICE_KINDS[kind]
        return tuple(make(m * 1e-9 / dt_s) for m in self.mean_ns)

    def rows(self) -> list[FitRow]:
        out = []
        for i, (m, meas) in enumerate(zip(self.mean_ns, self.measured)):
            row = {"batch_size": i, "mean_service_time_ns": round(float(m), 3),
                   "source": "measured" if meas else "fitted"}
            if self.rate_mbps is not None:
                row["rate_mbps"] = self.rate_mbps
            out.append(row)
        return out


def read_samples(path: str | Path, *, beta: int, tsc_ghz: float | None = None,
                 max_gap_cycles: float = MAX_GAP_CYCLES) -> Samples:
    """Read samples in either form (see the module docstring)."""
    import pandas as pd

    from nfvperf.io import read_text

    text = read_text(path)
    try:
        from io import StringIO

        df = pd.read_csv(StringIO(text))
    except Exception as exc:  # pandas raises many kinds for bad CSV
        raise InputError("a CSV file with a header row", str(exc).splitlines()[0],
                         file=str(path)) from None
    return samples_from_frame(df, str(path), beta=beta, tsc_ghz=tsc_ghz,
                              max_gap_cycles=max_gap_cycles)


def samples_from_frame(df, file: str, *, beta: int, tsc_ghz: float | None = None,
                       max_gap_cycles: float = MAX_GAP_CYCLES) -> Samples:
    cols = set(df.columns)
    rate = None
    if {"vecsize", "service_time_ns"} <= cols:
        size = numeric_column(df, "vecsize", file)
        st = numeric_column(df, "service_time_ns", file)
        if "rate_mbps" in cols:
            rate = numeric_column(df, "rate_mbps", file)
        keep = (size <= beta) & (st > 0)
    elif {"t1", "vecsize"} <= cols:
        if tsc_ghz is None or not (tsc_ghz > 0 and math.isfinite(tsc_ghz)):
            raise InputError("the TSC rate (e.g. 3.393 GHz) for raw t1 timestamps",
                             tsc_ghz, field="tsc_ghz")
        group = [c for c in ("rate_mbps", "chunk") if c in cols]
        order = group + [c for c in ("line",) if c in cols]
        df = df.sort_values(order, kind="stable") if order else df
        t1 = numeric_column(df, "t1", file)
        size = numeric_column(df, "vecsize", file)
        gap = np.full(t1.size, np.nan)
        nxt = np.roll(t1, -1) - t1
        same = np.ones(t1.size, dtype=bool)
        for c in group:
            v = df[c].to_numpy()
            same &= np.roll(v, -1) == v
        same[-1] = False
        gap[same] = nxt[same]
        if "rate_mbps" in cols:
            rate = numeric_column(df, "rate_mbps", file)
        keep = (size <= beta) & (gap > 0) & (gap < max_gap_cycles)
        st = gap / tsc_ghz
    else:
        raise InputError("columns vecsize,service_time_ns (or t1,vecsize with --tsc-ghz)",
                         ",".join(map(str, df.columns)), file=file)
    keep &= size >= 0
    if not np.any(keep):
        raise InputError("at least one sample with 0 ≤ vecsize ≤ β and a positive time",
                         "none", file=file)
    return Samples(size[keep].astype(int), st[keep], None if rate is None else rate[keep])


def numeric_column(df, col: str, file: str) -> np.ndarray:
    """A CSV column as numbers; InputError naming the file, line and column of the first that
    is not one."""
    import pandas as pd

    values = pd.to_numeric(df[col], errors="coerce").to_numpy(dtype=float)
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        raise InputError(f"a number in column {col}", str(df[col].iloc[bad[0]]), file=file,
                         line=int(bad[0]) + 2, field=col)
    return values


def served_by_rate(samples: Samples, frame_bytes: int) -> dict[float, tuple[float, float]]:
    """Per offered rate of the samples (Mbps): the packets a second served, Σ batch sizes /
    Σ service times, and those offered (the rate's frames, 20 B each more on the wire)."""
    from nfvperf import units

    out: dict[float, tuple[float, float]] = {}
    if samples.rate_mbps is None:
        return out
    for rate in np.unique(samples.rate_mbps):
        sel = samples.rate_mbps == rate
        served = samples.batch_size[sel].sum() / samples.service_time_ns[sel].sum() * 1e9
        out[float(rate)] = (float(served), units.line_rate_pps(rate * 1e6, frame_bytes))
    return out


def fit(samples: Samples, beta: int, *, min_samples: int = 5,
        rate_mbps: float | None = None) -> ServiceTable:
    """The global fit (all samples), or the fit of one rate when ``rate_mbps`` is given."""
    size, st = samples.batch_size, samples.service_time_ns
    if rate_mbps is not None:
        if samples.rate_mbps is None:
            raise InputError("samples with a rate_mbps column for a per-rate fit", "none",
                             field="per_rate")
        sel = samples.rate_mbps == rate_mbps
        size, st = size[sel], st[sel]
    counts = np.bincount(size, minlength=beta + 1)[: beta + 1]
    sums = np.bincount(size, weights=st, minlength=beta + 1)[: beta + 1]
    seen = counts > 0
    means = np.divide(sums, counts, out=np.zeros(beta + 1), where=seen)
    xs = np.flatnonzero(seen)
    if xs.size >= 2:
        slope, intercept = np.polyfit(xs, means[xs], 1)
    else:
        slope, intercept = math.nan, math.nan
    measured = counts >= min_samples
    line = intercept + slope * np.arange(beta + 1)
    out = np.where(measured, means, line)
    ratios = st / out[size] if np.all(out[size] > 0) else None
    return ServiceTable(out, measured, float(slope), float(intercept), rate_mbps, ratios)


def fit_per_rate(samples: Samples, beta: int, *, min_samples: int = 5) -> list[ServiceTable]:
    """One table per rate. A rate whose samples show a single batch size cannot be fitted (the
    paper leaves its 10 Gbps point out of the per-rate fits): its other sizes come from the
    global fit."""
    if samples.rate_mbps is None:
        raise InputError("samples with a rate_mbps column for a per-rate fit", "none",
                         field="per_rate")
    base = fit(samples, beta, min_samples=min_samples)
    tables = []
    for rate in np.unique(samples.rate_mbps):
        t = fit(samples, beta, min_samples=min_samples, rate_mbps=float(rate))
        if not math.isfinite(t.slope_ns):
            mean = np.where(t.measured, t.mean_ns, base.mean_ns)
            t = ServiceTable(mean, t.measured, base.slope_ns, base.intercept_ns, float(rate))
        tables.append(t)
    return tables


def read_table(path: str | Path, beta: int, *, rate_mbps: float | None = None) -> ServiceTable:
    """A service-time file: header ``batch_size,mean_service_time_ns``, rows in increasing batch
    size within 0..β; sizes that are missing are interpolated linearly (and extrapolated from
    the nearest two rows at the ends). A file of per-rate fits (a ``rate_mbps`` column, as
    ``nfvperf fit --per-rate`` writes) needs ``rate_mbps`` to pick its rows."""
    import csv
    from io import StringIO

    from nfvperf.io import read_text

    file = str(path)
    reader = csv.DictReader(StringIO(read_text(path)))
    need = {"batch_size", "mean_service_time_ns"}
    if reader.fieldnames is None or not need <= set(reader.fieldnames):
        raise InputError("the header batch_size,mean_service_time_ns",
                         ",".join(reader.fieldnames or []), file=file, line=1)
    rows = list(enumerate(reader, start=2))
    if "rate_mbps" in reader.fieldnames:
        rates = sorted({r["rate_mbps"] for _, r in rows}, key=lambda x: float(x or "nan"))
        if rate_mbps is None and len(rates) > 1:
            raise InputError(f"a rate to choose among the rates of the file "
                             f"({', '.join(rates)})", "none", file=file, field="service_rate")
        if rate_mbps is not None:
            rows = [(n, r) for n, r in rows if _same(r["rate_mbps"], rate_mbps)]
            if not rows:
                raise InputError(f"a rate of the file ({', '.join(rates)})", rate_mbps,
                                 file=file, field="service_rate")
    sizes, means = [], []
    for n, row in rows:
        try:
            size = int(row["batch_size"])
        except (TypeError, ValueError):
            raise InputError("a whole batch size", row["batch_size"], file=file, line=n,
                             field="batch_size") from None
        try:
            mean = float(row["mean_service_time_ns"])
        except (TypeError, ValueError):
            raise InputError("a service time in ns", row["mean_service_time_ns"], file=file,
                             line=n, field="mean_service_time_ns") from None
        if not 0 <= size <= beta:
            raise InputError(f"a batch size in 0..{beta} (β)", size, file=file, line=n,
                             field="batch_size")
        if sizes and size <= sizes[-1]:
            raise InputError(f"batch sizes in increasing order (after {sizes[-1]})", size,
                             file=file, line=n, field="batch_size")
        if not (math.isfinite(mean) and mean > 0):
            raise InputError("a service time > 0 ns", row["mean_service_time_ns"], file=file,
                             line=n, field="mean_service_time_ns")
        sizes.append(size)
        means.append(mean)
    if len(sizes) < 2 and not (len(sizes) == 1 and beta == 0):
        raise InputError("at least two rows", len(sizes), file=file)
    xs, ys = np.array(sizes), np.array(means)
    grid = np.arange(beta + 1)
    out = np.interp(grid, xs, ys)
    lo_slope = (ys[1] - ys[0]) / (xs[1] - xs[0])
    hi_slope = (ys[-1] - ys[-2]) / (xs[-1] - xs[-2])
    out = np.where(grid < xs[0], ys[0] + lo_slope * (grid - xs[0]), out)
    out = np.where(grid > xs[-1], ys[-1] + hi_slope * (grid - xs[-1]), out)
    if np.any(out <= 0):
        bad = int(np.flatnonzero(out <= 0)[0])
        raise InputError("service times that stay > 0 when extrapolated to 0..β",
                         f"{out[bad]:.3g} ns at batch size {bad}", file=file)
    measured = np.isin(grid, xs)
    slope, intercept = np.polyfit(xs, ys, 1) if xs.size >= 2 else (0.0, ys[0])
    return ServiceTable(out, measured, float(slope), float(intercept))


def _same(text: str, value: float) -> bool:
    try:
        return abs(float(text) - value) < 1e-9
    except (TypeError, ValueError):
        return False
