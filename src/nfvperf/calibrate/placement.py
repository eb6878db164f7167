"""Where a virtual machine's CPUs are placed: the trip of a cache line between the vSwitch's
CPU and the NF's, measured before each run and at the edges of its traffic, the profile
re-priced for it, and runs grouped by it. The hypervisor moves the two vCPUs between
placements (the trip changes by up to 10x, every NF's cycles with it), so estimate and
measurement must see the same machine, and results are reported per placement. The shared
cache moves too: other machines on the package take more or less of it (a chase over 8 MB
measured 45-370 cycles a load from one minute to the next here), and the same check prices
the tables by the share there is now. The NF's core itself is checked as well: another
machine on its other hardware thread slows it (``shared_core``)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from typing import Generic, NamedTuple, TypeVar

T = TypeVar("T")


class Placement(NamedTuple):
    """The profile re-priced for the CPUs' placement now, the ratio of the core-to-core trip
    now to at calibration, the one-way trip now in cycles, how many times less of the
    shared cache there is now than at calibration, and how many times slower the NF's core is
    on rte_hash lookups now than at calibration (None where unknown)."""

    platform: object
    ratio: float | None
    trip_cycles: float | None
    cache_scale: float | None = None
    core_ratio: float | None = None


#: a core this many times slower on rte_hash lookups than at calibration is shared: another
#: machine runs on its other hardware thread (here the lookups then take 1.6x as long, come
#: and go within seconds, and no placement check sees them)
SHARED_CORE_STEP = 1.25


def shared_core(p: Placement) -> bool:
    """Whether the NF's core was shared when ``p`` was measured (False where unknown)."""
    return p.core_ratio is not None and p.core_ratio > SHARED_CORE_STEP


def calibrated_hash_hit(calibration: dict | None, now: dict) -> float | None:
    """Calibration's rte_hash lookups (its raw measurements, ``calibration``) on the table of
    a reference check ``now``; None where either lacks them."""
    same = [h for h in (calibration or {}).get("hash", ())
            if (h["entries"], h["key_bytes"]) == (now.get("hash_entries"),
                                                  now.get("hash_key_bytes"))]
    return same[0]["lookup_hit_cycles"]["median"] if same else None


def core_ratio(calibration: dict | None, now: dict) -> float | None:
    """The reference check's rte_hash lookups (``now``) over calibration's on the same table;
    None where either lacks them."""
    cal = calibrated_hash_hit(calibration, now)
    return now["hash_hit"] / cal if cal else None


def as_placed_now(platform, l2_bytes: int) -> Placement:
    """The profile as the machine is placed now. A virtual machine's CPUs move between
    placements (the trip between them changes by up to 10x, every NF's cycles with it): the
    I/O EOs, priced by the lines handed between the CPUs (l3_access_cycles and
    l3_writeback_cycles, see nfvperf calibrate), are re-priced with those measured just before
    the run, and the tables by the shared cache measured then (``shared_cache_scale``), so that
    estimate and measurement see the same machine. ``ratio`` is the hand-over's now against
    calibration's: the NF's side of it where the profile has it, else the whole burst's.

    A check that finds less shared cache than calibration did prices the tables by it; one
    that finds more does not (``cache_scale`` still reports it). The check runs between
    bursts, with no traffic; in traffic the frames (each written into the cache as it
    arrives), the generator's and the vSwitch's lines take what it found free (see
    ``nfvp-calibrate --stream``). Calibration's curve, also measured with no traffic, is
    taken as the most there is."""
    from nfvperf.calibrate.measure import reference_cycles

    cal = (platform.calibration or {}).get("core_to_core")
    if not cal:
        return Placement(platform, None, None)
    now = reference_cycles(l2_bytes)
    if "core_to_core_burst" not in now:
        return Placement(platform, None, None)

    def now_over_cal(name: str) -> float | None:
        known = f"{name}_cycles" in cal and name in now
        return now[name] / cal[f"{name}_cycles"]["median"] if known else None

    ratio = now_over_cal("read_line") or now["core_to_core_burst"] / \
        cal["burst_line_cycles"]["median"]
    # mem_I/O's write-back moves with the placement where it is the upgrade calibrate measured
    # (to the tenth of a cycle the profile writes), not a value the profile's author set
    upgrade = cal.get("upgrade_line_cycles", {}).get("median")
    back = now_over_cal("upgrade_line") if upgrade is not None and math.isclose(
        upgrade, platform.cache.l3_writeback_cycles, abs_tol=0.05 + 1e-9) else None
    scale = shared_cache_scale(platform, now["shared_bytes"], now["shared_cycles"])
    cal_hit = calibrated_hash_hit(platform.calibration, now)
    lookup = None if cal_hit is None else now["hash_hit"] - cal_hit
    return Placement(placed_at(platform, ratio, credited(scale), back, lookup), ratio,
                     now["core_to_core"], scale, core_ratio(platform.calibration, now))


#: the fields of a run's pricing record (``priced``), beside its placement ratio
PRICED = ("cache_scale", "io_cycles", "lookup_cycles")


def priced(p: Placement) -> dict:
    """What a run's estimate was priced with, beyond its placement ratio, for its record
    (``PRICED``): the shared cache's scale its check found, the I/O EOs' two constants (a line
    read that the vSwitch's core wrote, a line written that it read) and the rte_hash
    lookup's cycles."""
    cache, ins = p.platform.cache, p.platform.instructions
    return {"cache_scale": None if p.cache_scale is None else round(p.cache_scale, 2),
            "io_cycles": [round(cache.l3_access_cycles, 1), round(cache.l3_writeback_cycles, 1)],
            "lookup_cycles": round(ins.hash_lookup_cycles, 1)}


def recorded(record: dict, run: int) -> dict:
    """Run ``run``'s pricing record out of ``record``'s lists of one a run (a chain point, a
    validate row); a field the record lacks (an older one) is None."""
    return {k: record[k][run] if k in record else None for k in PRICED}


def priced_as(platform, ratio: float | None, cache_scale: float | None,
              io_cycles: list[float] | None, lookup_cycles: float | None):
    """``platform`` priced as a run was, from its record (``priced``, and its placement
    ratio): the shared cache credited as validate credits it now; a record without a field
    leaves that part as calibrated (the write-back too where the record lacks the I/O
    constants)."""
    back = io_cycles[1] / platform.cache.l3_writeback_cycles if io_cycles else None
    extra = None if lookup_cycles is None else \
        lookup_cycles - platform.instructions.hash_lookup_cycles
    return placed_at(platform, ratio, credited(cache_scale), back, extra)


def credited(scale: float | None) -> float | None:
    """The shared cache's scale a run's tables are priced by, from the one its check measured:
    less cache than at calibration as measured, more not credited (see as_placed_now)."""
    return None if scale is None else max(1.0, scale)


def placed_at(platform, ratio: float | None, cache_scale: float | None = None,
              back_ratio: float | None = None, lookup_extra: float | None = None):
    """The profile with the I/O EOs' hand-over (l3_access_cycles) ``ratio`` times
    calibration's and their write-back (l3_writeback_cycles) ``back_ratio`` times, the
    load latency beyond the core's own caches that of a shared cache ``cache_scale`` times
    smaller (a working set then costs what one ``cache_scale`` times larger cost at
    calibration), and an rte_hash lookup (hash_lookup_cycles) ``lookup_extra`` cycles dearer
    than at calibration (the reference check's lookup in a small table now less calibration's:
    a neighbour on the core's other hardware thread takes its share of the core and of its
    caches; here it made the lookup 1.9x as long for minutes at a time)."""
    out = platform
    if lookup_extra is not None:
        i = platform.instructions
        out = out.model_copy(update={"instructions": i.model_copy(update={
            "hash_lookup_cycles": max(i.hash_lookup_cycles + lookup_extra, 0.0)})})
    io = {k: getattr(platform.cache, k) * r for k, r in (
        ("l3_access_cycles", ratio), ("l3_writeback_cycles", back_ratio)) if r is not None}
    if io:
        out = out.model_copy(update={"cache": platform.cache.model_copy(update=io)})
    if cache_scale is not None and platform.memory.load_latency is not None:
        private = platform.cache_l1_l2_bytes
        pts = [q for q in platform.memory.load_latency if q.bytes <= private] + [
            q.model_copy(update={"bytes": q.bytes / cache_scale})
            for q in platform.memory.load_latency
            if q.bytes > private and q.bytes / cache_scale > private]
        out = out.model_copy(update={"memory": platform.memory.model_copy(
            update={"load_latency": pts})})
    return out


#: the shared cache is taken to be at most this many times smaller or larger than at calibration
CACHE_SCALE_LIMIT = 8.0


def shared_cache_scale(platform, nbytes: float, cycles_now: float) -> float | None:
    """How many times less shared cache there is now than at calibration: the working set at
    which the calibrated load latency reads ``cycles_now`` (a chase over ``nbytes`` just
    measured) over ``nbytes`` (log-linear between the calibrated sizes beyond the core's own
    caches, the curve taken as rising). None without the curve; within CACHE_SCALE_LIMIT."""
    from nfvperf.eo.memory import working_set_at

    private = platform.cache_l1_l2_bytes
    at = working_set_at(cycles_now, [(q.bytes, q.cycles) for q in
                                     platform.memory.load_latency or () if q.bytes > private])
    if at is None:
        return None
    return min(CACHE_SCALE_LIMIT, max(1 / CACHE_SCALE_LIMIT, at / nbytes))


#: runs whose core-to-core trips differ by more than this factor were placed differently
PLACEMENT_STEP = 2.0


def moved(before: float | None, after: float | None) -> bool:
    """Whether the CPUs were placed differently after a run than before it (their trips more
    than PLACEMENT_STEP apart); False where either is unknown."""
    if before is None or after is None:
        return False
    return max(before, after) > PLACEMENT_STEP * min(before, after)


#: runs of one measurement at most: the hypervisor moves the vCPUs every few seconds here
PLACED_TRIES = 4


class PlacedRun(NamedTuple, Generic[T]):
    """A run on a placement that held: what it returned, the placement before it, the runs
    thrown away because the placement moved during them or they were disturbed, whether the
    kept one held undisturbed, and how many of those thrown away were disturbed."""

    result: T
    placement: Placement
    retries: int
    held: bool
    disturbed: int = 0


def until_held(run: Callable[[], T], check: Callable[[], Placement], at: float | None = None,
               tries: int = PLACED_TRIES, edges: bool = True,
               steady: Callable[[T], bool] | None = None,
               shared: bool = False) -> PlacedRun[T]:
    """``run()`` until the vCPUs hold one placement through it: ``check()`` measures where they
    are before and after, and (``edges``) at each edge of the data plane's traffic within it
    (``dataplane.watch.checked_at_traffic_edges``: the vCPUs move every few seconds here, and
    the seconds of starting processes and filling tables before the traffic, and of stopping
    them after, would hide a move and a move back during the traffic itself); a run with a
    trip a placement away from the first (or, given
    ``at``, from ``at``) is run again, up to ``tries`` times (the last is kept, ``held``
    False). Where the traffic's edges were seen, they alone judge the run and the first of
    them is its placement: the traffic is what was measured. A run is disturbed, and run again
    too, where a check saw the NF's core shared (``shared_core``) or ``steady(result)``
    rejects the traffic between its edges (``dataplane.watch``: a move and back, or a
    neighbour that came and went, within it); where no try held undisturbed, the first that
    held is kept (``held`` False). With ``shared``, a run whose every check saw the core
    shared (the neighbour there throughout: one machine, priced for the lookup it timed) is
    not disturbed; one whose checks disagree still is."""
    from nfvperf.dataplane.watch import checked_at_traffic_edges

    disturbed, kept = 0, None
    for i in range(tries):
        seen: list[Placement] = []
        with checked_at_traffic_edges(lambda: seen.append(check())) if edges else nullcontext():
            before = check()
            result = run()
        judged = seen or [before, check()]   # the edges, where the run sent traffic
        ref = judged[0].trip_cycles if at is None else at
        if not any(moved(ref, p.trip_cycles) for p in judged):
            sharing = [shared_core(p) for p in judged]
            calm = not any(sharing) or (shared and all(sharing))
            if calm and (steady is None or steady(result)):
                return PlacedRun(result, judged[0], i, True, disturbed)
            disturbed += 1
            kept = kept or (result, judged[0])   # held, if disturbed: better than moved
    if kept is not None:
        return PlacedRun(*kept, tries - 1, False, disturbed - 1)
    return PlacedRun(result, judged[0], tries - 1, False, disturbed)


def placed_run(platform, l2_bytes: int, run: Callable[[], T], tries: int = PLACED_TRIES,
               edges: bool = True, steady: Callable[[T], bool] | None = None,
               shared: bool = False) -> PlacedRun[T]:
    """``run()`` on a placement that held through it, with the profile priced for it. A run
    during which the vCPUs moved measured two machines at once and matches no estimate: it is
    run again (``until_held``; ``edges``: judged at the edges of its traffic; ``steady``: by
    its traffic's windows; ``shared``: a core shared throughout is kept)."""
    return until_held(run, lambda: as_placed_now(platform, l2_bytes), tries=tries,
                      edges=edges, steady=steady, shared=shared)


def placements(trips: Sequence[float]) -> list[int]:
    """The placement class of each trip: trips sorted, a new class wherever one is more than
    PLACEMENT_STEP times the one below it (0: the nearest)."""
    order = sorted(set(trips))
    cls, edges = 0, {}
    for i, t in enumerate(order):
        if i and t > PLACEMENT_STEP * order[i - 1]:
            cls += 1
        edges[t] = cls
    return [edges[t] for t in trips]


def placement_labels(rows: Sequence[dict]) -> tuple[list[str | None], list[str]]:
    """Each row's placement class, named by its trips ("trip 78-98 cycles"; None unknown), and
    the names from the nearest placement to the furthest."""
    trips = [r["trip_cycles"] for r in rows]
    known = [t for t in trips if t is not None]
    cls = dict(zip(known, placements(known)))
    names = {}
    for c in sorted(set(cls.values())):
        ts = [t for t in known if cls[t] == c]
        names[c] = f"trip {min(ts):.0f}-{max(ts):.0f} cycles"
    return [None if t is None else names[cls[t]] for t in trips], list(names.values())
