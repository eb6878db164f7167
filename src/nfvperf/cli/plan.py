"""Verbs of the planner and of studies: plan, sweep, report."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from nfvperf.cli.common import (Format, FormatOpt, OutOpt, QuietOpt, app, emit, set_quiet,
                                stages, write_file)

@app.command("plan")
def plan_cmd(
    plan_file: Annotated[Path, typer.Argument(help="The plan: hosts, chains, traffic, targets "
                                              "(YAML; `nfvperf schema plan`).")],
    explain: Annotated[bool, typer.Option("--explain", help="Also say what binds.")] = False,
    time_limit: Annotated[float, typer.Option(
        "--time-limit", help="Seconds CP-SAT may search; the best plan found by then is "
        "reported (optimal: false) if it has not proved one optimal.")] = 30.0,
    validate: Annotated[bool, typer.Option(
        "--validate", help="Run a one-host plan on this machine's data plane, scaled to it, "
        "and put the predictions beside the measurements.")] = False,
    platform: Annotated[Optional[str], typer.Option(
        "--platform", "-p", help="--validate: this host's profile (nfvperf calibrate's).")
    ] = None,
    fmt: FormatOpt = Format.table,
    out: OutOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """How many instances of each NF on which hosts, to carry the chains' traffic within their
    loss and latency targets at the least cost (estimator + batching model + CP-SAT)."""
    from nfvperf.errors import InputError
    from nfvperf.plan.solve import plan
    from nfvperf.plan.spec import load_plan
    from nfvperf.plan.views import plan_rows, plan_tables

    set_quiet(quiet)
    if not 0 < time_limit <= 3600:
        raise InputError("0 < seconds ≤ 3600", time_limit, field="--time-limit")
    if validate and platform is None:
        raise InputError("--platform with this host's profile (nfvperf calibrate -o "
                         "host.yaml)", None, field="--validate")
    spec = load_plan(plan_file)
    with stages() as say:
        result = plan(spec, progress=say, time_limit_s=time_limit, explain=explain)
    if validate:
        from nfvperf.validation.plan import validate_plan
        from nfvperf.validation.views import plan_table

        with stages() as say:
            result["validation"] = validate_plan(spec, result, platform, progress=say)
        emit(result, fmt, out, lambda d: [*plan_tables(d, explain),
                                           plan_table(d["validation"])],
              csv_rows=result["validation"])
        return
    emit(result, fmt, out, lambda d: plan_tables(d, explain), csv_rows=plan_rows(result))


@app.command("sweep")
def sweep_cmd(
    spec_file: Annotated[Path, typer.Argument(help="The sweep: run (batching, estimate or "
                                              "plan), fixed arguments, grid (YAML).")],
    scheduler: Annotated[str, typer.Option(
        "--scheduler", help="local (a cluster of this machine's CPUs) or tcp://HOST:PORT of "
        "a running Dask scheduler.")] = "local",
    workers: Annotated[Optional[int], typer.Option(
        "--workers", help="Local workers (default: one per CPU).")] = None,
    out: Annotated[Path, typer.Option("--out", "-o", help="Results: .parquet or .csv; a "
                                      "rerun skips the points already there.")] = Path(
        "sweep.parquet"),
    quiet: QuietOpt = False,
) -> None:
    """A parameter study over a model, the simulator or the planner, on Dask (resumable)."""
    from nfvperf.errors import InputError
    from nfvperf.sweep.run import sweep
    from nfvperf.sweep.spec import load_sweep

    set_quiet(quiet)
    if workers is not None and workers < 1:
        raise InputError("a number of workers ≥ 1", workers, field="--workers")
    spec = load_sweep(spec_file)
    with stages() as say:
        summary = sweep(spec, spec_file.resolve().parent, out, scheduler=scheduler,
                        workers=workers, progress=say)
    emit(summary, Format.json, None, None)


@app.command("report")
def report_cmd(
    results: Annotated[Path, typer.Argument(help="Results of nfvperf sweep (.parquet or .csv).")],
    html_out: Annotated[Path, typer.Option("--html", help="Write the HTML report here.")] = Path(
        "report.html"),
    quiet: QuietOpt = False,
) -> None:
    """An HTML report of a sweep's results: the plots and tables of the papers' studies."""
    from nfvperf.io import write_atomic
    from nfvperf.report.html import report

    set_quiet(quiet)
    page = report(results)
    write_file(html_out, "--html", lambda p: write_atomic(p, page))
