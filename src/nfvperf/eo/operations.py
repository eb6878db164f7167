"""The catalogue of elementary operations (Table 1 of Baldi & Sapio), with their parameters.

Adding an EO is one :class:`OperationSpec` in :data:`CATALOGUE` plus its cost function in
``costs.py``. Parameters are listed in Table 1 order, which is the order of positional arguments
in the paper's notation (``ht_lookup(1, 12, 2M, 0)``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from nfvperf.eo import costs

Kind = Literal["bytes", "count", "entries", "probability"]

#: What each parameter kind accepts, in the words of error messages.
KIND_EXPECTED: dict[str, str] = {
    "bytes": "a size in bytes ≥ 0",
    "count": "a whole number ≥ 1",
    "entries": "a whole number of entries ≥ 1",
    "probability": "a probability in [0, 1)",
}


@dataclass(frozen=True)
class Param:
    name: str
    kind: Kind
    doc: str


@dataclass(frozen=True)
class OperationSpec:
    """One EO: its name in the paper's notation, other accepted names, parameters and cost."""

    name: str
    params: tuple[Param, ...]
    cost: Callable[[costs.MappingContext, dict[str, float]], costs.Cost]
    doc: str
    dual: str | None = None
    aliases: tuple[str, ...] = ()


def check_value(kind: Kind, value: float) -> bool:
    """Whether ``value`` is acceptable for a parameter of ``kind``."""
    if kind == "bytes":
        return value >= 0
    if kind in ("count", "entries"):
        return value >= 1 and float(value).is_integer()
    return 0 <= value < 1


_HDR = Param("hdr", "bytes", "bytes wanted in the fastest cache (headers)")
_DATA = Param("data", "bytes", "bytes that may stay in L3 or DRAM (the rest of the packet)")
_B = Param("b", "bytes", "size of the field")
_TABLE = (
    Param("N", "count", "number of key components"),
    Param("HE", "bytes", "size of a table entry"),
    Param("max", "entries", "maximum number of entries in the table"),
    Param("p", "probability", "collision probability"),
)

CATALOGUE: tuple[OperationSpec, ...] = (
    OperationSpec("I/O_mem", (_HDR, _DATA), costs.io_mem,
                  "packet copy from the I/O buffer into (cache) memory", "mem_I/O", ("io_mem",)),
    OperationSpec("mem_I/O", (_HDR, _DATA), costs.mem_io,
                  "packet copy from (cache) memory to the I/O buffer", "I/O_mem", ("mem_io",)),
    OperationSpec("parse", (_B,), costs.parse, "load a field of b bytes into registers",
                  "deparse"),
    OperationSpec("deparse", (_B,), costs.parse, "store b bytes of constructed fields", "parse"),
    OperationSpec("increase", (_B,), costs.increase, "increase a parsed field", "decrease"),
    OperationSpec("decrease", (_B,), costs.increase, "decrease a parsed field", "increase"),
    OperationSpec("sum", (_B,), costs.increase, "add two operands of b bytes"),
    OperationSpec("checksum", (_B,), costs.checksum, "IP checksum over b bytes",
                  "inc_checksum"),
    OperationSpec("inc_checksum", (_B,), costs.inc_checksum,
                  "incremental IP checksum update for b changed bytes (RFC 1624)", "checksum"),
    OperationSpec("array_access", (Param("es", "bytes", "size of an array entry"),
                                   Param("max", "entries", "number of array entries")),
                  costs.array_access, "direct access to an array element by index"),
    OperationSpec("ht_lookup", _TABLE, costs.ht_lookup, "simple hash table lookup"),
    OperationSpec("lpm_lookup", (Param("b", "bytes", "mean length of the matching prefix"),
                                 Param("es", "bytes", "size of an entry")),
                  costs.lpm_lookup, "longest prefix match lookup (DIR-24-8)"),
    OperationSpec("ct_insertion", _TABLE, costs.ct_insertion,
                  "insert an entry with a timestamp, or refresh the timestamp"),
    OperationSpec("dfa_scan", (Param("b", "bytes", "bytes scanned"),
                               Param("states", "entries", "states of the DFA")),
                  costs.dfa_scan, "multi-pattern scan (Aho-Corasick DFA): a load per byte"),
)

_BY_NAME: dict[str, OperationSpec] = {}
for _spec in CATALOGUE:
    for _name in (_spec.name, *_spec.aliases):
        _BY_NAME[_name.lower()] = _spec


def lookup(name: str) -> OperationSpec | None:
    """The EO called ``name`` (paper notation or alias, any case), or None."""
    return _BY_NAME.get(name.strip().lower())


def names() -> list[str]:
    """The EO names in the paper's notation, in Table 1 order."""
    return [spec.name for spec in CATALOGUE]
