"""The time a core waits for its tables: a stall term in cycles for each EO on a table beyond
the caches (an extension of Baldi & Sapio, who count such accesses in a separate memory bound).

Three things decide it, each from the NF model or a measurement of the host:

- **Where the table's lines are.** A line's chance to be in a cache grows with how often it is
  used against how much else is used in between (its reuse distance). Between two uses of a
  line of structure *i* (read ``a_i`` times a packet over ``L_i`` lines) the NF reads
  ``L_j · min(1, ρ_j / ρ_i)`` distinct lines of each structure *j* (``ρ = a / L``, uses of a
  line a packet): a hot small table stays cached beside a cold large one. The latency of a read
  over that reuse distance is the host's measured load latency by working set (a pointer chase
  over that many bytes: L1, L2, the shared cache and DRAM in their measured proportions,
  partial hits included), ``memory.load_latency`` of the profile.
- **The frames that pass through the core between two uses.** Each packet's frame and its
  mbuf's line are written into the NF core's caches as they arrive (by the generator on the
  NF's CPU here; by DDIO with a NIC) and push table lines out. They lengthen the reuse
  distance by their bytes between two uses of a line, each byte at the weight calibration
  measured for that table size and that many frame bytes a load (``memory.frames_latency``:
  a chase through a table with a frame written for each load; the weight is the working set
  the chase's own curve alone needs to be as slow, less the table, over the frames' bytes,
  at most 1). A table the size of the L2 feels them byte for byte; one in the shared cache
  a fraction of them, as that cache keeps lines that are used again better than a stream.
- **What the core can overlap.** The lookups of a burst that are issued together (``bulk``: a
  bulk call that prefetches, or a loop whose packets do not depend on one another) are in
  flight together, up to the burst and to what the core sustains: the profile's
  ``memory.overlap``, cycles per load with k dependent chases interleaved (k = 1 is the
  latency). ``serial`` accesses (one key at a time, each waiting for the last: a learning
  insert per packet) wait for each step (lines fetched together, such as a key's two buckets,
  are one step); the core still runs ahead into the next key while one waits, as far as its
  instruction window allows: ``memory.serial_overlap``, measured by calibration on rte_hash
  lookups one key at a time over a table in DRAM.
- **How many lines an operation reads**, by the data structure behind it (DPDK's, which the
  data plane's NFs use):

  ========================  ==========================================================
  ``ht_lookup``             rte_hash: a bucket line of signatures, then the key's slot
                            (key and data: ⌈HE/64⌉ lines); a bulk lookup prefetches both
                            of the key's buckets (primary and secondary), one at a time
                            reads the primary
  ``ct_insertion``          rte_hash add: both buckets fetched together and searched,
                            then the key's slot compared and written
  ``array_access``          ⌈es/64⌉ lines of the array
  ``lpm_lookup``            DIR-24-8 (rte_lpm): a tbl24 line, and a tbl8 line for a
                            prefix longer than 3 bytes
  ========================  ==========================================================

A structure's lines are those the traffic touches: the EO's ``keys=`` option (distinct keys; for
``lpm_lookup``, distinct tbl24 lines) or else every entry. Buckets hold 8 keys in a 64 B line
(rte_hash: the entries rounded up to a power of two). The EO formula already counts a load from
L1; the stall is the latency beyond it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from nfvperf.eo.costs import (DIR24_FIRST_BYTES, DIR24_FIRST_ENTRIES, DIR24_SECOND_ENTRIES,
                              interp)

#: rte_hash: 8 signatures and key indexes a 64 B bucket; the buckets are the entries rounded up
#: to a power of two, over 8
HASH_BUCKET_ENTRIES = 8
#: rte_lpm entries are 4 B
LPM_ENTRY_BYTES = 4
#: the EOs that read tables, whose lines may be beyond the caches
TABLE_EOS = ("ht_lookup", "ct_insertion", "array_access", "lpm_lookup")
ACCESS_MODES = ("bulk", "serial")


@dataclass(frozen=True)
class Structure:
    """One data structure an EO line reads: the lines the traffic touches and how many of them
    a packet reads."""

    line: int
    name: str
    lines: float
    reads: float
    #: the reads a serial access waits for one after another (lines read together, such as
    #: both buckets of a key or the lines of one entry, are one wait)
    waits: float = 1.0

    @property
    def reuse(self) -> float:
        """Uses of one of its lines a packet."""
        return self.reads / self.lines


@dataclass(frozen=True)
class Stall:
    """The cycles an EO line waits for its structures a packet, and how they came about."""

    cycles: float
    formula: str


def structures(index: int, name: str, v: dict[str, float], line_bytes: int) -> list[Structure]:
    """The structures EO ``name`` (with evaluated arguments ``v``) reads; none for other EOs.
    ``v["keys"]`` is the distinct keys the traffic looks up, where the model says."""
    def lines_of(nbytes: float) -> int:
        return math.ceil(nbytes / line_bytes)

    if name in ("ht_lookup", "ct_insertion"):
        size, keys = v["max"], min(v.get("keys", v["max"]), v["max"])
        buckets = 2 ** math.ceil(math.log2(max(size, HASH_BUCKET_ENTRIES))) / HASH_BUCKET_ENTRIES
        slot = lines_of(v["HE"])
        both = name == "ct_insertion" or v.get("bulk", 0) > 0
        p = 1 + v["p"]
        return [Structure(index, "buckets", min(2 * keys, buckets), (2 if both else 1) * p, p),
                Structure(index, "slots", min(keys * slot, lines_of(size * v["HE"])),
                          slot * p, p)]
    if name == "array_access":
        size, keys = v["max"], min(v.get("keys", v["max"]), v["max"])
        per = lines_of(v["es"])
        return [Structure(index, "array", min(keys * per, lines_of(size * v["es"])), per)]
    if name == "lpm_lookup":
        tbl24 = lines_of(DIR24_FIRST_ENTRIES * LPM_ENTRY_BYTES)
        keys = v.get("keys", tbl24)
        out = [Structure(index, "tbl24", min(keys, tbl24), 1.0)]
        if v["b"] > DIR24_FIRST_BYTES:
            out.append(Structure(index, "tbl8", min(keys * lines_of(
                DIR24_SECOND_ENTRIES * LPM_ENTRY_BYTES), tbl24), 1.0))
        return out
    return []


def capped(v: dict[str, float], keys: float) -> dict[str, float]:
    """A table EO's arguments ``v`` with no more than ``keys`` distinct keys: the traffic's
    keys bound what the model's ``keys=`` (or, without it, the whole table) says."""
    return {**v, "keys": min(v.get("keys", math.inf), keys)}


def reuse_distance_bytes(mine: Structure, every: Sequence[Structure], line_bytes: int) -> float:
    """The bytes the NF reads between two uses of one of ``mine``'s lines (see the module)."""
    return line_bytes * sum(s.lines * min(1.0, s.reuse / mine.reuse) for s in every)


@dataclass(frozen=True)
class FramesPoint:
    """A table's load with frames streaming through the caches: the table's bytes, the frame
    bytes written for each of its loads, and the cycles a load took with them and alone (the
    same run)."""

    bytes: float
    frame_bytes: float
    cycles: float
    alone_cycles: float


class Hierarchy:
    """The host's memory as calibration measured it: the latency of a load by the working set
    it ranges over, the cycles per load with k loads in flight, and, where measured, the weight
    of a frame's bytes in a table's reuse distance (:func:`frame_weights`)."""

    def __init__(self, latency: Sequence[tuple[float, float]],
                 overlap: Sequence[tuple[float, float]], serial_overlap: float = 1.0,
                 frames: Sequence[FramesPoint] = (), line_bytes: int = 64):
        self.serial_overlap = serial_overlap
        pts = sorted(latency)
        self._log_bytes = [math.log2(b) for b, _ in pts]
        self._cycles = [c for _, c in pts]
        ov = sorted(overlap)
        self._k = [float(k) for k, _ in ov]
        self._per_load = [c for _, c in ov]
        self._weights = {b: ([x for x, _ in pts], [w for _, w in pts])
                         for b, pts in frame_weights(frames, line_bytes).items()}

    @property
    def frames_known(self) -> bool:
        """Whether calibration measured what frames do to a table's loads."""
        return bool(self._weights)

    def frame_weight(self, distance: float, frame_per_load: float) -> float:
        """The weight of a frame byte in the reuse distance of a table line ``distance`` bytes
        apart, with ``frame_per_load`` frame bytes for each line read in between: log-linear in
        the table's bytes, linear in the frame bytes, held at the measured ends."""
        sizes = sorted(self._weights)
        at = [interp(math.log2(max(distance, 1.0)), *self._weights[b]) for b in sizes]
        return interp(frame_per_load, [float(b) for b in sizes], at)

    def latency(self, nbytes: float) -> float:
        """Cycles of one load over ``nbytes`` (log-linear between the measured sizes)."""
        return interp(math.log2(max(nbytes, 1.0)), self._log_bytes, self._cycles)

    @property
    def nearest(self) -> float:
        """The latency of a load that hits L1 (the smallest working set measured)."""
        return min(self._cycles)

    def overlap(self, in_flight: float) -> float:
        """How many loads' latency one load's time covers with ``in_flight`` independent loads
        issued together: 1 for one, at most what the core sustained."""
        return self._per_load[0] / interp(max(1.0, in_flight), self._k, self._per_load)


def working_set_at(cycles: float, curve: Sequence[tuple[float, float]]) -> float | None:
    """The working set at which a measured load-latency curve ((bytes, cycles) points, taken
    as rising: its running maximum) reads ``cycles``, log-linear between its points and held
    at its ends; the first such set where the curve is flat. None with fewer than two rising
    points."""
    rising: list[tuple[float, float]] = []
    top = -math.inf
    for b, c in sorted(curve):
        top = max(top, c)
        if not rising or top > rising[-1][1]:
            rising.append((math.log2(b), top))
    if len(rising) < 2:
        return None
    return 2 ** interp(cycles, [c for _, c in rising], [x for x, _ in rising])


def frame_weights(points: Sequence[FramesPoint], line_bytes: int
                  ) -> dict[float, list[tuple[float, float]]]:
    """Per frame bytes a load, the weight of a frame byte by log2 of the table's bytes: the
    working set at which the chase's curve alone (the same run) is as slow as the table with
    the frames, less the table, over the frames' bytes between two uses of a line (the table's
    lines times the bytes a load); 0 where the frames cost nothing, 1 where the table with
    them is slower than the largest alone, never more."""
    out: dict[float, list[tuple[float, float]]] = {}
    for b in sorted({p.frame_bytes for p in points}):
        run = sorted((p for p in points if p.frame_bytes == b), key=lambda p: p.bytes)
        alone = [(p.bytes, p.alone_cycles) for p in run]
        top = max(c for _, c in alone)
        weights = []
        for i, p in enumerate(run):
            at = working_set_at(p.cycles, alone)
            if p.cycles <= max(c for _, c in alone[:i + 1]):
                w = 0.0
            elif at is None or p.cycles >= top:
                w = 1.0
            else:
                w = (at - p.bytes) / (p.bytes / line_bytes * b)
            weights.append((math.log2(p.bytes), min(1.0, max(0.0, w))))
        out[b] = weights
    return out


@dataclass(frozen=True)
class Neighbour:
    """A process on another core that shares this one's last-level cache (and DRAM): the bytes
    it ranges over and the lines it loads a second."""

    bytes: float
    loads_per_s: float


@dataclass(frozen=True)
class Sharing:
    """What the NF shares its last-level cache with: its neighbours, the NF's packet rate (how
    long a line of its waits between uses) and the bytes of its own core's private caches."""

    neighbours: tuple[Neighbour, ...]
    #: None: the NF saturated, at its CPU bound without the neighbours
    rate_pps: float | None
    private_bytes: float


def neighbours_bytes(mine: Structure, sharing: Sharing, line_bytes: int) -> float:
    """The bytes the neighbours read between two uses of one of ``mine``'s lines: each its
    loads over that time, at most all it ranges over."""
    gap_s = 1.0 / (mine.reuse * sharing.rate_pps)
    return sum(min(n.bytes, n.loads_per_s * gap_s * line_bytes) for n in sharing.neighbours)


def stalls(items: Sequence[tuple[int, str, dict[str, float], str]], hierarchy: Hierarchy,
           burst: float, line_bytes: int, sharing: Sharing | None = None,
           frame_bytes: float = 0.0) -> dict[int, Stall]:
    """The stall of each EO line of a path: ``items`` are (line index, EO name, evaluated
    arguments, access mode). ``frame_bytes``: the bytes a packet's frame writes into the
    core's caches, which lengthen every reuse distance (where the hierarchy knows their
    weight). With ``sharing``, the neighbours' lines lengthen the reuse distance of a structure
    that is beyond the private caches already (a line that stays in this core's L2 is not
    theirs to evict)."""
    mode = {i: access for i, _, _, access in items}
    every = [s for i, name, v, access in items
             for s in structures(i, name, {**v, "bulk": float(access == "bulk")}, line_bytes)]
    out: dict[int, list[tuple[Structure, float, float]]] = {}
    for s in every:
        distance = reuse_distance_bytes(s, every, line_bytes)
        if frame_bytes > 0 and hierarchy.frames_known:
            between = frame_bytes / s.reuse
            per_load = between / (distance / line_bytes)
            distance += hierarchy.frame_weight(distance, per_load) * between
        beyond = max(0.0, hierarchy.latency(distance) - hierarchy.nearest)
        if sharing is not None and sharing.neighbours and distance > sharing.private_bytes:
            shared = distance + neighbours_bytes(s, sharing, line_bytes)
            beyond += hierarchy.latency(shared) - hierarchy.latency(distance)
            distance = shared
        out.setdefault(s.line, []).append((s, distance, beyond))
    result = {}
    for i, parts in out.items():
        bulk = mode[i] == "bulk"
        ov = hierarchy.overlap(burst) if bulk else hierarchy.serial_overlap
        counted = [(s.reads if bulk else s.waits, s, d, beyond) for s, d, beyond in parts]
        cycles = sum(n * beyond for n, _, _, beyond in counted) / ov
        terms = " + ".join(f"{n:g}·{beyond:.0f} ({s.name}, {_size(d)})"
                           for n, s, d, beyond in counted)
        how = f"bulk ×{burst:g}: ÷{ov:.1f}" if bulk else "serial"
        if frame_bytes > 0 and hierarchy.frames_known:
            how += f"; frames {frame_bytes:.0f} B a packet"
        result[i] = Stall(cycles, f"stall ({terms})/{ov:.1f} [{how}]" if ov != 1
                          else f"stall {terms} [{how}]")
    return result


def _size(nbytes: float) -> str:
    for unit, scale in (("GB", 2**30), ("MB", 2**20), ("KB", 2**10)):
        if nbytes >= scale:
            return f"{nbytes / scale:.3g} {unit}"
    return f"{nbytes:.0f} B"
