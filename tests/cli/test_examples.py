"""Every file under examples/ runs through the CLI (a new user starts from them)."""

from __future__ import annotations

from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize("model", sorted((EXAMPLES / "models").glob("*.yaml")), ids=lambda p: p.stem)
def test_example_model(run_json, model):
    rows = run_json("estimate", str(model), "--packet-sizes", "64,1518")
    assert rows and all(r["throughput_mpps"] > 0 for r in rows)


@pytest.mark.parametrize("platform", sorted((EXAMPLES / "platforms").glob("*.yaml")),
                         ids=lambda p: p.stem)
def test_example_platform(run_json, platform):
    rows = run_json("estimate", "bng@paper", "--platform", str(platform), "--cores", "6")
    assert rows[0]["platform"] == platform.stem


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
