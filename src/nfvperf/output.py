"""A result as a readable table, JSON or CSV: the one place that shapes what commands print."""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ConfigDict, with_config

FORMATS = ("table", "json", "csv")

#: the decorator of a JSON output's type (a TypedDict or dataclass: the contract), for pydantic
#: to read it so: a field the type does not name is an error, and each field's docstring is its
#: meaning in the generated reference. The TypedDicts come from typing_extensions, which
#: pydantic requires below Python 3.12.
contract = with_config(ConfigDict(extra="forbid", use_attribute_docstrings=True))


@dataclass(frozen=True)
class Column:
    """A column of a table: the dict key, its header and how to show a value."""

    key: str
    header: str
    fmt: Callable[[Any], str] = str
    justify: str = "right"


def number(digits: int = 2) -> Callable[[Any], str]:
    """Format a number with ``digits`` decimals; None (unbounded) shows as ∞."""
    def fmt(value: Any) -> str:
        if value is None or (isinstance(value, float) and math.isinf(value)):
            return "∞"
        if isinstance(value, (int, float)):
            return f"{value:,.{digits}f}".replace(",", " ")
        return str(value)
    return fmt


def compact(value: Any) -> str:
    """A number without trailing zeros (213, 3.5, 0.25)."""
    if value is None:
        return "∞"
    if isinstance(value, float):
        return f"{round(value, 4):g}"
    return str(value)


def to_json(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def to_csv(rows: Sequence[dict[str, Any]]) -> str:
    if not rows:
        return ""
    buf = io.StringIO()
    keys = list(rows[0])
    for row in rows[1:]:
        keys += [k for k in row if k not in keys]
    writer = csv.DictWriter(buf, fieldnames=keys, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: "" if v is None else v for k, v in row.items()})
    return buf.getvalue()


def table(rows: Sequence[dict[str, Any]], columns: Sequence[Column], *, title: str | None = None,
          caption: str | None = None):
    """A rich Table of ``rows`` (imported here: only commands that print tables pay for rich)."""
    from rich import box
    from rich.table import Table

    t = Table(title=title, caption=caption, box=box.SIMPLE_HEAD, title_justify="left",
              caption_justify="left", pad_edge=False, padding=(0, 1))
    for col in columns:
        t.add_column(col.header, justify=col.justify)  # type: ignore[arg-type]
    for row in rows:
        t.add_row(*(col.fmt(row.get(col.key)) for col in columns))
    return t
