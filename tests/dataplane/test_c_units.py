"""The C unit tests of the data plane (meson test, suite fast), run from pytest."""

from __future__ import annotations

import subprocess

import pytest

from nfvperf.dataplane.build import build_dir

pytestmark = [pytest.mark.dataplane]


def test_meson_unit_tests_pass(dataplane):
    p = subprocess.run(["meson", "test", "-C", str(build_dir()), "--suite", "fast",
                        "--print-errorlogs"], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-2000:]
    assert "Fail:               0" in p.stdout or " 0 failed" in p.stdout
