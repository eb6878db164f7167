from __future__ import annotations

import json
import textwrap
from pathlib import Path

import os

import pytest
from hypothesis import settings
from typer.testing import CliRunner

from nfvperf import units
from nfvperf.eo.platform import load_platform

DATA = Path(__file__).parent / "data"

# CI is a gate: the same examples every run there (a failure it finds locally is kept in the
# example database and replayed); locally, hypothesis explores new examples each time.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture
def write_yaml(tmp_path: Path):
    """Write a YAML text (dedented) to a file and return its path."""
    def write(text: str, name: str = "file.yaml") -> Path:
        path = tmp_path / name
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
        return path
    return write


@pytest.fixture(scope="session")
def cli():
    """Run the nfvperf CLI in-process like the console script does; returns (code, out, err)."""
    from nfvperf.cli import app, main  # noqa: F401

    def run(*args: str):
        import io
        import sys
        from contextlib import redirect_stderr, redirect_stdout

        out, err = io.StringIO(), io.StringIO()
        argv = sys.argv
        sys.argv = ["nfvperf", *args]
        code = 0
        try:
            with redirect_stdout(out), redirect_stderr(err):
                main()
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        finally:
            sys.argv = argv
        return code, out.getvalue(), err.getvalue()
    return run


@pytest.fixture
def run_json(cli):
    def run(*args: str):
        code, out, err = cli(*args, "--format", "json")
        assert code == 0, err
        return json.loads(out)
    return run


@pytest.fixture
def rng():
    """A seeded generator: randomness only through an explicit Generator."""
    import numpy as np

    return np.random.default_rng(20211)


@pytest.fixture(scope="session")
def paper_platform():
    """The reproducing profile read with the paper's binary prefixes."""
    return load_platform("xeon-e5-2690v2", prefixes=units.BINARY)


@pytest.fixture(scope="session")
def si_platform():
    return load_platform("xeon-e5-2690v2")


@pytest.fixture(scope="session")
def printed_platform():
    return load_platform("xeon-e5-2690v2-printed")


__all__ = ["CliRunner", "DATA"]


@pytest.fixture(scope="session")
def dataplane():
    """Skip (with the first failing check as the reason) unless the data plane can run here."""
    from nfvperf.dataplane import doctor

    failing = [c for c in doctor() if not c.ok and c.name != "CPUs"]
    if failing:
        c = failing[0]
        pytest.skip(f"data plane: {c.name}: {c.detail} ({c.fix})")
    return True


@pytest.fixture(scope="session")
def host_profile(tmp_path_factory):
    """A quick profile of this host with its dataplane section (`nfvperf calibrate --quick`),
    measured once for the session; skips where the data plane cannot run."""
    from nfvperf.dataplane import doctor

    failing = [c for c in doctor() if not c.ok and c.name != "CPUs"]
    if failing:
        pytest.skip(f"data plane: {failing[0].name}: {failing[0].detail}")
    from nfvperf.calibrate import dataplane as dp
    from nfvperf.calibrate import describe_host
    from nfvperf.calibrate.measure import measure
    from nfvperf.calibrate.profile import profile_yaml

    raw = dp.measure(quick=True)
    host = describe_host(tsc_from_log=True)
    path = tmp_path_factory.mktemp("host") / "host.yaml"
    path.write_text(profile_yaml(host, measure(host, quick=True), dataplane=dp.derive(raw)))
    return path, raw


@pytest.fixture(scope="session")
def bench_script():
    """A script of benchmarks/ imported as a module, by name, so that its tables and verdicts
    are tested without running the benchmark."""
    import importlib.util

    def load(name: str):
        path = Path(__file__).parents[1] / "benchmarks" / f"{name}.py"
        spec = importlib.util.spec_from_file_location(f"bench_{name}", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod
    return load
