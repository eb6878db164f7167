"""Planning the data-centre example (60 hosts of two kinds, two chains of seed 004) — the
target: at most 60 s.

    python benchmarks/plan_dc.py [--time-limit 30] [--runs 3]

Reports the time to compute the capacities (estimator + batching model per service, host kind
and socket), then, side by side on the same capacities, CP-SAT on the program as the planner
builds it and without its aggregate (implied) constraints: seconds, cost, the bound it proved,
whether it proved the plan optimal. Then `plan` end to end (what a user waits for).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from nfvperf.plan.program import Infeasible, build, solve
from nfvperf.plan.solve import capacities, plan
from nfvperf.plan.spec import load_plan

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "plans" / "datacentre.yaml"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--time-limit", type=float, default=30.0)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    spec = load_plan(EXAMPLE)
    t0 = time.perf_counter()
    caps, pool = capacities(spec)
    print(f"{sum(h.count for h in spec.hosts)} hosts, {len(spec.chains)} chains, "
          f"{len(caps)} capacities in {time.perf_counter() - t0:.1f} s")
    for run in range(a.runs):
        for implied in (True, False):
            t = time.perf_counter()
            try:
                s = solve(build(spec, caps, pool, implied=implied), a.time_limit,
                          tie_break=False)
                what = (f"cost {s.cost:g}, bound {s.bound:g}, "
                        f"{'optimal' if s.optimal else 'not proved optimal'}; "
                        f"{sum(s.n.values())} cores on {sum(s.used.values())} hosts")
            except Infeasible as exc:
                what = "; ".join(exc.reasons)
            print(f"run {run + 1}, CP-SAT {'with' if implied else 'without'} the implied "
                  f"constraints: {time.perf_counter() - t:.1f} s, {what}")
    ends = []
    for _ in range(a.runs):
        t = time.perf_counter()
        r = plan(spec, time_limit_s=a.time_limit)
        ends.append(time.perf_counter() - t)
    print(f"nfvperf plan end to end (capacities, CP-SAT, fewest remote instances, balanced "
          f"split, KPIs): median {statistics.median(ends):.1f} s of {a.runs} "
          f"({', '.join(f'{e:.1f}' for e in ends)}); {r['cores']} cores on "
          f"{', '.join(f'{k} × {v}' for k, v in r['hosts'].items())}; "
          f"{'optimal' if r['optimal'] else 'best found in the time limit'} (cost "
          f"{r['cost']:g}, no plan below {r['cost_lower_bound']:g}); "
          f"hops between hosts {r['hops_host']}, sockets {r['hops_socket']}")


if __name__ == "__main__":
    main()
