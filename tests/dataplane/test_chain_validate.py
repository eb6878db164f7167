"""The data plane's own costs measured on this host (the profile's dataplane section) and a chain
predicted and measured side by side (`nfvperf chain validate`). Correctness and accounting only:
how close the prediction comes is the benchmark's (benchmarks/chain_validate.py)."""

from __future__ import annotations

import json

import pytest

from nfvperf import limits
from nfvperf.calibrate import dataplane as dp
from nfvperf.dataplane.run import stall_window
from nfvperf.hostmodel import DataplaneHost
from nfvperf.reference import output_type
from nfvperf.validation import chain as vchain
from nfvperf.validation.chain_json import EndToEnd, InstanceComparison

pytestmark = [pytest.mark.dataplane]


def test_the_measured_section_is_a_valid_one_with_every_part(host_profile):
    raw = host_profile[1]
    host = DataplaneHost.model_validate(dp.derive(raw))
    assert host.turn_us > 0 and host.slice_us > 0
    assert host.generator.overshoot_us and len(host.generator.overshoot_us) <= dp.KEEP_SAMPLES
    assert host.generator.busy_overshoot_us and \
        len(host.generator.busy_overshoot_us) <= dp.KEEP_SAMPLES
    assert set(host.stalls) == {0, 1}
    assert host.floor_us is not None and host.floor_us.p50 > 0
    # the busy NF walked its table: a packet costs it more the larger the table (alone), and
    # beside the generator it lost time to its wakes (at one size at least: over a table in
    # DRAM a busy host's noise can exceed the loss, which is then taken as none)
    probes = raw["preemption"]
    assert sorted({p["working_set"] for p in probes}) == list(dp.PREEMPT_SETS)
    assert probes[0]["alone_cycles"] < probes[-1]["alone_cycles"]
    assert host.preemption is not None and min(host.preemption.lost_us) >= 0
    assert max(host.preemption.lost_us) > 0
    for run in raw["runs"]:
        gen, vs = run["gen"], run["vswitch"]
        # the vSwitch's stages saw every packet: rx what came in, flush what went out
        assert vs["stages"]["rx"]["packets"] == sum(p["rx"] for p in vs["ports"])
        assert gen["naps"]["count"] >= len(gen["naps"]["samples"])
        assert sum(n for _, _, n in gen["latency_ns"]["hist"]) == gen["latency_ns"]["count"]
        # the vSwitch's own stalls: each over the threshold, ended on the shared TSC; those
        # read in the traffic's window lie within it
        st = vs["stalls"]
        assert len(st["durations_us"]) == len(st["end_tsc"]) == min(st["count"],
                                                                    limits.STALLS_KEPT)
        # (to the tenth of a µs, as the vSwitch prints them)
        assert all(x >= limits.STALL_GAP_US - 0.1 for x in st["durations_us"])
        assert gen["start_tsc"] < gen["end_tsc"]
        inside, secs = stall_window(vs, gen)
        assert set(inside) <= set(st["durations_us"])
        assert secs == pytest.approx((gen["end_tsc"] - gen["start_tsc"]) / gen["tsc_hz"])
    # the vSwitch's CPU: its stalls as its loop saw them in those runs, not the probe's
    seen = [x for r in raw["runs"] for x in stall_window(r["vswitch"], r["gen"])[0]]
    assert host.stalls[0].durations_us == dp.quantiles(seen, dp.KEEP_SAMPLES // 2)


def test_a_profile_with_the_section_loads_and_prices_a_chain(host_profile, tmp_path, cli):
    prof = host_profile[0]
    chain = tmp_path / "c.yaml"
    chain.write_text("name: r\nservices: [{nf: router}]\nheaders:\n"
                     "  dst_ip: {base: 10.0.0.1, step: 256, count: 4096}\n"
                     "traffic: [{frame_bytes: 64, rate_pps: 20000, flows: 4}]\n")
    code, out, err = cli("chain", "simulate", str(chain), "-p", str(prof), "--host",
                         "--duration", "0.2", "-f", "json")
    assert code == 0, err
    assert json.loads(out)["loss_pct"] < 5
    code, out, err = cli("chain", "validate", str(chain), "-p", str(prof), "--runs", "1",
                         "--duration", "0.3", "-f", "json", "--report",
                         str(tmp_path / "r.html"))
    assert code == 0, err
    d = json.loads(out)
    output_type("nfvperf chain validate").validate_python(d)   # the reference's every field
    (p,) = d["points"]
    (per_s,), (share,) = p["vswitch_stalls_per_s"], p["vswitch_stall_share"]
    assert per_s >= 0 and 0 <= share < 1
    for q in ("delivered_mpps", "loss_pct", "latency_mean_us", "latency_p99_us"):
        assert set(p["end_to_end"][q]) >= {"predicted", "measured", "error", "within",
                                            "spread", "repeatable"}
        # one run agrees with itself
        assert p["end_to_end"][q]["repeatable"] is True
    # the router has a route for every destination: nothing dropped by design on either side
    assert p["end_to_end"]["loss_pct"]["measured"] < 5
    (inst,) = p["services"][0]["instances"]
    assert inst["cycles_per_packet"]["measured"] > 0 and inst["cycles_per_packet"]["predicted"] > 0
    assert p["cdf"]["measured"][-1][1] == pytest.approx(1.0)
    # each run's checks before it, as a number or unknown
    assert len(p["placement_ratio"]) == len(p["core_ratio"]) == len(p["lookup_cycles"]) == 1
    assert len(p["io_cycles"][0]) == 2 and len(p["cache_scale"]) == 1
    assert p["core_ratio"][0] is None or p["core_ratio"][0] > 0
    assert "<img" in (tmp_path / "r.html").read_text()


def test_the_json_types_name_the_quantities_compared():
    assert tuple(EndToEnd.__annotations__) == vchain.END_TO_END
    assert tuple(InstanceComparison.__annotations__)[1:] == vchain.PER_INSTANCE


def test_the_json_types_quote_the_limits_the_code_applies():
    """The reference gives the shared-core and tolerance limits as numbers: the code's."""
    from pydantic import TypeAdapter

    from nfvperf.calibrate.placement import SHARED_CORE_STEP
    from nfvperf.validation.chain_json import ChainValidation
    from nfvperf.validation.dataplane import TOLERANCE_PCT
    from nfvperf.validation.dataplane_json import ValidationRow

    point = TypeAdapter(ChainValidation).json_schema()["$defs"]["Point"]["properties"]
    row = TypeAdapter(ValidationRow).json_schema()["properties"]
    assert f"above {SHARED_CORE_STEP:g} " in point["core_ratio"]["description"]
    assert f"above {SHARED_CORE_STEP:g}:" in row["core_ratio"]["description"]
    assert f"the {TOLERANCE_PCT} % tolerance" in row["gap_causes"]["description"]


def test_a_profile_without_the_section_is_refused_before_anything_runs(tmp_path, cli):
    chain = tmp_path / "c.yaml"
    chain.write_text("services: [{nf: forward}]\n")
    code, out, err = cli("chain", "validate", str(chain), "-p", "xeon-e5-2690v2")
    assert (code, out) == (2, "")
    assert err.strip() == ("nfvperf: error: --platform: expected a profile with a dataplane "
                           "section (run `nfvperf calibrate` on this host), found "
                           "\"xeon-e5-2690v2\"")
