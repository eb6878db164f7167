"""Cost of each EO on a platform: Section 2.2 of Baldi & Sapio, one function per EO.

Every function takes the mapping context (platform and cross-socket share) and the EO's evaluated
arguments, and returns a :class:`Cost`: clock cycles, L3-or-DRAM accesses counted as DRAM (the paper
counts them so for its memory bound, Sec. 3.1.1), and the formula with its numbers, for ``explain``.
All constants come from the platform profile; the only numbers here are the ones of the algorithms
themselves (16-bit checksum words, the DIR-24-8 table shape).
"""

from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass

from nfvperf.eo.platform import Platform

#: DIR-24-8 (Gupta, Lin & McKeown 1998; Sec. 2.2 item 8): a first table of 2^24 entries indexed by
#: the top 24 bits, and second-level tables of 255 entries for longer prefixes.
DIR24_FIRST_ENTRIES = 2**24
DIR24_SECOND_ENTRIES = 255
DIR24_FIRST_BYTES = 3
#: The IP checksum adds 16-bit words (RFC 1071).
CHECKSUM_WORD_BYTES = 2


@dataclass(frozen=True)
class Cost:
    """The cost of one EO (or of a sum of them) per packet."""

    cycles: float
    dram_accesses: float
    formula: str = ""

    def __add__(self, other: Cost) -> Cost:
        formula = " + ".join(f for f in (self.formula, other.formula) if f)
        return Cost(self.cycles + other.cycles, self.dram_accesses + other.dram_accesses, formula)

    def scaled(self, weight: float) -> Cost:
        return Cost(self.cycles * weight, self.dram_accesses * weight, self.formula)


@dataclass(frozen=True)
class MappingContext:
    """What a cost function may read: the platform, and the share of packets whose ``I/O_mem``
    reads them from the other socket (Sec. 4.2); 1 on a platform without DDIO."""

    platform: Platform
    remote_fraction: float = 0.0


def ceil(x: float) -> int:
    """The ceiling of the printed formulas, robust to float noise (0.33 * 24 / 8 is 0.99, not 1)."""
    return math.ceil(round(x, 9))


def _n(x: float) -> str:
    return f"{x:g}"


def _lines(nbytes: float, p: Platform) -> int:
    return ceil(nbytes / p.cache.line_bytes)


def _regs(nbytes: float, p: Platform) -> int:
    return ceil(nbytes / p.cpu.register_bytes)


def io_mem(ctx: MappingContext, a: dict[str, float]) -> Cost:
    """``I/O_mem(hdr, data)``: 31 + 5·⌈hdr/64⌉ cycles (packet in the local L3 through DDIO);
    a packet in the other socket's L3 costs 30 + 5·⌈(hdr+data)/64⌉ cycles and
    ⌈(hdr+data)/64⌉ DRAM accesses (Sec. 4.2). The result is the mean over ``remote_fraction``."""
    p, c = ctx.platform, ctx.platform.cache
    hdr, data = a["hdr"], a["data"]
    local = Cost(c.l3_access_cycles + c.l1_write_cycles * _lines(hdr, p), 0,
                 f"{_n(c.l3_access_cycles)} + {_n(c.l1_write_cycles)}·⌈{_n(hdr)}/{_n(c.line_bytes)}⌉")
    f = 1.0 if not p.nic.ddio else ctx.remote_fraction
    if f == 0:
        return local
    whole = _lines(hdr + data, p)
    remote = Cost(p.instructions.remote_io_base_cycles + c.l1_write_cycles * whole, whole,
                  f"{_n(p.instructions.remote_io_base_cycles)} + {_n(c.l1_write_cycles)}·"
                  f"⌈{_n(hdr + data)}/{_n(c.line_bytes)}⌉ + {whole} DRAM")
    if f == 1:
        return remote
    return Cost(local.cycles * (1 - f) + remote.cycles * f, remote.dram_accesses * f,
                f"{_n(1 - f)}·({local.formula}) + {_n(f)}·({remote.formula})")


def mem_io(ctx: MappingContext, a: dict[str, float]) -> Cost:
    """``mem_I/O(hdr, data)``: 31 + 9·⌈hdr/64⌉ cycles, the header written back to L3; without
    the L3 access under the ``mem_io_l3_access: false`` convention."""
    p, c = ctx.platform, ctx.platform.cache
    back = c.l3_writeback_cycles * _lines(a["hdr"], p)
    formula = f"{_n(c.l3_writeback_cycles)}·⌈{_n(a['hdr'])}/{_n(c.line_bytes)}⌉"
    if not p.conventions.mem_io_l3_access:
        return Cost(back, 0, formula)
    return Cost(c.l3_access_cycles + back, 0, f"{_n(c.l3_access_cycles)} + {formula}")


def parse(ctx: MappingContext, a: dict[str, float]) -> Cost:
    """``parse(b)``/``deparse(b)``: 5 (L1) or 12 (L2) cycles per 64-bit register, and optionally
    ⌈b/64⌉ L3-or-DRAM accesses (the braces of Sec. 2.2 item 2)."""
    p = ctx.platform
    level = p.conventions.parse_cache_level
    load = p.cache.l1_load_cycles if level == "l1" else p.cache.l2_load_cycles
    b = a["b"]
    formula = f"{_n(load)}·⌈{_n(b)}/{_n(p.cpu.register_bytes)}⌉"
    dram = 0
    if p.conventions.parse_line_fetch:
        dram = _lines(b, p)
        formula += f" + {dram} DRAM"
    return Cost(load * _regs(b, p), dram, formula)


def increase(ctx: MappingContext, a: dict[str, float]) -> Cost:
    """``increase(b)``/``decrease(b)``/``sum(b)``: ⌈0.33·b/8⌉ cycles (3 ALU ops per cycle)."""
    p = ctx.platform
    k = p.instructions.alu_cycles_per_register
    return Cost(ceil(k * a["b"] / p.cpu.register_bytes), 0,
                f"⌈{_n(k)}·{_n(a['b'])}/{_n(p.cpu.register_bytes)}⌉")


def checksum(ctx: MappingContext, a: dict[str, float]) -> Cost:
    """``checksum(b)``: 7·⌈b/2⌉ + 8 cycles + ⌈b/64⌉ L3-or-DRAM accesses (Fig. 3)."""
    return _checksum(ctx, a["b"], accesses=True)


def inc_checksum(ctx: MappingContext, a: dict[str, float]) -> Cost:
    """``inc_checksum(b)``: the checksum formula over the b changed bytes (RFC 1624), or the
    profile's measured cycles per changed word; its accesses count only if the profile says so
    (the old checksum has been parsed already)."""
    p = ctx.platform
    per_word = p.instructions.inc_checksum_cycles_per_word
    if per_word is not None:
        fixed = p.instructions.inc_checksum_fixed_cycles
        words = ceil(a["b"] / CHECKSUM_WORD_BYTES)
        dram = _lines(a["b"], p) if p.conventions.inc_checksum_memory_access else 0
        return Cost(per_word * words + fixed, dram, f"{_n(per_word)}·⌈{_n(a['b'])}/"
                    f"{CHECKSUM_WORD_BYTES}⌉" + (f" + {_n(fixed)}" if fixed else "")
                    + (f" + {dram} DRAM" if dram else ""))
    return _checksum(ctx, a["b"], accesses=p.conventions.inc_checksum_memory_access)


def _checksum(ctx: MappingContext, b: float, *, accesses: bool) -> Cost:
    p, i = ctx.platform, ctx.platform.instructions
    dram = _lines(b, p) if accesses else 0
    formula = (f"{_n(i.checksum_cycles_per_word)}·⌈{_n(b)}/{CHECKSUM_WORD_BYTES}⌉ + "
               f"{_n(i.checksum_fixed_cycles)}" + (f" + {dram} DRAM" if accesses else ""))
    return Cost(i.checksum_cycles_per_word * ceil(b / CHECKSUM_WORD_BYTES)
                + i.checksum_fixed_cycles, dram, formula)


#: dfa_scan's table: 256 transitions of 2 B per state
DFA_STATE_BYTES = 512


def interp(x: float, xs: list[float], ys: list[float]) -> float:
    """Linear between the points (xs ascending), the end values beyond them. Plain Python:
    the estimator's commands do not load NumPy."""
    if x <= xs[0]:
        return ys[0]
    if x >= xs[-1]:
        return ys[-1]
    i = bisect_right(xs, x)
    x0, x1, y0, y1 = xs[i - 1], xs[i], ys[i - 1], ys[i]
    return y0 + (y1 - y0) * (x - x0) / (x1 - x0)


def scan_cycles_per_byte(points, nbytes: float) -> float:
    """Cycles a byte of a scan of ``nbytes``, from scans measured by length: log-linear in the
    length between them, the end values beyond."""
    pts = sorted((math.log2(p.bytes), p.cycles_per_byte) for p in points)
    return interp(math.log2(max(nbytes, 1.0)), [x for x, _ in pts], [y for _, y in pts])


def dfa_scan(ctx: MappingContext, a: dict[str, float]) -> Cost:
    """``dfa_scan(b, states)``: b bytes through a DFA (an Aho-Corasick automaton compiled to
    256 transitions a state): one table load per byte, each depending on the one before. Per
    byte: the profile's measured cost of scans of b bytes one packet after another
    (``dfa_scan_by_length``: the core overlaps short scans of consecutive packets, whose loads
    do not depend on one another, and waits on every byte of a long one; never more than one
    long walk), else its measured ``dfa_step_cycles`` (one long walk), else an index ADD and a
    load from where the table lives (L1, L2, else the L3 access cost). Not one of the paper's
    EOs."""
    p, i = ctx.platform, ctx.platform.instructions
    table = a["states"] * DFA_STATE_BYTES
    if i.dfa_scan_by_length is not None:
        # overlap only makes a byte cheaper: at most the long walk's cost (where the scans by
        # length come out dearer, that is the noise of the machine, not the walk)
        step = scan_cycles_per_byte(i.dfa_scan_by_length, a["b"])
        if i.dfa_step_cycles is not None:
            step = min(step, i.dfa_step_cycles)
        how = f"{_n(step)} (scans of {_n(a['b'])} B)"
    elif i.dfa_step_cycles is not None:
        step, how = i.dfa_step_cycles, _n(i.dfa_step_cycles)
    else:
        load, level = ((p.cache.l1_load_cycles, "L1") if table <= p.cache.l1_bytes else
                       (p.cache.l2_load_cycles, "L2") if table <= p.cache_l1_l2_bytes else
                       (p.cache.l3_access_cycles, "L3"))
        step, how = i.index_cycles + load, f"({_n(i.index_cycles)} + {_n(load)} {level})"
    return Cost(step * a["b"], 0, f"{how}·{_n(a['b'])}")


def array_access(ctx: MappingContext, a: dict[str, float]) -> Cost:
    """``array_access(es, max)``: 1 + ⌈es/8⌉ cycles + ⌈es/64⌉ DRAM accesses. As printed, the
    cost does not depend on ``max``: the array is taken to be in DRAM."""
    p = ctx.platform
    es = a["es"]
    dram = _lines(es, p)
    return Cost(p.instructions.index_cycles + _regs(es, p), dram,
                f"{_n(p.instructions.index_cycles)} + ⌈{_n(es)}/{_n(p.cpu.register_bytes)}⌉"
                f" + {dram} DRAM")


def ht_lookup(ctx: MappingContext, a: dict[str, float]) -> Cost:
    """``ht_lookup(N, HE, max, p)``: ⌈(4N + 106 + 5⌈HE/8⌉ + 5⌈HE/32⌉)(1+p)⌉ cycles and
    ⌈⌈HE/64⌉(1+p)⌉ L3-or-DRAM accesses (Fig. 4). A table of ``max·HE ≤ L1+L2`` bytes is in
    cache: no memory access and no cache store term."""
    p, i = ctx.platform, ctx.platform.instructions
    n, he, p_coll = a["N"], a["HE"], a["p"]
    in_cache = a["max"] * he <= p.cache_l1_l2_bytes
    base = (i.hash_cycles_per_key_component * n + i.hash_lookup_cycles
            + p.cache.l1_load_cycles * _regs(he, p))
    terms = (f"{_n(i.hash_cycles_per_key_component)}·{_n(n)} + {_n(i.hash_lookup_cycles)} + "
             f"{_n(p.cache.l1_load_cycles)}·⌈{_n(he)}/{_n(p.cpu.register_bytes)}⌉")
    return _table_op(ctx, base, terms, he, p_coll, in_cache, accesses_per_line=1)


#: ct_insertion_cycles is measured in a table filled from empty to half
MEASURED_INSERT_LOAD = 0.5


def insertion_load_factor(points, load: float) -> float:
    """An insert into a table holding ``load`` of its entries against one as
    ``ct_insertion_cycles`` was measured (the mean over a fill to half): from the profile's
    inserts by load, linear between its points, the end values beyond."""
    pts = sorted((p.load, p.cycles) for p in points)
    xs, ys = [x for x, _ in pts], [y for _, y in pts]
    half = [y for x, y in pts if x <= MEASURED_INSERT_LOAD] or ys[:1]
    return interp(load, xs, ys) / (sum(half) / len(half))


def ct_insertion(ctx: MappingContext, a: dict[str, float]) -> Cost:
    """``ct_insertion(N, HE, max, p)``: lookup plus timestamp update (Fig. 5). Printed:
    ⌈(4N + 129 + 7⌈HE/8⌉ + 5⌈HE/32⌉)(1+p)⌉ cycles and 2⌈⌈HE/64⌉(1+p)⌉ accesses; with the
    ``ct_insertion_formula: ht_lookup`` convention it costs what ``ht_lookup`` does. Where the
    profile measured inserts by the table's load (``ct_insertion_by_load``), the insert is
    priced at its table's: the keys the traffic keeps in it (``keys=``, else every entry) over
    its ``max`` (a fuller table finds both of a key's buckets full more often, and moves keys
    or chains them)."""
    p, i = ctx.platform, ctx.platform.instructions
    if p.conventions.ct_insertion_formula == "ht_lookup":
        return ht_lookup(ctx, a)
    n, he, p_coll = a["N"], a["HE"], a["p"]
    in_cache = a["max"] * he <= p.cache_l1_l2_bytes
    insert, insert_text = i.ct_insertion_cycles, _n(i.ct_insertion_cycles)
    if i.ct_insertion_by_load is not None:
        load = min(1.0, a.get("keys", a["max"]) / max(a["max"], 1.0))
        factor = insertion_load_factor(i.ct_insertion_by_load, load)
        insert, insert_text = insert * factor, f"{insert_text}·{_n(factor)} (load {_n(load)})"
    base = (i.hash_cycles_per_key_component * n + insert
            + i.ct_write_cycles_per_register * _regs(he, p))
    terms = (f"{_n(i.hash_cycles_per_key_component)}·{_n(n)} + {insert_text} + "
             f"{_n(i.ct_write_cycles_per_register)}·⌈{_n(he)}/{_n(p.cpu.register_bytes)}⌉")
    return _table_op(ctx, base, terms, he, p_coll, in_cache, accesses_per_line=2)


def _table_op(ctx: MappingContext, base: float, terms: str, he: float, p_coll: float,
              in_cache: bool, *, accesses_per_line: int) -> Cost:
    p, i = ctx.platform, ctx.platform.instructions
    if in_cache:
        return Cost(ceil(base * (1 + p_coll)), 0, f"⌈({terms})·(1+{_n(p_coll)})⌉, table in L1+L2")
    store = i.hash_store_cycles * ceil(he / i.hash_store_granule_bytes)
    dram = accesses_per_line * ceil(_lines(he, p) * (1 + p_coll))
    prefix = f"{accesses_per_line}·" if accesses_per_line != 1 else ""
    return Cost(ceil((base + store) * (1 + p_coll)), dram,
                f"⌈({terms} + {_n(i.hash_store_cycles)}·⌈{_n(he)}/"
                f"{_n(i.hash_store_granule_bytes)}⌉)·(1+{_n(p_coll)})⌉ + "
                f"{prefix}⌈⌈{_n(he)}/{_n(p.cache.line_bytes)}⌉·(1+{_n(p_coll)})⌉ DRAM")


def lpm_lookup(ctx: MappingContext, a: dict[str, float]) -> Cost:
    """``lpm_lookup(b, es)`` with DIR-24-8: ``array_access(es, 16M)``, and a second
    ``array_access(es, 255)`` when the matching prefix is longer than 3 bytes."""
    first = array_access(ctx, {"es": a["es"], "max": DIR24_FIRST_ENTRIES})
    if a["b"] <= DIR24_FIRST_BYTES:
        return Cost(first.cycles, first.dram_accesses, f"array_access(16M): {first.formula}")
    second = array_access(ctx, {"es": a["es"], "max": DIR24_SECOND_ENTRIES})
    return Cost(first.cycles + second.cycles, first.dram_accesses + second.dram_accesses,
                f"array_access(16M): {first.formula}; array_access(255): {second.formula}")
