"""The batching model's latency against measured per-packet latencies (Geissler et al.,
Sec. 5.3, Figs. 11-13).

The model's sojourn time D = W + S (Eq. 6) is what a packet spends inside the device; the
generator measures more: its own handling and the wire, a fixed delay. As the paper does, that
offset is calibrated once and added to the model: here from the loss-free rates of the
histograms themselves, the median over those rates of the difference between the measured and
the modelled median latency (a constant delay shifts every quantile alike; the median is not
moved by the generator's rare outliers, which move the mean at some rates by tens of µs). Its
spread over the rates is reported with it; it is not fitted per rate.

Per rate, measured against model + offset: mean, p50, p90, p99, the largest distance between
the CDFs (Kolmogorov-Smirnov) and the area between them (Wasserstein-1, µs). A rate is
loss-free where neither the model nor the loss measured there, where known, reach 0.1 %.
Packets measured beyond the longest a packet can stay in the device — behind a full queue of
L packets, served in full batches at their slowest, plus the offset — are counted as the
generator's outliers; the mean is reported with them and without.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from nfvperf import units
from nfvperf.errors import InputError
from nfvperf.batching.arrivals import interarrival
from nfvperf.batching.distributions import Pmf
from nfvperf.batching.fit import Samples, ServiceTable, fit, served_by_rate
from nfvperf.batching.histograms import Config, Histogram, Weighted
from nfvperf.batching.latency_json import VppValidation
from nfvperf.batching.model import BatchQueue, BatchingResult

#: a rate is loss-free below this loss, modelled and measured
LOSS_FREE = 1e-3
#: targets: mean and p50 within this many µs, p99 within this share
MEAN_US, P50_US, P99_SHARE = 1.5, 1.5, 0.25
#: each target: the share of the loss-free rates asked to be within it, and what it says
TARGETS = {"mean": (0.9, f"mean within {MEAN_US:g} µs"),
           "mean_without_outliers": (0.9, f"mean without outliers within {MEAN_US:g} µs"),
           "p50": (0.9, f"p50 within {P50_US:g} µs"),
           "p99": (0.75, f"p99 within {100 * P99_SHARE:g} %")}
QUANTILES = {"p50": 0.5, "p90": 0.9, "p99": 0.99}
#: the model's sojourn below this tail mass is left out of its quantiles' grid
TAIL = 1e-12
#: the probabilities at which each rate's CDFs are kept in the JSON (for the figures)
CDF_AT = tuple(np.round(np.concatenate([[0.001, 0.005], np.arange(0.01, 1.0, 0.01),
                                         [0.995, 0.999]]), 4).tolist())


@dataclass(frozen=True)
class Method:
    """How the model is set up: the interarrival process of the generator, the service time
    distribution around each batch size's mean, and the model's time step."""

    arrivals: str = "deterministic"
    service: str = "poisson"
    dt_s: float = 10e-9
    #: the egress link, the authors' testbed's 10 Gbps (None: a batch leaves at once, as the
    #: paper's model has it)
    link_gbps: float | None = 10.0
    #: each batch size's mean service time: the line fitted through the samples' means
    #: (``line``), or their own mean where seen (``table``, as ``nfvperf fit`` writes)
    means: str = "line"


def service_table(samples: Samples, config: Config, means: str = "line") -> ServiceTable:
    """The global fit of the service samples (Sec. 5.1.1) for the configuration's β: its line
    at every size, or (``table``) each size's own mean where seen. At low rates a small
    batch's time to the next poll holds the loop's idling (at 500 Mbps a batch of one
    packet: median 1.5 µs, p90 7.4 µs, where the line says 1.06): a packet waits it out,
    but leaves with its batch's processing."""
    t = fit(samples, config.beta)
    if means == "table":
        return t
    if means != "line":
        raise InputError("line or table", means, field="means")
    line = t.intercept_ns + t.slope_ns * np.arange(config.beta + 1)
    if not np.all(line > 0):
        raise InputError("service samples whose fitted line stays above 0 over 0..β",
                         f"{t.intercept_ns:.3g} ns at 0", field="samples")
    ratios = samples.service_time_ns / line[samples.batch_size]
    return ServiceTable(line, np.zeros(line.size, dtype=bool), t.slope_ns, t.intercept_ns,
                        None, ratios)


def measured_loss(samples: Samples, config: Config) -> dict[float, float]:
    """Per rate of the samples: 1 - served/offered (``fit.served_by_rate``)."""
    return {r: max(0.0, 1.0 - served / offered)
            for r, (served, offered) in served_by_rate(samples, config.frame_bytes).items()}


def model_at(service: tuple[Pmf, ...], config: Config, rate_mbps: float,
             method: Method) -> BatchingResult:
    """The batching model at one offered rate, its service times ``service`` (a table's
    ``pmfs`` on the method's grid)."""
    pps = units.line_rate_pps(rate_mbps * 1e6, config.frame_bytes)
    a = interarrival(method.arrivals, pps, method.dt_s)
    return BatchQueue(config.queue, config.beta, a, service, method.dt_s).solve()


def egress(result: BatchingResult, frame_bytes: int, link_gbps: float) -> np.ndarray:
    """The time a packet waits on the egress link behind the packets of its own batch sent
    before it, in steps: a batch leaves the device in one burst and the link serialises it
    (a frame and its 20 B of preamble and gap at a time). A packet's place K in its batch
    is uniform over the batch, whose size is the size-biased batch size: P(K = k) = P(N > k)
    / E[N] over the batch size distribution N (Eq. 2)."""
    v = result.batch_size
    n = np.arange(v.size)
    mean = float(n @ v)
    if mean <= 0:
        return np.ones(1)
    tail = 1.0 - np.cumsum(v)                          # P(N > k), k = 0..β
    step = units.wire_bits(frame_bytes) / (link_gbps * 1e9) / result.queue.dt_s
    at = np.rint(np.arange(v.size) * step).astype(np.int64)
    w = np.bincount(at, weights=np.clip(tail, 0.0, None) / mean)
    return w[: int(np.flatnonzero(w > 0)[-1]) + 1]


@dataclass(frozen=True, eq=False)
class Sojourn(Weighted):
    """A sojourn time distribution: its pmf (``weights``) over latencies in µs (``values``,
    evenly spaced)."""

    values: np.ndarray
    weights: np.ndarray

    @classmethod
    def of(cls, result: BatchingResult, wire: np.ndarray | None = None) -> Sojourn:
        """The model's, in µs, with what a packet waits on the egress link behind its batch
        (``egress``) where given; its tail below ``TAIL`` left out."""
        from nfvperf.batching.distributions import convolve

        p = result.sojourn if wire is None else convolve(result.sojourn, wire)
        p = p / p.sum()
        last = int(np.flatnonzero(np.cumsum(p[::-1]) > TAIL)[0])
        p = p[: p.size - last]
        return cls(np.arange(p.size) * result.queue.dt_s * 1e6, p)

    def shifted(self, offset_us: float) -> Sojourn:
        return Sojourn(self.values + offset_us, self.weights)


@dataclass(frozen=True)
class Offset:
    """The fixed delay the generator adds, calibrated once: ``value_us`` over ``rates``, with
    the least and most of the per-rate differences and their quartiles."""

    value_us: float
    spread_us: tuple[float, float]
    quartiles_us: tuple[float, float]
    rates: tuple[float, ...]
    per_rate_us: tuple[float, ...]


def calibrate_offset(histograms: dict[float, Histogram], models: dict[float, Sojourn],
                     rates: list[float]) -> Offset:
    """The offset from the loss-free ``rates``: the median over them of measured p50 less the
    model's p50."""
    diffs = np.array([histograms[r].quantile(0.5) - models[r].quantile(0.5) for r in rates])
    q1, q3 = np.percentile(diffs, [25, 75])
    return Offset(float(np.median(diffs)), (float(diffs.min()), float(diffs.max())),
                  (float(q1), float(q3)), tuple(rates), tuple(map(float, diffs)))


def ceiling_us(full: Pmf, config: Config, dt_s: float, offset_us: float) -> float:
    """The longest a packet can stay in the device, plus the offset: behind a full queue
    (⌈L/β⌉ full batches) and the batch in service, each at its slowest (``full``, the full
    batch's service time pmf, at 1 - 1e-9)."""
    slowest = full.percentile(1 - 1e-9) * dt_s * 1e6
    return (math.ceil(config.queue / config.beta) + 1) * slowest + offset_us


def distances(h: Histogram, model: Sojourn) -> tuple[float, float]:
    """Kolmogorov-Smirnov distance and the area between the CDFs (µs) of a histogram and the
    model, over both supports."""
    x = np.union1d(h.values, model.values)
    fm, fp = h.cdf(x), model.cdf(x)
    gap = np.abs(fm - fp)
    return float(gap.max()), float(np.sum(gap[:-1] * np.diff(x)))


def compare_rate(h: Histogram, model: Sojourn, result: BatchingResult, *, loss: float | None,
                 sampled: float | None, loss_free: bool, ceiling: float) -> dict:
    """One rate: measured against model + offset (``model`` already shifted)."""
    meas = {"mean_us": h.mean(), "mean_without_outliers_us": h.mean(ceiling),
            **{f"{k}_us": h.quantile(q) for k, q in QUANTILES.items()}}
    pred = {"mean_us": model.mean(), **{f"{k}_us": model.quantile(q)
                                        for k, q in QUANTILES.items()}}
    error = {k: pred[k] - meas[k] for k in ("mean_us", "p50_us", "p90_us")}
    kept = meas["mean_without_outliers_us"]         # None: every packet beyond the bound
    error["mean_without_outliers_us"] = None if kept is None else pred["mean_us"] - kept
    error["p99_pct"] = 100.0 * (pred["p99_us"] - meas["p99_us"]) / meas["p99_us"]
    within = {"mean": abs(error["mean_us"]) <= MEAN_US,
              "mean_without_outliers": kept is not None and
              abs(error["mean_without_outliers_us"]) <= MEAN_US,
              "p50": abs(error["p50_us"]) <= P50_US,
              "p99": abs(error["p99_pct"]) <= 100 * P99_SHARE}
    ks, area = distances(h, model)
    cdf = {"q": list(CDF_AT), "measured_us": [h.quantile(q) for q in CDF_AT],
           "predicted_us": [model.quantile(q) for q in CDF_AT]}
    return {"rate_mbps": h.rate_mbps, "loss_free": loss_free,
            "measured_loss": loss, "samples_loss": sampled,
            "model_loss": result.loss_probability,
            "model_mean_batch": result.mean_batch_size, "packets": h.packets,
            "outliers": h.beyond(ceiling), "measured": meas, "predicted": pred,
            "error": error, "within": within, "ks": ks, "wasserstein_us": area,
            "cdf": cdf}


def validate(config: Config, histograms: dict[float, Histogram], samples: Samples,
             method: Method = Method(), *, loss: dict[float, float] | None = None,
             progress=None) -> VppValidation:
    """The whole validation (see the module docstring): the JSON ``nfvperf validate vpp``
    writes (the contract: ``latency_json.VppValidation``). ``loss``: the loss measured at each
    rate, where known: a rate is loss-free where neither it nor the model loses 0.1 %. (The
    samples' 1 - served/offered is reported, not judged by: a few hundred batches a rate make
    it a noisy figure, 0.6 % at 500 Mbps.)"""
    service = service_table(samples, config, method.means).pmfs(method.dt_s, method.service)
    sampled = measured_loss(samples, config)
    loss = loss or {}
    results, models = {}, {}
    for n, rate in enumerate(sorted(histograms)):
        results[rate] = model_at(service, config, rate, method)
        wire = None if method.link_gbps is None else egress(results[rate], config.frame_bytes,
                                                             method.link_gbps)
        models[rate] = Sojourn.of(results[rate], wire)
        if progress:
            progress(n + 1, len(histograms))
    free = [r for r in sorted(histograms) if results[r].loss_probability < LOSS_FREE
            and loss.get(r, 0.0) < LOSS_FREE]
    if not free:
        raise InputError("at least one loss-free rate to calibrate the offset on", "none",
                         field="histograms")
    off = calibrate_offset(histograms, models, free)
    ceiling = ceiling_us(service[-1], config, method.dt_s, off.value_us)
    rows = [compare_rate(histograms[r], models[r].shifted(off.value_us), results[r],
                         loss=loss.get(r), sampled=sampled.get(r), loss_free=r in free,
                         ceiling=ceiling)
            for r in sorted(histograms)]
    return {"config": {"scenario": config.scenario, "beta": config.beta,
                       "frame_bytes": config.frame_bytes, "queue": config.queue},
            "method": {"arrivals": method.arrivals, "service": method.service,
                       "means": method.means, "dt_ns": method.dt_s * 1e9,
                       "link_gbps": method.link_gbps},
            "offset": {"value_us": off.value_us, "spread_us": list(off.spread_us),
                       "quartiles_us": list(off.quartiles_us), "rates_mbps": list(off.rates),
                       "per_rate_us": list(off.per_rate_us)},
            "outlier_bound_us": ceiling, "rates": rows, "summary": summary(rows)}


def summary(rows: list[dict]) -> dict:
    """Per target, how many loss-free rates are within it, and the share asked."""
    free = [r for r in rows if r["loss_free"]]
    out = {"loss_free_rates": len(free)}
    for key, (share, _) in TARGETS.items():
        n = sum(r["within"][key] for r in free)
        out[key] = {"within": n, "of": len(free), "target_share": share,
                    "met": bool(free) and n >= share * len(free)}
    return out
