"""Both back ends of one chain fill one record: the simulator's prediction and the data plane's
measurement of the same chain file have the same keys, with the same meaning, and both count
every packet (offered = delivered + dropped + in flight, per instance, class and chain)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nfvperf.chain import ChainSpec, load_chain
from nfvperf.eo.platform import load_platform
from nfvperf.sim.chain import simulate_chain
from nfvperf.sim.options import SimOptions

CHAINS = sorted(p for p in (Path(__file__).resolve().parents[2] / "examples" / "chains")
                .glob("*.yaml") if not p.name.endswith(".sim.yaml"))
PLATFORM = load_platform("xeon-e5-2690v2")
#: NFs the data plane's generic traffic passes through or that drop it (router, l2fwd: no
#: route or entry for it), each with an EO model for the simulator
NFS = ("nat", "ids", "learnsw", "router", "l2fwd")


def key_paths(d, prefix: str = "") -> set[str]:
    """Every key of a JSON document as a dotted path, list items merged (``services[].name``)."""
    out = set()
    if isinstance(d, dict):
        for k, v in d.items():
            out |= {prefix + k} | key_paths(v, f"{prefix}{k}.")
    elif isinstance(d, list):
        for v in d:
            out |= key_paths(v, prefix[:-1] + "[].")
    return out


def assert_conserved(r: dict) -> None:
    for s in r["services"]:
        for i in s["instances"]:
            assert min(i["delivered"], i["dropped"], i["ring_full"], i["in_flight"]) >= 0, i
            assert i["offered"] == i["delivered"] + i["dropped"] + i["in_flight"], i
            assert i["dropped"] >= i["ring_full"], i
        for k in ("offered", "delivered", "dropped"):
            assert s[k] == sum(i[k] for i in s["instances"]), (s["name"], k)
    for c in r["classes"]:
        assert 0 <= c["delivered"] <= c["offered"], c
        if c["dropped"] is not None:
            assert c["offered"] == c["delivered"] + c["dropped"] + c["in_flight"], c
    assert r["offered_packets"] == sum(c["offered"] for c in r["classes"])
    assert r["delivered_packets"] == sum(c["delivered"] for c in r["classes"])
    dropped = sum(v for v in r["dropped"].values() if v is not None)
    assert r["offered_packets"] == r["delivered_packets"] + dropped + r["in_flight"], r["dropped"]


def _service(nf: str, instances: int, policy: str) -> dict:
    return {"nf": nf, "instances": instances, "policy": policy,
            "args": ["--public-ip", "192.0.2.1{k}"] if nf == "nat" else []}


@st.composite
def chains(draw, max_pps: float = 2e5) -> ChainSpec:
    services = []
    for _ in range(draw(st.integers(1, 3))):
        nf = draw(st.sampled_from(NFS))
        stateless = nf in ("router", "l2fwd")
        policy = draw(st.sampled_from(["flow", "nf-aware", "weighted"]
                                      + (["round-robin"] if stateless else [])))
        services.append(_service(nf, draw(st.integers(1, 3)), policy))
    for s in services:
        if s["policy"] == "weighted":
            s["weights"] = draw(st.lists(st.integers(0, 5), min_size=s["instances"],
                                         max_size=s["instances"]).filter(lambda w: sum(w)))
    traffic = [{"frame_bytes": draw(st.sampled_from([64, 128, 512, 1518])),
                "rate_pps": draw(st.floats(1e3, max_pps)), "flows": draw(st.integers(1, 300))}
               for _ in range(draw(st.integers(1, 2)))]
    scale = []
    if draw(st.booleans()):
        i = draw(st.integers(0, len(services) - 1))
        scale = [{"at_s": 0.05, "service": i, "instances": draw(st.integers(1, 3))}]
        if services[i]["policy"] == "weighted":
            scale[0]["weights"] = [1] * scale[0]["instances"]
    return ChainSpec.model_validate({"services": services, "traffic": traffic,
                                     "scale": scale})


@given(chains(max_pps=3e6))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_the_simulator_counts_every_packet_of_any_chain(spec):
    """Loads up to overload, every policy, scale events: nothing is lost from the books."""
    r = simulate_chain(spec, PLATFORM, SimOptions(seed=1), duration_s=0.1).to_dict()
    assert_conserved(r)
    # the simulator drains its queues at the end: what was offered was delivered or dropped
    # (its in_flight is what the books leave over, so this is what makes them balance)
    assert r["in_flight"] == 0
    assert all(c["in_flight"] == 0 for c in r["classes"])
    assert all(i["in_flight"] == 0 for s in r["services"] for i in s["instances"])


@pytest.mark.dataplane
@pytest.mark.slow
@pytest.mark.parametrize("path", CHAINS, ids=lambda p: p.stem)
def test_a_chain_file_through_both_back_ends(dataplane, path):
    spec = load_chain(path, runnable=True)
    _both(spec, duration_s=1.0)


@pytest.mark.dataplane
@pytest.mark.slow
@given(chains(max_pps=3e4))
@settings(max_examples=4, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
def test_drawn_chains_through_both_back_ends(dataplane, spec):
    """Light loads only (a busy 2-CPU machine carries them): conservation and the contract are
    checked, not rates."""
    _both(spec, duration_s=0.3)


def _both(spec: ChainSpec, duration_s: float) -> None:
    from nfvperf.dataplane.chain import run_chain

    predicted = simulate_chain(spec, PLATFORM, duration_s=duration_s).to_dict()
    measured = run_chain(spec, duration_s=duration_s).to_dict()
    assert (predicted["backend"], measured["backend"]) == ("simulator", "dataplane")
    assert key_paths(predicted) == key_paths(measured)
    # the host's stalls of the vSwitch's CPU: counted by the data plane, null from the model
    assert set(predicted["vswitch_stalls"].values()) == {None}
    st = measured["vswitch_stalls"]
    assert st["count"] >= 0 and st["per_s"] >= 0 and 0 <= st["time_share"] < 1
    assert len(st["durations_us"]) >= min(st["count"], 1)
    for r in (predicted, measured):
        assert_conserved(r)
        assert [len(s["instances"]) for s in r["services"]] == \
            [spec.most_instances(i) for i in range(len(spec.services))]
