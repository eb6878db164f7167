"""benchmarks/nf_parallel.py's verdict on seed 004: one vs two instances, measured against
predicted, judged only where the measured change exceeds the run-to-run spread."""

from __future__ import annotations


def test_a_change_of_rounding_only_is_no_change(bench_script):
    """A rate summed over the runs in another order differs in its last bits: that is neither
    beyond a spread of 0 nor a direction the prediction could miss; a real change beyond the
    spread is judged, and a prediction of the other sign is told apart."""
    nf = bench_script("nf_parallel")
    kpis = nf.SEED_KPIS
    zero = {k: 0.0 for k in kpis}
    one = {"loss_pct": 0.0, "latency_mean_us": 40.0, "delivered_gbps": 0.2688}
    measured = [{"setup": "FLSL", "one": one, "spread": {"one": zero, "two": {
        **zero, "latency_mean_us": 4.0}},
        "two": {**one, "latency_mean_us": 80.0, "delivered_gbps": 0.2688 + 1e-15}}]
    predicted = [{"one": one, "two": {**one, "latency_mean_us": 30.0,
                                      "delivered_gbps": 0.2688 - 1e-15}}]
    got = {d["kpi"]: d for d in nf.directions(measured, predicted)}
    assert not got["delivered_gbps"]["beyond_spread"] and got["delivered_gbps"]["same_direction"]
    assert not got["loss_pct"]["beyond_spread"] and got["loss_pct"]["same_direction"]
    lat = got["latency_mean_us"]
    assert lat["beyond_spread"] and not lat["same_direction"]
    assert lat["measured_change"] == 40.0 and lat["predicted_change"] == -10.0
