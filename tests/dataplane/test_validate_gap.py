"""validate's `gap`: what a row beyond 25 % shows of why (issue 5: every larger gap explained
in the report). Pure functions: no data plane needed."""

from __future__ import annotations

from nfvperf.validation.dataplane import gap, html_report


def row(err: float, dram: float = 0, measured: float = 200) -> dict:
    return {"error_pct": err, "estimated_dram_accesses": dram, "measured_cycles": measured}


def test_rows_within_the_tolerance_need_no_explanation():
    assert gap(row(24.9), 5.0) == "" and gap(row(-25), None) == ""


def test_each_cause_is_named_where_the_row_shows_it():
    assert "memory bound" in gap(row(-40, dram=4), 1.0)
    assert "memory bound" not in gap(row(+40, dram=4), 1.0)       # DRAM cannot make it high
    assert "further than at calibration (trip × 4.80)" in gap(row(-30), 4.8)
    assert "nearer" in gap(row(+30, measured=400), 0.2)
    assert "whole line trip" in gap(row(+30, measured=40), 1.0)
    assert gap(row(-30), 1.0) == "not explained by these rules (see the README)"


def test_the_report_shows_the_gap_column():
    r = {"nf": "x", "traffic": "t", "packet_size": 64, "estimated_cycles": 10.0,
         "measured_cycles": 20.0, "measured_handler_cycles": 15.0, "error_pct": -50.0,
         "estimated_mpps": 1.0, "measured_mpps": 0.5, "bottleneck": "cpu",
         "top_eos": [{"eo": "parse(2)", "cycles": 1.0}], "gap": "because", "platform": "p"}
    html = html_report([r], {})
    assert "<th>gap</th>" in html and "<td>because</td>" in html and 'class="far"' in html
