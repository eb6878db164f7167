"""The batching model answering a chain on its own (sim.analytic): where it applies, what it
says against the chain simulator (which checks it, as Geissler et al. check their model with a
simulator, Sec. 4), and how the choice shows in the result."""

from __future__ import annotations

import json

import numpy as np
import pytest

from nfvperf.chain import ChainSpec
from nfvperf.eo.platform import load_platform
from nfvperf.errors import InputError
from nfvperf.sim.analytic import _service, predict_chain, solve_chain, why_not
from nfvperf.sim.chain import simulate_chain
from nfvperf.sim.options import Generator, SimOptions

XEON = "xeon-e5-2690v2"


def one(nf: str = "nat", rate: float = 5e6, frame: int = 64, **svc) -> ChainSpec:
    return ChainSpec.model_validate({"name": "one", "services": [{"nf": nf, **svc}],
                                     "traffic": [{"frame_bytes": frame, "rate_pps": rate,
                                                  "flows": 64}]})


def test_the_model_answers_a_single_polling_nf_on_its_own_core_only():
    assert why_not(one(), SimOptions()) is None
    two = ChainSpec.model_validate({"services": [{"nf": "nat"}, {"nf": "ids"}],
                                    "traffic": [{"frame_bytes": 64, "rate_pps": 1e5}]})
    assert why_not(two, SimOptions()) == "more than one service"
    assert why_not(one(instances=2), SimOptions()) == "more than one instance"
    gen = Generator(cpu=1, wake_us=3, packet_us=0.05, overshoot_us=[10.0])
    assert "generator" in why_not(one(), SimOptions(generator=gen))
    assert why_not(one(), SimOptions(stalls={"per_s": 1, "durations_us": [5.0]})) == \
        "the host's stalls"
    p = load_platform(XEON)
    assert predict_chain(one(), p).backend == "batching-model"
    assert predict_chain(two, p, duration_s=0.05).backend == "simulator"
    assert predict_chain(one(), p, method="simulator", duration_s=0.05).backend == "simulator"
    with pytest.raises(InputError, match="more than one service"):
        predict_chain(two, p, method="model")


@pytest.mark.parametrize("rate, arrivals", [(9e6, "poisson"), (9e6, "paced"),
                                            (14e6, "poisson"), (14e6, "paced")])
def test_the_model_and_the_simulator_agree_where_the_queue_matters(rate, arrivals):
    """The NAT on the Xeon (about 12 Mpps a core at full batches): near and beyond its
    capacity, the loss, the batches and the latency of both agree."""
    p = load_platform(XEON)
    o = SimOptions(arrivals=arrivals)
    a, s = solve_chain(one(rate=rate), p, o), simulate_chain(one(rate=rate), p, o)
    ai, si = a.services[0].instances[0], s.services[0].instances[0]
    assert a.loss_pct == pytest.approx(s.loss_pct, abs=0.2)
    assert ai.mean_batch == pytest.approx(si.mean_batch, rel=0.06)
    assert ai.cycles_per_packet == pytest.approx(si.cycles_per_packet, rel=0.02)
    if a.loss_pct > 1:          # the queue full: its latency is the queue's
        assert a.latency_us.mean == pytest.approx(s.latency_us.mean, rel=0.03)
    # what was offered is delivered or dropped, none in flight in a stationary answer
    assert a.offered_packets == a.delivered_packets + a.dropped["ring_full"]


def test_a_batch_of_a_mix_costs_its_packets_mean_and_varies():
    """Two frame sizes at 3:1: a batch of n costs its overhead plus n draws of a packet's cost
    over the mix (the mean exact on the grid); one size: a fixed time."""
    cycles, share = np.array([100.0, 500.0]), np.array([0.75, 0.25])
    over = np.array([0.0, 50.0, 80.0, 90.0])
    svc = _service(cycles, share, over, 1e9, 10e-9)        # steps of 10 cycles
    for n in range(1, 4):
        assert svc[n].mean() == pytest.approx((over[n] + n * 200.0) / 10)
        assert svc[n].var() > 0
    fixed = _service(cycles[:1], share[:1], over, 1e9, 10e-9)
    assert fixed[3].mean() == pytest.approx((90 + 300) / 10) and fixed[3].var() < 0.25


def test_what_the_nf_drops_by_design_is_dropped_in_the_models_answer_too():
    r = predict_chain(ChainSpec.model_validate({
        "services": [{"nf": "router", "args": ["--routes", "32768"]}],
        "headers": {"dst_ip": {"base": "10.0.0.1", "step": 256, "count": 65536}},
        "traffic": [{"frame_bytes": 64, "rate_pps": 1e6}]}), load_platform(XEON))
    assert r.backend == "batching-model"
    assert r.loss_pct == pytest.approx(50, abs=0.1) and r.dropped["ring_full"] == 0
    assert r.dropped["nf"] + r.delivered_packets == r.offered_packets


def test_chain_simulate_says_which_answered(cli, tmp_path):
    path = tmp_path / "one.yaml"
    path.write_text("services: [{nf: nat}]\ntraffic: [{frame_bytes: 64, rate_pps: 1e6}]\n")
    code, out, err = cli("chain", "simulate", str(path), "-f", "json")
    assert code == 0, err
    assert json.loads(out)["backend"] == "batching-model"
    code, out, err = cli("chain", "simulate", str(path), "--method", "simulator",
                         "--duration", "0.1", "-f", "json")
    assert json.loads(out)["backend"] == "simulator"
    two = tmp_path / "two.yaml"
    two.write_text("services: [{nf: nat}, {nf: nat}]\ntraffic: [{frame_bytes: 64, "
                   "rate_pps: 1e6}]\n")
    code, out, err = cli("chain", "simulate", str(two), "--method", "model")
    assert code == 2 and "more than one service" in err and len(err.strip().splitlines()) == 1
