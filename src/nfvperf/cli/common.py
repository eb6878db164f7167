"""What every verb of the command line shares: the app, the options defined once, and how
results are printed (a table, JSON or CSV; to stdout or atomically to a file)."""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from nfvperf import limits


class App(typer.Typer):
    """A Typer app whose verbs speak of their options: a library error that names a parameter
    (``duration_s``) is reported under the option that sets it (``--duration``)."""

    def command(self, *args, **kwargs):
        def decorate(fn):
            help_text = kwargs.get("help") or _unwrapped(fn.__doc__)
            super(App, self).command(*args, **{**kwargs, "help": help_text})(_in_flags(fn))
            return fn
        return decorate


def _unwrapped(doc: str | None) -> str | None:
    """A docstring as the terminal should wrap it: the rich help keeps a docstring's line
    breaks, which then cut sentences at any other width; each paragraph becomes one line (a
    paragraph of list items or indented lines keeps its breaks)."""
    import inspect

    if not doc:
        return doc
    paragraphs = inspect.cleandoc(doc).split("\n\n")
    return "\n\n".join(p if any(ln.startswith(("- ", "* ", " ")) for ln in p.splitlines())
                       else " ".join(p.split()) for p in paragraphs)


def _in_flags(fn):
    import functools

    @functools.wraps(fn)
    def verb(*args, **kwargs):
        from nfvperf.errors import InputError

        try:
            return fn(*args, **kwargs)
        except InputError as exc:
            flag = next((f for f in flags_of(exc.field) if f in _options_of(fn)), None)
            if flag is None:
                raise
            raise InputError(exc.expected, exc.found, file=exc.file, line=exc.line,
                             field=flag) from exc      # --debug shows where it came from
    return verb


def _options_of(fn) -> set[str]:
    """The long options a verb declares (from its parameters' typer.Option)."""
    import typing

    out = set()
    for hint in typing.get_type_hints(fn, include_extras=True).values():
        for meta in getattr(hint, "__metadata__", ()):
            # typer.Option("--name", "-n"): the first declaration is kept as its default
            decls = (getattr(meta, "default", None), *(getattr(meta, "param_decls", None) or ()))
            out.update(d for d in decls if isinstance(d, str) and d.startswith("--"))
    return out


app = App(
    name="nfvperf",
    help="Predict, measure and plan the performance of software network functions.",
    no_args_is_help=True,
    add_completion=True,          # --install-completion, --show-completion
    context_settings={"help_option_names": ["-h", "--help"]},
    pretty_exceptions_enable=False,
)

state = {"debug": False, "quiet": False}

DEFAULT_PLATFORM = "xeon-e5-2690v2"


class Format(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"


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
BurstOpt = Annotated[float, typer.Option(
    "--burst", help="Packets the NF handles together: its bulk table lookups in flight at once "
    "(read where the profile counts memory stalls in cycles).")]
NeighbourOpt = Annotated[Optional[list[str]], typer.Option(
    "--neighbour", help="BYTES@LINES_PER_S of a process on a core that shares this one's "
    "last-level cache, e.g. '64MiB@3e7' (repeatable; nfvp-calibrate --hog reports one's).")]
PlotOpt = Annotated[Optional[Path], typer.Option(
    "--plot", help="Also draw the result as a PNG file.", show_default=False)]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="Say nothing but the results.")]
ParamOpt = Annotated[Optional[list[str]], typer.Option(
    "--param", help="NAME=VALUE for a model parameter (repeatable).")]
# the traffic and CPUs of a run (data plane) or a simulation of a chain
ArchOpt = Annotated[str, typer.Option("--arch", help="double-buffer, semaphore, shared-ring, "
                                      "fdir or isolated.")]
PacketSizeOpt = Annotated[int, typer.Option("--packet-size", "-s", help="Frame size in bytes "
                                            "(FCS included).")]
RateMppsOpt = Annotated[Optional[float], typer.Option("--rate-mpps", help="Offered packet rate.")]
RateGbpsOpt = Annotated[Optional[float], typer.Option(
    "--rate-gbps", help="Offered rate on the wire (20 B per frame beyond the frame).")]
FlowsOpt = Annotated[int, typer.Option("--flows", help="Distinct 5-tuples.")]
DurationOpt = Annotated[float, typer.Option("--duration", help="Seconds of traffic.")]
VswitchCpuOpt = Annotated[int, typer.Option("--vswitch-cpu", help="The vSwitch's CPU.")]
NfCpuOpt = Annotated[int, typer.Option("--nf-cpu", help="The CPU the NFs share.")]
GenCpuOpt = Annotated[int, typer.Option("--gen-cpu", help="The generator's CPU.")]
# how the vSwitch wakes blocking NFs (semaphore, isolated): nfvperf.wake.Wake
WakeBatchOpt = Annotated[Optional[int], typer.Option(
    "--wake-batch", help="Blocking NFs: post a sleeping NF when this many packets wait "
    f"(default {limits.WAKE_BATCH}).", show_default=False)]
WakeTimeoutOpt = Annotated[Optional[int], typer.Option(
    "--wake-timeout-us", help="Blocking NFs: the aging timeout, µs: the oldest waiting packet "
    f"wakes its NF (default {limits.WAKE_TIMEOUT_US}).", show_default=False)]
WakeRateOpt = Annotated[Optional[int], typer.Option(
    "--wake-rate-max", help="Blocking NFs: wake-ups a second, all NFs together, beyond which "
    f"batch and timeout stretch (0: never; default {limits.WAKE_RATE_MAX}).", show_default=False)]


def wake_given(batch: int | None, timeout_us: int | None, rate_max: int | None) -> dict:
    """The wake-up options given on the command line, as ``Wake``'s fields."""
    given = {"batch": batch, "timeout_us": timeout_us, "rate_max": rate_max}
    return {k: v for k, v in given.items() if v is not None}

#: a library parameter -> the option that sets it, where their names differ; the others are
#: spelled alike ("flows" -> "--flows", "packet_size" -> "--packet-size")
FLAGS = {"duration_s": "--duration", "max_batch": "--beta", "capacity": "--queue",
         "frame_bytes": "--packet-size", "params": "--param", "rate": "--rate-mbps",
         "interarrivals": "--arrivals-file", "service": "--service-times", "nfs": "--nf"}


def flags_of(field: str | None) -> list[str]:
    """The options a library error's parameter may be set by, in the order to try them (the
    verb usually has one of them); none for a file's field such as ``services[0].nf``."""
    if not field or not field.replace("_", "").isalpha() or not field.islower():
        return []
    return [f for f in ("--" + field.replace("_", "-"), FLAGS.get(field)) if f]



class stages:
    """A progress bar on stderr whose description follows the stage: callback(what, done,
    total); None with -q or when stderr is not a terminal."""

    def __enter__(self):
        if state["quiet"] or not sys.stderr.isatty():
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


def set_quiet(flag: bool) -> None:
    state["quiet"] = flag


def frame_sizes(one: int | None, many: str | None) -> list[int]:
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


def model_params(items: list[str] | None) -> dict[str, float]:
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


def emit(data: Any, fmt: Format, out: Path | None, make_tables, *, csv_rows=None) -> None:
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
            text = render(make_tables(data), width=120, color=False)
        write_file(out, "--out", lambda path: write_atomic(path, text))
        return
    if text is not None:
        sys.stdout.write(text)
        return
    from rich.console import Console

    console = Console(width=None if sys.stdout.isatty() else 160)
    for item in make_tables(data):
        console.print(item)


def save_plot(draw, data, path: Path) -> None:
    write_file(path, "--plot", lambda target: draw(data, target))


def write_file(path: Path, option: str, write) -> None:
    """Run ``write(path)``; an OS error names the option, and success is said on stderr."""
    try:
        write(path)
    except OSError as exc:
        from nfvperf.errors import InputError

        raise InputError("a writable file", exc.strerror or str(exc), field=option) from None
    if not state["quiet"]:
        typer.echo(f"wrote {path}", err=True)


def render(items, *, width: int, color: bool) -> str:
    import io as _io

    from rich.console import Console

    buf = _io.StringIO()
    console = Console(file=buf, width=width, color_system=None if not color else "auto")
    for item in items:
        console.print(item)
    return buf.getvalue()



def renamed(old: str, new: str) -> None:
    """A notice that a spelling of an earlier release still works, and what replaces it."""
    import warnings

    from nfvperf.nfs import RenamedWarning

    warnings.warn(f"`nfvperf {old}` is now `nfvperf {new}`; the old spelling goes in the "
                  "next release", RenamedWarning, stacklevel=2)


def neighbours(specs: list[str] | None) -> list[tuple[float, float]] | None:
    """--neighbour BYTES@LINES_PER_S, each as (bytes, lines a second)."""
    from nfvperf.errors import InputError
    from nfvperf.units import parse_bytes

    out = []
    for spec in specs or ():
        size, at, rate = spec.partition("@")
        try:
            lines = float(rate)
        except ValueError:
            lines = -1.0
        if not at or not lines > 0:
            raise InputError("BYTES@LINES_PER_S such as 64MiB@3e7", spec, field="--neighbour")
        out.append((parse_bytes(size, field="--neighbour"), lines))
    return out or None
