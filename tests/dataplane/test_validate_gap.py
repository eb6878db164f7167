"""validate's `gap`: what a row beyond 25 % shows of why (every larger gap explained in the
report), as cause codes. Pure functions: no data plane needed."""

from __future__ import annotations

import pytest

from nfvperf.validation.dataplane import GAP_CAUSES, gap, gap_text, html_report, summary
from nfvperf.calibrate.placement import placements


def row(err: float, dram: float = 0, measured: float = 200) -> dict:
    return {"error_pct": err, "estimated_dram_accesses": dram, "measured_cycles": measured}


def test_rows_within_the_tolerance_need_no_explanation():
    assert gap(row(24.9), 5.0) == () and gap(row(-25), None) == ()


def test_each_cause_is_named_where_the_row_shows_it():
    assert gap(row(-40, dram=4), 1.0) == ("memory_stalls",)
    assert gap(row(+40, dram=4), 1.0) == ("unexplained",)      # DRAM cannot make it high
    assert gap(row(-30), 4.8) == ("placed_further",)
    assert gap(row(+30, measured=400), 0.2) == ("placed_nearer",)
    assert gap(row(+30, measured=40), 1.0) == ("small_nf",)
    assert gap(row(-40, dram=2, measured=40), 0.1) == ("memory_stalls", "placed_nearer")
    assert gap(row(-30), 1.0) == ("unexplained",)
    # a profile that counts the waits in the cycles cannot be missing them that way
    assert gap({**row(-40, dram=4), "memory_stalls": "cycles"}, 1.0) == ("unexplained",)


def test_every_cause_has_words_and_the_trip_ratio_is_shown_with_placement():
    assert all(GAP_CAUSES[c] for c in GAP_CAUSES)
    assert "(trip × 4.80)" in gap_text(("placed_further",), 4.8)
    assert gap_text(()) == ""


def test_the_report_shows_the_gap_column():
    r = {"nf": "x", "traffic": "t", "packet_size": 64, "estimated_cycles": 10.0,
         "measured_cycles": 20.0, "measured_handler_cycles": 15.0, "error_pct": -50.0,
         "estimated_mpps": 1.0, "measured_mpps": 0.5, "bottleneck": "cpu",
         "top_eos": [{"eo": "parse(2)", "cycles": 1.0}], "gap": "because", "platform": "p",
         "trip_cycles": 80.0}
    html = html_report([r], {})
    assert "<th>gap</th>" in html and "<td>because</td>" in html and 'class="far"' in html
    assert "<td>trip 80-80 cycles</td><td>0 / 1</td>" in html


def test_runs_are_placed_apart_where_their_trips_jump():
    assert placements([36, 85, 383, 40, 90, 400]) == [0, 1, 2, 0, 1, 2]
    assert placements([80, 85, 150]) == [0, 0, 0]           # within 2x of the one below


def test_the_summary_gives_each_pattern_overall_and_per_placement():
    rows = [{"nf": "a", "traffic": "t", "error_pct": e, "trip_cycles": t,
             "measured_cycles": c}
            for e, t, c in ((5, 80, 50), (-30, 85, 60), (10, 400, 200), (40, None, 70))]
    s = {g["placement"]: g for g in summary(rows)}
    assert s["all"]["rows"] == 4 and s["all"]["within"] == 2
    assert s["all"]["median_abs_error_pct"] == 20
    assert (s["trip 80-85 cycles"]["rows"], s["trip 80-85 cycles"]["within"]) == (2, 1)
    assert s["trip 400-400 cycles"]["median_abs_error_pct"] == 10
    assert s["all"]["measured_cycles"] == [50, 200]
    assert s["trip 80-85 cycles"]["measured_cycles"] == [50, 60]
    assert list(s) == ["all", "trip 80-85 cycles", "trip 400-400 cycles"]


def test_a_run_the_vcpus_moved_during_is_run_again(monkeypatch):
    """A run whose trip after is a placement away from its trip before measured two machines
    at once: it is thrown away, and the run that held is kept with the placement before it."""
    from nfvperf.calibrate import placement

    trips = iter([80, 420, 420, 415, 85, 88])           # before/after of three tries
    monkeypatch.setattr(placement, "as_placed_now", lambda platform, l2: placement.Placement(
        platform, None, next(trips)))
    runs = iter(["moved", "held", "never"])
    p = placement.placed_run("profile", 1 << 20, lambda: next(runs))
    assert (p.result, p.retries, p.held, p.placement.trip_cycles) == ("held", 1, True, 420)
    assert next(trips) == 85                             # the third try was not run


def _edges_run():
    """A run that sends traffic once: the session checks the placement at both its edges."""
    from contextlib import nullcontext

    from nfvperf.dataplane.watch import at_traffic_edge

    def run():
        for _ in range(2):
            at_traffic_edge(nullcontext)
        return "run"
    return run


def test_the_traffics_edges_judge_a_run_and_price_it(monkeypatch):
    """Where the data plane's traffic ran, the checks at its edges say whether the run held and
    where it was placed: a move during the setup before it does not throw the run away; a
    move between the traffic's edges does, even where the check before the whole run agrees
    with the first edge (no check after the run is then taken)."""
    from nfvperf.calibrate import placement

    trips = iter([420, 85, 88,           # moved during the setup only: held at 85
                  80, 82, 400,           # moved during the traffic: run again
                  80, 81, 84])
    monkeypatch.setattr(placement, "as_placed_now", lambda platform, l2: placement.Placement(
        platform, None, next(trips)))
    run = _edges_run()
    p = placement.placed_run("profile", 1 << 20, run)
    assert (p.retries, p.held, p.placement.trip_cycles) == (0, True, 85)
    p = placement.placed_run("profile", 1 << 20, run)
    assert (p.retries, p.held, p.placement.trip_cycles) == (1, True, 81)
    assert next(trips, None) is None                     # no check after a run that sent traffic
    from nfvperf.dataplane.watch import at_traffic_edge
    at_traffic_edge(lambda: pytest.fail("checked outside a placed run"))


def test_without_edges_only_before_and_after_judge(monkeypatch):
    from nfvperf.calibrate import placement

    trips = iter([80, 82])
    monkeypatch.setattr(placement, "as_placed_now", lambda platform, l2: placement.Placement(
        platform, None, next(trips)))
    p = placement.placed_run("profile", 1 << 20, _edges_run(), edges=False)
    assert (p.retries, p.held, p.placement.trip_cycles) == (0, True, 80)


def test_a_paused_session_holds_its_processes_still_and_lets_them_go():
    """The placement is checked with the data plane's processes stopped (they poll their CPUs
    and would take them from the check), and they run on after it."""
    from types import SimpleNamespace

    from nfvperf.dataplane.session import Session, _Processes, _stopped

    procs = _Processes()
    p = procs.start(["sleep", "30"])
    try:
        with Session.paused(SimpleNamespace(procs=procs)):
            assert _stopped(p.pid)
        assert not _stopped(p.pid) and p.poll() is None
    finally:
        procs.stop()
    assert p.poll() is not None


def test_a_placement_that_never_holds_keeps_the_last_run_and_says_so(monkeypatch):
    from nfvperf.calibrate import placement

    trips = iter([80, 420] * 2)
    monkeypatch.setattr(placement, "as_placed_now", lambda platform, l2: placement.Placement(
        platform, None, next(trips)))
    p = placement.placed_run("profile", 1 << 20, lambda: "run", tries=2)
    assert (p.retries, p.held) == (1, False)
    assert placement.moved(80, 170) and not placement.moved(80, 150)
    assert not placement.moved(None, 400)


def test_the_io_eos_are_repriced_with_the_hand_over_measured_before_the_run(monkeypatch):
    """The reference check before a run times this CPU's side of a hand-over again: the I/O EOs
    take the ratio of now to calibration, the read for I/O_mem and the rewrite for mem_I/O
    (where the profile's write-back is that rewrite)."""
    import importlib

    from nfvperf.calibrate import placement
    from nfvperf.eo.platform import load_platform

    # the module, not the package's function of the same name
    measure = importlib.import_module("nfvperf.calibrate.measure")
    base = load_platform("xeon-e5-2690v2")
    cal = {"core_to_core": {"one_way_cycles": {"median": 80.0},
                            "burst_line_cycles": {"median": 25.0},
                            "read_line_cycles": {"median": 8.0},
                            "upgrade_line_cycles": {"median": 16.04}}}
    # the profile's values as its YAML has them: one decimal
    cache = base.cache.model_copy(update={"l3_access_cycles": 8.0, "l3_writeback_cycles": 16.0})
    p = base.model_copy(update={"calibration": cal, "cache": cache})
    monkeypatch.setattr(measure, "reference_cycles", lambda l2: {
        "core_to_core": 400.0, "core_to_core_burst": 95.0, "read_line": 40.0,
        "upgrade_line": 160.4, "shared_bytes": 8 << 20, "shared_cycles": 60.0})
    now = placement.as_placed_now(p, 1 << 20)
    assert (now.ratio, now.trip_cycles) == (5.0, 400.0)
    assert (now.platform.cache.l3_access_cycles, now.platform.cache.l3_writeback_cycles) == (
        pytest.approx(40.0), pytest.approx(160.0))
    older = p.model_copy(update={"cache": base.cache.model_copy(update={
        "l3_access_cycles": 25.0, "l3_writeback_cycles": 6.6})})
    now = placement.as_placed_now(older, 1 << 20)   # its write-back is an eviction: as it is
    assert now.platform.cache.l3_writeback_cycles == 6.6


def test_less_shared_cache_now_prices_the_tables_as_larger_working_sets():
    """The chase over 8 MB just before a run, read against the calibrated latency curve, says how
    much of the shared cache there is now; the profile is re-priced so that a working set costs
    what one that many times larger did at calibration. The core's own caches stay as they are."""
    from nfvperf.eo.platform import LatencyPoint, load_platform
    from nfvperf.calibrate.placement import placed_at, shared_cache_scale

    base = load_platform("xeon-e5-2690v2")
    private = base.cache_l1_l2_bytes
    curve = [LatencyPoint(bytes=b, cycles=c) for b, c in (
        (16 << 10, 3), (256 << 10, 10), (4 << 20, 40), (8 << 20, 60), (16 << 20, 340),
        (64 << 20, 400), (512 << 20, 450))]
    p = base.model_copy(update={"memory": base.memory.model_copy(update={"load_latency": curve})})
    assert shared_cache_scale(p, 8 << 20, 60) == pytest.approx(1.0)        # as at calibration
    assert shared_cache_scale(p, 8 << 20, 200) == pytest.approx(2 ** 0.5)  # halfway to 16 MB
    assert shared_cache_scale(p, 8 << 20, 40) == pytest.approx(0.5)        # more cache now
    assert shared_cache_scale(p, 8 << 20, 5000) == 8.0                     # at most 8x
    now = placed_at(p, None, 2.0)
    lat = {q.bytes: q.cycles for q in now.memory.load_latency}
    assert lat[8 << 20] == 340 and lat[4 << 20] == 60                      # shifted by 2x
    assert lat[16 << 10] == 3 and all(b > private for b in lat if lat[b] >= 40)
    assert placed_at(p, None, None) is p


def test_a_check_that_finds_more_shared_cache_is_not_credited(monkeypatch):
    """The check before a run finds the shared cache with no traffic; a larger share than
    calibration's is reported but the tables stay priced by calibration's curve (traffic takes
    that cache back), while a smaller share re-prices them."""
    import importlib

    from nfvperf.calibrate import placement
    from nfvperf.eo.platform import LatencyPoint, load_platform

    measure = importlib.import_module("nfvperf.calibrate.measure")
    base = load_platform("xeon-e5-2690v2")
    curve = [LatencyPoint(bytes=b, cycles=c) for b, c in (
        (16 << 10, 3), (256 << 10, 10), (4 << 20, 40), (8 << 20, 60), (16 << 20, 340),
        (64 << 20, 400), (512 << 20, 450))]
    cal = {"core_to_core": {"one_way_cycles": {"median": 80.0},
                            "burst_line_cycles": {"median": 25.0}}}
    p = base.model_copy(update={"calibration": cal, "memory": base.memory.model_copy(
        update={"load_latency": curve})})

    def placed(shared_cycles):
        monkeypatch.setattr(measure, "reference_cycles", lambda l2: {
            "core_to_core": 80.0, "core_to_core_burst": 25.0, "shared_bytes": 8 << 20,
            "shared_cycles": shared_cycles})
        now = placement.as_placed_now(p, 1 << 20)
        return now.cache_scale, {q.bytes: q.cycles for q in now.platform.memory.load_latency}

    scale, lat = placed(40.0)                    # the 8 MB chase hits: twice the cache now
    assert scale == pytest.approx(0.5)
    assert lat[8 << 20] == 60 and lat[16 << 20] == 340           # priced as at calibration
    scale, lat = placed(200.0)                   # less cache now: the curve moves
    assert scale == pytest.approx(2 ** 0.5)
    assert lat[(16 << 20) / scale] == 340                        # 16 MB's cost sooner


def test_repricing_a_validation_reproduces_its_runs_and_credits_the_cache_as_validate_does():
    """A validation's rows estimated again from what each run recorded (its placement ratio,
    write-back, shared cache) give the estimate the run had; a run whose check found more
    shared cache than calibration is priced by calibration's, as validate prices it now."""
    from nfvperf.calibrate.placement import placed_at
    from nfvperf.eo.platform import LatencyPoint, OverlapPoint, load_platform
    from nfvperf.validation.dataplane import estimate_workload, repriced
    from nfvperf.validation.workloads import cases

    base = load_platform("xeon-e5-2690v2")
    curve = [LatencyPoint(bytes=b, cycles=c) for b, c in (
        (16 << 10, 3), (256 << 10, 10), (4 << 20, 40), (8 << 20, 300), (64 << 20, 400))]
    overlap = [OverlapPoint(in_flight=k, cycles=400 / k) for k in (1, 8)]
    p = base.model_copy(update={
        "memory": base.memory.model_copy(update={"load_latency": curve, "overlap": overlap}),
        "conventions": base.conventions.model_copy(update={"memory_stalls": "cycles"})})
    w = next(w for w in cases(True)["l2fwd"] if w.params.get("destinations", 1) > 1)
    wb = p.cache.l3_writeback_cycles

    def row(ratio, scale, back, measured):
        est = estimate_workload("l2fwd", w, placed_at(p, ratio, scale, back), 64, 20.0)
        return est.cycles_per_packet, {
            "nf": "l2fwd", "traffic": w.name, "params": dict(w.params), "packet_size": 64,
            "batch_mean": 20.0, "measured_cycles": measured, "error_pct": 0.0,
            "error_pct_runs": [0.0], "placement_ratio": [ratio], "cache_scale": [scale],
            "io_cycles": [[p.cache.l3_access_cycles * ratio, wb * back]]}

    as_run, r = row(2.0, 1.5, 3.0, 100.0)
    (again,) = repriced([r], p)
    assert again["estimated_cycles"] == pytest.approx(as_run, rel=1e-3)
    assert again["error_pct"] == pytest.approx(as_run - 100.0, rel=1e-3)
    more, r = row(1.0, 0.5, 1.0, 100.0)              # the check found twice the cache
    at_calibration, _ = row(1.0, 1.0, 1.0, 100.0)
    (again,) = repriced([r], p)
    assert more < at_calibration
    assert again["estimated_cycles"] == pytest.approx(at_calibration, rel=1e-3)


def test_a_lookup_dearer_now_than_at_calibration_prices_the_hash_tables_so(monkeypatch):
    """The check before a run times an rte_hash lookup in a small table on the NF's core; a
    neighbour on the core's other hardware thread made it 1.9x as long here for minutes at a
    time, and the NAT's cycles with it. The profile's lookup is priced at what it costs more
    now (a run's figure kept in its row, so that re-pricing the row prices it alike); NFs
    without a hash table do not move."""
    import importlib

    from nfvperf.calibrate import placement
    from nfvperf.eo.platform import load_platform
    from nfvperf.validation.dataplane import estimate_workload, repriced
    from nfvperf.validation.workloads import cases

    measure = importlib.import_module("nfvperf.calibrate.measure")
    base = load_platform("xeon-e5-2690v2")
    cal = {"core_to_core": {"one_way_cycles": {"median": 80.0},
                            "burst_line_cycles": {"median": 25.0}},
           "hash": [{"entries": 1024, "key_bytes": 16,
                     "lookup_hit_cycles": {"median": 39.0}}]}
    p = base.model_copy(update={"calibration": cal})
    lookup = p.instructions.hash_lookup_cycles

    def placed(hit):
        monkeypatch.setattr(measure, "reference_cycles", lambda l2: {
            "core_to_core": 80.0, "core_to_core_burst": 25.0, "shared_bytes": 8 << 20,
            "shared_cycles": 60.0, "hash_hit": hit, "hash_entries": 1024,
            "hash_key_bytes": 16})
        return placement.as_placed_now(p, 1 << 20)

    now = placed(39.0)
    assert now.platform.instructions.hash_lookup_cycles == pytest.approx(lookup)
    now = placed(73.0)
    assert now.core_ratio == pytest.approx(73 / 39)
    assert now.platform.instructions.hash_lookup_cycles == pytest.approx(lookup + 34)
    assert placement.placed_at(p, None, lookup_extra=-1e6).instructions.hash_lookup_cycles == 0
    (nat,) = [w for w in cases(True)["nat"] if w.params["flows"] == 1]
    (mpls,) = cases(True)["mpls"]
    calm, busy = (estimate_workload("nat", nat, x, 64, 20.0).cycles_per_packet
                  for x in (p, now.platform))
    assert busy == pytest.approx(calm + 34, abs=1)          # one lookup a packet
    assert estimate_workload("mpls", mpls, now.platform, 64, 20.0).cycles_per_packet == \
        pytest.approx(estimate_workload("mpls", mpls, p, 64, 20.0).cycles_per_packet)
    row = {"nf": "nat", "traffic": nat.name, "params": dict(nat.params), "packet_size": 64,
           "batch_mean": 20.0, "measured_cycles": 200.0, "error_pct": 0.0,
           "error_pct_runs": [0.0], "placement_ratio": [None], "cache_scale": [None],
           "io_cycles": [None], "lookup_cycles": [round(lookup + 34, 1)]}
    (again,) = repriced([row], p)
    assert again["estimated_cycles"] == pytest.approx(busy, abs=0.1)


def test_a_runs_record_prices_the_profile_again_as_the_run_was_priced(monkeypatch):
    """What a run was priced with (``priced``: the shared cache, the I/O constants, the
    lookup) and its placement ratio give the same profile again (``priced_as``): the record a
    chain point or a validate row keeps, from which a model change is judged on those runs."""
    import importlib

    from nfvperf.calibrate import placement
    from nfvperf.eo.platform import LatencyPoint, load_platform

    measure = importlib.import_module("nfvperf.calibrate.measure")
    base = load_platform("xeon-e5-2690v2")
    curve = [LatencyPoint(bytes=b, cycles=c) for b, c in (
        (16 << 10, 3), (256 << 10, 10), (4 << 20, 40), (8 << 20, 60), (16 << 20, 340),
        (64 << 20, 400))]
    cal = {"core_to_core": {"one_way_cycles": {"median": 80.0},
                            "burst_line_cycles": {"median": 25.0},
                            "read_line_cycles": {"median": 8.0},
                            "upgrade_line_cycles": {"median": 16.04}},
           "hash": [{"entries": 1024, "key_bytes": 16, "lookup_hit_cycles": {"median": 39.0}}]}
    cache = base.cache.model_copy(update={"l3_access_cycles": 8.0, "l3_writeback_cycles": 16.0})
    p = base.model_copy(update={"calibration": cal, "cache": cache, "memory": base.memory.
                                model_copy(update={"load_latency": curve})})
    monkeypatch.setattr(measure, "reference_cycles", lambda l2: {
        "core_to_core": 400.0, "core_to_core_burst": 95.0, "read_line": 40.0,
        "upgrade_line": 160.4, "shared_bytes": 8 << 20, "shared_cycles": 200.0,
        "hash_hit": 60.0, "hash_entries": 1024, "hash_key_bytes": 16})
    now = placement.as_placed_now(p, 1 << 20)
    rec = placement.priced(now)
    assert rec["lookup_cycles"] == pytest.approx(p.instructions.hash_lookup_cycles + 21, abs=0.1)
    again = placement.priced_as(p, now.ratio, **rec)
    for part, field in (("cache", "l3_access_cycles"), ("cache", "l3_writeback_cycles"),
                        ("instructions", "hash_lookup_cycles")):
        assert getattr(getattr(again, part), field) == pytest.approx(
            getattr(getattr(now.platform, part), field), abs=0.06)
    assert [q.bytes for q in again.memory.load_latency] == pytest.approx(
        [q.bytes for q in now.platform.memory.load_latency], rel=0.01)
    # kept as lists of one a run (a chain point, a validate row) and read back run by run
    kept = {k: [None, rec[k]] for k in placement.PRICED}
    assert placement.recorded(kept, 1) == rec
    # a record without the newer fields leaves those parts as calibrated
    older = placement.recorded({"cache_scale": [None, 2.0]}, 1)
    assert older == {"cache_scale": 2.0, "io_cycles": None, "lookup_cycles": None}
    older = placement.priced_as(p, None, **older)
    assert older.instructions.hash_lookup_cycles == p.instructions.hash_lookup_cycles
    assert older.cache.l3_access_cycles == p.cache.l3_access_cycles
