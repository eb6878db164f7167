"""An NF's loop and its handler by the placement of this VM's two vCPUs.

    python benchmarks/loop_by_placement.py --platform host.yaml [--seconds 240] [-o out.json]

Runs `counter` (reads the mbuf's length), `forward` (rewrites the Ethernet header), the
router (/24 routes), `nat` (one flow) and `l2fwd` (one destination) alone in turn, three
bursts each of 64 B frames at 2 Mpps (as validate runs them), the placement checked at each
burst's traffic edges, round after round until --seconds have gone by. Prints per NF and
placement (the one-way trip of a line between the CPUs) the median cycles a packet of the NF's
whole loop, of its handler (the NF's own work: what its EO model prices), and of the loop's
own part (dequeue, enqueue, polling: the rings between the vSwitch's core and the NF's),
with the core's rte_hash lookups against calibration's (above 1.25: another machine on the
core's other hardware thread). The vCPUs move between placements on their own here: the far
one comes when it comes, and the longer the run, the more bursts of it.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from nfvperf.calibrate.placement import placed_run, placements
from nfvperf.eo.platform import load_platform
from nfvperf.nfs import model_file
from nfvperf.validation.dataplane import burst, estimate_workload, nf_alone
from nfvperf.validation.workloads import Workload, cases

BURSTS = 3


def jobs() -> list[tuple[str, Workload]]:
    c = cases(False)
    return [("counter", Workload("-")), ("forward", Workload("-")),
            ("router", c["router"][0]), ("nat", c["nat"][0]), ("l2fwd", c["l2fwd"][0])]


def measure(platform, seconds: float) -> list[dict]:
    out, end = [], time.monotonic() + seconds
    while time.monotonic() < end:
        for nf, w in jobs():
            with nf_alone(nf, w) as s:
                for _ in range(BURSTS):
                    r = placed_run(platform, int(platform.cache.l2_bytes), lambda: burst(
                        s, w, 64, rate_pps=2e6, duration_s=0.5), tries=1)
                    m, at = r.result, r.placement
                    est = estimate_workload(nf, w, at.platform, 64, m["batch_mean"]) \
                        if model_file(nf) else None
                    cache = at.platform.cache
                    out.append({"nf": nf, "traffic": w.name, "trip_cycles": at.trip_cycles,
                                "placement_ratio": at.ratio, "core_ratio": at.core_ratio,
                                "io_cycles": [cache.l3_access_cycles,
                                              cache.l3_writeback_cycles],
                                "held": r.held, "loop_cycles": m["loop_cycles"],
                                "handler_cycles": m["handler_cycles"],
                                "batch_mean": m["batch_mean"],
                                "estimated_cycles": est and est.cycles_per_packet})
                    print(f"{nf}: trip {r.placement.trip_cycles:.0f}, loop "
                          f"{m['loop_cycles']:.0f}, handler {m['handler_cycles']:.0f}",
                          flush=True)
                s.close()
    return out


def table(runs: list[dict]) -> list[str]:
    """Markdown: per NF and placement, the medians of its bursts."""
    known = [r for r in runs if r["trip_cycles"] is not None]
    cls = dict(zip((r["trip_cycles"] for r in known),
                   placements([r["trip_cycles"] for r in known])))
    lines = ["| NF | trip (cycles) | bursts | loop | handler | loop's own | estimated "
             "| core ratio |", "|---|---|---|---|---|---|---|---|"]
    for nf, _ in jobs():
        for c in sorted({cls[r["trip_cycles"]] for r in known}):
            group = [r for r in known if r["nf"] == nf and cls[r["trip_cycles"]] == c]
            if not group:
                continue

            def med(key: str) -> float | None:
                xs = [r[key] for r in group if r[key] is not None]
                return statistics.median(xs) if xs else None
            trips = [r["trip_cycles"] for r in group]
            est, core = med("estimated_cycles"), med("core_ratio")
            lines.append(f"| `{nf}` | {min(trips):.0f}-{max(trips):.0f} | {len(group)} | "
                         f"{med('loop_cycles'):.0f} | {med('handler_cycles'):.0f} | "
                         f"{med('loop_cycles') - med('handler_cycles'):.0f} | "
                         f"{'–' if est is None else f'{est:.0f}'} | "
                         f"{'–' if core is None else f'{core:.2f}'} |")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--platform", required=True, type=Path, help="the host's profile "
                    "(nfvperf calibrate): its placement and rte_hash checks")
    ap.add_argument("--seconds", type=float, default=240.0, help="how long to measure")
    ap.add_argument("-o", "--out", type=Path, help="write every burst here (JSON)")
    args = ap.parse_args()
    runs = measure(load_platform(args.platform), args.seconds)
    if args.out:
        args.out.write_text(json.dumps(runs, indent=1))
    print("\n".join(table(runs)))


if __name__ == "__main__":
    main()
