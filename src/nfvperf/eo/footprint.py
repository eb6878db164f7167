"""The bytes of an NF's tables that its packets keep touching: its working set, from the EO
lines of an estimate and the number of distinct keys the traffic looks up.

A core that switches to another process and back has lost part of what it had cached; what the
NF then refetches grows with this working set (the data plane's calibration measures how, by
working set: ``hostmodel.Preemption``). Per EO:

- ``dfa_scan(b, states)``: the whole automaton (``states`` × 512 B): every payload walks it;
- ``ht_lookup`` / ``ct_insertion(N, HE, max, p)``: a bucket line and the entry's lines for each
  of the keys looked up, at most the table's ``max`` entries;
- ``array_access(es, max)``: the entry's lines for each key, at most ``max`` entries;
- ``lpm_lookup``: a line of the first-level table (DIR-24-8) for each key's prefix.

Everything else (headers, checksums, counters) is a few lines that the packet brings or that
stay hot. A key is a flow of the traffic, or a destination where the traffic sweeps more
destinations than it has flows.

What one packet touches of those tables (``touched_bytes``) bounds what a batch can have to
refetch: a byte through the automaton loads a line of a state's row; a table lookup, its
bucket line and the entry's lines; an array, the entry's lines; an LPM lookup, a line of each
level it reads.
"""

from __future__ import annotations

import math

from nfvperf.eo.costs import DFA_STATE_BYTES, DIR24_FIRST_BYTES, DIR24_FIRST_ENTRIES


def working_set_bytes(lines, keys: int, line_bytes: int) -> float:
    """The working set of the EO ``lines`` (an estimate's ``LineCost``s) over ``keys``
    distinct keys."""
    return sum(whole + min(most, keys) * per_key
               for per_key, most, whole, _ in _tables(lines, line_bytes))


def touched_bytes(lines, line_bytes: int) -> float:
    """The bytes of its tables one packet touches, by the EO ``lines`` (an estimate's
    ``LineCost``s): whole lines, each counted once."""
    return sum(touched for *_, touched in _tables(lines, line_bytes))


def _tables(lines, line_bytes: int):
    """For each EO line on a table: the bytes a key keeps there, the most keys it holds, the
    bytes every packet walks whatever its key, and the bytes one packet touches."""
    def entry(nbytes: float) -> float:
        return math.ceil(nbytes / line_bytes) * line_bytes

    for line in lines:
        name, v = line.operation.spec.name, line.values
        if name == "dfa_scan":
            whole = v["states"] * DFA_STATE_BYTES
            yield 0.0, 0, whole, min(v["b"] * line_bytes, whole)
        elif name in ("ht_lookup", "ct_insertion"):
            yield line_bytes + entry(v["HE"]), v["max"], 0.0, line_bytes + entry(v["HE"])
        elif name == "array_access":
            yield entry(v["es"]), v["max"], 0.0, entry(v["es"])
        elif name == "lpm_lookup":
            levels = 1 if v["b"] <= DIR24_FIRST_BYTES else 2
            yield line_bytes, DIR24_FIRST_ENTRIES, 0.0, line_bytes * levels
