"""`nfvperf report`: an HTML page with the study's figures and table, opened in headless
Chromium to check that it renders with every figure."""

from __future__ import annotations

import re
import shutil
import subprocess

import pandas as pd
import pytest

from nfvperf.sweep.runners import run_point


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """A small batching study: 2 queue sizes x 2 rates, one frame size."""
    rows = [run_point("batching", {"queue": q, "beta": 32, "rate_mbps": r, "frame_bytes": 64,
                                   "service": "vpp"})
            for q in (256, 512) for r in (2000, 9000)]
    path = tmp_path_factory.mktemp("r") / "study.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def test_report_has_the_studys_figures_and_table(cli, results, tmp_path):
    out = tmp_path / "r.html"
    code, _, err = cli("report", str(results), "--html", str(out))
    assert code == 0, err
    text = out.read_text()
    assert text.count('src="data:image/png;base64,') == 3       # loss, batch size, p99
    assert text.count("<tr>") == 1 + 4
    assert "loss probability" in text


def test_report_renders_in_headless_chromium(cli, results, tmp_path):
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("chromium not installed (make test installs it where it runs as root)")
    out = tmp_path / "r.html"
    assert cli("report", str(results), "--html", str(out))[0] == 0
    p = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                        "--virtual-time-budget=10000", "--dump-dom", out.as_uri()],
                       capture_output=True, text=True, timeout=120, check=False)
    title = re.search(r"<title>(.*?)</title>", p.stdout)
    assert title is not None, p.stderr[-500:]
    assert title.group(1).endswith("✓"), "a figure did not load"


def test_report_refuses_what_is_not_a_sweeps_results(cli, tmp_path):
    bad = tmp_path / "x.csv"
    bad.write_text("a,b\n1,2\n")
    code, _, err = cli("report", str(bad), "--html", str(tmp_path / "o.html"))
    assert code == 2 and "expected results of nfvperf sweep" in err
    assert not (tmp_path / "o.html").exists()
