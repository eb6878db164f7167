"""Verbs of the estimator: estimate, explain, and the catalogue (list, schema, demo)."""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Optional

import typer

from nfvperf.cli.common import (DEFAULT_PLATFORM, BurstOpt, Format, FormatOpt, NeighbourOpt,
                                OutOpt, PaperUnitsOpt, ParamOpt, PlatformOpt, PlotOpt, QuietOpt,
                                RemoteOpt, app, emit, frame_sizes, model_params, neighbours,
                                save_plot, set_quiet)
from nfvperf.limits import NF_MAX_BURST


class ListWhat(str, Enum):
    models = "models"
    platforms = "platforms"
    eos = "eos"


class SchemaWhat(str, Enum):
    model = "model"
    platform = "platform"
    chain = "chain"
    plan = "plan"
    sim = "sim"


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
    burst: BurstOpt = NF_MAX_BURST,
    neighbour: NeighbourOpt = None,
    rate_mpps: Annotated[Optional[float], typer.Option(
        "--rate-mpps", help="The NF's packet rate beside --neighbour (default: saturated).")
    ] = None,
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

    set_quiet(quiet)
    sizes = frame_sizes(packet_size, packet_sizes)
    if plot is not None and len(sizes) < 2:
        from nfvperf.errors import InputError

        raise InputError("two or more sizes in --packet-sizes for a plot", len(sizes),
                         field="--plot")
    rows = api.estimate_rows(models, platform=platform, frame_sizes=sizes, cores=cores,
                             remote_fraction=remote_fraction, paper_units=paper_units,
                             params=model_params(param), burst=burst,
                             neighbours=neighbours(neighbour),
                             rate_pps=None if rate_mpps is None else rate_mpps * 1e6)
    from nfvperf.eo.views import estimate_table

    emit([r.to_dict() for r in rows], fmt, out, estimate_table)
    if plot is not None:
        from nfvperf.plots import throughput_vs_frame

        save_plot(throughput_vs_frame, rows, plot)


@app.command()
def explain(
    model: Annotated[str, typer.Argument(help="Packaged model name or model YAML file.",
                                         show_default=False)],
    platform: PlatformOpt = DEFAULT_PLATFORM,
    packet_size: Annotated[int, typer.Option("--packet-size", "-s",
                                             help="Ethernet frame size in bytes.")] = 64,
    remote_fraction: RemoteOpt = 0.0,
    burst: BurstOpt = NF_MAX_BURST,
    paper_units: PaperUnitsOpt = False,
    param: ParamOpt = None,
    fmt: FormatOpt = Format.table,
    out: OutOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Where the cycles go: the cost of each EO of a model, line by line."""
    from nfvperf import api

    set_quiet(quiet)
    from nfvperf.eo.views import explain_rows, explain_tables

    rows = api.estimate_rows([model], platform=platform, frame_sizes=[packet_size], cores=1,
                             remote_fraction=remote_fraction, paper_units=paper_units,
                             params=model_params(param), burst=burst)
    emit(explain_rows(rows), fmt, out, lambda data: explain_tables(rows))


@app.command("list")
def list_(
    what: Annotated[ListWhat, typer.Argument(help="What to list.")],
    fmt: FormatOpt = Format.table,
) -> None:
    """The packaged NF models or platform profiles, or the EO catalogue."""
    from nfvperf import api
    from nfvperf.eo.views import list_table

    rows = api.catalogue(what.value)
    emit(rows, fmt, None, lambda data: list_table(what.value, data))


@app.command()
def schema(
    what: Annotated[SchemaWhat, typer.Argument(help="Which file kind.")],
    out: OutOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """JSON Schema of model, platform, chain, simulator options (sim) or plan files."""
    from nfvperf import api

    set_quiet(quiet)
    emit(api.json_schema(what.value), Format.json, out, None)


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
    from nfvperf.eo.views import demo_tables

    set_quiet(quiet)
    report = reproduce()
    emit(report.to_dict(), fmt, out, lambda data: demo_tables(report),
          csv_rows=report.to_dict()["figures"])
    if plot is not None:
        from nfvperf.plots import paper_figures

        save_plot(paper_figures, figure_panels(), plot)
