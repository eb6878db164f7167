"""The planner: per-instance capacity from the estimator and the batching model,
instances and hosts from CP-SAT, and what binds when nothing fits."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from nfvperf.eo.platform import load_platform
from nfvperf.plan.capacity import capacity
from nfvperf.plan.solve import Infeasible, plan
from nfvperf.plan.spec import PlanSpec
from nfvperf.reference import output_type

PLAN_RESULT = output_type("nfvperf plan")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "plans" / "bng-10g.yaml"
XEON = load_platform("xeon-e5-2690v2")


def spec(**kw) -> PlanSpec:
    # NICs large enough that cores, not links, bind (see the NIC test for links)
    base = {"hosts": [{"name": "x", "platform": "xeon-e5-2690v2", "count": 2, "ports": 8,
                       "link_gbps": 100}],
            "chains": [{"name": "c", "services": [{"nf": "l2fwd@paper"}],
                        "traffic": [{"frame_bytes": 64, "rate_mpps": 40}],
                        "targets": {"loss": 1e-5, "latency_p99_us": 100}}]}
    base.update(kw)
    return PlanSpec.model_validate(base)


def test_an_instance_carries_less_than_its_core_and_less_under_stricter_targets():
    p = spec()
    loose = capacity(p, p.chains[0], 0, XEON)
    assert 0 < loose.max_pps <= loose.cpu_pps == pytest.approx(XEON.cpu.clock_hz
                                                               / loose.cycles_per_packet)
    strict = spec(chains=[{**p.chains[0].model_dump(), "targets": {"loss": 1e-9,
                                                                   "latency_p99_us": 2}}])
    assert capacity(strict, strict.chains[0], 0, XEON).max_pps < loose.max_pps


def test_instances_are_the_demand_over_what_one_may_carry_and_each_meets_the_targets():
    p = spec()
    r = plan(p)
    cap = capacity(p, p.chains[0], 0, XEON)
    (svc,) = r["chains"][0]["services"]
    assert svc["instances"] == math.ceil(40e6 / cap.max_pps) == r["cores"]
    assert r["hosts"] == {"x": 1}                # one host holds them: a second costs more
    assert svc["loss"] <= 1e-5 and svc["latency_p99_us"] <= 100
    assert r["optimal"]


def test_more_than_one_host_when_one_has_too_few_cores():
    hosts = [{"name": "x", "platform": "xeon-e5-2690v2", "count": 2, "cores": 2, "ports": 8,
              "link_gbps": 100}]
    r = plan(spec(hosts=hosts, chains=[{"name": "c", "services": [{"nf": "bng@paper"}],
                                        "traffic": [{"frame_bytes": 64, "rate_mpps": 20}]}]))
    assert r["hosts"] == {"x": 2} and r["cores"] == 3 and r["optimal"]
    assert "cores of x-0: all 2 in use" in r["binding"]


def test_a_hosts_memory_serves_its_instances_dram_accesses():
    """The estimator's memory bound (Baldi & Sapio Sec. 4, the BNG "limited by the memory
    latency"): l2 forwarding makes a DRAM access a packet, 111.08 M a second on the Xeon. 150
    Mpps need 10 of one host's 20 cores but more accesses than its memory serves."""
    r = plan(spec(chains=[{"name": "c", "services": [{"nf": "l2fwd@paper"}],
                           "traffic": [{"frame_bytes": 64, "rate_mpps": 150}]}]), explain=True)
    cap = capacity(spec(), spec().chains[0], 0, XEON)
    assert r["cores"] == math.ceil(150e6 / cap.max_pps) <= XEON.cores
    assert r["hosts"] == {"x": 2}
    for host in ("x-0", "x-1"):              # the accesses of the packets each host carries
        carried = sum(p["instances"] * p["pps_per_instance"] * p["dram_per_packet"]
                      for p in r["chains"][0]["services"][0]["placement"] if p["host"] == host)
        assert carried <= 111.09e6
    assert all(u["memory_pct"] <= 100 for u in r["usage"])
    binds = {x["resource"]: x for x in r["resources"]}
    assert binds["memory"]["binds"] and binds["memory"]["cost_without"] < r["cost"]
    assert binds["cores"]["binds"] is False and binds["links"]["binds"] is False
    assert binds["memory"]["says"] in r["binding"]
    with pytest.raises(Infeasible, match=r"memory: the chains make 400 M DRAM accesses a "
                                         r"second, the hosts' memories serve 222.2 M"):
        plan(spec(chains=[{"name": "c", "services": [{"nf": "l2fwd@paper"}],
                           "traffic": [{"frame_bytes": 64, "rate_mpps": 400}]}]))


def test_what_binds_when_nothing_fits():
    with pytest.raises(Infeasible, match="cores: the chains need at least"):
        plan(spec(chains=[{"name": "c", "services": [{"nf": "l2fwd@paper"}],
                           "traffic": [{"frame_bytes": 64, "rate_mpps": 2000}]}]))
    with pytest.raises(Infeasible, match="no load meets the targets .*p99 ≤ 0.01 µs"):
        plan(spec(chains=[{"name": "c", "services": [{"nf": "bng@paper"}],
                           "traffic": [{"frame_bytes": 64, "rate_mpps": 1}],
                           "targets": {"latency_p99_us": 0.01}}]))


def test_plan_cli_on_the_bng_example(cli):
    """The paper's BNG at 10 Gbps of 64 B frames on its platform: the cores it needs."""
    code, out, err = cli("plan", str(EXAMPLE), "-f", "json")
    assert code == 0, err
    r = json.loads(out)
    (svc,) = r["chains"][0]["services"]
    assert r["chains"][0]["demand_mpps"] == pytest.approx(10e9 / (84 * 8) / 1e6)
    assert svc["instances"] == r["cores"] == 3
    PLAN_RESULT.validate_python(r)                  # every field the reference lists
    assert r["optimal"] and r["cost_lower_bound"] == pytest.approx(r["cost"])
    code, out, err = cli("plan", str(EXAMPLE), "--explain", "-f", "json")
    assert code == 0, err
    r = json.loads(out)
    PLAN_RESULT.validate_python(r)
    # 3 cores of a 20-core host, 52 M of its 111 M DRAM accesses a second, 10 of its 20 Gbps
    assert [(x["resource"], x["binds"]) for x in r["resources"]] == [
        ("cores", False), ("memory", False), ("links", False)]
    assert r["usage"] == [pytest.approx({"host": "xeon-0", "kind": "xeon", "cores_used": 3,
                                         "cores": 20, "memory_pct": r["usage"][0]["memory_pct"],
                                         "links_pct": 50.0})]
    code, out, err = cli("plan", str(EXAMPLE), "--explain")
    assert code == 0 and "each resource lifted" in out and "what binds" in out


def test_plan_cli_refuses_bad_files_and_explains_infeasible_ones(cli, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("hosts: [{name: x, platform: xeon-e5-2690v2}]\nchains: []\n")
    code, _, err = cli("plan", str(bad))
    assert code == 2 and err.startswith(f"nfvperf: error: {bad}:2: chains:")
    tight = tmp_path / "tight.yaml"
    tight.write_text("hosts: [{name: x, platform: xeon-e5-2690v2}]\n"
                     "chains:\n  - name: c\n    services: [{nf: bng@paper}]\n"
                     "    traffic: [{frame_bytes: 64, rate_gbps: 1000}]\n")
    code, _, err = cli("plan", str(tight))
    assert code == 2 and "cores: the chains need at least" in err and len(err.splitlines()) == 1


def test_plan_and_chain_files_have_a_json_schema_the_examples_meet(cli):
    import jsonschema
    import yaml

    code, out, err = cli("schema", "plan")
    assert code == 0, err
    jsonschema.validate(yaml.safe_load(EXAMPLE.read_text()), json.loads(out))
    code, out, _ = cli("schema", "chain")
    assert "services" in json.loads(out)["properties"]


def test_plan_files_name_models_relative_to_themselves(cli):
    """The seed-004 chain with the data plane's NAT and IDS models (paths relative to the plan
    file): the IDS, whose cost follows the payload bytes, needs most of the cores."""
    code, out, err = cli("plan", str(EXAMPLE.with_name("nat-ids.yaml")), "-f", "json")
    assert code == 0, err
    nat, ids = json.loads(out)["chains"][0]["services"]
    assert (nat["nf"], ids["nf"]) == ("nat", "ids")
    assert ids["instances"] > 5 * nat["instances"] >= 5
    # the split is balanced: every IDS instance equally busy, on either socket
    shares = [p["pps_per_instance"] / p["max_pps_per_instance"] for p in ids["placement"]]
    assert max(shares) - min(shares) < 0.01


def test_the_second_socket_reads_from_the_nics_socket():
    """More instances than socket 0 has cores: the rest go to socket 1, where the estimator
    prices every packet as a remote read (Sec. 4.2: its cache lines DRAM accesses), so an
    instance there makes more DRAM accesses; the chain then spans two sockets of one host (one
    socket hop, no host hop)."""
    hosts = [{"name": "x", "platform": "xeon-e5-2690v2", "count": 2, "cores": 4, "ports": 8,
              "link_gbps": 100}]
    r = plan(spec(hosts=hosts, chains=[{"name": "c", "services": [{"nf": "bng@paper"}],
                                        "traffic": [{"frame_bytes": 64, "rate_mpps": 20}]}]))
    rows = r["chains"][0]["services"][0]["placement"]
    local = [p for p in rows if p["socket"] == 0]
    remote = [p for p in rows if p["socket"] == 1]
    assert local and remote and local[0]["instances"] == 2 and remote[0]["instances"] == 1
    assert remote[0]["dram_per_packet"] > local[0]["dram_per_packet"]
    assert (r["hops_host"], r["hops_socket"]) == (0, 1)


@pytest.mark.dataplane
def test_validate_runs_a_one_host_plan_on_the_data_plane(host_profile, cli, tmp_path):
    """`plan --validate`: the seed-004 chain planned, scaled to this machine's one NF core and
    run; predictions (batching model on this host's profile) beside the measurements."""
    path = tmp_path / "p.yaml"
    path.write_text("""\
hosts: [{name: xeon, platform: xeon-e5-2690v2}]
chains:
  - name: c
    services: [{nf: nat}, {nf: ids}]
    traffic: [{frame_bytes: 1518, rate_gbps: 1}, {frame_bytes: 64, rate_mpps: 0.2}]
""")
    code, out, err = cli("plan", str(path), "--validate", "--platform", str(host_profile[0]),
                         "-f", "json")
    assert code == 0, err
    rows = json.loads(out)["validation"]
    assert [r["nf"] for r in rows] == ["nat", "ids"]
    for r in rows:
        assert r["measured_loss"] is not None and r["measured_cycles_per_packet"] > 0
        assert r["predicted_p99_us"] > 0 and r["offered_mpps"] > 0
        # the chain simulator's prediction of the same run, beside the planner's
        assert r["chain_predicted_p99_us"] > 0 and r["chain_measured_p99_us"] > 0
    code, _, err = cli("plan", str(path), "--validate", "--platform", "xeon-e5-2690v2")
    assert code == 2 and "run `nfvperf calibrate`" in err
    code, _, err = cli("plan", str(path), "--validate")
    assert code == 2 and "--platform with this host's profile" in err


def test_a_hosts_nics_bound_the_chains_it_serves():
    """The paper's Xeon has 2 ports of 10 Gbps. A chain of 30 Gbps fits no one host: its
    traffic is split over instances on two (each host's NICs carry its part); 50 Gbps exceed
    all the hosts' NICs (one line says so); two chains of 15 Gbps go to two hosts even though
    one host has the cores (each enters and leaves its host whole)."""
    hosts = [{"name": "x", "platform": "xeon-e5-2690v2", "count": 2}]
    one = {"name": "c", "services": [{"nf": "l2fwd@paper"}]}
    r = plan(spec(hosts=hosts, chains=[{**one, "traffic": [{"frame_bytes": 1518,
                                                           "rate_gbps": 30}]}]))
    (svc,) = r["chains"][0]["services"]
    assert r["hosts"] == {"x": 2} and svc["instances"] == 2
    assert sum(p["pps_per_instance"] * p["instances"] for p in svc["placement"]) == \
        pytest.approx(30e9 / (1538 * 8))
    assert [u["links_pct"] <= 100 for u in r["usage"]] == [True, True]
    with pytest.raises(Infeasible, match="links: the chains carry 50 Gbps each way, all the "
                                         "hosts' NICs 40 Gbps"):
        plan(spec(hosts=hosts, chains=[{**one, "traffic": [{"frame_bytes": 1518,
                                                             "rate_gbps": 50}]}]))
    r = plan(spec(hosts=hosts, chains=[{"name": n, "services": [{"nf": "l2fwd@paper"}],
                                        "traffic": [{"frame_bytes": 1518, "rate_gbps": 15}]}
                                       for n in ("a", "b")]))
    assert r["hosts"] == {"x": 2} and r["cores"] == 2


def test_a_stateful_nf_keeps_each_flow_on_one_instance():
    """Flows (traffic: frame size, rate, number of flows). l2 forwarding may carry
    16.4 Mpps an instance: 40 Mpps in 2 flows of 20 cannot be served by a stateful NF (one line
    names the flow); stateless, its packets are spread and 3 instances do. In 3 flows of 13.3
    Mpps, one flow an instance: 3. In 5 flows of 8 Mpps, two flows an instance (16 of 16.4):
    3, where many small flows would need 3 as well; in 8 flows of 5 Mpps, three an instance
    (15): 3; 40 flows of 1 Mpps: 16 an instance, 3."""
    def chain(flows, stateful=True):
        return [{"name": "c", "services": [{"nf": "l2fwd@paper", "stateful": stateful}],
                 "traffic": [{"frame_bytes": 64, "rate_mpps": 40, "flows": flows}]}]

    most = capacity(spec(), spec().chains[0], 0, XEON).max_pps
    assert 13.34e6 < most < 20e6
    with pytest.raises(Infeasible, match=r"a flow of 20 Mpps is more than an instance may "
                                         r"carry \(16.\d+ Mpps within the targets\)"):
        plan(spec(chains=chain(2)))
    assert plan(spec(chains=chain(2, stateful=False)))["cores"] == 3
    for flows in (3, 5, 8, 40):
        per = math.floor(most / (40e6 / flows))              # whole flows an instance holds
        r = plan(spec(chains=chain(flows)))
        assert r["cores"] == math.ceil(flows / per)
        for p in r["chains"][0]["services"][0]["placement"]:
            assert p["pps_per_instance"] <= per * 40e6 / flows + 1


def test_several_classes_of_flows_leave_room_for_the_largest():
    """Flows of different sizes: an instance is given at most what it may carry less the
    largest flow, so that first fit places every flow."""
    from nfvperf.plan.program import whole_flows

    p = spec(chains=[{"name": "c", "services": [{"nf": "l2fwd@paper"}],
                      "traffic": [{"frame_bytes": 64, "rate_mpps": 20, "flows": 4},
                                  {"frame_bytes": 1518, "rate_mpps": 1}]}])
    assert whole_flows(16e6, p.chains[0], stateful=True) == 16e6 - 5e6
    assert whole_flows(16e6, p.chains[0], stateful=False) == 16e6
    r = plan(p)
    assert r["cores"] == math.ceil(21e6 / (capacity(p, p.chains[0], 0, XEON).max_pps - 5e6))


def test_capacities_are_computed_once_per_nf_host_mix_and_targets(monkeypatch):
    """Two chains that differ only in rate share their capacities (what an instance carries
    does not depend on the chain's rate); another mix of frame sizes does not."""
    import nfvperf.plan.solve as solve_mod

    calls = []
    real = solve_mod.capacity

    def counted(*a, **kw):
        calls.append(a[1].name)
        return real(*a, **kw)

    monkeypatch.setattr(solve_mod, "capacity", counted)
    one = {"services": [{"nf": "bng@paper"}], "traffic": [{"frame_bytes": 64, "rate_mpps": 2}]}
    p = spec(chains=[{"name": "a", **one},
                     {"name": "b", **one, "traffic": [{"frame_bytes": 64, "rate_mpps": 5}]},
                     {"name": "c", **one, "traffic": [{"frame_bytes": 512, "rate_mpps": 2}]}])
    caps, _ = solve_mod.capacities(p)
    assert calls == ["a", "a", "c", "c"]                 # socket 0 and another, per mix
    assert caps[0, 0, "x", False] is caps[1, 0, "x", False]
    assert caps[2, 0, "x", False].cycles_per_packet != caps[0, 0, "x", False].cycles_per_packet


def test_a_plans_chain_may_carry_more_flows_than_the_generator_numbers(tmp_path):
    """65 536 flows bound a run (the generator numbers them), not a plan."""
    from nfvperf.plan.spec import load_plan

    path = tmp_path / "p.yaml"
    path.write_text("hosts: [{name: x, platform: xeon-e5-2690v2}]\n"
                    "chains:\n  - name: c\n    services: [{nf: l2fwd@paper}]\n"
                    "    traffic: [{frame_bytes: 64, rate_mpps: 1, flows: 1000000}]\n")
    assert load_plan(path).chains[0].traffic[0].flows == 1_000_000
