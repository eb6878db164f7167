"""Verbs of the batching model (Geissler et al.): batching, simulate (one queue), fit."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from nfvperf.cli.common import (DEFAULT_PLATFORM, Format, FormatOpt, OutOpt, PlotOpt, QuietOpt, RateMppsOpt, app,
                                emit, renamed, save_plot, set_quiet, stages)

ServiceOpt = Annotated[Optional[Path], typer.Option(
    "--service-times", help="CSV: batch_size,mean_service_time_ns, rows 0..β (missing sizes "
    "are interpolated).", show_default=False)]
BetaOpt = Annotated[int, typer.Option("--beta", help="Maximum batch size β.")]
QueueOpt = Annotated[int, typer.Option("--queue", help="Queue (RX ring) capacity L.")]
RateMbpsOpt = Annotated[Optional[float], typer.Option(
    "--rate-mbps", help="Offered bit rate (20 B per frame on the wire).")]
FrameOpt = Annotated[int, typer.Option("--packet-size", "-s", help="Frame size in bytes.")]
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

    set_quiet(quiet)
    q = api.batch_queue(service_times=str(service_times), beta=beta, queue=queue,
                        rate_mbps=rate_mbps, packet_size=packet_size, rate_mpps=rate_mpps,
                        arrivals=arrivals, dt_ns=dt_ns, service_rate=service_rate)
    result = q.solve()
    title = f"model: L={queue}, β={beta}, {arrivals} arrivals"
    data = result.to_dict()
    emit(data, fmt, out, lambda d: result_table(d, title), csv_rows=[scalars(data)])
    if plot is not None:
        save_plot(lambda r, p: draw(r, p, title), result, plot)


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
        "--chain", help="Spelling of earlier releases for `nfvperf chain simulate FILE`.",
        hidden=True)] = None,
    platform: Annotated[Optional[str], typer.Option("--platform", "-p", hidden=True)] = None,
    duration: Annotated[float, typer.Option("--duration", hidden=True)] = 1.0,
    flows: Annotated[int, typer.Option("--flows", hidden=True)] = 1,
    fmt: FormatOpt = Format.table,
    out: OutOpt = None,
    plot: PlotOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Simulate the same queue event by event (numba), with 99 % confidence intervals."""
    import numpy as np

    from nfvperf import api
    from nfvperf.batching.views import plot as draw, result_table
    from nfvperf.errors import InputError
    from nfvperf.sim.batch_queue import simulate as run

    set_quiet(quiet)
    if chain is not None:
        from nfvperf.cli.chain import chain_simulate

        renamed("simulate --chain FILE", "chain simulate FILE")
        chain_simulate(chain, platform=platform or DEFAULT_PLATFORM, sim=None,
                       arrivals=arrivals, seed=seed, packet_size=packet_size,
                       rate_mpps=rate_mpps, flows=flows, duration=duration, fmt=fmt, out=out,
                       quiet=quiet)
        return
    if service_times is None:
        raise InputError("a CSV of service times (--service-times)", None,
                         field="--service-times")
    if not (packets >= 1000 and float(packets).is_integer()):
        raise InputError("a whole number of packets ≥ 1000", packets, field="--packets")
    q = api.batch_queue(service_times=str(service_times), beta=beta, queue=queue,
                        rate_mbps=rate_mbps, packet_size=packet_size, rate_mpps=rate_mpps,
                        arrivals=arrivals, dt_ns=dt_ns, service_rate=service_rate)
    gaps = api.replay_gaps(arrivals_file, q.dt_s) if arrivals_file is not None else None
    with stages() as say:
        tick = None if say is None else (lambda done, total: say("simulating", done, total))
        result = run(q, packets=int(packets), rng=np.random.default_rng(seed), drop=drop,
                     interarrivals=gaps, progress=tick)
    title = f"simulation: L={queue}, β={beta}, {arrivals} arrivals, drop={drop}"
    data = result.to_dict()
    emit(data, fmt, out, lambda d: result_table(d, title), csv_rows=[scalars(data)])
    if plot is not None:
        save_plot(lambda r, p: draw(r, p, title), result, plot)


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

    set_quiet(quiet)
    s = fitting.read_samples(samples, beta=beta, tsc_ghz=tsc_ghz)
    tables = fitting.fit_per_rate(s, beta, min_samples=min_samples) if per_rate else [
        fitting.fit(s, beta, min_samples=min_samples)]
    rows = [row for t in tables for row in t.rows()]
    from nfvperf.batching.views import fit_table

    emit(rows, fmt, out, lambda data: [fit_table(data, per_rate)])



def scalars(d: dict[str, Any]) -> dict[str, Any]:
    """The CSV row of a result: its scalar KPIs (pmfs and percentiles stay in the JSON)."""
    out = {k: v for k, v in d.items() if not isinstance(v, (list, dict))}
    for name in ("waiting", "sojourn"):
        for q, v in d[f"{name}_time_us_percentiles"].items():
            out[f"{name}_time_us_p{q}"] = v
    return out
