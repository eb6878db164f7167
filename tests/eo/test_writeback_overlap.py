"""mem_I/O's write-backs overlapped with the packet's other work (conventions.writeback_overlap):
the stores wait in the store buffer while the core goes on, and only what outlasts that work
is paid."""

from __future__ import annotations

import pytest

from nfvperf.eo.estimate import estimate
from nfvperf.eo.model import load_nf
from nfvperf.eo.platform import load_platform


def platform(writeback: float, overlap: bool, overhead: float = 0.0):
    p = load_platform("xeon-e5-2690v2")
    return p.model_copy(update={
        "cache": p.cache.model_copy(update={"l3_writeback_cycles": writeback}),
        "conventions": p.conventions.model_copy(update={
            "writeback_overlap": overlap, "mem_io_l3_access": False,
            "per_packet_overhead_cycles": overhead})})


def split(est):
    back = sum(line.cycles for line in est.lines if line.operation.spec.name == "mem_I/O")
    return back, sum(line.cycles for line in est.lines) - back


@pytest.mark.parametrize("writeback", [2.0, 500.0])
def test_a_write_back_costs_what_it_outlasts_of_the_other_work(writeback):
    nf = load_nf("forward")
    added = estimate(nf, platform(writeback, False), frame_bytes=64)[0]
    back, rest = split(added)
    assert back == pytest.approx(writeback)          # one header line written back
    assert added.cycles_per_packet == pytest.approx(back + rest)
    over = estimate(nf, platform(writeback, True), frame_bytes=64)[0]
    assert over.cycles_per_packet == pytest.approx(max(back, rest))
    line = next(x for x in over.lines if x.operation.spec.name == "mem_I/O")
    assert line.cycles == pytest.approx(max(0.0, back - rest))
    assert "of the packet's other work" in line.cost.formula


def test_the_per_packet_overhead_is_work_a_write_back_drains_behind():
    nf = load_nf("forward")
    back, rest = split(estimate(nf, platform(100.0, False), frame_bytes=64)[0])
    est = estimate(nf, platform(100.0, True, overhead=30.0), frame_bytes=64)[0]
    assert est.cycles_per_packet == pytest.approx(max(back, rest + 30.0))


def test_the_papers_profiles_add_their_write_backs():
    for name in ("xeon-e5-2690v2", "xeon-e5-2690v2-printed"):
        p = load_platform(name)
        assert not p.conventions.writeback_overlap
        est = estimate(load_nf("l2fwd@paper"), p)[0]
        assert est.cycles_per_packet == pytest.approx(
            sum(line.cycles for line in est.lines) + est.overhead_cycles)
