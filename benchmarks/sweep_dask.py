"""The 1200-configuration batching study (examples/sweeps/geissler-study.yaml) three ways, side
by side: in one process, with `nfvperf sweep` on a local Dask cluster of this machine's CPUs,
and on a Dask scheduler started apart (two local workers: how a user with more machines scales
out). The target: Dask no slower than one process, and spread over the workers.

    python benchmarks/sweep_dask.py [--limit N] [-o out/sweep]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from nfvperf.sweep.run import sweep
from nfvperf.sweep.runners import run_point
from nfvperf.sweep.spec import load_sweep

SPEC = Path(__file__).resolve().parents[1] / "examples" / "sweeps" / "geissler-study.yaml"


def main() -> None:
    from dask.distributed import LocalCluster

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=None, help="the first N points only")
    ap.add_argument("-o", "--out", type=Path, default=Path("out/sweep"))
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    spec = load_sweep(SPEC)
    if a.limit:
        # the same study's first points: a grid narrowed to its first rates
        rates = spec.grid["rate_mbps"].values()
        keep = max(1, a.limit // (len(spec.points()) // len(rates)))
        spec = spec.model_copy(update={"grid": {**spec.grid, "rate_mbps": rates[:keep]}})
    points = spec.points()
    t0 = time.perf_counter()
    for p in points:
        run_point(spec.run, {**spec.fixed, **p})
    one = time.perf_counter() - t0
    print(f"{len(points)} points, one process: {one:.1f} s", flush=True)
    results = {}
    for label, kw in (("local cluster (nfvperf sweep)", {"scheduler": "local"}),):
        out = a.out / "local.parquet"
        out.unlink(missing_ok=True)
        s = sweep(spec, SPEC.parent, out, **kw)
        results[label] = s
        print(f"{label}: {s['seconds']:.1f} s on {s['workers']} workers, "
              f"{one / s['seconds']:.2f}x one process", flush=True)
    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None,
                      silence_logs=40) as cluster:
        out = a.out / "scheduler.parquet"
        out.unlink(missing_ok=True)
        s = sweep(spec, SPEC.parent, out, scheduler=cluster.scheduler_address)
        print(f"a scheduler apart ({cluster.scheduler_address}, 2 workers): "
              f"{s['seconds']:.1f} s, {one / s['seconds']:.2f}x one process", flush=True)


if __name__ == "__main__":
    main()
