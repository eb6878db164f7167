"""NFs beside neighbours: the slowdown that processes on another core, sharing the last-level
cache and DRAM, cause an NF, predicted by the stall term and measured on the data plane.

A neighbour is ``nfvp-calibrate --hog BYTES``: chases through a random cycle of BYTES, eight in
flight, as a busy table NF does, and reports the lines it loaded a second (its memory
intensity). Neighbours run on the vSwitch's CPU, the one core besides the NF's here. For each
NF and count of neighbours (0, 1, 2 by default), the NF runs alone in a chain as ``validate
dataplane`` runs it, and the prediction is the NF's estimate with its neighbours
(:class:`nfvperf.eo.memory.Sharing`): their lines, over the time a line of each table waits
between uses at the NF's measured packet rate, lengthen its reuse distance in the shared cache.

Whether the two CPUs share a last-level cache at all is the placement's: a line travels between
cores that share one at the speed of that cache, and between cores that do not at nearly that
of DRAM. The trip measured before each run decides: shared where it is under half a DRAM load.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable, Sequence

from nfvperf.errors import InputError, RuntimeFailure
from nfvperf.validation.colocation_json import ColocationRow

#: a trip between the CPUs under this share of a DRAM load: they share the last-level cache
SHARED_TRIP_SHARE = 0.5
#: the neighbours start this long before the NF's run, and stop when it ends (at the latest
#: after HOG_MAX_S)
HOG_LEAD_S = 0.5
HOG_MAX_S = 120.0


def start_hogs(count: int, nbytes: int, seconds: float, cpu: int) -> list[subprocess.Popen]:
    """``count`` neighbours on ``cpu``, each over ``nbytes`` for ``seconds``."""
    from nfvperf.dataplane.build import binaries

    binary = binaries()["calibrate"]
    return [subprocess.Popen(
        [str(binary), "-l", str(cpu), "--no-huge", "-m", "64", "--no-pci", "--file-prefix",
         f"nfvp_hog{i}", "--log-level", "lib.eal:error", "--", "--hog", str(nbytes),
         "--hog-seconds", f"{seconds:.3f}"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True) for i in range(count)]


def hog_rates(procs: Sequence[subprocess.Popen]) -> list[dict]:
    """Stop the neighbours; what each reported: its bytes and its loads a second."""
    for p in procs:
        p.terminate()
    out = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=60)
        if p.returncode != 0:
            raise RuntimeFailure("a neighbour (nfvp-calibrate --hog) failed: "
                                 + (stderr.strip().splitlines() or ["?"])[-1])
        out.append(json.loads(stdout))
    return out


def validate(platform_path: str, nfs: Sequence[str], *, neighbours: Sequence[int] = (0, 1, 2),
             neighbour_bytes: int = 64 << 20, frame_bytes: int = 64, rate_pps: float = 2e6,
             duration_s: float = 1.0, repeats: int = 3,
             progress: Callable[[str, int, int], None] | None = None) -> list[dict]:
    """For each NF workload (``validate dataplane``'s quick ones: tables the size of the
    caches, where neighbours matter) and count of neighbours: cycles a packet measured and
    predicted, and the slowdown against no neighbours, measured and predicted: the median over
    runs of each run against the run alone just before it, where both saw the same placement
    (a move of the CPUs between them changes the cycles more than neighbours do)."""
    from nfvperf.eo.platform import load_platform
    from nfvperf.validation.workloads import cases

    platform = load_platform(platform_path)
    if platform.conventions.memory_stalls != "cycles":
        raise InputError("a profile with conventions.memory_stalls: cycles (nfvperf calibrate "
                         "writes one)", platform.conventions.memory_stalls,
                         field="conventions.memory_stalls")
    table = cases(quick=True)
    unknown = [n for n in nfs if n not in table]
    if unknown:
        raise InputError(", ".join(table), unknown[0], field="nfs")
    if any(k < 0 for k in neighbours) or 0 not in neighbours:
        raise InputError("counts of neighbours ≥ 0, 0 among them", list(neighbours),
                         field="neighbours")
    dram = max(q.cycles for q in platform.memory.load_latency)
    counts = sorted(set(neighbours))
    jobs = [(nf, w) for nf in nfs for w in table[nf]]
    steps, rows = len(jobs) * repeats * len(counts), []
    for j, (nf, w) in enumerate(jobs):
        size = max(frame_bytes, w.min_frame)
        # runs of every count back to back, so that each is compared with a run alone on the
        # same placement of the CPUs
        runs: dict[int, list[dict]] = {k: [] for k in counts}
        for r in range(repeats):
            for i, k in enumerate(counts):
                if progress:
                    progress(f"{nf}, {w.name}, {k} neighbour(s), run {r + 1}",
                             (j * repeats + r) * len(counts) + i, steps)
                runs[k].append(_run(platform, nf, w, k, size, neighbour_bytes, rate_pps,
                                    duration_s, dram))
        for k in counts:
            rows.append(_row(nf, w, k, size, neighbour_bytes, runs[k], runs[counts[0]]))
    if progress:
        progress("done", steps, steps)
    return rows


def _run(platform, nf, w, k: int, size: int, neighbour_bytes: int, rate_pps: float,
         duration_s: float, dram: float) -> dict:
    """One run of ``nf`` beside ``k`` neighbours: measured and predicted cycles a packet."""
    from nfvperf.calibrate.placement import placed_run
    from nfvperf.eo.memory import Neighbour, Sharing
    from nfvperf.validation.dataplane import estimate_workload, measure

    def beside_hogs():
        hogs = start_hogs(k, neighbour_bytes, HOG_MAX_S, cpu=0)
        try:
            time.sleep(HOG_LEAD_S if k else 0)
            m = measure(nf, w, size, rate_pps=rate_pps, duration_s=duration_s)
        finally:
            rates = hog_rates(hogs)
        return m, rates

    # judged before and after only: at the traffic's edges the neighbours run on the vSwitch's
    # CPU, and a check then would share it with them
    got = placed_run(platform, int(platform.cache.l2_bytes), beside_hogs, edges=False)
    (m, rates), placement, moves = got.result, got.placement, got.retries
    placed, trip = placement.platform, placement.trip_cycles
    shared = trip is not None and trip < SHARED_TRIP_SHARE * dram
    sharing = Sharing(tuple(Neighbour(r["bytes"], r["loads_per_s"]) for r in rates)
                      if shared else (), max(m["rx"] / duration_s, 1.0),
                      placed.cache_l1_l2_bytes)
    est = estimate_workload(nf, w, placed, size, m["batch_mean"], sharing)
    return {"measured": m["loop_cycles"], "predicted": est.cycles_per_packet, "trip": trip,
            "moves": moves, "shared": shared, "loads_per_s": [r["loads_per_s"] for r in rates]}


def _row(nf: str, w, k: int, size: int, neighbour_bytes: int, runs: list[dict],
         alone: list[dict]) -> ColocationRow:
    """The median run beside ``k`` neighbours, and the median of its slowdowns against the
    run alone just before it where both saw the same placement (None where none did)."""
    import statistics

    from nfvperf.calibrate.placement import placements

    pairs = [(r, a) for r, a in zip(runs, alone) if r["trip"] is not None
             and a["trip"] is not None and len(set(placements([r["trip"], a["trip"]]))) == 1]
    mid = sorted(runs, key=lambda r: r["measured"])[len(runs) // 2]

    def median(xs):
        return statistics.median(xs) if xs else None

    measured = median([100 * (r["measured"] / a["measured"] - 1) for r, a in pairs])
    predicted = median([100 * (r["predicted"] / a["predicted"] - 1) for r, a in pairs])
    return {"nf": nf, "traffic": w.name, "path": w.path, "neighbours": k,
            "neighbour_bytes": neighbour_bytes, "packet_size": size,
            "measured_cycles": mid["measured"], "predicted_cycles": mid["predicted"],
            "shares_cache": mid["shared"], "trip_cycles": mid["trip"],
            "neighbour_loads_per_s": mid["loads_per_s"],
            "measured_cycles_runs": [r["measured"] for r in runs],
            "paired_runs": len(pairs),
            "placement_moves": sum(r["moves"] for r in runs),
            "measured_slowdown_pct": measured, "predicted_slowdown_pct": predicted,
            "error_points": None if measured is None else predicted - measured}
