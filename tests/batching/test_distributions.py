"""Distributions on the Δt grid, the recurrence time (Eq. 7) and X_{τ,a} against direct counting."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nfvperf.batching import distributions as D
from nfvperf.batching.arrivals import arrival_counts, counts_in, interarrival, packet_rate_pps
from nfvperf.errors import InputError

MAKERS = [D.deterministic, D.poisson, D.geometric, lambda m: D.negative_binomial(m, 2.0)]


@pytest.mark.parametrize("make", MAKERS, ids=["deterministic", "poisson", "geometric", "negbin2"])
@pytest.mark.parametrize("mean", [0.5, 6.72, 33.6, 134.4])
def test_means_sum_and_support(make, mean):
    p = make(mean)
    assert p.p.sum() == pytest.approx(1, abs=1e-12)
    assert p.mean() == pytest.approx(mean, rel=1e-9)


def test_coefficients_of_variation():
    """Sec. 5.1: Poisson's CV is 1/√E[A]; the negative binomial takes the CV it is given."""
    assert D.poisson(6.72).cv() == pytest.approx(1 / np.sqrt(6.72), rel=1e-9)
    assert D.negative_binomial(6.72, 0.5).cv() == pytest.approx(0.5, rel=1e-6)
    assert D.negative_binomial(6.72, 2.0).cv() == pytest.approx(2.0, rel=1e-6)
    assert D.geometric(100).cv() == pytest.approx(np.sqrt(101 / 100), rel=1e-9)
    assert D.deterministic(7).var() == 0


def test_negbin_needs_more_variance_than_poisson():
    with pytest.raises(InputError, match="above 1/√mean"):
        D.negative_binomial(4.0, 0.3)


@pytest.mark.parametrize("spec", ["poisson", "geometric", "deterministic", "negbin:0.5"])
def test_by_name(spec):
    assert D.by_name(spec, 10).mean() == pytest.approx(10, rel=1e-9)


@pytest.mark.parametrize("spec", ["pareto", "negbin:x", "poisson:2", ""])
def test_by_name_rejects(spec):
    with pytest.raises(InputError, match="^arrivals: expected"):
        D.by_name(spec, 10)


def test_recurrence_time_eq_7():
    """r_A(t) = (1 - A(t)) / E[A]: for a deterministic A = 4, uniform on 0..3."""
    r = D.deterministic(4).recurrence()
    assert np.allclose(r.p, [0.25] * 4)
    g = D.geometric(5.0)
    assert np.allclose(g.recurrence().p[:50], (1 - g.cdf()[:50]) / 5.0)


def test_packet_rate():
    assert packet_rate_pps(rate_bps=10e9, frame_bytes=64) == pytest.approx(14_880_952.38, rel=1e-9)
    assert packet_rate_pps(rate_pps=3e6) == 3e6
    with pytest.raises(InputError):
        packet_rate_pps(rate_bps=-1.0, frame_bytes=64)


@pytest.mark.parametrize("kind", ["poisson", "geometric", "deterministic", "negbin:2"])
def test_arrival_counts_against_direct_counting(kind, rng):
    """X_{j,a}: arrivals in j steps from an arbitrary instant, computed vs counted on a long
    renewal sample path observed at random instants."""
    a = D.by_name(kind, 7.3)
    X = arrival_counts(a, 120)
    gaps = a.sample(rng, 400_000)
    times = np.cumsum(gaps)                       # slot of each arrival
    starts = rng.integers(1000, times[-1] - 200, size=200_000)
    for j in (1, 5, 37, 120):
        lo = np.searchsorted(times, starts, side="left")
        hi = np.searchsorted(times, starts + j, side="left")
        counted = np.bincount(hi - lo, minlength=X.shape[1]) / starts.size
        n = max(counted.size, X.shape[1])
        diff = np.abs(np.pad(counted, (0, n - counted.size)) - np.pad(X[j], (0, n - X.shape[1])))
        assert diff.max() < 0.006, (kind, j)
        assert X[j] @ np.arange(X.shape[1]) == pytest.approx(j / a.mean(), rel=1e-9)


def test_counts_in_random_interval():
    a = D.poisson(10)
    X = arrival_counts(a, 200)
    tau = D.poisson(50)
    x = counts_in(tau, X)
    assert x.sum() == pytest.approx(1)
    assert x @ np.arange(x.size) == pytest.approx(tau.mean() / 10, rel=1e-6)


def test_zero_rate_has_no_arrivals():
    assert interarrival("poisson", 0.0, 1e-8) is None
    X = arrival_counts(None, 10)
    assert np.all(X[:, 0] == 1)


@settings(max_examples=50, deadline=None)
@given(st.floats(0.2, 300), st.sampled_from(["poisson", "geometric", "deterministic"]))
def test_rows_of_x_are_pmfs(mean, kind):
    X = arrival_counts(D.by_name(kind, mean), 60)
    assert np.allclose(X.sum(axis=1), 1, atol=1e-9)
    assert np.all(X >= 0)
