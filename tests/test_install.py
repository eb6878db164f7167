"""nfvperf installed from its wheel, outside the source tree: every EO model is package data,
the NF catalogue and chains work, and the data plane's C sources travel with it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = [pytest.mark.slow]


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A fresh virtual environment with the wheel in it (its dependencies come from this
    environment's site-packages, read after its own, so nothing is downloaded)."""
    tmp = tmp_path_factory.mktemp("install")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "-q", "-w", str(tmp / "dist"), str(ROOT)], check=True, cwd=tmp,
                   capture_output=True)
    (wheel,) = (tmp / "dist").glob("nfvperf-*.whl")
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = Path(subprocess.run([str(venv / "bin" / "python"), "-c",
                                "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    (site / "zz_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target",
                    str(site), str(wheel)], check=True, capture_output=True)
    return venv


def run(venv: Path, *args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    code = ("import sys; from nfvperf.cli import main; sys.argv = ['nfvperf', *sys.argv[1:]]; "
            "main()")
    return subprocess.run([str(venv / "bin" / "python"), "-c", code, *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": "", **(env or {})})


def test_the_wheel_has_every_model_and_runs_a_chain_outside_the_tree(installed, tmp_path):
    where = run(installed, "--version", cwd=tmp_path)
    assert where.returncode == 0 and where.stdout.startswith("nfvperf "), where.stderr
    p = run(installed, "list", "models", "-f", "json", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    from nfvperf.nfs import packaged_models

    assert sorted(m["name"] for m in json.loads(p.stdout)) == packaged_models()
    chain = tmp_path / "c.yaml"
    chain.write_text((ROOT / "examples" / "chains" / "nat-ids.yaml").read_text())
    p = run(installed, "chain", "simulate", str(chain), "--duration", "0.1", "-f", "json",
            cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)
    assert r["backend"] == "simulator" and r["delivered_packets"] > 0
    # the installed copy ran, not the source tree's
    p = subprocess.run([str(installed / "bin" / "python"), "-c",
                        "import nfvperf; print(nfvperf.__file__)"], cwd=tmp_path,
                       capture_output=True, text=True, env={**os.environ, "PYTHONPATH": ""})
    assert str(installed) in p.stdout and str(ROOT / "src") not in p.stdout


def test_the_installed_package_finds_the_c_sources_it_carries(installed, tmp_path):
    code = "from nfvperf.dataplane.build import source_dir; print(source_dir())"
    p = subprocess.run([str(installed / "bin" / "python"), "-c", code], cwd=tmp_path,
                       capture_output=True, text=True, env={**os.environ, "PYTHONPATH": ""})
    src = Path(p.stdout.strip())
    assert src.name == "_dataplane" and str(installed) in str(src), p.stderr
    assert (src / "meson.build").is_file() and (src / "include" / "nfvp_limits.h").is_file()
    bad = run(installed, "dataplane", "build", cwd=tmp_path,
              env={"NFVPERF_DATAPLANE_SRC": str(tmp_path / "nowhere"),
                   "PATH": os.environ.get("PATH", "")})
    assert bad.returncode == 1 and len(bad.stderr.splitlines()) == 1
    assert "NFVPERF_DATAPLANE_SRC" in bad.stderr or "missing" in bad.stderr
