"""How chain validation judges a quantity over its runs: within the target, and whether the
runs repeat within it (the suite's count of misses that are the model's)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nfvperf.validation.chain import TOLERANCE, compare, repeats


def test_cycles_whose_runs_agree_within_the_target_repeat():
    c = compare("cycles_per_packet", [100.0, 100.0, 100.0], [100.0, 110.0, 120.0])
    assert c["measured"] == 110.0 and c["spread"] == [100.0, 120.0]
    assert c["repeatable"] is True
    assert c["within"] is True          # -9 % of 110


def test_cycles_whose_runs_differ_twofold_do_not_repeat():
    c = compare("cycles_per_packet", [150.0] * 3, [100.0, 200.0, 210.0])
    assert c["repeatable"] is False
    assert c["within"] is True          # -25 % of their median, 200: the edge is within
    c = compare("cycles_per_packet", [149.0] * 3, [100.0, 200.0, 210.0])
    assert c["within"] is False


def test_loss_repeats_only_where_every_run_is_on_the_same_side_of_a_tenth_of_a_percent():
    assert compare("loss_pct", [0.0], [0.2, 0.3, 0.5])["repeatable"] is True
    # within 2 points of each other, but one run lost nothing where the others lost a little
    assert compare("loss_pct", [0.0], [0.0, 0.0, 0.2])["repeatable"] is False
    # on the same side, but 3 points apart
    assert compare("loss_pct", [0.0], [1.0, 1.5, 4.5])["repeatable"] is False
    c = compare("loss_pct", [0.05], [0.0, 0.0, 0.0])
    assert c["unit"] == "points" and c["error"] == pytest.approx(0.05) and c["within"] is True


def test_quantities_without_a_target_are_not_judged():
    c = compare("mean_batch", [20.0], [10.0, 30.0])
    assert c["within"] is None and c["repeatable"] is None
    assert compare("cycles_per_packet", [None], [None])["repeatable"] is None


@given(st.lists(st.floats(0.001, 1e6), min_size=1, max_size=5),
       st.sampled_from(sorted(TOLERANCE)))
def test_a_single_run_and_identical_runs_always_repeat(xs, name):
    assert repeats(name, xs[0], [xs[0], xs[0]]) is True
    c = compare(name, xs, [xs[0]] * len(xs))
    assert c["repeatable"] is True


def test_the_suite_counts_each_target_over_the_points_whose_runs_repeat(bench_script):
    def point(delivered, cycles):
        e = {q: compare(q, [1.0], [1.0]) for q in
             ("loss_pct", "latency_mean_us", "latency_p99_us")}
        e["delivered_mpps"] = compare("delivered_mpps", [1.0], delivered)
        inst = {"name": "s0-nat0", "cycles_per_packet": compare("cycles_per_packet", [100.0],
                                                                  cycles)}
        return {"chain": "c", "load": 0.5, "offered_mpps": 1.0, "saturated": False,
                "end_to_end": e, "services": [{"instances": [inst]}]}

    points = [point([1.0, 1.0, 1.02], [100.0, 105.0, 95.0]),     # repeats, within
              point([0.5, 1.0, 1.0], [300.0, 310.0, 320.0]),      # repeats, cycles miss
              point([0.4, 0.5, 1.0], [60.0, 200.0, 400.0])]       # neither repeats
    rows = {r["quantity"]: r for r in bench_script("chain_validate").summary(points)}
    d, c = rows["delivered_mpps"], rows["cycles_per_packet"]
    assert (d["points"], d["within"], d["repeatable"], d["repeatable_within"]) == (3, 2, 1, 1)
    assert (c["points"], c["within"], c["repeatable"], c["repeatable_within"]) == (3, 1, 2, 1)
    # a saved run without the flag is judged by its spread
    for p in points:
        del p["end_to_end"]["delivered_mpps"]["repeatable"]
    assert {r["quantity"]: r for r in bench_script("chain_validate").summary(points)}["delivered_mpps"][
        "repeatable"] == 1
