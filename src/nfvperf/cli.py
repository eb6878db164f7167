"""The nfvperf command line: one Typer app, each verb a thin call into the library.

This is the only module that prints or exits. Library errors (``InputError``) become one line on
stderr and exit code 2; ``--debug`` shows the traceback instead. Heavy imports stay inside the verbs
so that ``nfvperf --help`` and an estimate start fast.
"""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

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
    """JSON Schema of model or platform files, for editors."""
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
