"""The vSwitch's stalls read in the generator's traffic window (``dataplane.run``): only
those that overlap it count, over its length; without a window, the vSwitch's whole run."""

from __future__ import annotations

import pytest

from nfvperf.dataplane.run import stall_window, stalls_of

HZ = 1_000_000_000          # a TSC of 1 GHz: a µs is 1 000 cycles


def vswitch(durations_us, ends):
    return {"elapsed_s": 10.0, "stalls": {"count": len(durations_us),
                                          "durations_us": durations_us, "end_tsc": ends}}


def test_only_the_stalls_that_overlap_the_traffic_count():
    gen = {"start_tsc": 1_000_000, "end_tsc": 3_000_000, "tsc_hz": HZ}     # 2 ms
    vs = vswitch([50.0, 100.0, 30.0, 400.0, 25.0],
                 [900_000, 1_050_000, 2_000_000, 3_300_000, 4_000_000])
    # before; ends inside; inside; begins inside (2.9 ms) and ends after; after
    d, secs = stall_window(vs, gen)
    assert d == [100.0, 30.0, 400.0] and secs == pytest.approx(0.002)
    s = stalls_of(vs, gen)
    assert s["count"] == 3 and s["per_s"] == pytest.approx(1500)
    assert s["time_share"] == pytest.approx(530e-6 / 0.002)
    assert s["longest_us"] == 400.0


def test_without_a_window_the_whole_run_counts():
    vs = vswitch([50.0, 100.0], [1, 2])
    assert stall_window(vs, None) == ([50.0, 100.0], 10.0)
    assert stalls_of({"elapsed_s": 1.0}, None)["count"] == 0
