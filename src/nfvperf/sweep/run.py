"""Run a sweep on Dask: a local cluster of this machine's CPUs by default, or an existing
scheduler (``tcp://HOST:PORT``), the way a user with more machines scales out. Results are
written as they come (atomically: a temporary file, then a rename) to Parquet or CSV; a rerun
reads them back and runs only the points not there yet (resumable)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from typing_extensions import TypedDict

from nfvperf.errors import InputError, NfvperfError
from nfvperf.io import relative_file, write_atomic
from nfvperf.output import contract
from nfvperf.sweep.spec import SweepSpec

#: arguments that name files, taken relative to the sweep file
FILE_ARGS = ("plan", "model", "service", "platform")
WRITE_EVERY_S = 2.0


def _resolve(args: dict[str, Any], base: Path) -> dict[str, Any]:
    return {k: relative_file(v, base) if k in FILE_ARGS and isinstance(v, str) else v
            for k, v in args.items()}


def _key(value) -> str:
    """A grid value as it is compared with one read back (a whole number written as 1 is
    read back from CSV or Parquet as 1.0)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return repr(float(value))
    return str(value)


def read_results(path: Path, field: str = "RESULTS"):
    """A sweep's results (Parquet or CSV) as a DataFrame; InputError naming ``field``."""
    import pandas as pd

    if not path.is_file():
        raise InputError("a results file (.parquet or .csv)", str(path), field=field)
    try:
        return pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_csv(path)
    except Exception as exc:    # pandas raises many kinds for a file that is not one
        raise InputError("a results file (.parquet or .csv)", f"{path} ({exc})",
                         field=field) from None


def _write(df, path: Path) -> None:
    write_atomic(path, df.to_parquet(index=False) if path.suffix == ".parquet"
                 else df.to_csv(index=False))


def client_for(scheduler: str, workers: int | None):
    from dask.distributed import Client, LocalCluster

    if scheduler == "local":
        cluster = LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1,
                               processes=True, dashboard_address=None, silence_logs=40)
        return Client(cluster), cluster
    if not scheduler.startswith("tcp://"):
        raise InputError("local or a scheduler address tcp://HOST:PORT", scheduler,
                         field="scheduler")
    try:
        return Client(scheduler, timeout="10s"), None
    except OSError as exc:
        raise InputError("a Dask scheduler that answers", f"{scheduler} ({exc})",
                         field="scheduler") from None


@contract
class SweepSummary(TypedDict):
    """What ``nfvperf sweep`` prints when it is done (the results are in ``output``)."""

    sweep: str
    """The sweep file's name."""
    run: str
    """What each point runs: batching, estimate or plan."""
    points: int
    """In the grid."""
    already_done: int
    """Found in the output from an earlier run, and skipped."""
    computed: int
    output: str
    """The results file: a row a point, the grid's values and the run's results."""
    seconds: float
    workers: int
    """Dask workers that computed them (0: nothing to compute)."""


def sweep(spec: SweepSpec, base: Path, out: Path, *, scheduler: str = "local",
          workers: int | None = None,
          progress: Callable[[str, int, int], None] | None = None) -> SweepSummary:
    """Run the points of ``spec`` not in ``out`` yet; returns a summary."""
    import pandas as pd
    from dask.distributed import as_completed

    from nfvperf.sweep.runners import run_point

    if out.suffix not in (".parquet", ".csv"):
        raise InputError("a .parquet or .csv file", str(out), field="-o")
    if not out.parent.is_dir():
        raise InputError("a file in a folder that exists", str(out), field="-o")
    points = spec.points()
    grid = list(spec.grid)
    old = read_results(out, "-o") if out.exists() else None
    done = set() if old is None else {tuple(_key(v) for v in row)
                                      for row in old[grid].itertuples(index=False)}
    todo = [p for p in points if tuple(_key(p[g]) for g in grid) not in done]
    rows = [] if old is None else old.to_dict("records")
    t0 = time.perf_counter()
    summary = {"sweep": spec.name, "run": spec.run, "points": len(points),
               "already_done": len(points) - len(todo), "computed": 0, "output": str(out)}
    if not todo:
        return {**summary, "seconds": 0.0, "workers": 0}
    client, cluster = client_for(scheduler, workers)
    try:
        n_workers = len(client.scheduler_info()["workers"])
        fixed = _resolve(spec.fixed, base)
        futures = client.map(run_point, [spec.run] * len(todo),
                             [{**fixed, **_resolve(p, base)} for p in todo], pure=False)
        point_of = {f.key: p for f, p in zip(futures, todo)}
        last = time.perf_counter()
        try:
            for i, f in enumerate(as_completed(futures), 1):
                try:
                    row = f.result()
                except NfvperfError as exc:     # one line naming the point, what is done kept
                    raise InputError(f"arguments its run takes ({exc})",
                                     point_of[f.key], field="grid point") from None
                for g in grid:              # the grid's values as written, not resolved
                    row[g] = point_of[f.key][g]
                rows.append(row)
                if progress:
                    progress(f"{spec.run} points", i, len(todo))
                if time.perf_counter() - last > WRITE_EVERY_S:
                    _write(pd.DataFrame(rows), out)
                    last = time.perf_counter()
        finally:
            if rows:
                _write(pd.DataFrame(rows), out)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    return {**summary, "computed": len(todo), "seconds": time.perf_counter() - t0,
            "workers": n_workers}
