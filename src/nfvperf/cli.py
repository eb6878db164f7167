"""The nfvperf command line: one Typer app, each verb a thin call into the library.

This is the only module that prints or exits. Library errors (``InputError``) become one line on
stderr and exit code 2; ``--debug`` shows the traceback instead. Heavy imports stay inside the verbs
so that ``nfvperf --help`` and an estimate start fast.
"""

from __future__ import annotations

import math
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from nfvperf.output import Column
from nfvperf.output import table as output_table

app = typer.Typer(
    name="nfvperf",
    help="Predict, measure and plan the performance of software network functions.",
    no_args_is_help=True,
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    pretty_exceptions_enable=False,
)

_state = {"debug": False, "quiet": False}

DEFAULT_PLATFORM = "xeon-e5-2690v2"


class Format(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"


class ListWhat(str, Enum):
    models = "models"
    platforms = "platforms"
    eos = "eos"


class SchemaWhat(str, Enum):
    model = "model"
    platform = "platform"
    chain = "chain"
    plan = "plan"


FormatOpt = Annotated[Format, typer.Option("--format", "-f", help="Output format.")]
OutOpt = Annotated[Optional[Path], typer.Option("--out", "-o", help="Write to this file "
                                                "(atomically) instead of standard output.")]
PlatformOpt = Annotated[str, typer.Option("--platform", "-p", help="Packaged profile name or a "
                                          "profile YAML file.")]
PaperUnitsOpt = Annotated[bool, typer.Option(
    "--paper-units", help="Read and print rates with binary prefixes (G = 2^30, M = 2^20), as "
    "the paper's printed figures do; SI otherwise.")]
RemoteOpt = Annotated[float, typer.Option(
    "--remote-fraction", help="Share of packets read from the other socket's L3 (Sec. 4.2).")]
PlotOpt = Annotated[Optional[Path], typer.Option(
    "--plot", help="Also draw the result as a PNG file.", show_default=False)]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="Say nothing but the results.")]
ParamOpt = Annotated[Optional[list[str]], typer.Option(
    "--param", help="NAME=VALUE for a model parameter (repeatable).")]


@app.callback()
def _main(
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks.")] = False,
) -> None:
    _state["debug"] = debug
    _state["quiet"] = False


@app.command()
def estimate(
    models: Annotated[list[str], typer.Argument(help="Packaged model names or model YAML files.",
                                                show_default=False)],
    platform: PlatformOpt = DEFAULT_PLATFORM,
    packet_size: Annotated[Optional[int], typer.Option(
        "--packet-size", "-s", help="Ethernet frame size in bytes, FCS included [default: 64].")
    ] = None,
    packet_sizes: Annotated[Optional[str], typer.Option(
        "--packet-sizes", help="Comma-separated frame sizes, or 'rfc2544'.")] = None,
    cores: Annotated[int, typer.Option("--cores", "-c", help="Cores running the NF.")] = 1,
    remote_fraction: RemoteOpt = 0.0,
    paper_units: PaperUnitsOpt = False,
    param: ParamOpt = None,
    fmt: FormatOpt = Format.table,
    out: OutOpt = None,
    plot: PlotOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Per-packet cycles and DRAM accesses, and the CPU, memory and link bounds on a platform.

    With --packet-sizes and --plot, draws throughput over frame size (like the paper's Figs. 10-13).
    """
    from nfvperf import api

    _quiet(quiet)
    sizes = _sizes(packet_size, packet_sizes)
    if plot is not None and len(sizes) < 2:
        from nfvperf.errors import InputError

        raise InputError("two or more sizes in --packet-sizes for a plot", len(sizes),
                         field="--plot")
    rows = api.estimate_rows(models, platform=platform, frame_sizes=sizes, cores=cores,
                             remote_fraction=remote_fraction, paper_units=paper_units,
                             params=_params(param))
    from nfvperf.views import estimate_table

    _emit([r.to_dict() for r in rows], fmt, out, estimate_table)
    if plot is not None:
        from nfvperf.plots import throughput_vs_frame

        _plot(throughput_vs_frame, rows, plot)


@app.command()
def explain(
    model: Annotated[str, typer.Argument(help="Packaged model name or model YAML file.",
                                         show_default=False)],
    platform: PlatformOpt = DEFAULT_PLATFORM,
    packet_size: Annotated[int, typer.Option("--packet-size", "-s",
                                             help="Ethernet frame size in bytes.")] = 64,
    remote_fraction: RemoteOpt = 0.0,
    paper_units: PaperUnitsOpt = False,
    param: ParamOpt = None,
    fmt: FormatOpt = Format.table,
    out: OutOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Where the cycles go: the cost of each EO of a model, line by line."""
    from nfvperf import api

    _quiet(quiet)
    from nfvperf.views import explain_rows, explain_tables

    rows = api.estimate_rows([model], platform=platform, frame_sizes=[packet_size], cores=1,
                             remote_fraction=remote_fraction, paper_units=paper_units,
                             params=_params(param))
    _emit(explain_rows(rows), fmt, out, lambda data: explain_tables(rows))


@app.command("list")
def list_(
    what: Annotated[ListWhat, typer.Argument(help="What to list.")],
    fmt: FormatOpt = Format.table,
) -> None:
    """The packaged NF models or platform profiles, or the EO catalogue."""
    from nfvperf import api
    from nfvperf.views import list_table

    rows = api.catalogue(what.value)
    _emit(rows, fmt, None, lambda data: list_table(what.value, data))


@app.command()
def schema(
    what: Annotated[SchemaWhat, typer.Argument(help="Which file kind.")],
    out: OutOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """JSON Schema of model, platform, chain (`--chain`) or plan files, for editors."""
    from nfvperf import api

    _quiet(quiet)
    _emit(api.json_schema(what.value), Format.json, out, None)


@app.command()
def demo(
    fmt: FormatOpt = Format.table,
    out: OutOpt = None,
    plot: PlotOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """The paper's Section 3 and 4.2 figures beside ours, with the reproduction status of each.

    --plot draws the estimate lines of the paper's Figs. 10-13 over frame sizes.
    """
    from nfvperf.eo.reproduction import figure_panels, reproduce
    from nfvperf.views import demo_tables

    _quiet(quiet)
    report = reproduce()
    _emit(report.to_dict(), fmt, out, lambda data: demo_tables(report),
          csv_rows=report.to_dict()["figures"])
    if plot is not None:
        from nfvperf.plots import paper_figures

        _plot(paper_figures, figure_panels(), plot)


ServiceOpt = Annotated[Optional[Path], typer.Option(
    "--service-times", help="CSV: batch_size,mean_service_time_ns, rows 0..β (missing sizes "
    "are interpolated).", show_default=False)]
BetaOpt = Annotated[int, typer.Option("--beta", help="Maximum batch size β.")]
QueueOpt = Annotated[int, typer.Option("--queue", help="Queue (RX ring) capacity L.")]
RateMbpsOpt = Annotated[Optional[float], typer.Option(
    "--rate-mbps", help="Offered bit rate (20 B per frame on the wire).")]
FrameOpt = Annotated[int, typer.Option("--packet-size", "-s", help="Frame size in bytes.")]
RateMppsOpt = Annotated[Optional[float], typer.Option("--rate-mpps", help="Offered packet rate.")]
ArrivalsOpt = Annotated[str, typer.Option(
    "--arrivals", help="Interarrival times: poisson, geometric, deterministic or negbin:CV.")]
DtOpt = Annotated[float, typer.Option("--dt-ns", help="Time step Δt of the model.")]
ServiceRateOpt = Annotated[Optional[float], typer.Option(
    "--service-rate", help="With a per-rate service-time file: the rate_mbps rows to use.")]


@app.command()
def batching(
    service_times: ServiceOpt,
    beta: BetaOpt = 256,
    queue: QueueOpt = 4096,
    rate_mbps: RateMbpsOpt = None,
    packet_size: FrameOpt = 64,
    rate_mpps: RateMppsOpt = None,
    arrivals: ArrivalsOpt = "poisson",
    dt_ns: DtOpt = 10.0,
    service_rate: ServiceRateOpt = None,
    fmt: FormatOpt = Format.table,
    out: OutOpt = None,
    plot: PlotOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Batch sizes, loss, queue and latency of a batched polling NF (Geissler et al., Eq. 1-9)."""
    from nfvperf import api
    from nfvperf.batching.views import plot as draw, result_table

    _quiet(quiet)
    q = api.batch_queue(service_times=str(service_times), beta=beta, queue=queue,
                        rate_mbps=rate_mbps, packet_size=packet_size, rate_mpps=rate_mpps,
                        arrivals=arrivals, dt_ns=dt_ns, service_rate=service_rate)
    result = q.solve()
    title = f"model: L={queue}, β={beta}, {arrivals} arrivals"
    data = result.to_dict()
    _emit(data, fmt, out, lambda d: result_table(d, title), csv_rows=[_scalars(data)])
    if plot is not None:
        _plot(lambda r, p: draw(r, p, title), result, plot)


@app.command()
def simulate(
    service_times: ServiceOpt = None,
    beta: BetaOpt = 256,
    queue: QueueOpt = 4096,
    rate_mbps: RateMbpsOpt = None,
    packet_size: FrameOpt = 64,
    rate_mpps: RateMppsOpt = None,
    arrivals: ArrivalsOpt = "poisson",
    dt_ns: DtOpt = 10.0,
    service_rate: ServiceRateOpt = None,
    packets: Annotated[float, typer.Option("--packets", help="Packets to simulate "
                                           "(after a 5 % warm-up).")] = 1e7,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the random generator.")] = 7,
    drop: Annotated[str, typer.Option("--drop", help="tail: the arriving packet is lost (the "
                                      "model); ring: the oldest is overwritten (an RX ring).")
                    ] = "tail",
    arrivals_file: Annotated[Optional[Path], typer.Option(
        "--arrivals-file", help="Replay arrival timestamps (ns, one per line) instead.")] = None,
    chain: Annotated[Optional[Path], typer.Option(
        "--chain", help="Simulate a chain of services with parallel instances instead (the "
        "YAML of `dataplane run --chain`); with --platform, --duration, --arrivals "
        "poisson|paced, --packet-size/--rate-mpps/--flows when it has no traffic.")] = None,
    platform: Annotated[Optional[str], typer.Option(
        "--platform", "-p", help="--chain: the profile whose EO costs price the packets "
        "(default xeon-e5-2690v2).")] = None,
    duration: Annotated[float, typer.Option("--duration", help="--chain: simulated "
                                            "seconds (after a 10 % warm-up).")] = 1.0,
    flows: Annotated[int, typer.Option("--flows", help="--chain: flows of the one class "
                                       "when the spec has no traffic.")] = 1,
    fmt: FormatOpt = Format.table,
    out: OutOpt = None,
    plot: PlotOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Simulate the same queue event by event (numba), with 99 % confidence intervals; or,
    with --chain, a chain of services with parallel instances."""
    import numpy as np

    from nfvperf import api
    from nfvperf.batching.views import plot as draw, result_table
    from nfvperf.errors import InputError
    from nfvperf.sim.batch_queue import simulate as run

    _quiet(quiet)
    if chain is not None:
        _simulate_chain(chain, platform, packet_size, rate_mpps, flows, duration, arrivals,
                        seed, fmt, out)
        return
    if service_times is None:
        raise InputError("a CSV of service times (--service-times), or --chain", None,
                         field="--service-times")
    if not (packets >= 1000 and float(packets).is_integer()):
        raise InputError("a whole number of packets ≥ 1000", packets, field="--packets")
    q = api.batch_queue(service_times=str(service_times), beta=beta, queue=queue,
                        rate_mbps=rate_mbps, packet_size=packet_size, rate_mpps=rate_mpps,
                        arrivals=arrivals, dt_ns=dt_ns, service_rate=service_rate)
    gaps = api.replay_gaps(arrivals_file, q.dt_s) if arrivals_file is not None else None
    with _stages() as say:
        tick = None if say is None else (lambda done, total: say("simulating", done, total))
        result = run(q, packets=int(packets), rng=np.random.default_rng(seed), drop=drop,
                     interarrivals=gaps, progress=tick)
    title = f"simulation: L={queue}, β={beta}, {arrivals} arrivals, drop={drop}"
    data = result.to_dict()
    _emit(data, fmt, out, lambda d: result_table(d, title), csv_rows=[_scalars(data)])
    if plot is not None:
        _plot(lambda r, p: draw(r, p, title), result, plot)


@app.command()
def fit(
    samples: Annotated[Path, typer.Argument(help="CSV of vecsize,service_time_ns[,rate_mbps] "
                                            "or raw t1 timestamps per chunk.",
                                            show_default=False)],
    beta: BetaOpt = 256,
    per_rate: Annotated[bool, typer.Option("--per-rate", help="One fit per rate_mbps.")] = False,
    tsc_ghz: Annotated[Optional[float], typer.Option(
        "--tsc-ghz", help="TSC rate of raw t1 timestamps (e.g. 3.393).")] = None,
    min_samples: Annotated[int, typer.Option(
        "--min-samples", help="Use a size's measured mean from this many samples on.")] = 5,
    fmt: FormatOpt = Format.csv,
    out: OutOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Mean batch service times from measurements (Sec. 5.1.1): measured where seen, fitted
    linearly elsewhere; the file `nfvperf batching --service-times` reads."""
    from nfvperf.batching import fit as fitting

    _quiet(quiet)
    s = fitting.read_samples(samples, beta=beta, tsc_ghz=tsc_ghz)
    tables = fitting.fit_per_rate(s, beta, min_samples=min_samples) if per_rate else [
        fitting.fit(s, beta, min_samples=min_samples)]
    rows = [row for t in tables for row in t.rows()]
    cols = [Column("batch_size", "batch size"), Column("mean_service_time_ns", "mean ns"),
            Column("source", "source", justify="left")]
    if per_rate:
        cols.insert(0, Column("rate_mbps", "rate Mbps"))
    _emit(rows, fmt, out, lambda data: [output_table(data, cols)])


dataplane_app = typer.Typer(help="The DPDK data plane (Cerrato et al.): build it, run it.",
                            no_args_is_help=True)
app.add_typer(dataplane_app, name="dataplane")


@dataplane_app.command("build")
def dataplane_build(quiet: QuietOpt = False) -> None:
    """Build the vSwitch, the NFs and the generator (meson, ninja, Debian's libdpdk)."""
    from nfvperf.dataplane import build

    _quiet(quiet)
    out = build(quiet=True)
    if not quiet:
        typer.echo(f"built in {out}", err=True)


@dataplane_app.command("run")
def dataplane_run(
    arch: Annotated[str, typer.Option("--arch", help="double-buffer, semaphore, shared-ring, "
                                      "fdir or isolated.")] = "double-buffer",
    nfs: Annotated[int, typer.Option("--nfs", help="NF processes.")] = 2,
    chain_length: Annotated[int, typer.Option("--chain-length", help="NFs per chain.")] = 2,
    packet_size: Annotated[int, typer.Option("--packet-size", help="Frame size in bytes "
                                             "(FCS included).")] = 64,
    rate_mpps: Annotated[Optional[float], typer.Option("--rate-mpps", help="Offered rate.")
                         ] = None,
    rate_gbps: Annotated[Optional[float], typer.Option(
        "--rate-gbps", help="Offered rate on the wire (20 B per frame beyond the frame).")] = None,
    flows: Annotated[int, typer.Option("--flows", help="Distinct 5-tuples.")] = 1,
    duration: Annotated[float, typer.Option("--duration", help="Seconds of traffic.")] = 1.0,
    nf: Annotated[str, typer.Option("--nf", help="signature, forward, mpls or counter.")
                  ] = "signature",
    vswitch_cpu: Annotated[int, typer.Option("--vswitch-cpu")] = 0,
    nf_cpu: Annotated[int, typer.Option("--nf-cpu", help="The CPU all NFs share.")] = 1,
    gen_cpu: Annotated[int, typer.Option("--gen-cpu")] = 1,
    chain: Annotated[Optional[Path], typer.Option(
        "--chain", help="A chain of services with parallel instances (YAML: services, "
        "instances, policy, weights, traffic classes, scale events); --nf, --nfs and "
        "--chain-length do not apply.")] = None,
    fmt: FormatOpt = Format.table,
    out: OutOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Run the vSwitch, N NFs and the generator; report throughput, drops, latency, per NF."""
    from nfvperf.dataplane import RunConfig, run
    from nfvperf.dataplane.views import run_tables

    _quiet(quiet)
    if chain is not None:
        _run_chain(chain, arch, packet_size, rate_mpps, rate_gbps, flows, duration,
                   vswitch_cpu, nf_cpu, gen_cpu, fmt, out)
        return
    cfg = RunConfig(arch=arch, nfs=nfs, chain_length=chain_length, packet_size=packet_size,
                    rate_mpps=rate_mpps, rate_gbps=rate_gbps, flows=flows, duration_s=duration,
                    nf=nf, vswitch_cpu=vswitch_cpu, nf_cpu=nf_cpu, gen_cpu=gen_cpu)
    with _stages() as say:                        # run() validates cfg before it starts anything
        result = run(cfg, progress=say)
    row = {k: v for k, v in result.items() if not isinstance(v, (list, dict))}
    row.update({f"dropped_{k}": v for k, v in result["dropped"].items()})
    row.update({f"latency_us_{k}": v for k, v in result["latency_us"].items()})
    _emit(result, fmt, out, run_tables, csv_rows=[row])


def _run_chain(path: Path, arch: str, packet_size: int, rate_mpps: float | None,
               rate_gbps: float | None, flows: int, duration: float, vswitch_cpu: int,
               nf_cpu: int, gen_cpu: int, fmt: Format, out: Path | None) -> None:
    from nfvperf.dataplane import RunConfig
    from nfvperf.dataplane.chain import load_chain, run_chain
    from nfvperf.dataplane.views import chain_rows, chain_tables

    spec = load_chain(path)
    # the command line's traffic and CPUs are checked as for a plain run
    cfg = RunConfig(arch=arch, packet_size=packet_size, flows=flows, duration_s=duration,
                    rate_mpps=rate_mpps if rate_mpps is not None or rate_gbps is not None
                    or spec.traffic is None else 0.1,
                    rate_gbps=rate_gbps, vswitch_cpu=vswitch_cpu, nf_cpu=nf_cpu,
                    gen_cpu=gen_cpu, nfs=1, chain_length=1)
    cfg.validate()
    with _stages() as say:
        result = run_chain(spec, arch=arch, frame_bytes=packet_size, rate_pps=cfg.rate_pps,
                           flows=flows, duration_s=duration, vswitch_cpu=vswitch_cpu,
                           nf_cpu=nf_cpu, gen_cpu=gen_cpu, progress=say)
    _emit(result, fmt, out, chain_tables, csv_rows=chain_rows(result))


def _simulate_chain(path: Path, platform: str | None, packet_size: int,
                    rate_mpps: float | None, flows: int, duration: float, arrivals: str,
                    seed: int, fmt: Format, out: Path | None) -> None:
    from nfvperf.dataplane.chain import load_chain
    from nfvperf.dataplane.views import chain_rows, chain_tables
    from nfvperf.eo.platform import load_platform
    from nfvperf.errors import InputError
    from nfvperf.sim.chain import simulate_chain

    from nfvperf.units import check_frame_bytes

    spec = load_chain(path)
    prof = load_platform(platform or DEFAULT_PLATFORM)
    if not (0 < duration <= 60):
        raise InputError("0 < seconds ≤ 60", duration, field="--duration")
    # the command line's one traffic class, when the file has none: checked as a file's
    if not spec.traffic:
        check_frame_bytes(packet_size)
        if rate_mpps is not None and not 0 < rate_mpps < math.inf:
            raise InputError("a rate > 0 Mpps", rate_mpps, field="--rate-mpps")
        if not 1 <= flows <= 65536:
            raise InputError("1..65536 flows", flows, field="--flows")
    rate = (0.1 if rate_mpps is None else rate_mpps) * 1e6
    with _stages() as say:
        if say:
            say("simulating", 0, 1)
        result = simulate_chain(spec, prof, frame_bytes=packet_size, rate_pps=rate,
                                flows=flows, duration_s=duration, how=arrivals, seed=seed)
    _emit(result, fmt, out, chain_tables, csv_rows=chain_rows(result))


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
    from nfvperf.plan.solve import Infeasible, explain as why, plan
    from nfvperf.plan.spec import load_plan
    from nfvperf.plan.views import plan_rows, plan_tables

    _quiet(quiet)
    if not 0 < time_limit <= 3600:
        raise InputError("0 < seconds ≤ 3600", time_limit, field="--time-limit")
    if validate and platform is None:
        raise InputError("--platform with this host's profile (nfvperf calibrate -o "
                         "host.yaml)", None, field="--validate")
    spec = load_plan(plan_file)
    try:
        with _stages() as say:
            result = plan(spec, progress=say, time_limit_s=time_limit, explain=explain)
    except Infeasible as exc:
        raise why(exc) from None
    if validate:
        from nfvperf.plan.validate import validate_plan
        from nfvperf.plan.views import validation_table

        with _stages() as say:
            result["validation"] = validate_plan(spec, result, platform, progress=say)
        _emit(result, fmt, out, lambda d: [*plan_tables(d, explain),
                                           validation_table(d["validation"])],
              csv_rows=result["validation"])
        return
    _emit(result, fmt, out, lambda d: plan_tables(d, explain), csv_rows=plan_rows(result))


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

    _quiet(quiet)
    if workers is not None and workers < 1:
        raise InputError("a number of workers ≥ 1", workers, field="--workers")
    spec = load_sweep(spec_file)
    with _stages() as say:
        summary = sweep(spec, spec_file.resolve().parent, out, scheduler=scheduler,
                        workers=workers, progress=say)
    _emit(summary, Format.json, None, None)


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

    _quiet(quiet)
    page = report(results)
    _write_file(html_out, "--html", lambda p: write_atomic(p, page))


@dataplane_app.command("sweep")
def dataplane_sweep(
    arch: Annotated[str, typer.Option("--arch", help="Architectures, comma-separated.")
                    ] = "double-buffer,semaphore,shared-ring,fdir,isolated",
    nfs: Annotated[str, typer.Option("--nfs", help="NF counts, comma-separated.")
                   ] = "1,2,4,8,16,32",
    chain_length: Annotated[int, typer.Option("--chain-length")] = 2,
    packet_size: Annotated[int, typer.Option("--packet-size")] = 64,
    rate_mpps: Annotated[float, typer.Option("--rate-mpps", help="Offered rate.")] = 1.0,
    duration: Annotated[float, typer.Option("--duration", help="Seconds per run.")] = 1.0,
    nf: Annotated[str, typer.Option("--nf")] = "signature",
    fmt: FormatOpt = Format.table,
    out: OutOpt = None,
    plot: PlotOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Throughput and latency versus the number of NFs per architecture (Cerrato et al.,
    Fig. 3 and 4, on this machine): a table and, with --plot, a PNG."""
    from nfvperf.dataplane import RunConfig
    from nfvperf.dataplane.sweep import parse_list, plot as draw, sweep
    from nfvperf.dataplane.views import sweep_table

    _quiet(quiet)
    base = RunConfig(chain_length=chain_length, packet_size=packet_size, rate_mpps=rate_mpps,
                     duration_s=duration, nf=nf)
    with _stages() as say:
        rows = sweep(base, parse_list(arch, "--arch"), parse_list(nfs, "--nfs", int), say)
    title = (f"{nf} NFs in chains of {chain_length}, {packet_size} B at {rate_mpps:g} Mpps "
             f"offered, {duration:g} s per point")
    _emit(rows, fmt, out, lambda d: sweep_table(d, title))
    if plot is not None:
        _plot(lambda r, p: draw(r, p, title), rows, plot)


@dataplane_app.command("replay")
def dataplane_replay(
    pcap_in: Annotated[Path, typer.Argument(help="pcap file of Ethernet frames to send in.",
                                            show_default=False)],
    capture: Annotated[Path, typer.Option("--capture", help="pcap file for what comes out.",
                                          show_default=False)],
    nf: Annotated[str, typer.Option("--nf", help="signature, forward, mpls or counter.")
                  ] = "forward",
    chain_length: Annotated[int, typer.Option("--chain-length")] = 1,
    arch: Annotated[str, typer.Option("--arch")] = "double-buffer",
    nf_arg: Annotated[Optional[list[str]], typer.Option(
        "--nf-arg", help="An option for the NF, e.g. --nf-arg=--delta=5 (repeatable).")] = None,
    fmt: FormatOpt = Format.table,
    quiet: QuietOpt = False,
) -> None:
    """Replay a pcap file through a chain of NFs (one chain per destination MAC in it) and
    capture what leaves the vSwitch."""
    from nfvperf.dataplane.run import replay

    _quiet(quiet)
    r = replay(pcap_in, capture, nf=nf, chain_length=chain_length, arch=arch,
               nf_args=tuple(nf_arg or ()))
    rows = [{"what": "frames in", "value": r["frames_in"]},
            {"what": "frames out", "value": r["frames_out"]},
            {"what": "chains (destination MACs)", "value": r["chains"]},
            {"what": "dropped", "value": ", ".join(f"{k} {v}" for k, v in r["dropped"].items())
             or "none"},
            {"what": "capture", "value": r["capture"]}]
    cols = [Column("what", "", justify="left"), Column("value", "", justify="left")]
    _emit(r, fmt, None, lambda d: [output_table(rows, cols, title=f"{nf} × {chain_length}, "
                                                f"{arch}")])


@app.command()
def calibrate(
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="Write the platform profile "
                                                "(YAML) here, atomically.")] = None,
    quick: Annotated[bool, typer.Option("--quick", help="Fewer sizes and repetitions "
                                        "(under a minute).")] = False,
    cpu: Annotated[int, typer.Option("--cpu", help="The CPU to measure on.")] = 1,
    name: Annotated[str, typer.Option("--name", help="The profile's name.")] = "host",
    access: Annotated[str, typer.Option(
        "--access", help="Price loads overlapped (as in bursts of packets) or dependent "
        "(one at a time: latency, as the paper).")] = "overlapped",
    fmt: FormatOpt = Format.table,
    quiet: QuietOpt = False,
) -> None:
    """Measure this host (TSC, cache and DRAM latencies, rte_hash, rte_lpm, checksums, copies)
    and write a platform profile for `nfvperf estimate --platform`."""
    from nfvperf.calibrate import describe_host, measure, profile_yaml
    from nfvperf.calibrate.profile import ACCESS_MODES, derive
    from nfvperf.errors import InputError

    _quiet(quiet)
    if access not in ACCESS_MODES:
        raise InputError(" or ".join(ACCESS_MODES), access, field="--access")
    host = describe_host(tsc_from_log=True)
    with _stages() as say:
        data = measure(host, quick=quick, cpu=cpu, progress=say)
    text = profile_yaml(host, data, name=name, access=access)
    if out is not None:
        from nfvperf.io import write_atomic

        _write_file(out, "--out", lambda path: write_atomic(path, text))
    rows = [{"value": k, "measured": v[0], "how": v[1]}
            for k, v in derive(host, data, access).items()]
    if fmt is Format.table and out is None and not sys.stdout.isatty():
        sys.stdout.write(text)
        return
    _emit({"profile": {r["value"]: r["measured"] for r in rows}, "measurements": data}, fmt, None,
          lambda d: [output_table(rows, [Column("value", "profile value", justify="left"),
                                         Column("measured", "measured", lambda x: f"{x:.4g}"),
                                         Column("how", "how", justify="left")],
                                  title=f"{host.model}: {host.sockets} socket(s) × "
                                        f"{host.cores_per_socket} cores")],
          csv_rows=rows)


validate_app = typer.Typer(help="Estimates beside measurements.", no_args_is_help=True)
app.add_typer(validate_app, name="validate")


@validate_app.command("dataplane")
def validate_dataplane(
    platform: Annotated[Optional[str], typer.Option(
        "--platform", "-p", help="Profile of this host (default: run `calibrate --quick` "
        "first).")] = None,
    nf: Annotated[Optional[list[str]], typer.Option(
        "--nf", help="NFs to validate (repeatable): l2fwd, learnsw, router, mpls, nat, bng "
        "(default: all).")] = None,
    packet_sizes: Annotated[Optional[str], typer.Option(
        "--packet-sizes", help="Frame sizes, comma-separated.")] = None,
    quick: Annotated[bool, typer.Option("--quick", help="Small tables, two frame sizes, "
                                        "short runs.")] = False,
    report: Annotated[Optional[Path], typer.Option("--report", help="Write an HTML report "
                                                   "(with the figures).")] = None,
    plot_dir: Annotated[Optional[Path], typer.Option("--plot-dir", help="Write a PNG per NF "
                                                     "here.")] = None,
    fmt: FormatOpt = Format.table,
    out: OutOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """The estimate of each NF's EO model beside the NF measured on the data plane (Baldi &
    Sapio, Sec. 4, on this host)."""
    import tempfile

    from nfvperf.dataplane.sweep import parse_list
    from nfvperf.dataplane.validate import cases, html_report, plot as draw, validate
    from nfvperf.units import check_frame_bytes

    _quiet(quiet)
    sizes = parse_list(packet_sizes, "--packet-sizes", int) if packet_sizes else (
        [64, 512] if quick else [64, 128, 256, 512, 1024, 1518])
    for s in sizes:
        check_frame_bytes(s, field="--packet-sizes")
    with tempfile.TemporaryDirectory() as tmp:
        if platform is None:
            from nfvperf.calibrate import describe_host, measure, profile_yaml

            host = describe_host(tsc_from_log=True)
            with _stages() as say:
                text = profile_yaml(host, measure(host, quick=True, progress=say))
            platform = str(Path(tmp) / "host.yaml")
            Path(platform).write_text(text)
        with _stages() as say:
            rows = validate(platform, nf or list(cases(quick)), sizes,
                            quick=quick,
                            duration_s=0.5 if quick else 1.0, repeats=1 if quick else 3,
                            progress=say)
        pngs = {}
        for name in dict.fromkeys(r["nf"] for r in rows):
            target = (plot_dir or Path(tmp)) / f"{name}.png"
            if plot_dir is not None:
                plot_dir.mkdir(parents=True, exist_ok=True)
            draw(rows, name, target)
            pngs[name] = target
        if report is not None:
            from nfvperf.io import write_atomic

            _write_file(report, "--report", lambda p: write_atomic(p, html_report(rows, pngs)))
    cols = [Column("nf", "NF", justify="left"), Column("traffic", "traffic", justify="left"),
            Column("packet_size", "B"),
            Column("estimated_cycles", "est. cycles", lambda v: f"{v:.1f}"),
            Column("measured_cycles", "meas. cycles", lambda v: f"{v:.1f}"),
            Column("error_pct", "error %", lambda v: f"{v:+.1f}"),
            Column("estimated_mpps", "est. Mpps", lambda v: f"{v:.2f}"),
            Column("measured_mpps", "meas. Mpps", lambda v: f"{v:.2f}"),
            Column("top_eos", "largest EOs (cycles)", lambda v: ", ".join(
                f"{e['eo']} {e['cycles']:.0f}" for e in v[:2]), justify="left")]
    csv_rows = [{k: v for k, v in r.items() if k != "top_eos"} for r in rows]
    _emit(rows, fmt, out, lambda d: [output_table(d, cols, title="estimate vs data plane "
                                                  f"({rows[0]['platform'] if rows else ''})")],
          csv_rows=csv_rows)


@app.command()
def doctor(fmt: FormatOpt = Format.table) -> None:
    """Check what the data plane needs (DPDK, hugepages, binaries) and say how to fix each."""
    from nfvperf.dataplane import doctor as checks
    from nfvperf.dataplane.views import doctor_table

    data = [c.to_dict() for c in checks()]
    _emit(data, fmt, None, doctor_table)
    if not all(c["ok"] for c in data):
        raise typer.Exit(1)


class _stages:
    """A progress bar on stderr whose description follows the stage: callback(what, done,
    total); None with -q or when stderr is not a terminal."""

    def __enter__(self):
        if _state["quiet"] or not sys.stderr.isatty():
            return None
        from rich.progress import Progress

        self.bar = Progress(transient=True)
        self.bar.start()
        self.task = self.bar.add_task("", total=1)
        return lambda what, done, total: self.bar.update(self.task, description=what,
                                                         completed=done, total=total)

    def __exit__(self, *exc) -> None:
        if getattr(self, "bar", None) is not None:
            self.bar.stop()


def _scalars(d: dict[str, Any]) -> dict[str, Any]:
    """The CSV row of a result: its scalar KPIs (pmfs and percentiles stay in the JSON)."""
    out = {k: v for k, v in d.items() if not isinstance(v, (list, dict))}
    for name in ("waiting", "sojourn"):
        for q, v in d[f"{name}_time_us_percentiles"].items():
            out[f"{name}_time_us_p{q}"] = v
    return out


def _quiet(flag: bool) -> None:
    _state["quiet"] = flag


def _sizes(one: int | None, many: str | None) -> list[int]:
    from nfvperf.errors import InputError
    from nfvperf.units import RFC2544_FRAME_BYTES

    if one is not None and many is not None:
        raise InputError("--packet-size or --packet-sizes, not both", many, field="--packet-sizes")
    if many is None:
        return [64 if one is None else one]
    if many.strip().lower() == "rfc2544":
        return list(RFC2544_FRAME_BYTES)
    try:
        return [int(x) for x in many.split(",") if x.strip()] or [int("x")]
    except ValueError:
        raise InputError("comma-separated frame sizes such as 64,128,256, or rfc2544", many,
                         field="--packet-sizes") from None


def _params(items: list[str] | None) -> dict[str, float]:
    from nfvperf.errors import InputError

    params = {}
    for item in items or []:
        name, sep, value = item.partition("=")
        try:
            if not sep or not name.strip():
                raise ValueError
            params[name.strip()] = float(value)
        except ValueError:
            raise InputError("NAME=NUMBER", item, field="--param") from None
    return params


def _emit(data: Any, fmt: Format, out: Path | None, make_tables, *, csv_rows=None) -> None:
    from nfvperf import output

    if fmt is Format.json or make_tables is None:
        text = output.to_json(data)
    elif fmt is Format.csv:
        text = output.to_csv(csv_rows if csv_rows is not None else data)
    else:
        text = None
    if out is not None:
        from nfvperf.io import write_atomic

        if text is None:
            text = _render(make_tables(data), width=120, color=False)
        _write_file(out, "--out", lambda path: write_atomic(path, text))
        return
    if text is not None:
        sys.stdout.write(text)
        return
    from rich.console import Console

    console = Console(width=None if sys.stdout.isatty() else 160)
    for item in make_tables(data):
        console.print(item)


def _plot(draw, data, path: Path) -> None:
    _write_file(path, "--plot", lambda target: draw(data, target))


def _write_file(path: Path, option: str, write) -> None:
    """Run ``write(path)``; an OS error names the option, and success is said on stderr."""
    try:
        write(path)
    except OSError as exc:
        from nfvperf.errors import InputError

        raise InputError("a writable file", exc.strerror or str(exc), field=option) from None
    if not _state["quiet"]:
        typer.echo(f"wrote {path}", err=True)


def _render(items, *, width: int, color: bool) -> str:
    import io as _io

    from rich.console import Console

    buf = _io.StringIO()
    console = Console(file=buf, width=width, color_system=None if not color else "auto")
    for item in items:
        console.print(item)
    return buf.getvalue()


def main() -> None:
    """Console-script entry point: run the app, turning library errors into one line."""
    from nfvperf.errors import NfvperfError

    try:
        app()
    except NfvperfError as exc:
        if _state["debug"]:
            raise
        typer.echo(f"nfvperf: error: {exc}", err=True)
        sys.exit(exc.exit_code)
