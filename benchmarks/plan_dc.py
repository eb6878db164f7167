"""Planning the data-centre example (60 hosts of two kinds, two chains of seed 004) — the
issue's target: at most 60 s.

    python benchmarks/plan_dc.py [--time-limit 30]

Reports the time to compute the capacities (estimator + batching model per service, host kind
and socket), the time CP-SAT took, the plan's cores and hosts, and whether it proved it optimal.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from nfvperf.plan.solve import plan
from nfvperf.plan.spec import load_plan

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "plans" / "datacentre.yaml"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--time-limit", type=float, default=30.0)
    a = ap.parse_args()
    spec = load_plan(EXAMPLE)
    marks = {}

    def progress(what, done, total):
        if done == total and "capacities" not in marks:
            marks["capacities"] = time.perf_counter()

    t0 = time.perf_counter()
    r = plan(spec, progress=progress, time_limit_s=a.time_limit)
    t1 = time.perf_counter()
    caps = marks.get("capacities", t0) - t0
    print(f"{sum(h.count for h in spec.hosts)} hosts, {len(spec.chains)} chains: "
          f"{t1 - t0:.1f} s in all (capacities {caps:.1f} s, CP-SAT and the report "
          f"{t1 - t0 - caps:.1f} s); {r['cores']} cores on "
          f"{', '.join(f'{k} × {v}' for k, v in r['hosts'].items())}; "
          f"{'optimal' if r['optimal'] else 'best found in the time limit'} (cost "
          f"{r['cost']:g}, no plan below {r['cost_lower_bound']:g}); "
          f"hops between hosts {r['hops_host']}, sockets {r['hops_socket']}")


if __name__ == "__main__":
    main()
