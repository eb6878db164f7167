"""Frames in the stall term: the bytes a packet's frame writes into the core's caches lengthen
every table's reuse distance, each byte at the weight calibration's frames' chase measured."""

from __future__ import annotations

import math

import pytest
import yaml

from nfvperf.eo.estimate import estimate, streamed_bytes
from nfvperf.eo.memory import FramesPoint, Hierarchy, frame_weights
from nfvperf.eo.model import parse_nf
from nfvperf.eo.platform import load_platform

MB = 1 << 20
#: the made-up host of test_memory: 4 cycles in L1 .. 240 in DRAM
LATENCY = [(4096, 4), (65536, 12), (1 << 20, 20), (16 << 20, 60), (256 << 20, 240)]
OVERLAP = [(1, 240), (8, 40), (32, 15)]
#: the chase's tables: every power of two from 16 KB to 64 MB
SIZES = [1 << k for k in range(14, 27)]


def lat(nbytes: float) -> float:
    """The curve above, log-linear, written out independently of the module."""
    for (b0, c0), (b1, c1) in zip(LATENCY, LATENCY[1:]):
        if b0 <= nbytes <= b1:
            return c0 + (c1 - c0) * math.log2(nbytes / b0) / math.log2(b1 / b0)
    return LATENCY[-1][1]


def chase(weight, frames=(128, 512)) -> list[FramesPoint]:
    """What the frames' chase would measure on that host if a frame byte weighed ``weight``
    (a function of the table's bytes and the frame bytes a load) in the reuse distance."""
    return [FramesPoint(d, b, lat(d + weight(d, b) * d / 64 * b), lat(d))
            for b in frames for d in SIZES]


def test_the_weight_is_read_back_from_the_chase():
    # a frame byte counts in full beside a table in L2, a fifth beside one in the L3
    def weight(d, b):
        return 1.0 if d <= 256 << 10 else 0.2

    w = frame_weights(chase(weight), 64)
    for b in (128, 512):
        got = dict(w[b])
        for d in SIZES:
            slow = d + weight(d, b) * d / 64 * b
            # where the curve is flat (L1) any weight is as slow, and beyond the chase's largest
            # table its curve says nothing: there a frame byte weighs 1
            if slow > SIZES[-1]:
                assert got[math.log2(d)] == 1.0
            elif lat(slow) > lat(d):
                assert got[math.log2(d)] == pytest.approx(weight(d, b), abs=1e-9), (b, d)


def test_frames_that_cost_nothing_weigh_nothing_and_more_than_the_curve_weighs_one():
    pts = [FramesPoint(16 << 10, 128, 3.0, 4.0), FramesPoint(1 << 20, 128, 500.0, 20.0),
           FramesPoint(16 << 20, 128, 60.0, 60.0)]
    w = dict(frame_weights(pts, 64)[128])
    assert w[14] == 0.0 and w[20] == 1.0 and w[24] == 0.0


def test_the_weight_is_log_linear_in_the_table_and_held_at_the_measured_ends():
    pts = chase(lambda d, b: 1.0 if d <= 256 << 10 else 0.2)
    h = Hierarchy(LATENCY, OVERLAP, frames=pts)
    assert h.frames_known and not Hierarchy(LATENCY, OVERLAP).frames_known
    assert h.frame_weight(1024, 300) == pytest.approx(1.0)      # below the smallest table
    assert h.frame_weight(2 * MB, 128) == pytest.approx(0.2)
    assert h.frame_weight(2 * MB, 4096) == pytest.approx(0.2)    # beyond the largest frame
    # half way (in log2) between 256 KB (1) and 512 KB (0.2)
    assert h.frame_weight(2 ** 18.5, 128) == pytest.approx(0.6)


@pytest.fixture
def frames_profile(tmp_path):
    """The made-up host with stalls in cycles, and a chase that weighs a frame byte 0.25."""
    pts = chase(lambda d, b: 0.25)
    memory = {"load_latency": [{"bytes": b, "cycles": c} for b, c in LATENCY],
              "overlap": [{"in_flight": k, "cycles": c} for k, c in OVERLAP],
              "frames_latency": [{"bytes": p.bytes, "frame": p.frame_bytes, "cycles": p.cycles,
                                  "alone": p.alone_cycles} for p in pts]}
    path = tmp_path / "frames.yaml"
    path.write_text(yaml.safe_dump({"name": "frames", "base": "xeon-e5-2690v2",
                                    "memory": memory,
                                    "conventions": {"memory_stalls": "cycles"}}))
    return path


LOOKUP = """
name: lookup
description: one hash lookup, one key at a time
operations:
  - "ht_lookup(1, 12, 2M, 0, keys=8K, access=serial)"
"""


def test_a_packets_frame_lengthens_each_structures_reuse_distance(frames_profile):
    p = load_platform(frames_profile)
    # 8K keys: 16 K bucket lines and 8 K slot lines; between two uses of a bucket line the NF
    # reads 1.5 MB of the table and 16 K packets go by, of a slot line 1 MB and 8 K packets
    for frame in (64, 1500):
        stream = streamed_bytes(frame, 64)
        est = estimate(parse_nf(LOOKUP), p, frame_bytes=frame)[0]
        expected = (lat(1.5 * MB + 0.25 * 16384 * stream) - 4
                    + lat(1 * MB + 0.25 * 8192 * stream) - 4)
        assert est.lines[0].stall.cycles == pytest.approx(expected, rel=1e-6), frame
        assert f"frames {stream} B a packet" in est.lines[0].stall.formula
    assert streamed_bytes(64, 64) == 128 and streamed_bytes(1500, 64) == 64 * 25
    # a longer frame pushes the table further out
    short, long = (estimate(parse_nf(LOOKUP), p, frame_bytes=f)[0].lines[0].stall.cycles
                   for f in (64, 1500))
    assert short < long


def test_a_profile_without_the_chase_prices_no_frames(frames_profile, tmp_path):
    d = yaml.safe_load(frames_profile.read_text())
    del d["memory"]["frames_latency"]
    path = tmp_path / "without.yaml"
    path.write_text(yaml.safe_dump(d))
    est = estimate(parse_nf(LOOKUP), load_platform(path), frame_bytes=1500)[0]
    assert est.lines[0].stall.cycles == pytest.approx(lat(1.5 * MB) - 4 + lat(1 * MB) - 4)
    assert "frames" not in est.lines[0].stall.formula


def test_a_chase_point_given_twice_is_refused(frames_profile, tmp_path, cli):
    d = yaml.safe_load(frames_profile.read_text())
    d["memory"]["frames_latency"].append(d["memory"]["frames_latency"][0])
    path = tmp_path / "twice.yaml"
    path.write_text(yaml.safe_dump(d))
    code, out, err = cli("estimate", "l2fwd", "--platform", str(path))
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "frames_latency" in err
