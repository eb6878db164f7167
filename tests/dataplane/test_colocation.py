"""validate colocation: the slowdown arithmetic, and a short run beside a neighbour on this
host (needs the data plane)."""

from __future__ import annotations

import json

import pytest
from nfvperf.reference import output_type
from nfvperf.validation.colocation import _row
from nfvperf.validation.workloads import Workload


def test_slowdowns_pair_each_run_with_the_run_alone_on_the_same_placement():
    def run(measured, predicted, trip, moves=0):
        return {"measured": measured, "predicted": predicted, "trip": trip, "shared": True,
                "loads_per_s": [1e7], "moves": moves}

    alone = [run(100, 80, 80), run(100, 80, 85), run(400, 300, 400)]
    beside = [run(150, 100, 82), run(120, 96, 84, moves=2), run(100, 90, 84)]
    w = Workload("t")
    r = _row("a", w, 1, 64, 1 << 20, beside, alone)
    # the third run moved (400 -> 84 cycles a trip): it is not a pair
    assert r["paired_runs"] == 2
    assert r["measured_slowdown_pct"] == pytest.approx(35)       # median of +50 %, +20 %
    assert r["predicted_slowdown_pct"] == pytest.approx(22.5)    # of +25 %, +20 %
    assert r["error_points"] == pytest.approx(-12.5)
    assert r["measured_cycles"] == 120 and r["measured_cycles_runs"] == [150, 120, 100]
    assert r["placement_moves"] == 2
    lone = _row("a", w, 1, 64, 1 << 20, beside[2:], alone[2:])
    assert lone["paired_runs"] == 0 and lone["error_points"] is None


def test_a_profile_without_the_stall_term_is_refused(cli):
    code, out, err = cli("validate", "colocation", "--platform", "xeon-e5-2690v2")
    assert code == 2 and err.count("\n") == 1 and "memory_stalls" in err


@pytest.mark.dataplane
def test_an_nf_beside_a_neighbour(dataplane, cli, tmp_path):
    profile = tmp_path / "host.yaml"
    code, _, err = cli("calibrate", "--quick", "--no-dataplane", "-o", str(profile))
    assert code == 0, err
    code, out, err = cli("validate", "colocation", "--platform", str(profile), "--nf", "nat",
                         "--neighbours", "0,1", "--neighbour-bytes", "8MB", "--runs", "1",
                         "-f", "json")
    assert code == 0, err
    rows = json.loads(out)
    output_type("nfvperf validate colocation").validate_python(rows)
    assert [r["neighbours"] for r in rows] == [0, 1, 0, 1]       # 1 flow, then 4096 flows
    for r in rows:
        assert r["measured_cycles"] > 0 and r["predicted_cycles"] > 0
        assert len(r["neighbour_loads_per_s"]) == r["neighbours"]
        assert all(x > 0 for x in r["neighbour_loads_per_s"])
    # a run alone is its own pair: no slowdown
    assert rows[0]["paired_runs"] == 1 and rows[0]["measured_slowdown_pct"] == 0
