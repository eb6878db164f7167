"""What a calibration shows that a host's memory system should not: loads that do not get
slower as the working set leaves each cache, a TSC far from the kernel's rate, overlapped loads
no cheaper than dependent ones, larger tables no dearer. On a shared VM these happen (its CPUs
move, a neighbour is busy); they are said, not refused: the profile keeps what was measured."""

from __future__ import annotations

from nfvperf.calibrate.host import Host


#: reference checks after a calibration (0.4 s each): the neighbour on the core's other thread
#: comes and goes within seconds here, and the quietest of these is the core alone
QUIET_CHECKS = 5


def _median(point: dict, key: str = "cycles") -> float:
    return point[key]["median"]


def doubts(host: Host, d: dict, after: list[dict] | None = None) -> list[str]:
    """One line per doubt about the measurements ``d`` (nfvp-calibrate's JSON) of ``host``;
    ``after``: reference checks taken after it (``measure.reference_cycles``), against
    which its rte_hash lookups show whether another machine shared the core meanwhile."""
    from nfvperf.calibrate.placement import SHARED_CORE_STEP, calibrated_hash_hit
    from nfvperf.calibrate.profile import derive

    out = []
    lat = [_median(p) for p in d["load_latency"]]
    v = derive(host, {k: x for k, x in d.items() if k != "core_to_core"}, "dependent")
    levels = [("L1", v["l1_load_cycles"][0]), ("L2", v["l2_load_cycles"][0]),
              ("L3", v["l3_access_cycles"][0]), ("DRAM", lat[-1])]
    for (a, x), (b, y) in zip(levels, levels[1:]):
        if not x < y:
            out.append(f"a load from {b} ({y:.0f} cycles) measured no slower than from {a} "
                       f"({x:.0f})")
    if host.kernel_tsc_hz and abs(d["tsc_measured_hz"] / host.kernel_tsc_hz - 1) > 0.05:
        out.append(f"the TSC ran at {d['tsc_measured_hz'] / 1e9:.3f} GHz, the kernel says "
                   f"{host.kernel_tsc_hz / 1e9:.3f}")
    deepest = d["load_latency"][-1]
    if "independent_cycles" in deepest and not _median(deepest, "independent_cycles") < lat[-1]:
        out.append("independent DRAM loads cost no less each than dependent ones")
    pairs = [("a lookup in the largest hash table", d["hash"], "lookup_hit_cycles"),
             ("a checksum of the longest block", d["checksum"], "cycles"),
             ("a DFA byte over the largest table", d["dfa"], "cycles_per_byte")]
    for what, series, key in pairs:
        if len(series) > 1 and not _median(series[-1], key) > _median(series[0], key):
            out.append(f"{what} costs no more than over the smallest")
    same = [a for a in after or () if calibrated_hash_hit(d, a)]
    slower = calibrated_hash_hit(d, same[0]) / min(a["hash_hit"] for a in same) if same else 0
    if slower > SHARED_CORE_STEP:                       # against the quietest check
        out.append(f"rte_hash lookups took {slower:.2f}x what the core took alone "
                   "afterwards: another machine shared the core (its other hardware thread) "
                   "while calibrating; calibrate again")
    return out
