"""``nfvperf validate vpp``: the batching model's latency against measured histograms."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from nfvperf.cli.calibrate import validate_app
from nfvperf.cli.common import Format, FormatOpt, OutOpt, QuietOpt, emit, set_quiet, stages, \
    write_file


@validate_app.command("vpp")
def validate_vpp(
    histograms: Annotated[Optional[Path], typer.Option(
        "--histograms", help="Latency histograms: CSV scenario,beta,pktsize,queuesize,"
        "rate_mbps,latency_us,count, one configuration (default: the packaged VPP ones).",
        show_default=False)] = None,
    samples: Annotated[Optional[Path], typer.Option(
        "--samples", help="Batch service time samples of the same configuration, as `nfvperf "
        "fit` reads them (default: the packaged VPP ones).", show_default=False)] = None,
    tsc_ghz: Annotated[Optional[float], typer.Option(
        "--tsc-ghz", help="TSC rate of raw t1 timestamps in --samples.",
        show_default=False)] = None,
    arrivals: Annotated[str, typer.Option(
        "--arrivals", help="The generator's interarrival times: deterministic (constant bit "
        "rate), poisson, geometric or negbin:CV.")] = "deterministic",
    service: Annotated[str, typer.Option(
        "--service", help="Service times around each batch size's mean: poisson (as the "
        "paper), deterministic, or measured (the samples' own spread).")] = "poisson",
    means: Annotated[str, typer.Option(
        "--means", help="Each batch size's mean service time: line (the fitted line) or table "
        "(each size's own mean where seen).")] = "line",
    link_gbps: Annotated[float, typer.Option(
        "--link-gbps", help="The egress link that serialises each batch (0: a batch leaves at "
        "once, as the paper's model).")] = 10.0,
    plot_dir: Annotated[Optional[Path], typer.Option(
        "--plot-dir", help="Write cdf.png (Fig. 13) and mean.png (Figs. 11-12) here.",
        show_default=False)] = None,
    report: Annotated[Optional[Path], typer.Option(
        "--report", help="Write an HTML report with the figures.", show_default=False)] = None,
    fmt: FormatOpt = Format.table,
    out: OutOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """The batching model's latency beside measured histograms (Geissler et al., Sec. 5.3,
    Figs. 11-13): one offset calibrated on the loss-free rates, then mean, p50, p90, p99 and
    the CDFs per rate."""
    from nfvperf.batching import latency, vpp
    from nfvperf.batching.fit import read_samples
    from nfvperf.batching.histograms import read_histograms
    from nfvperf.batching.latency_views import FIGURES, html_report, rate_rows, tables
    from nfvperf.io import write_atomic

    set_quiet(quiet)
    config, hists = read_histograms(histograms or vpp.HISTOGRAMS)
    if samples is None:
        samples, tsc_ghz = vpp.DATA, vpp.TSC_GHZ if tsc_ghz is None else tsc_ghz
    s = read_samples(samples, beta=config.beta, tsc_ghz=tsc_ghz)
    method = latency.Method(arrivals=arrivals, service=service, means=means,
                            link_gbps=link_gbps or None)
    # the authors' measured loss of the packaged configuration (Table 3)
    loss = vpp.table3_loss() if histograms is None else None
    with stages() as say:
        def progress(done: int, total: int) -> None:
            if say is not None:
                say("solving the model at each rate", done, total)

        d = latency.validate(config, hists, s, method, loss=loss, progress=progress)
    if plot_dir is not None:
        def figure(draw):
            def write(path: Path) -> None:
                path.parent.mkdir(parents=True, exist_ok=True)
                write_atomic(path, draw(d))
            return write

        for name, draw in FIGURES.items():
            write_file(plot_dir / name, "--plot-dir", figure(draw))
    if report is not None:
        write_file(report, "--report", lambda p: write_atomic(p, html_report(d)))
    emit(d, fmt, out, tables, csv_rows=rate_rows(d))
