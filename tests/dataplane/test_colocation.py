"""validate colocation: the slowdown arithmetic, and a short run beside a neighbour on this
host (needs the data plane)."""

from __future__ import annotations

import json

import pytest

from nfvperf.validation.colocation import slowdowns


def test_slowdowns_are_against_the_same_nf_and_traffic_alone():
    rows = [{"nf": "a", "traffic": "t", "neighbours": k, "measured_cycles": m,
             "predicted_cycles": p} for k, m, p in ((0, 100, 80), (1, 150, 100), (2, 120, 96))]
    rows.append({"nf": "b", "traffic": "t", "neighbours": 0, "measured_cycles": 10,
                 "predicted_cycles": 10})
    out = {(r["nf"], r["neighbours"]): r for r in slowdowns(rows)}
    assert out[("a", 0)]["measured_slowdown_pct"] == 0
    assert out[("a", 1)]["measured_slowdown_pct"] == pytest.approx(50)
    assert out[("a", 1)]["predicted_slowdown_pct"] == pytest.approx(25)
    assert out[("a", 1)]["error_points"] == pytest.approx(-25)
    assert out[("a", 2)]["error_points"] == pytest.approx(0)
    assert out[("b", 0)]["error_points"] == 0


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
    assert [r["neighbours"] for r in rows] == [0, 1, 0, 1]       # 1 flow, then 4096 flows
    for r in rows:
        assert r["measured_cycles"] > 0 and r["predicted_cycles"] > 0
        assert len(r["neighbour_loads_per_s"]) == r["neighbours"]
        assert all(x > 0 for x in r["neighbour_loads_per_s"])
        assert {"measured_slowdown_pct", "predicted_slowdown_pct", "error_points",
                "shares_cache", "trip_cycles"} <= set(r)
    assert rows[0]["measured_slowdown_pct"] == 0
