"""The CLI as a user meets it: verbs, formats, outputs and start-up cost."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from nfvperf.reference import output_type


def test_estimate_json_is_one_object_per_path_and_size(run_json):
    rows = run_json("estimate", "l2fwd@paper", "bng@paper", "--packet-sizes", "64,128")
    assert [(r["nf"], r["path"], r["packet_size"]) for r in rows] == [
        ("l2fwd@paper", "main", 64), ("l2fwd@paper", "main", 128),
        ("bng@paper", "access", 64), ("bng@paper", "core", 64), ("bng@paper", "mix", 64),
        ("bng@paper", "access", 128), ("bng@paper", "core", 128), ("bng@paper", "mix", 128)]
    output_type("nfvperf estimate").validate_python(rows)   # every field the reference lists
    assert rows[0]["cycles_per_packet"] == 213
    assert rows[0]["platform"] == "xeon-e5-2690v2"
    assert rows[0]["cpu_bound_mpps"] == pytest.approx(3600 / 213)


def test_estimate_paper_units_and_cores(run_json):
    [row] = run_json("estimate", "learnsw@paper", "--paper-units", "-c", "2")
    assert row["cpu_bound_mpps"] == pytest.approx(2 * 3686.4 / 352)
    assert row["units"] == "binary"


def test_estimate_rfc2544_sweep_csv(cli):
    code, out, err = cli("estimate", "mpls@paper", "--packet-sizes", "rfc2544", "-f", "csv")
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [int(r["packet_size"]) for r in rows] == [64, 128, 256, 512, 1024, 1280, 1518]
    assert rows[-1]["bottleneck"] == "link"


def test_estimate_table(cli):
    code, out, err = cli("estimate", "l2fwd@paper")
    assert code == 0, err
    assert "l2fwd@paper" in out and "213" in out and "cpu" in out


def test_estimate_of_a_user_file_and_output_file(cli, write_yaml, tmp_path):
    model = write_yaml("""
        name: my_nf
        description: a user's NF
        operations:
          - "I/O_mem(30, ps)"
          - {op: lpm_lookup, b: 3, es: 4}
          - "mem_I/O(30, ps)"
    """)
    target = tmp_path / "out.json"
    code, out, err = cli("estimate", str(model), "-f", "json", "-o", str(target))
    assert (code, out) == (0, "")
    [row] = json.loads(target.read_text())
    assert row["nf"] == "my_nf" and row["cycles_per_packet"] == 36 + 2 + 40 + 2


def test_explain_lines_add_up(run_json):
    rows = run_json("explain", "bng@paper")
    output_type("nfvperf explain").validate_python(rows)   # every field the reference lists
    for path, total in (("access", 717), ("core", 274)):
        mine = [r for r in rows if r["path"] == path]
        assert sum(r["cycles"] for r in mine) == total
        assert sum(r["share"] for r in mine) == pytest.approx(1)
    assert rows[0]["operation"] == "I/O_mem(42, ps-28)" and rows[0]["line"] is not None


def test_explain_table_shows_formulas(cli):
    code, out, err = cli("explain", "l2fwd@paper", "-p", "xeon-e5-2690v2-printed")
    assert code == 0, err
    assert "ht_lookup(1, 12, 2M, 0)" in out and "211 cycles" in out


@pytest.mark.parametrize("what, name", [("models", "bng@paper"), ("platforms", "xeon-e5-2690v2"),
                                        ("eos", "ct_insertion")])
def test_list(run_json, cli, what, name):
    rows = run_json("list", what)
    output_type(f"nfvperf list {what}").validate_python(rows)   # every field the reference lists
    assert name in [r["name"] for r in rows]
    code, out, _ = cli("list", what)
    assert code == 0 and name in out


@pytest.mark.parametrize("what", ["model", "platform"])
def test_schema_is_json_schema(cli, what):
    code, out, err = cli("schema", what)
    assert code == 0, err
    schema = json.loads(out)
    full = schema["anyOf"][0] if what == "platform" else schema
    assert full["type"] == "object"
    assert "name" in full["properties"]


def test_model_schema_validates_packaged_models_shape(cli):
    """The schema's operation entries name every EO of the catalogue."""
    from nfvperf.eo.operations import names

    schema = json.loads(cli("schema", "model")[1])
    assert names()[0] in json.dumps(schema) and "ct_insertion" in json.dumps(schema)


def test_demo_table_and_json(cli, run_json):
    code, out, err = cli("demo")
    assert code == 0, err
    assert "24 of 31 printed figures reproduced" in out
    assert "inconsistent in the paper" in out
    data = run_json("demo")
    output_type("nfvperf demo").validate_python(data)    # every field the reference lists
    assert {f["status"] for f in data["figures"]} == {
        "reproduced", "reproduced (truncated)", "inconsistent in the paper"}
    settings = {e["setting"] for e in data["setting_effects"]}
    assert {"cpu.clock", "memory.latency_cas_multiplier", "conventions.ct_insertion_formula",
            "conventions.per_packet_overhead_cycles"} <= settings


def test_console_script_and_lazy_imports():
    """`python -m nfvperf` works, and an estimate does not import SciPy, numba, NumPy or plotting."""
    code = ("import sys, runpy; sys.argv=['nfvperf','estimate','bng@paper','-f','json'];\n"
            "try: runpy.run_module('nfvperf', run_name='__main__')\n"
            "except SystemExit as e: assert not e.code, e.code\n"
            "heavy = [m for m in ('scipy','numba','numpy','matplotlib','pandas') if m in sys.modules]\n"
            "assert not heavy, heavy\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)[0]["nf"] == "bng@paper"


def test_help_lists_the_verbs():
    proc = subprocess.run([sys.executable, "-m", "nfvperf", "--help"], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0
    for verb in ("estimate", "explain", "list", "schema", "demo"):
        assert verb in proc.stdout


def test_packaged_and_example_files_validate_against_the_exported_schemas(cli):
    """What `nfvperf schema` gives an editor accepts every file nfvperf ships."""
    from pathlib import Path

    import jsonschema
    import yaml

    root = Path(__file__).resolve().parents[2]
    for kind, folders in (("model", ["src/nfvperf/data/nfs", "examples/models"]),
                          ("platform", ["src/nfvperf/data/platforms", "examples/platforms"])):
        schema = json.loads(cli("schema", kind)[1])
        files = [f for folder in folders for f in sorted((root / folder).glob("*.yaml"))]
        assert files
        for path in files:
            jsonschema.validate(yaml.safe_load(path.read_text()), schema)
        bad = yaml.safe_load(files[0].read_text())
        bad["unexpected_field"] = 1
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema)


def test_plots_are_png(cli, tmp_path):
    est, fig = tmp_path / "est.png", tmp_path / "demo.png"
    code, _, err = cli("estimate", "bng@paper", "--packet-sizes", "64,128,1518", "--plot", str(est))
    assert code == 0, err
    code, _, err = cli("demo", "-q", "--plot", str(fig))
    assert code == 0 and err == ""
    for path in (est, fig):
        data = path.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000


def test_plot_needs_a_sweep(cli, tmp_path):
    code, out, err = cli("estimate", "bng@paper", "--plot", str(tmp_path / "x.png"))
    assert code == 2
    assert err == "nfvperf: error: --plot: expected two or more sizes in --packet-sizes for a " \
                  "plot, found 1\n"
    assert not (tmp_path / "x.png").exists()


def test_figure_panels_follow_section_4_2():
    """Fig. 13's platform-specific estimate: half the packets read from the other socket, which
    can only lower the throughput; 6 cores on the 4-port testbed."""
    from nfvperf.eo.reproduction import figure_panels

    panels = figure_panels()
    assert [p[0].split(":")[0] for p in panels] == ["Fig. 10", "Fig. 11", "Fig. 12", "Fig. 13"]
    _, generic, specific = panels[3]
    assert all(r.cores == 6 and r.ports == 4 for r in generic + specific)
    for g, s in zip(generic, specific):
        assert s.remote_fraction == 0.5 and s.throughput_pps <= g.throughput_pps


def test_version_is_the_packages(cli):
    import nfvperf

    code, out, err = cli("--version")
    assert (code, out) == (0, f"nfvperf {nfvperf.__version__}\n"), err


def test_the_shell_completes_verbs_and_options():
    """Completion as bash asks for it (the script --show-completion prints sets these)."""
    exe = Path(sys.executable).parent / "nfvperf"
    script = subprocess.run([exe, "--show-completion", "bash"], capture_output=True, text=True)
    assert script.returncode == 0 and "_NFVPERF_COMPLETE=complete_bash" in script.stdout

    def complete(words: str) -> list[str]:
        env = {**os.environ, "_NFVPERF_COMPLETE": "complete_bash", "COMP_WORDS": words,
               "COMP_CWORD": str(len(words.split()) - 1)}
        return subprocess.run([exe], env=env, capture_output=True, text=True).stdout.split()

    assert complete("nfvperf data") == ["dataplane"]
    assert complete("nfvperf dataplane run --wake") == ["--wake-batch", "--wake-timeout-us",
                                                          "--wake-rate-max"]


def test_help_texts_have_no_hard_line_breaks():
    """Typer's help keeps a text's line breaks, which cut sentences at any terminal width but
    one: every command's paragraphs are single lines (lists aside) for the terminal to wrap."""
    import typer

    from nfvperf.cli import app

    def walk(cmd, path):
        yield path, cmd
        for name, sub in getattr(cmd, "commands", {}).items():
            yield from walk(sub, f"{path} {name}")

    for path, cmd in walk(typer.main.get_command(app), "nfvperf"):
        for para in (cmd.help or "").split("\n\n"):
            lines = para.splitlines()
            assert len(lines) <= 1 or any(ln.startswith(("- ", "* ")) for ln in lines), \
                (path, para)
