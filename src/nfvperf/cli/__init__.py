"""The nfvperf command line: one Typer app, a module per verb group, each verb a thin call into
the library.

This package is the only code that prints or exits, and the only code that speaks of options:
library errors (``InputError``) name parameters and files, and become one line on stderr here
(exit code 2; 1 for failures at run time), the parameter shown as the option that sets it.
``--debug`` shows the traceback instead. Heavy imports stay inside the verbs so that
``nfvperf --help`` and an estimate start fast.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

# imported for their verbs, in the order --help lists them
from nfvperf.cli import estimate, batching, chain, dataplane, plan, calibrate, latency  # noqa: F401, I001
from nfvperf.cli.common import app, state

__all__ = ["app", "main"]


def _version(value: bool) -> None:
    if value:
        from nfvperf import __version__

        typer.echo(f"nfvperf {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks.")] = False,
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Print the version and exit.")] = False,
) -> None:
    state["debug"] = debug
    state["quiet"] = False


def main() -> None:
    """Console-script entry point: run the app, turning library errors into one line."""
    from nfvperf.errors import NfvperfError

    _show_notices()
    try:
        app()
    except NfvperfError as exc:
        if state["debug"]:
            raise
        typer.echo(f"nfvperf: error: {exc}", err=True)
        sys.exit(exc.exit_code)


def _show_notices() -> None:
    """The library's notices (a renamed NF or command) as one line each on stderr, once."""
    import warnings

    from nfvperf.nfs import RenamedWarning

    default = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None):
        if issubclass(category, RenamedWarning):
            typer.echo(f"nfvperf: notice: {message}", err=True)
        else:
            default(message, category, filename, lineno, file, line)

    warnings.showwarning = show
    warnings.filterwarnings("once", category=RenamedWarning)
