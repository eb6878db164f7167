"""`nfvperf sweep`: parameter studies on Dask: a grid's points run on a local
cluster, written to Parquet or CSV, a rerun computes only what is missing, bad files and
unreachable schedulers get one line."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest
from nfvperf.reference import output_type
from nfvperf.sweep.runners import batching
from nfvperf.sweep.spec import SweepSpec

SPEC = """\
name: t
run: batching
fixed: {service: vpp, frame_bytes: 64}
grid:
  queue: [512]
  beta: [32, 64]
  rate_mbps: {from: 4000, to: 8000, step: 4000}
"""


def test_grid_points_are_every_combination_with_ranges_inclusive():
    spec = SweepSpec.model_validate({"run": "batching", "grid": {
        "queue": [512, 1024], "rate_mbps": {"from": 1000, "to": 3000, "step": 1000}}})
    pts = spec.points()
    assert len(pts) == 6 and pts[0] == {"queue": 512, "rate_mbps": 1000}
    assert pts[-1] == {"queue": 1024, "rate_mbps": 3000}


def test_ranges_stop_at_their_end_and_run_forwards():
    def values(r):
        return SweepSpec.model_validate({"run": "batching", "grid": {"x": r}}).grid["x"].values()

    assert values({"from": 0, "to": 1, "step": 0.6}) == [0, 0.6]
    assert values({"from": 0.5, "to": 2, "step": 0.5}) == [0.5, 1, 1.5, 2]
    for bad in ({"from": 2, "to": 1, "step": 1}, []):
        with pytest.raises(ValueError):
            SweepSpec.model_validate({"run": "batching", "grid": {"x": bad}})


def test_sweep_on_a_local_cluster_is_resumable_and_matches_the_model(cli, tmp_path):
    spec = tmp_path / "s.yaml"
    spec.write_text(SPEC)
    out = tmp_path / "r.parquet"
    code, stdout, err = cli("sweep", str(spec), "-o", str(out), "--workers", "2")
    assert code == 0, err
    s = json.loads(stdout)
    output_type("nfvperf sweep").validate_python(s)     # every field the reference lists
    assert (s["points"], s["computed"], s["workers"]) == (4, 4, 2)
    df = pd.read_parquet(out)
    assert len(df) == 4 and {"queue", "beta", "rate_mbps", "loss_probability",
                             "mean_batch_size", "seconds"} <= set(df.columns)
    row = df[(df.beta == 64) & (df.rate_mbps == 8000)].iloc[0]
    direct = batching(512, 64, 8000, 64, "vpp")
    assert row.loss_probability == pytest.approx(direct["loss_probability"])
    code, stdout, _ = cli("sweep", str(spec), "-o", str(out), "--workers", "2")
    assert json.loads(stdout)["computed"] == 0 and len(pd.read_parquet(out)) == 4
    csv = tmp_path / "r.csv"
    code, stdout, _ = cli("sweep", str(spec), "-o", str(csv), "--workers", "1")
    assert code == 0 and len(pd.read_csv(csv)) == 4
    # fractional rates: whole ones (4000, 4001) read back as 4000.0 count as done too
    frac = tmp_path / "f.yaml"
    frac.write_text(SPEC.replace("{from: 4000, to: 8000, step: 4000}",
                                 "{from: 4000, to: 4001, step: 0.5}"))
    code, stdout, err = cli("sweep", str(frac), "-o", str(csv), "--workers", "1")
    assert code == 0, err
    assert json.loads(stdout)["computed"] == 4                  # 4000 was done: 4000.5, 4001
    code, stdout, _ = cli("sweep", str(frac), "-o", str(csv), "--workers", "1")
    assert json.loads(stdout)["computed"] == 0 and len(pd.read_csv(csv)) == 4 + 4


def test_bad_sweeps_and_schedulers_get_one_line(cli, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("run: batching\ngrid:\n  queue: [512]\n  colour: [red]\n")
    code, _, err = cli("sweep", str(bad), "-o", str(tmp_path / "x.csv"))
    assert code == 2 and err.startswith(f"nfvperf: error: {bad}:4: grid.colour: expected an "
                                        "argument of batching")
    spec = tmp_path / "s.yaml"
    spec.write_text(SPEC)
    code, _, err = cli("sweep", str(spec), "-o", str(tmp_path / "x.csv"), "--scheduler",
                       "udp://nowhere")
    assert code == 2 and "--scheduler: expected local or a scheduler address" in err
    assert not (tmp_path / "x.csv").exists()
    code, _, err = cli("sweep", str(spec), "-o", str(tmp_path / "no" / "x.csv"))
    assert code == 2 and "-o: expected a file in a folder that exists" in err
    # a point its run refuses: one line naming it; the points done before it are kept
    bad_point = tmp_path / "p.yaml"
    bad_point.write_text(SPEC.replace("queue: [512]", "queue: [512, 16]"))
    code, _, err = cli("sweep", str(bad_point), "-o", str(tmp_path / "p.csv"), "--workers", "1")
    assert code == 2 and "grid point: expected arguments its run takes" in err
    assert "'queue': 16" in err and len(err.strip().splitlines()) == 1


def test_a_plan_sweep_over_traffic_growth_names_its_plan_relative_to_itself(cli, tmp_path):
    """`run: plan` with `scale` ("plans over traffic growth"): the BNG example at
    1× and 2× its 10 Gbps, the plan named relative to the sweep file; the report draws it."""
    import shutil
    from pathlib import Path

    plans = Path(__file__).resolve().parents[2] / "examples" / "plans"
    (tmp_path / "plans").mkdir()
    shutil.copy(plans / "bng-10g.yaml", tmp_path / "plans" / "bng.yaml")
    (tmp_path / "sweeps").mkdir()
    spec = tmp_path / "sweeps" / "growth.yaml"
    spec.write_text("run: plan\nfixed: {plan: ../plans/bng.yaml, time_limit_s: 10}\n"
                    "grid:\n  scale: [1, 2]\n")
    out = tmp_path / "r.csv"
    code, _, err = cli("sweep", str(spec), "-o", str(out), "--workers", "1")
    assert code == 0, err
    df = pd.read_csv(out).sort_values("scale")
    from nfvperf.eo.platform import load_platform
    from nfvperf.plan.capacity import capacity
    from nfvperf.plan.spec import load_plan

    bng = load_plan(tmp_path / "plans" / "bng.yaml")
    most = capacity(bng, bng.chains[0], 0, load_platform("xeon-e5-2690v2")).max_pps
    assert df.feasible.all() and df.optimal.all()
    assert list(df.cores) == [math.ceil(k * bng.chains[0].pps / most) for k in (1, 2)]
    html = tmp_path / "r.html"
    code, _, err = cli("report", str(out), "--html", str(html))
    assert code == 0, err
    assert 'src="data:image/png;base64,' in html.read_text()
