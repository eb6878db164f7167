"""The bytes of an NF's tables that its packets keep touching: its working set, from the EO
lines of an estimate and the number of distinct keys the traffic looks up.

A core that switches to another process and back has lost part of what it had cached; what the
NF then refetches grows with this working set (the data plane's calibration measures how, by
working set: ``hostmodel.Preemption``). Per EO:

- ``dfa_scan(b, states)``: the whole automaton (``states`` × 512 B): every payload walks it;
- the table EOs (``ht_lookup``, ``ct_insertion``, ``array_access``, ``lpm_lookup``): the lines
  of their data structures that the keys reach, at most the whole structure.

Those lines are the ones of :mod:`nfvperf.eo.memory` (the data structures behind each
table EO, which the stall term reads too), over the traffic's keys. Everything else (headers,
checksums, counters) is a few lines that the packet brings or that stay hot. A key is a flow of
the traffic, or a destination where the traffic sweeps more destinations than it has flows.

What one packet touches of those tables (``touched_bytes``) bounds what a batch can have to
refetch: a byte through the automaton loads a line of a state's row; a table EO, the lines one
lookup reads.
"""

from __future__ import annotations

from nfvperf.eo.costs import DFA_STATE_BYTES
from nfvperf.eo.memory import capped, structures


def working_set_bytes(lines, keys: int, line_bytes: int) -> float:
    """The working set of the EO ``lines`` (an estimate's ``LineCost``s) over ``keys``
    distinct keys."""
    return sum(whole for whole, _ in _tables(lines, keys, line_bytes))


def touched_bytes(lines, line_bytes: int) -> float:
    """The bytes of its tables one packet touches, by the EO ``lines`` (an estimate's
    ``LineCost``s): whole lines, each counted once."""
    return sum(touched for _, touched in _tables(lines, 1, line_bytes))


def _tables(lines, keys: int, line_bytes: int):
    """For each EO line on a table: the bytes its packets keep there over ``keys`` keys, and
    the bytes one packet touches."""
    for line in lines:
        name, v = line.operation.spec.name, line.values
        if name == "dfa_scan":
            whole = v["states"] * DFA_STATE_BYTES
            yield whole, min(v["b"] * line_bytes, whole)
            continue
        for s in structures(line.index, name, capped(v, keys), line_bytes):
            yield s.lines * line_bytes, s.reads * line_bytes
