"""The model of Geissler et al. Sec. 3: steady state of Eq. 1 and the KPIs of Eq. 2-9."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nfvperf.batching.distributions import deterministic, poisson
from nfvperf.batching.arrivals import interarrival
from nfvperf.batching.model import BatchQueue
from nfvperf.errors import InputError

DT = 1e-8


def queue(L=64, beta=16, load=0.5, kind="poisson", base_ns=300.0, per_ns=70.0, svc=poisson):
    service = tuple(svc((base_ns + per_ns * i) / 10) for i in range(beta + 1))
    cap = beta / ((base_ns + per_ns * beta) * 1e-9)
    return BatchQueue(L, beta, interarrival(kind, load * cap, DT) if load else None, service, DT)


def check_pmfs(r):
    for p in (r.q_embedded, r.batch_size, r.queue_at_arrival, r.queue_random, r.waiting,
              r.sojourn, r.service_all):
        assert p.sum() == pytest.approx(1, abs=1e-9)
        assert np.all(p >= 0)


def test_converges_and_reports_it():
    r = queue(L=256, beta=32, load=0.8).solve()
    check_pmfs(r)
    d = r.to_dict()
    assert d["residual"] < 1e-12 and d["iterations"] >= 0
    assert len(d["batch_size_pmf"]) == 33


def test_zero_load():
    """No arrivals: every poll is empty, nothing is lost, a packet would wait R_S of b_0."""
    r = queue(load=0).solve()
    check_pmfs(r)
    assert r.mean_batch_size == 0 and r.loss_probability == 0
    assert r.queue_random[0] == pytest.approx(1)
    b0 = r.queue.service[0]
    assert r.to_dict()["mean_waiting_time_us"] == pytest.approx(
        b0.recurrence().mean() * DT * 1e6, rel=1e-9)


@pytest.mark.parametrize("load", [1.2, 2.0])
def test_overload_loses_the_excess(load):
    """ρ > 1 with a large queue: batches are always full and the server passes β per E[B_β],
    so the loss is 1 - 1/ρ."""
    r = queue(L=1024, beta=16, load=load).solve()
    check_pmfs(r)
    assert r.mean_batch_size == pytest.approx(16, abs=1e-6)
    assert r.loss_probability == pytest.approx(1 - 1 / load, abs=1e-4)


def test_littles_law():
    """Mean queue at random times = accepted rate × mean waiting time (queue residence)."""
    for load in (0.3, 0.9):
        q = queue(L=256, beta=32, load=load)
        d = q.solve().to_dict()
        lam = d["arrival_rate_mpps"] * (1 - d["loss_probability"])
        assert d["mean_queue_size"] == pytest.approx(lam * d["mean_waiting_time_us"], rel=0.02)


def test_batch_size_is_queue_size_capped_at_beta_eq_2():
    r = queue(L=128, beta=16, load=0.95).solve()
    assert np.allclose(r.batch_size[:16], r.q_embedded[:16])
    assert r.batch_size[16] == pytest.approx(r.q_embedded[16:].sum())


def test_deterministic_service_and_arrivals_settle_on_one_batch_size():
    """With constant service and arrival times the queue locks on a fixed point: one batch size
    carries almost all the mass (Sec. 5.1.2: 'one peak')."""
    r = queue(L=256, beta=32, load=0.6, kind="deterministic", svc=deterministic).solve()
    assert r.batch_size.max() > 0.5


def test_bad_inputs():
    with pytest.raises(InputError, match="L ≥ β"):
        queue(L=8, beta=16)
    with pytest.raises(InputError, match="β ≥ 1"):
        BatchQueue(8, 0, None, (poisson(1),), DT)
    with pytest.raises(InputError, match="batch sizes 0..2"):
        BatchQueue(8, 2, None, (poisson(1),), DT)


@settings(max_examples=25, deadline=None)
@given(L=st.integers(4, 80), beta=st.integers(1, 12), load=st.floats(0.05, 1.8),
       kind=st.sampled_from(["poisson", "geometric", "deterministic", "negbin:1.5"]))
def test_invariants(L, beta, load, kind):
    """pmfs sum to 1, loss in [0, 1] and not rising with L, mean batch not falling with load."""
    beta = min(beta, L)
    try:
        q = queue(L=L, beta=beta, load=load, kind=kind, base_ns=100, per_ns=40)
    except InputError:          # negbin CV below Poisson's for this mean
        return
    r = q.solve()
    check_pmfs(r)
    assert 0 <= r.loss_probability <= 1
    bigger = queue(L=2 * L, beta=beta, load=load, kind=kind, base_ns=100, per_ns=40).solve()
    assert bigger.loss_probability <= r.loss_probability + 1e-9
    heavier = queue(L=L, beta=beta, load=load * 1.2, kind=kind, base_ns=100, per_ns=40).solve()
    assert heavier.mean_batch_size >= r.mean_batch_size - 1e-9
