"""Every file under examples/ runs (a new user starts from them): the folders are walked
recursively, each file goes to the verb of its kind, and a file of no known kind fails."""

from __future__ import annotations

import json
import py_compile
from pathlib import Path

import pytest
from nfvperf.reference import output_type

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
FILES = sorted(p for p in EXAMPLES.rglob("*") if p.is_file())


def kind(path: Path) -> str:
    """What an example is, by its folder (and a simulator options file by its suffix)."""
    top = path.relative_to(EXAMPLES).parts[0]
    if path.name.endswith(".sim.yaml"):
        return "sim"
    return {"models": "model", "platforms": "platform", "plans": "plan", "sweeps": "sweep",
            "chains": "chain"}.get(top, "script" if path.suffix == ".py" else "unknown")


def of(k: str) -> list[Path]:
    return [p for p in FILES if kind(p) == k]


def _id(p: Path) -> str:
    return str(p.relative_to(EXAMPLES))


def test_every_example_is_of_a_kind_the_tests_run():
    assert FILES and not [_id(p) for p in FILES if kind(p) == "unknown"]
    assert of("model") and of("chain") and of("sim") and of("plan") and of("sweep")


@pytest.mark.parametrize("model", of("model"), ids=_id)
def test_example_model(run_json, model):
    rows = run_json("estimate", str(model), "--packet-sizes", "64,1518")
    assert rows and all(r["throughput_mpps"] > 0 for r in rows)


@pytest.mark.parametrize("platform", of("platform"), ids=_id)
def test_example_platform(run_json, platform):
    rows = run_json("estimate", "bng@paper", "--platform", str(platform), "--cores", "6")
    assert rows[0]["platform"] == platform.stem


@pytest.mark.parametrize("chain", of("chain"), ids=_id)
def test_example_chain_simulates_with_every_options_file(run_json, chain):
    for options in [None, *of("sim")]:
        extra = ["--sim", str(options)] if options else []
        r = run_json("chain", "simulate", str(chain), "--duration", "0.2", *extra)
        # a single polling NF on a core of its own is the analytic batching model's
        assert r["delivered_packets"] > 0 and r["backend"] in ("simulator", "batching-model")
        output_type("nfvperf chain simulate").validate_python(r)   # the reference's fields


@pytest.mark.dataplane
@pytest.mark.parametrize("chain", of("chain"), ids=_id)
def test_example_chain_runs_on_the_data_plane(dataplane, run_json, chain):
    r = run_json("chain", "run", str(chain), "--duration", "1")
    assert r["backend"] == "dataplane" and r["offered_packets"] > 0
    output_type("nfvperf chain run").validate_python(r)


@pytest.mark.parametrize("plan", of("plan"), ids=_id)
def test_example_plan(run_json, plan):
    r = run_json("plan", str(plan), "--time-limit", "20")
    assert r["chains"] and r["cores"] > 0
    output_type("nfvperf plan").validate_python(r)


@pytest.mark.parametrize("sweep", of("sweep"), ids=_id)
def test_example_sweep_loads_and_runs_its_first_point(sweep):
    """The whole sweeps take minutes (benchmarks run them); a point runs here, its arguments
    resolved as `nfvperf sweep` resolves them."""
    from nfvperf.sweep.run import _resolve
    from nfvperf.sweep.runners import run_point
    from nfvperf.sweep.spec import load_sweep

    spec = load_sweep(sweep)
    first = spec.points()[0]
    row = run_point(spec.run, _resolve({**spec.fixed, **first}, sweep.parent))
    assert json.dumps(row) and len(spec.points()) > 1


@pytest.mark.parametrize("script", of("script"), ids=_id)
def test_example_script_compiles(script, tmp_path):
    py_compile.compile(str(script), cfile=str(tmp_path / "x.pyc"), doraise=True)


def test_ipv4_router_prefix_length_param(run_json):
    """A route longer than /24 takes the second DIR-24-8 level: one more DRAM access."""
    path = str(EXAMPLES / "models" / "ipv4_router.yaml")
    short = run_json("estimate", path)[0]
    long = run_json("estimate", path, "--param", "prefix_bytes=4")[0]
    assert long["dram_accesses_per_packet"] == short["dram_accesses_per_packet"] + 1


def test_flow_table_fits_in_cache_when_small(run_json):
    path = str(EXAMPLES / "models" / "flow_table_hit_miss.yaml")
    assert run_json("estimate", path)[-1]["dram_accesses_per_packet"] > 0
    assert run_json("estimate", path, "--param", "flows=10000")[-1]["memory_bound_mpps"] is None
