"""A validation's rows kept as they are measured, so that a run cut short loses only the row in
progress and a rerun measures only the rows it lacks.

The journal is a JSON-lines file: a first line naming what the rows depend on (the command and
the profile's SHA-256), then one row a line, appended and flushed to disk as each row is done.
A line cut short by a kill is dropped when the journal is opened again.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Hashable, Sequence
from pathlib import Path

from nfvperf.errors import InputError


def profile_digest(path: str | os.PathLike[str]) -> str:
    """The SHA-256 of a profile file's bytes: rows priced on it are kept for it alone."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


class Journal:
    """Rows of one validation, keyed by the fields ``key`` names, read back on open and
    appended to as they come (``add``)."""

    def __init__(self, path: str | os.PathLike[str], header: dict, key: Sequence[str]) -> None:
        self.path = Path(path)
        self.key = tuple(key)
        self.header = {"journal": "nfvperf validation", **header}
        self.rows: dict[Hashable, dict] = {}
        if self.path.exists() and self.path.stat().st_size:
            self._read()
        else:
            self._write_header()

    def _read(self) -> None:
        text = self.path.read_bytes()
        end = text.rfind(b"\n") + 1          # a last line without its newline was cut short
        lines = text[:end].decode("utf-8", "replace").splitlines()
        try:
            found = json.loads(lines[0]) if lines else None
        except json.JSONDecodeError:
            found = None
        if not isinstance(found, dict) or found.get("journal") != self.header["journal"]:
            raise InputError("a validation journal (JSON lines, written by nfvperf)",
                             file=str(self.path), line=1)
        for name, want in self.header.items():
            if found.get(name) != want:
                raise InputError(f"{name} {json.dumps(want)} as this run has it (the journal's "
                                 "rows were measured otherwise: give another file)",
                                 found.get(name), file=str(self.path), line=1, field=name)
        for i, line in enumerate(lines[1:], start=2):
            try:
                row = json.loads(line)
                self.rows[self._key(row)] = row
            except (json.JSONDecodeError, KeyError, TypeError):
                raise InputError("one row of the validation as JSON", line,
                                 file=str(self.path), line=i) from None
        if end < len(text):
            with open(self.path, "r+b") as fh:
                fh.truncate(end)

    def _write_header(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(self.header) + "\n")
            fh.flush()
            os.fsync(fh.fileno())

    def _key(self, row: dict) -> Hashable:
        return tuple(row[k] for k in self.key)

    def get(self, *key) -> dict | None:
        """The row of ``key`` (the values of the fields ``key`` names) if it was kept."""
        return self.rows.get(tuple(key))

    def add(self, row: dict) -> None:
        """Keep ``row``: appended as one line and flushed to disk before this returns."""
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(row) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        self.rows[self._key(row)] = row
