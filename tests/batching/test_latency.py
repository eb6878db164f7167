"""The latency validation's method (``batching.latency``), on histograms drawn from the model
itself shifted by a known delay: the offset is found once, the rates land, the generator's
outliers are counted and not hidden, a lossy rate stays out of the calibration (Geissler et al.,
Sec. 5.3)."""

from __future__ import annotations

import numpy as np
import pytest

from nfvperf.batching import latency
from nfvperf.batching.fit import Samples, fit
from nfvperf.batching.histograms import Config, Histogram

CONFIG = Config("xc", 16, 64, 64)
METHOD = latency.Method(arrivals="deterministic", service="poisson", dt_s=10e-9, link_gbps=None)
DELAY_US = 4.2
#: service samples: a batch of i takes 300 + 70 i ns (a line through every size), at two rates
SIZES = np.tile(np.arange(17), 20)
SAMPLES = Samples(SIZES, 300.0 + 70.0 * SIZES, np.repeat([1000.0, 2000.0], SIZES.size // 2))
#: 16 / 1.42 µs = 11.3 Mpps at most: 7 600 Mbps of 64 B frames
RATES = (1000.0, 3000.0, 5000.0, 7000.0)


def drawn(rate: float, rng, packets: int = 40_000, delay_us: float = DELAY_US) -> Histogram:
    """A histogram of packets whose latency is the model's sojourn plus ``delay_us``."""
    service = latency.service_table(SAMPLES, CONFIG).pmfs(METHOD.dt_s, METHOD.service)
    s = latency.Sojourn.of(latency.model_at(service, CONFIG, rate, METHOD)).shifted(delay_us)
    x = rng.choice(s.values, size=packets, p=s.weights / s.weights.sum())
    lat, counts = np.unique(np.round(x, 3), return_counts=True)
    return Histogram(rate, lat, counts)


@pytest.fixture(scope="module")
def hists():
    rng = np.random.default_rng(7)
    return {r: drawn(r, rng) for r in RATES}


def test_the_offset_is_the_delay_added_and_every_rate_lands(hists):
    d = latency.validate(CONFIG, hists, SAMPLES, METHOD)
    assert d["offset"]["value_us"] == pytest.approx(DELAY_US, abs=0.02)
    assert d["offset"]["rates_mbps"] == list(RATES)
    lo, hi = d["offset"]["spread_us"]
    assert lo <= d["offset"]["value_us"] <= hi and hi - lo < 0.05
    for r in d["rates"]:
        assert r["loss_free"] and r["outliers"] == 0
        assert abs(r["error"]["mean_us"]) < 0.05 and abs(r["error"]["p50_us"]) < 0.05
        assert abs(r["error"]["p99_pct"]) < 3 and r["ks"] < 0.03
        assert all(r["within"].values())
        assert r["cdf"]["q"] == list(latency.CDF_AT)
        assert np.all(np.diff(r["cdf"]["measured_us"]) >= 0)
    s = d["summary"]
    assert s["loss_free_rates"] == 4 and s["p50"]["within"] == 4 and s["mean"]["met"]


def test_a_delay_that_is_not_constant_is_seen(hists, rng):
    """Half the rates 4 µs later than the others: the offset cannot serve both (it lies
    between them, 2 µs from each), and the per-rate differences' spread says so."""
    skewed = {r: (drawn(r, rng, delay_us=DELAY_US + 4.0) if r > 4000 else h)
              for r, h in hists.items()}
    d = latency.validate(CONFIG, skewed, SAMPLES, METHOD)
    lo, hi = d["offset"]["spread_us"]
    assert hi - lo == pytest.approx(4.0, abs=0.05)
    assert d["offset"]["value_us"] == pytest.approx(DELAY_US + 2.0, abs=0.05)
    assert sum(r["within"]["p50"] for r in d["rates"]) == 0


def test_outliers_are_counted_and_the_mean_shown_with_and_without_them(hists):
    h = hists[3000.0]
    spiked = Histogram(h.rate_mbps, np.append(h.values, 9000.0),
                       np.append(h.weights, h.packets // 100))
    d = latency.validate(CONFIG, {**hists, 3000.0: spiked}, SAMPLES, METHOD)
    row = next(r for r in d["rates"] if r["rate_mbps"] == 3000.0)
    assert row["outliers"] == h.packets // 100
    assert d["outlier_bound_us"] < 9000.0
    assert row["measured"]["mean_us"] > row["measured"]["mean_without_outliers_us"] + 50
    assert row["measured"]["mean_without_outliers_us"] == pytest.approx(h.mean())
    assert not row["within"]["mean"] and row["within"]["mean_without_outliers"]
    assert row["within"]["p50"]
    assert d["offset"]["value_us"] == pytest.approx(DELAY_US, abs=0.02)


def test_a_lossy_rate_is_compared_but_not_calibrated_on(hists, rng):
    over = drawn(10_000.0, rng, delay_us=DELAY_US + 50)
    d = latency.validate(CONFIG, {**hists, 10_000.0: over}, SAMPLES, METHOD)
    assert 10_000.0 not in d["offset"]["rates_mbps"]
    row = next(r for r in d["rates"] if r["rate_mbps"] == 10_000.0)
    assert not row["loss_free"] and row["model_loss"] > 0.2
    assert d["summary"]["loss_free_rates"] == 4
    assert d["offset"]["value_us"] == pytest.approx(DELAY_US, abs=0.02)


def test_no_loss_free_rate_is_one_line(rng):
    from nfvperf.errors import InputError

    with pytest.raises(InputError, match="loss-free rate"):
        latency.validate(CONFIG, {10_000.0: drawn(10_000.0, rng)}, SAMPLES, METHOD)


def test_measured_service_times_spread_as_the_samples_do():
    """Each batch size's pmf is its mean times the samples' ratios to theirs: the mean is
    kept, and a sample twice its size's mean makes mass at twice every mean."""
    sizes = np.array([0, 1, 1, 2, 2, 2])
    times = np.array([100.0, 200.0, 200.0, 300.0, 300.0, 600.0])
    table = fit(Samples(sizes, times), 2, min_samples=1)
    pm = table.pmfs(1e-9, "measured")
    for mean, p in zip(table.mean_ns, pm):
        assert p.mean() == pytest.approx(mean, rel=0.01)
    assert pm[1].p[300] > 0          # size 2's 600 ns is 1.5 its mean: 300 ns at size 1


def test_the_egress_link_serialises_each_batch():
    """A packet waits behind the packets of its batch sent before it: its place is uniform
    over the size-biased batch, so the mean wait is τ (E[N²]/E[N] - 1) / 2 (τ: a 64 B frame
    at 10 Gbps, 67.2 ns); batches of one packet wait for nothing."""
    from types import SimpleNamespace

    dt = 1e-9
    v = np.zeros(17)
    v[[0, 4, 16]] = [0.5, 0.3, 0.2]
    r = SimpleNamespace(batch_size=v, queue=SimpleNamespace(dt_s=dt))
    w = latency.egress(r, 64, 10.0)
    n = np.arange(17)
    tau_steps = 67.2e-9 / dt
    want = tau_steps * ((n**2 @ v) / (n @ v) - 1) / 2
    assert w.sum() == pytest.approx(1.0)
    assert np.arange(w.size) @ w == pytest.approx(want, rel=0.01)
    v1 = np.zeros(17)
    v1[[0, 1]] = 0.5
    assert latency.egress(SimpleNamespace(batch_size=v1, queue=r.queue), 64, 10.0).tolist() \
        == [1.0]


def test_the_egress_adds_to_the_model_not_to_the_offset(hists):
    """With the link, the model's latency grows by the batch's serialisation, and the same
    histograms need that much less offset."""
    plain = latency.validate(CONFIG, hists, SAMPLES, METHOD)
    wired = latency.validate(CONFIG, hists, SAMPLES,
                             latency.Method(arrivals="deterministic", link_gbps=10.0))
    assert wired["method"]["link_gbps"] == 10.0
    for a, b in zip(plain["rates"], wired["rates"]):
        model_a = a["predicted"]["mean_us"] - plain["offset"]["value_us"]
        model_b = b["predicted"]["mean_us"] - wired["offset"]["value_us"]
        assert model_b > model_a
    assert wired["offset"]["value_us"] < plain["offset"]["value_us"]
