"""The planner's integer program: the aggregate constraints keep every plan and make
large plans provable; each resource may be lifted to say what binds; infeasible plans name the
resource without which one exists."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nfvperf.plan.capacity import Capacity
from nfvperf.plan.program import NoPlanInTime, Pool, build, solve
from nfvperf.plan.solve import Infeasible, plan
from nfvperf.plan.spec import PlanSpec, load_plan

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "plans"


@st.composite
def problems(draw):
    """Small plans with made-up capacities: 1-2 host kinds of 1-3 hosts, 1-2 sockets, 2-6
    cores; 1-2 chains of 1-3 services; capacities (remote or not) and DRAM accesses drawn."""
    kinds = draw(st.integers(1, 2))
    hosts = [{"name": f"h{k}", "platform": "xeon-e5-2690v2", "count": draw(st.integers(1, 3)),
              "ports": 8, "link_gbps": 100} for k in range(kinds)]
    chains = [{"name": f"c{c}",
               "services": [{"nf": "l2fwd@paper"}] * draw(st.integers(1, 3)),
               "traffic": [{"frame_bytes": 64, "rate_mpps": draw(st.integers(1, 40))}]}
              for c in range(draw(st.integers(1, 2)))]
    spec = PlanSpec.model_validate({"hosts": hosts, "chains": chains})
    pool = Pool(cores={h["name"]: draw(st.integers(2, 6)) for h in hosts},
                sockets={h["name"]: draw(st.integers(1, 2)) for h in hosts},
                nic_bps={h["name"]: draw(st.sampled_from([50e9, 800e9])) for h in hosts},
                dram_per_s={h["name"]: draw(st.sampled_from([40e6, 1e9])) for h in hosts})
    caps = {}
    for c, ch in enumerate(spec.chains):
        for s in range(len(ch.services)):
            for h in hosts:
                for remote in (False, True):
                    mpps = draw(st.integers(2, 12))
                    caps[c, s, h["name"], remote] = Capacity(
                        "nf", 100.0, 1e9, 1e7, draw(st.sampled_from([0.0, 1.0, 3.0])),
                        mpps * 1e6, None)
    return spec, caps, pool


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems())
def test_the_aggregate_constraints_keep_the_least_cost(problem):
    """With the implied constraints CP-SAT proves a least cost; without them (a weaker bound,
    given 3 s) it finds no cheaper plan — a cut that removed a plan could only raise the cost —
    and proves no higher bound; where it proves its optimum, the same."""
    spec, caps, pool = problem
    try:
        cut = solve(build(spec, caps, pool), 20.0, tie_break=False)
    except Infeasible:
        with pytest.raises(Infeasible):
            solve(build(spec, caps, pool, implied=False), 20.0, tie_break=False)
        return
    assert cut.optimal
    try:
        plain = solve(build(spec, caps, pool, implied=False), 3.0, tie_break=False)
    except NoPlanInTime:
        return
    assert plain.cost >= cut.cost - 1e-9 and plain.bound <= cut.cost + 1e-9
    if plain.optimal:
        assert plain.cost == cut.cost


def test_the_data_centre_example_is_proved_optimal():
    """60 hosts of two kinds, seed 004's two chains: CP-SAT proves the plan's cost least well
    within the limit (without the aggregate constraints its bound stayed 15 % below)."""
    r = plan(load_plan(EXAMPLES / "datacentre.yaml"), time_limit_s=30)
    assert r["optimal"] and r["cost_lower_bound"] == pytest.approx(r["cost"])
    # the cost is what the plan uses: cores, hosts, hops
    assert r["cost"] == pytest.approx(r["cores"] + 4 * sum(r["hosts"].values())
                                      + 2 * r["hops_host"] + 0.5 * r["hops_socket"])
    for chain in r["chains"]:
        for svc in chain["services"]:
            carried = sum(p["instances"] * p["pps_per_instance"] for p in svc["placement"])
            assert carried == pytest.approx(chain["demand_mpps"] * 1e6)
            for p in svc["placement"]:       # never past what meets the targets
                assert p["pps_per_instance"] <= p["max_pps_per_instance"] * (1 + 1e-9)
            assert svc["loss"] <= 1e-5
        assert chain["latency_p99_us"] <= chain["latency_target_us"]
        # lost at any of its services: at least at the worst, at most the sum
        losses = [svc["loss"] for svc in chain["services"]]
        assert max(losses) <= chain["loss"] <= math.fsum(losses) * (1 + 1e-12) <= 5e-5
    for u in r["usage"]:
        assert u["cores_used"] <= u["cores"] and u["memory_pct"] <= 100 and u["links_pct"] <= 100


def test_an_infeasible_plan_names_the_resource_without_which_one_exists():
    """A chain of two services at 60 Gbps over two hosts of 2 × 25 Gbps: no host carries it
    whole, and split over both each packet may enter a host once per service (2 × 60 Gbps in
    all, more than the 100 the NICs have), though the cores, the memory and the NICs in all
    (60 of 100 Gbps) would do: only the links stand in the way."""
    spec = PlanSpec.model_validate({
        "hosts": [{"name": "x", "platform": "xeon-e5-2690v2", "count": 2, "ports": 2,
                   "link_gbps": 25}],
        "chains": [{"name": "a", "services": [{"nf": "l2fwd@paper"}] * 2,
                    "traffic": [{"frame_bytes": 1518, "rate_gbps": 60}]}]})
    with pytest.raises(Infeasible) as exc:
        plan(spec)
    assert exc.value.reasons == ("the hosts' NICs bind: without their limit a plan exists",)


def test_a_search_out_of_time_is_not_the_inputs_fault():
    from nfvperf.errors import NfvperfError
    from nfvperf.plan.program import NoPlanInTime

    late, none = NoPlanInTime(("no plan found in 1 s",)), Infeasible(("links",))
    assert isinstance(late, NfvperfError) and isinstance(none, NfvperfError)
    assert (late.exit_code, none.exit_code) == (1, 2)
    assert str(none) == "plan: expected hosts and targets that allow a plan; what binds: links"
