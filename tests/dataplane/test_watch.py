"""What the machine was while a run's traffic went through: the NF's cycles window by window
from the vSwitch's reports, a run judged steady or not by them, and runs on a shared core run
again. Pure functions first; then the data plane's own reports."""

from __future__ import annotations

import pytest

from nfvperf.dataplane.watch import hist_median, steady, window_medians


def report(*bins: tuple[float, int]) -> dict:
    return {"per_nf": [{"loop_cycles_hist": [list(b) for b in bins]}]}


def test_the_median_weighs_bins_by_their_packets():
    assert hist_median([(100, 1), (50, 3)]) == 50
    assert hist_median([(100, 3), (50, 1)]) == 100
    assert hist_median([(80, 2), (90, 2)]) == 80          # nearest rank: the lower middle
    assert hist_median([]) is None and hist_median([(5, 0)]) is None


def test_windows_are_the_packets_between_two_reports():
    """Each window is the difference of two cumulative histograms; a window with too few
    packets (before the traffic, its ramp) says nothing and is left out."""
    samples = [report(), report((80, 10)), report((80, 5000), (300, 10)),
               report((80, 5000), (300, 10), (160, 6000))]
    assert window_medians(samples, min_packets=1000) == [80, 160]
    assert window_medians(samples, min_packets=1) == [80, 80, 160]


def test_a_run_is_steady_when_its_windows_are_within_the_tolerance():
    assert steady([2400, 100, 110, 124], 0.25)           # the first window: the traffic's start
    assert not steady([100, 100, 126], 0.25)
    assert not steady([100, 100, 100, 400, 100], 0.25)   # a move and back within the run
    assert steady([100, 300], 0.25) and steady([], 0.25)  # one window judged: nothing to say


def _placement(trip: float, core: float | None):
    from nfvperf.calibrate import placement

    return placement.Placement(None, None, trip, None, core)


def test_a_run_on_a_shared_core_is_run_again(monkeypatch):
    """A core whose rte_hash lookups take 1.6x calibration's has another machine on its other
    hardware thread: the run is disturbed and run again; where every try that held was
    disturbed, the first of them is kept and says so."""
    from nfvperf.calibrate import placement

    checks = iter([_placement(80, 1.6), _placement(82, 1.0),      # shared before
                   _placement(81, 1.0), _placement(80, 1.02)])    # quiet
    runs = iter(["shared", "quiet"])
    p = placement.until_held(lambda: next(runs), lambda: next(checks))
    assert (p.result, p.retries, p.held, p.disturbed) == ("quiet", 1, True, 1)

    checks = iter([_placement(80, 1.6), _placement(80, 1.0),
                   _placement(80, 1.0), _placement(400, 1.0),     # moved
                   _placement(81, 1.0), _placement(80, 1.0)])
    runs = iter(["first held", "moved", "unsteady"])
    p = placement.until_held(lambda: next(runs), lambda: next(checks), tries=3,
                             steady=lambda r: r != "unsteady")
    assert (p.result, p.retries, p.held, p.disturbed) == ("first held", 2, False, 1)
    # a chain keeps a run on a core shared throughout (priced for it), not one where the
    # neighbour came or went
    checks = iter([_placement(80, 1.6), _placement(81, 1.7),      # shared throughout
                   _placement(80, 1.0), _placement(80, 1.6),      # came
                   _placement(80, 1.6), _placement(80, 1.6)])
    p = placement.until_held(lambda: "run", lambda: next(checks), shared=True)
    assert (p.retries, p.held, p.disturbed) == (0, True, 0)
    p = placement.until_held(lambda: "run", lambda: next(checks), shared=True)
    assert (p.retries, p.held, p.disturbed) == (1, True, 1)
    assert placement.shared_core(_placement(80, 1.3))
    assert not placement.shared_core(_placement(80, 1.2))
    assert not placement.shared_core(_placement(80, None))


def test_the_core_is_compared_with_calibrations_lookups_on_the_same_table():
    from nfvperf.calibrate.placement import core_ratio

    cal = {"hash": [{"entries": 1024, "key_bytes": 16, "lookup_hit_cycles": {"median": 28.0}},
                    {"entries": 65536, "key_bytes": 16, "lookup_hit_cycles": {"median": 90.0}}]}
    now = {"hash_hit": 42.0, "hash_entries": 1024, "hash_key_bytes": 16}
    assert core_ratio(cal, now) == pytest.approx(1.5)
    assert core_ratio(cal, {**now, "hash_entries": 4096}) is None
    assert core_ratio(None, now) is None


def test_bursts_in_one_session_count_their_own_packets(dataplane):
    """Two bursts through one NF: each burst's counts are its own (the second does not add
    the first's), the loop histogram holds every packet the NF took, and the windows are read
    from the reports taken during the burst."""
    from nfvperf.validation.dataplane import burst, nf_alone
    from nfvperf.validation.workloads import cases

    traffic = cases(quick=True)["mpls"][0]
    with nf_alone("mpls", traffic) as s:
        a = burst(s, traffic, 64, rate_pps=2e5, duration_s=0.3)
        b = burst(s, traffic, 64, rate_pps=2e5, duration_s=0.3)
        final = s.close()
    nf = final["per_nf"][0]
    assert a["rx"] > 0 and b["rx"] > 0 and a["rx"] + b["rx"] == nf["rx"]
    assert sum(n for _, n in nf["loop_cycles_hist"]) == nf["rx"]
    assert sum(n for _, n in nf["handler_cycles_hist"]) == nf["rx"]
    for m in (a, b):
        assert m["dropped_by_nf"] == 0 and m["loop_cycles"] > 0
        assert m["handler_cycles"] <= m["loop_cycles"]
        assert m["windows"] and all(w > 0 for w in m["windows"])
