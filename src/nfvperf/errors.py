"""Typed errors of the library; only ``cli.py`` turns them into a message and an exit code."""

from __future__ import annotations


_UNSET = object()


class NfvperfError(Exception):
    """Base class of every error the library raises on purpose."""

    exit_code = 1


class InputError(NfvperfError):
    """Bad input: a file, field or value that is not what it should be (exit code 2).

    The message reads ``FILE:LINE: FIELD: expected EXPECTED, found FOUND``; parts that are
    unknown are left out, so a command-line value reads ``--packet-size: expected ..., found "12"``.
    """

    exit_code = 2

    def __init__(
        self,
        expected: str,
        found: object = _UNSET,
        *,
        file: str | None = None,
        line: int | None = None,
        field: str | None = None,
    ) -> None:
        self.expected = expected
        self.found = found
        self.file = file
        self.line = line
        self.field = field
        super().__init__(self.message)

    @property
    def message(self) -> str:
        where = ""
        if self.file is not None:
            where = self.file + (f":{self.line}" if self.line is not None else "") + ": "
        what = f"{self.field}: " if self.field else ""
        found = "" if self.found is _UNSET else f", found {_quote(self.found)}"
        return f"{where}{what}expected {self.expected}{found}"


def _quote(value: object) -> str:
    if isinstance(value, str):
        text = value if len(value) <= 60 else value[:57] + "..."
        return '"' + text.replace('"', '\\"').replace("\n", "\\n") + '"'
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "true" if value else "false"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


class RuntimeFailure(NfvperfError):
    """Something outside the input went wrong at run time (exit code 1): a missing tool, no
    hugepages, a process that died. The message says what and, where known, how to fix it."""
