"""Platform profiles: every number the EO mapping reads about one machine (Baldi & Sapio, Sec. 2.2).

A profile is YAML with five hardware sections (``cpu``, ``cache``, ``memory``, ``nic``,
``instructions``) and ``conventions``: the choices the paper's text leaves open (see
``data/platforms/xeon-e5-2690v2.yaml`` for why each is set as it is). Quantities carry units in
the file (``3.6 GHz``, ``32 KB``, ``1333 MT/s``) and are SI numbers in Python (``clock_hz``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (BeforeValidator, Field, PrivateAttr, ValidationInfo, WithJsonSchema,
                      model_validator)

from nfvperf import units
from nfvperf.errors import InputError
from nfvperf.files import FileModel, validate
from nfvperf.hostmodel import DataplaneHost


def _prefixes(info: ValidationInfo) -> units.Prefixes:
    return (info.context or {}).get("prefixes", units.SI)


def _as_value_error(fn):
    def wrapper(value: Any, info: ValidationInfo) -> float:
        try:
            return fn(value, info)
        except InputError as exc:
            raise ValueError(exc.expected) from None
    return wrapper


def _quantity_schema(example: str) -> WithJsonSchema:
    """Files write quantities with units ("3.6 GHz") or as bare numbers in the base unit."""
    return WithJsonSchema({"anyOf": [
        {"type": "number", "exclusiveMinimum": 0},
        {"type": "string", "pattern": r"^\s*[0-9]*\.?[0-9]+([eE][+-]?[0-9]+)?\s*[A-Za-z/]*\s*$",
         "examples": [example]},
    ]})


Bytes = Annotated[float, BeforeValidator(_as_value_error(lambda v, i: units.parse_bytes(v))),
                  Field(gt=0), _quantity_schema("64 B")]
Hz = Annotated[float, BeforeValidator(_as_value_error(
    lambda v, i: units.parse_rate(v, "hz", prefixes=_prefixes(i)))), Field(gt=0),
    _quantity_schema("3.6 GHz")]
Bps = Annotated[float, BeforeValidator(_as_value_error(
    lambda v, i: units.parse_rate(v, "bps", prefixes=_prefixes(i)))), Field(gt=0),
    _quantity_schema("10 Gbps")]
TransfersPerS = Annotated[float, BeforeValidator(_as_value_error(
    lambda v, i: units.parse_rate(v, "transfers", prefixes=_prefixes(i)))), Field(gt=0),
    _quantity_schema("1333 MT/s")]
Seconds = Annotated[float, BeforeValidator(_as_value_error(lambda v, i: units.parse_seconds(v))),
                    Field(gt=0), _quantity_schema("85 ns")]
Cycles = Annotated[float, Field(ge=0)]


class Cpu(FileModel):
    model: str | None = None
    clock_hz: Hz = Field(alias="clock", description="core clock used for the estimate")
    sockets: int = Field(ge=1)
    cores_per_socket: int = Field(ge=1)
    register_bytes: Bytes = Field(8, alias="register", description="width of a general register")


class Cache(FileModel):
    line_bytes: Bytes = Field(64, alias="line")
    l1_bytes: Bytes = Field(alias="l1", description="L1 data cache per core")
    l2_bytes: Bytes = Field(alias="l2", description="L2 cache per core")
    l3_bytes: Bytes | None = Field(None, alias="l3", description="shared L3 per socket")
    l1_load_cycles: Cycles = Field(description="load of a register from L1")
    l2_load_cycles: Cycles = Field(description="load of a register from L2")
    l3_access_cycles: Cycles = Field(description="access to the L3 cache")
    l1_write_cycles: Cycles = Field(description="write of a cache line into L1/L2")
    l3_writeback_cycles: Cycles = Field(description="write-back of a cache line to L3")


class LatencyPoint(FileModel):
    bytes: Bytes = Field(description="working set the loads range over")
    cycles: float = Field(gt=0, description="cycles a load")


class FramesLatencyPoint(FileModel):
    bytes: Bytes = Field(description="the table the loads range over")
    frame_bytes: Bytes = Field(alias="frame", description="frame bytes written for each load")
    cycles: float = Field(gt=0, description="cycles a load with the frames")
    alone_cycles: float = Field(gt=0, alias="alone", description="cycles a load without them "
                                "(the same run)")


def _one_point_each(curves) -> None:
    """A measured curve has one point per abscissa: (name, points or None, abscissa field)."""
    for name, pts, key in curves:
        xs = [getattr(p, key) for p in pts or ()]
        if len(set(xs)) != len(xs):
            raise ValueError(f"{name} with one point per {key}")


class ScanPoint(FileModel):
    bytes: Bytes = Field(description="bytes a scan reads")
    cycles_per_byte: float = Field(gt=0, description="cycles a byte")


class LoadPoint(FileModel):
    load: float = Field(gt=0, le=1, description="share of the table's entries held")
    cycles: float = Field(gt=0, description="cycles an insert")


class OverlapPoint(FileModel):
    in_flight: int = Field(ge=1, description="loads issued together")
    cycles: float = Field(gt=0, description="cycles a load")


class Memory(FileModel):
    """DRAM: its timings, from which Sec. 3.1.1's formula gives the access latency, or the
    latency itself where it was measured (``nfvperf calibrate``); the measured value wins."""

    kind: str | None = None
    data_rate_tps: TransfersPerS | None = Field(None, alias="data_rate",
                                                description="DRAM transfers per second")
    cas_latency: float | None = Field(None, gt=0,
                                      description="CAS latency in memory clock cycles (CL)")
    latency_cas_multiplier: float = Field(
        1, ge=0, description="latency = (multiplier x CL + extra) / data rate")
    latency_extra_transfers: float = Field(0, ge=0)
    latency_s: Seconds | None = Field(None, alias="latency",
                                      description="measured latency of one DRAM access")
    load_latency: list[LatencyPoint] | None = Field(
        None, min_length=2, description="cycles of one load by the working set it ranges over "
        "(a pointer chase: caches and DRAM in their measured proportions); read where "
        "conventions.memory_stalls is cycles")
    overlap: list[OverlapPoint] | None = Field(
        None, min_length=1, description="cycles per load with k loads in flight over DRAM "
        "(k dependent chases interleaved; k = 1 is the latency)")
    frames_latency: list[FramesLatencyPoint] | None = Field(
        None, min_length=2, description="cycles of a load through a table with a frame's bytes "
        "written for each load, and alone (a chase: what frames streaming through the caches "
        "do to a table's lines); read where conventions.memory_stalls is cycles")
    serial_overlap: float = Field(
        1.0, ge=1, description="how many keys' waits a loop that looks keys up one at a time "
        "overlaps (the core running ahead into the next key): 1 is none")

    @model_validator(mode="after")
    def _latency_known(self) -> Memory:
        if self.latency_s is None and (self.data_rate_tps is None or self.cas_latency is None):
            raise ValueError("either latency, or data_rate and cas_latency")
        return self

    @model_validator(mode="after")
    def _curves(self) -> Memory:
        if self.overlap is not None and not any(p.in_flight == 1 for p in self.overlap):
            raise ValueError("overlap with an in_flight: 1 point (the latency)")
        _one_point_each((("load_latency", self.load_latency, "bytes"),
                         ("overlap", self.overlap, "in_flight")))
        pairs = [(p.bytes, p.frame_bytes) for p in self.frames_latency or ()]
        if len(set(pairs)) != len(pairs):
            raise ValueError("frames_latency with one point per bytes and frame")
        return self

    @property
    def access_latency_s(self) -> float:
        """Time of one DRAM access: measured, or as the paper's formula gives it (Sec. 3.1.1)."""
        if self.latency_s is not None:
            return self.latency_s
        return (self.latency_cas_multiplier * self.cas_latency
                + self.latency_extra_transfers) / self.data_rate_tps


class Nic(FileModel):
    model: str | None = None
    ports: int = Field(ge=1)
    link_bps: Bps = Field(alias="link", description="line rate of one port")
    ddio: bool = Field(description="packets arrive in the L3 of the local socket (Intel DDIO)")


class Instructions(FileModel):
    """Cycle counts of the instruction sequences the Section 2.2 formulas are made of."""

    alu_cycles_per_register: Cycles = Field(
        description="increase/decrease/sum: cycles per register of operand (0.33: 3 per cycle)")
    index_cycles: Cycles = Field(description="array_access: ADD that computes the index")
    checksum_cycles_per_word: Cycles = Field(description="checksum loop, per 16-bit word")
    checksum_fixed_cycles: Cycles = Field(description="checksum folding after the loop")
    hash_cycles_per_key_component: Cycles = Field(description="ht_lookup: per key component N")
    hash_lookup_cycles: Cycles = Field(description="ht_lookup: hash, index and compare")
    hash_store_cycles: Cycles = Field(description="ht_lookup: cache store per granule of entry")
    hash_store_granule_bytes: Bytes = Field(alias="hash_store_granule")
    ct_insertion_cycles: Cycles = Field(description="ct_insertion: lookup, timestamp and store")
    ct_write_cycles_per_register: Cycles = Field(description="ct_insertion: per register of entry")
    remote_io_base_cycles: Cycles = Field(
        description="I/O_mem of a packet in the other socket's L3 (Sec. 4.2)")
    inc_checksum_cycles_per_word: Cycles | None = Field(
        None, description="inc_checksum: cycles per changed 16-bit word (RFC 1624), measured; "
        "unset: the checksum formula over the changed bytes, as the paper")
    dfa_step_cycles: Cycles | None = Field(
        None, description="dfa_scan: cycles per byte through a DFA table in L1, measured; "
        "unset: an index ADD and a load from the table's cache level")
    dfa_scan_by_length: list[ScanPoint] | None = Field(
        None, min_length=2, description="dfa_scan: cycles per byte by the bytes a scan reads, "
        "scans of consecutive packets one after another (short ones overlap in the core), "
        "measured; read before dfa_step_cycles")
    inc_checksum_fixed_cycles: Cycles = Field(
        0, description="inc_checksum: cycles per update besides its words (the fold), measured; "
        "read only with inc_checksum_cycles_per_word")
    ct_insertion_by_load: list[LoadPoint] | None = Field(
        None, min_length=2, description="ct_insertion: cycles of an rte_hash insert by the "
        "share of the table's entries it holds (the inserts of each tenth of a fill), measured; "
        "scales ct_insertion_cycles (measured in a table filled to half) to the load of the "
        "EO's table, its keys= over its max")

    @model_validator(mode="after")
    def _curves(self) -> Instructions:
        _one_point_each((("dfa_scan_by_length", self.dfa_scan_by_length, "bytes"),
                         ("ct_insertion_by_load", self.ct_insertion_by_load, "load")))
        return self


class Conventions(FileModel):
    """Choices the paper's text does not settle; each is explained in the packaged profiles."""

    parse_cache_level: Literal["l1", "l2"] = Field(
        description="where parse/deparse find their data: l1 (5 cycles) or l2 (12 cycles)")
    parse_line_fetch: bool = Field(
        description="parse/deparse add the optional ceil(b/64) L3-or-DRAM access")
    ct_insertion_formula: Literal["printed", "ht_lookup"] = Field(
        description="price ct_insertion with its printed formula or with ht_lookup's")
    inc_checksum_memory_access: bool = Field(
        description="inc_checksum adds the ceil(b/64) accesses of checksum")
    per_packet_overhead_cycles: Cycles = Field(
        description="cycles added once per packet to the sum of the EO costs")
    memory_stalls: Literal["separate", "cycles"] = Field(
        "separate", description="where a table access beyond the caches is counted: "
        "separate (the paper: DRAM accesses one at a time, a memory bound of their own) or "
        "cycles (the core's wait in the packet's cycles, from memory.load_latency and "
        "memory.overlap: nfvperf.eo.memory)")
    mem_io_l3_access: bool = Field(
        True, description="mem_I/O pays an L3 access besides its write-backs (the paper); "
        "false where the NF writes lines it already holds and the trip back is another "
        "core's")


class Platform(FileModel):
    """A platform profile (see the module docstring)."""

    name: str
    description: str = ""
    source: str | None = None
    base: str | None = Field(None, description="a packaged profile, or a path relative to this "
                             "file, whose values this file overrides field by field")
    cpu: Cpu
    cache: Cache
    memory: Memory
    nic: Nic
    instructions: Instructions
    conventions: Conventions
    dataplane: DataplaneHost | None = Field(
        None, description="the data plane's own costs on this host (nfvperf calibrate): read "
        "by the chain simulator to predict what the data plane reports")
    calibration: dict[str, Any] | None = Field(
        None, description="what `nfvperf calibrate` measured, with spreads (for the record; "
        "the estimate reads only the fields above)")
    _prefixes: units.Prefixes = PrivateAttr(default=units.SI)

    @property
    def prefixes(self) -> units.Prefixes:
        """How k/M/G were read from the file: SI, or binary for the paper's printed figures."""
        return self._prefixes

    @model_validator(mode="after")
    def _stall_curves(self) -> Platform:
        if self.conventions.memory_stalls == "cycles" and (
                self.memory.load_latency is None or self.memory.overlap is None):
            raise ValueError("memory.load_latency and memory.overlap (nfvperf calibrate "
                             "measures them) for conventions.memory_stalls: cycles")
        return self

    @property
    def cores(self) -> int:
        return self.cpu.sockets * self.cpu.cores_per_socket

    @property
    def cache_l1_l2_bytes(self) -> float:
        """The capacity under which a whole table stays in a core's L1+L2 (288 KB in Sec. 2.2)."""
        return self.cache.l1_bytes + self.cache.l2_bytes


PACKAGED_DIR = Path(__file__).resolve().parent.parent / "data" / "platforms"


def packaged_platforms() -> list[str]:
    """Names of the profiles shipped with nfvperf."""
    return sorted(p.stem for p in PACKAGED_DIR.glob("*.yaml"))


def load_platform(ref: str | Path, *, prefixes: units.Prefixes = units.SI) -> Platform:
    """Load a profile by packaged name or path; raise :class:`InputError` when it is not valid.

    ``prefixes=units.BINARY`` reads ``GHz``, ``Gbps`` and ``MT/s`` with G = 2^30 and M = 2^20,
    the reading under which the paper's printed rates come out (``--paper-units``).
    """
    doc = _load_document(ref, ())
    platform = validate(Platform, doc, context={"prefixes": prefixes})
    platform._prefixes = prefixes
    return platform


def _load_document(ref: str | Path, seen: tuple[Path, ...], referrer=None):
    """The profile's YAML, laid over the profile its ``base`` names (recursively).

    A base that cannot be found or read is reported at the ``base`` field that names it."""
    from nfvperf.io import load_yaml, read_text

    try:
        path, label = resolve_ref(ref, PACKAGED_DIR, packaged_platforms(), "platform")
        text = read_text(path)
    except InputError as exc:
        if referrer is None:
            raise
        raise referrer.error(("base",), exc.expected, exc.found) from None
    doc = load_yaml(text, label)
    if not isinstance(doc.data, dict):
        raise doc.error((), "a mapping with the fields of a platform profile",
                        type(doc.data).__name__ if doc.data is not None else "an empty file")
    base = doc.data.get("base")
    if base is None:
        return doc
    if not isinstance(base, str) or not base.strip():
        raise doc.error(("base",), "the name or path of a platform profile", base)
    if "name" not in doc.data:
        raise doc.error((), "a name of its own for a profile with a base", "none")
    here = path.resolve()
    if here in seen:
        raise doc.error(("base",), "a chain of bases that does not lead back to this file", base)
    base_ref = base if base in packaged_platforms() else str(path.parent / base)
    return doc.merged_onto(_load_document(base_ref, seen + (here,), doc))


def resolve_ref(ref: str | Path, folder: Path, names: list[str], what: str) -> tuple[Path, str]:
    """A packaged name or a file path -> (path to read, label for messages)."""
    text = str(ref)
    try:
        path = Path(text)
        exists = path.exists()
        text.encode("utf-8")
    except (ValueError, UnicodeError):
        raise InputError(f"a packaged {what} or a file path", text, field=what) from None
    if text in names and not exists:
        return folder / f"{text}.yaml", f"nfvperf:{folder.name}/{text}.yaml"
    if path.suffix in (".yaml", ".yml") or exists or "/" in text:
        return path, text
    raise InputError(f"a packaged {what} ({', '.join(names)}) or a YAML file", text,
                     field=what)
