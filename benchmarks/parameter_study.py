"""The paper's parameter study with the model: L × β × frame size × 20 rates = 1200 solves.

    python benchmarks/parameter_study.py [-o out/study.csv] [--workers 2] [--limit N]

L ∈ {1024, 2048, 4096}, β ∈ {64, 256, 512, 1024} (β ≤ L), frames of 64-1024 B, 500-10000 Mbps
(Geissler et al. Sec. 4, Fig. 8-12). Service times: the global fit of the VPP cross-connect
samples (the only ones published here), extended linearly to β = 1024, the same for every frame
size. Results go to one CSV as they come; a rerun skips the configurations already in it
(resumable). A progress bar shows on stderr. `nfvperf sweep` runs such studies on
Dask; this script is the benchmark of the model itself.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import os
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

FIELDS = ["queue", "beta", "frame_bytes", "rate_mbps", "mean_batch_size", "loss_probability",
          "mean_waiting_time_us", "mean_sojourn_time_us", "p99_sojourn_time_us",
          "mean_queue_size", "residual", "seconds"]


def configurations():
    for L, beta, frame, rate in itertools.product((1024, 2048, 4096), (64, 256, 512, 1024),
                                                  (64, 128, 256, 512, 1024),
                                                  range(500, 10001, 500)):
        yield L, beta, frame, rate


DT = 10e-9


def solve(config):
    from nfvperf.batching.arrivals import interarrival, packet_rate_pps
    from nfvperf.batching.model import BatchQueue
    from nfvperf.batching.vpp import extended_service

    L, beta, frame, rate = config
    dt = DT
    a = interarrival("poisson", packet_rate_pps(rate_bps=rate * 1e6, frame_bytes=frame), dt)
    t0 = time.perf_counter()
    r = BatchQueue(L, beta, a, extended_service(beta, dt), dt).solve()
    d = r.to_dict()
    return {"queue": L, "beta": beta, "frame_bytes": frame, "rate_mbps": rate,
            "mean_batch_size": d["mean_batch_size"], "loss_probability": d["loss_probability"],
            "mean_waiting_time_us": d["mean_waiting_time_us"],
            "mean_sojourn_time_us": d["mean_sojourn_time_us"],
            "p99_sojourn_time_us": d["sojourn_time_us_percentiles"]["99"],
            "mean_queue_size": d["mean_queue_size"], "residual": d["residual"],
            "seconds": time.perf_counter() - t0}


def main() -> None:
    from rich.progress import (
        BarColumn,
        Progress,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--out", type=Path, default=Path("out/study.csv"))
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--limit", type=int, default=None, help="stop after N new solves")
    args = ap.parse_args()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    done = set()
    if args.out.exists():
        with args.out.open() as fh:
            done = {(int(r["queue"]), int(r["beta"]), int(r["frame_bytes"]), int(r["rate_mbps"]))
                    for r in csv.DictReader(fh)}
    todo = [c for c in configurations() if c not in done][: args.limit]
    total = len(list(configurations()))
    new = not args.out.exists()
    t0 = time.perf_counter()
    with args.out.open("a", newline="") as fh, ProcessPoolExecutor(args.workers) as pool, \
            Progress("{task.description}", BarColumn(), "{task.completed}/{task.total}",
                     TimeElapsedColumn(), TimeRemainingColumn()) as bar:
        writer = csv.DictWriter(fh, fieldnames=FIELDS)
        if new:
            writer.writeheader()
        task = bar.add_task("solves", total=total, completed=len(done))
        for fut in as_completed([pool.submit(solve, c) for c in todo]):
            writer.writerow(fut.result())
            fh.flush()
            bar.advance(task)
    wall = time.perf_counter() - t0
    print(f"{len(todo)} solves in {wall:.0f} s with {args.workers} workers "
          f"({len(done)} were already done); results in {args.out}")


if __name__ == "__main__":
    main()
