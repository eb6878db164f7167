"""Per-packet cost of an NF on a platform and its throughput bounds (Baldi & Sapio, Sec. 2.2-4.2).

The cost of a packet path is the sum of its EO costs plus the profile's per-packet overhead. From
it come three bounds: CPU (clock / cycles, times the cores), memory (one DRAM access takes the
profile's latency, accesses are serialised: Sec. 3.1.1) and link (all NIC ports at line rate, 20 B
of preamble and gap per frame). The throughput is the smallest; its name is the bottleneck.
An NF with several paths also gets a ``mix`` row: the paths' costs averaged with their weights,
which is the cost of the mean packet when traffic splits over the paths in those proportions
(Sec. 4.2's 42.5 Mpps for the BNG is this row).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from typing_extensions import TypedDict

from nfvperf import limits, units
from nfvperf.eo.costs import Cost, MappingContext
from nfvperf.eo.memory import (TABLE_EOS, FramesPoint, Hierarchy, Sharing, Stall, capped,
                               stalls)
from nfvperf.eo.model import NFModel, NFPath, OperationLine
from nfvperf.eo.platform import Platform
from nfvperf.errors import InputError
from nfvperf.output import contract

#: The name of the weighted row of a multi-path NF.
MIX_PATH = "mix"


@dataclass(frozen=True)
class LineCost:
    """The cost of one EO line of a model at one frame size."""

    index: int
    operation: OperationLine
    values: dict[str, float]
    cost: Cost
    #: the core's wait for the line's table beyond the caches, where the profile counts it in
    #: cycles (conventions.memory_stalls: cycles); None elsewhere
    stall: Stall | None = None

    @property
    def cycles(self) -> float:
        """The line's cycles a packet: its EO's formula and its stall."""
        return self.cost.cycles + (self.stall.cycles if self.stall else 0.0)


@dataclass(frozen=True)
class Estimate:
    """The estimate for one NF path (or the ``mix``) at one frame size and core count.

    Rates are in packets (or bits) per second under ``prefixes``: SI unless the platform was
    read with the paper's binary prefixes.
    """

    nf: str
    path: str
    platform: str
    frame_bytes: int
    cores: int
    remote_fraction: float
    lines: tuple[LineCost, ...]
    overhead_cycles: float
    cycles_per_packet: float
    dram_accesses_per_packet: float
    cpu_bound_pps_per_core: float
    memory_bound_pps: float
    link_bound_pps_per_port: float
    ports: int
    prefixes: units.Prefixes = units.SI

    @property
    def cpu_bound_pps(self) -> float:
        return self.cpu_bound_pps_per_core * self.cores

    @property
    def link_bound_pps(self) -> float:
        return self.link_bound_pps_per_port * self.ports

    @property
    def bounds(self) -> dict[str, float]:
        return {"cpu": self.cpu_bound_pps, "memory": self.memory_bound_pps,
                "link": self.link_bound_pps}

    @property
    def bottleneck(self) -> str:
        bounds = self.bounds
        return min(bounds, key=bounds.__getitem__)

    @property
    def throughput_pps(self) -> float:
        return min(self.bounds.values())

    def gbps(self, pps: float) -> float:
        """Bits per second on the wire (frame + 20 B) of a packet rate, in G of ``prefixes``."""
        return pps * units.wire_bits(self.frame_bytes) / self.prefixes.giga

    def to_dict(self) -> EstimateRecord:
        """One element of ``nfvperf estimate --format json`` (the contract: EstimateRecord)."""
        mega = self.prefixes.mega
        return {
            "nf": self.nf,
            "path": self.path,
            "platform": self.platform,
            "packet_size": self.frame_bytes,
            "cores": self.cores,
            "remote_fraction": self.remote_fraction,
            "cycles_per_packet": _num(self.cycles_per_packet),
            "dram_accesses_per_packet": _num(self.dram_accesses_per_packet),
            "cpu_bound_mpps_per_core": _num(self.cpu_bound_pps_per_core / mega),
            "cpu_bound_mpps": _num(self.cpu_bound_pps / mega),
            "memory_bound_mpps": _num(self.memory_bound_pps / mega),
            "link_bound_mpps_per_port": _num(self.link_bound_pps_per_port / mega),
            "link_bound_mpps": _num(self.link_bound_pps / mega),
            "throughput_mpps": _num(self.throughput_pps / mega),
            "throughput_gbps": _num(self.gbps(self.throughput_pps)),
            "cpu_bound_gbps": _num(self.gbps(self.cpu_bound_pps)),
            "memory_bound_gbps": _num(self.gbps(self.memory_bound_pps)),
            "bottleneck": self.bottleneck,
            "units": self.prefixes.name,
        }


@contract
class EstimateRecord(TypedDict):
    """One path of one NF at one frame size, as ``nfvperf estimate --format json`` lists them.
    Rates are in M of ``units`` (SI, or the paper's binary reading); null: unbounded."""

    nf: str
    """The model's name."""
    path: str
    """The model's path (``main`` where it has one)."""
    platform: str
    packet_size: int
    """Frame bytes, FCS included."""
    cores: int
    remote_fraction: float
    """Share of packets read from the other socket's L3."""
    cycles_per_packet: float | None
    dram_accesses_per_packet: float | None
    cpu_bound_mpps_per_core: float | None
    cpu_bound_mpps: float | None
    """Of all ``cores``."""
    memory_bound_mpps: float | None
    """DRAM accesses one at a time at the DRAM latency (where the profile counts memory as a
    separate bound)."""
    link_bound_mpps_per_port: float | None
    link_bound_mpps: float | None
    """Of all NIC ports, 20 B per frame on the wire beyond its bytes."""
    throughput_mpps: float | None
    """The least of the bounds."""
    throughput_gbps: float | None
    cpu_bound_gbps: float | None
    memory_bound_gbps: float | None
    bottleneck: str
    """The bound that binds: cpu, memory or link."""
    units: str
    """``si`` or ``binary`` (``--paper-units``)."""


def _num(x: float) -> float | None:
    """JSON has no infinity: an unbounded rate is ``null``."""
    return None if math.isinf(x) else float(round(x, 9))


def estimate(
    nf: NFModel,
    platform: Platform,
    *,
    frame_bytes: int = units.MIN_FRAME_BYTES,
    cores: int = 1,
    remote_fraction: float = 0.0,
    params: dict[str, float] | None = None,
    burst: float = limits.NF_MAX_BURST,
    sharing: Sharing | None = None,
    traffic_keys: int | None = None,
) -> list[Estimate]:
    """Estimate every path of ``nf`` on ``platform`` (and the ``mix`` of a multi-path NF).

    Parameters
    ----------
    frame_bytes
        Ethernet frame size, FCS included (64 B minimum, as RFC 2544 counts it).
    cores
        Cores running the NF; the CPU bound scales with them, memory and link do not.
    remote_fraction
        Share of packets that ``I/O_mem`` reads from the other socket (Sec. 4.2); 0.5 when
        traffic from two NICs on two sockets is spread uniformly over cores of both.
    params
        Values for the model's ``params``, overriding their defaults.
    burst
        Packets the NF handles together: how many of its ``bulk`` table accesses are in
        flight at once, where the profile counts memory stalls in cycles (the data plane's
        NFs take up to 32; a saturated NF takes that many).
    sharing
        Neighbours on cores that share this one's last-level cache, and the NF's packet rate
        (None: the path saturated, at its CPU bound without them): their lines lengthen the
        reuse distances of the NF's tables (memory stalls in cycles only;
        :class:`nfvperf.eo.memory.Sharing`).
    traffic_keys
        Distinct keys the traffic looks up (a chain's flows): no table EO sees more than these,
        whatever its model's ``keys=`` says.

    Rates are reported under the prefixes the platform was loaded with (``units.BINARY`` for
    the paper's printed figures).
    """
    units.check_frame_bytes(frame_bytes)
    if isinstance(cores, bool) or not isinstance(cores, int) or not 1 <= cores <= platform.cores:
        raise InputError(f"a number of cores from 1 to {platform.cores} (platform "
                         f"{platform.name})", cores, field="cores")
    if not 0 <= remote_fraction <= 1:
        raise InputError("a fraction in [0, 1]", remote_fraction, field="remote_fraction")
    if not burst >= 1:
        raise InputError("a burst of 1 packet or more", burst, field="burst")
    if remote_fraction > 0 and platform.cpu.sockets < 2:
        raise InputError(f"a platform with 2 or more sockets for --remote-fraction "
                         f"({platform.name} has 1)", remote_fraction, field="remote_fraction")
    ctx = MappingContext(platform, remote_fraction)
    prefixes = platform.prefixes
    env = nf.environment(frame_bytes, params)
    rows = [_path(nf, path, ctx, env, frame_bytes, cores, prefixes, burst, sharing,
                  traffic_keys) for path in nf.paths]
    if len(rows) > 1:
        rows.append(_mix(nf.weights(env), rows, platform, frame_bytes, cores, remote_fraction,
                         prefixes))
    return rows


def _path(nf: NFModel, path: NFPath, ctx: MappingContext, env: dict[str, float],
          frame_bytes: int, cores: int, prefixes: units.Prefixes, burst: float,
          sharing: Sharing | None = None, traffic_keys: int | None = None) -> Estimate:
    lines = []
    for i, op in enumerate(path.operations):
        values = op.evaluate(env, frame_bytes)
        if traffic_keys is not None and op.spec.name in TABLE_EOS:
            values = capped(values, traffic_keys)
        lines.append(LineCost(i, op, values, op.spec.cost(ctx, values)))
    p = ctx.platform
    overhead = p.conventions.per_packet_overhead_cycles
    if p.conventions.memory_stalls == "cycles":
        items = [(line.index, line.operation.spec.name, line.values,
                  nf.access_of(line.operation)) for line in lines]
        h, line_bytes = hierarchy(p), int(p.cache.line_bytes)
        stream = streamed_bytes(frame_bytes, line_bytes)
        if sharing is not None and sharing.rate_pps is None:    # saturated: its own bound
            alone = sum(w.cycles for w in stalls(items, h, burst, line_bytes,
                                                 frame_bytes=stream).values())
            busy = sum(line.cost.cycles for line in lines) + alone + overhead
            sharing = replace(sharing, rate_pps=p.cpu.clock_hz / busy)
        waits = stalls(items, h, burst, line_bytes, sharing, stream)
        lines = [replace(line, stall=waits.get(line.index)) for line in lines]
    cycles = sum(line.cycles for line in lines) + overhead
    dram = sum(line.cost.dram_accesses for line in lines)
    return _bounds(nf.name, path.name, ctx.platform, frame_bytes, cores, ctx.remote_fraction,
                   tuple(lines), overhead, cycles, dram, prefixes)


def _mix(weights: list[float], rows: list[Estimate], platform: Platform, frame_bytes: int,
         cores: int, remote_fraction: float, prefixes: units.Prefixes) -> Estimate:
    total = sum(weights)
    cycles = sum(w * r.cycles_per_packet for w, r in zip(weights, rows)) / total
    dram = sum(w * r.dram_accesses_per_packet for w, r in zip(weights, rows)) / total
    overhead = platform.conventions.per_packet_overhead_cycles
    return _bounds(rows[0].nf, MIX_PATH, platform, frame_bytes, cores, remote_fraction, (),
                   overhead, cycles, dram, prefixes)


def _bounds(nf: str, path: str, platform: Platform, frame_bytes: int, cores: int,
            remote_fraction: float, lines: tuple[LineCost, ...], overhead: float, cycles: float,
            dram: float, prefixes: units.Prefixes) -> Estimate:
    per_core = platform.cpu.clock_hz / cycles if cycles > 0 else math.inf
    memory = 1.0 / (dram * access_time_s(platform)) if dram > 0 else math.inf
    per_port = units.line_rate_pps(platform.nic.link_bps, frame_bytes)
    return Estimate(nf, path, platform.name, frame_bytes, cores, remote_fraction, lines, overhead,
                    cycles, dram, per_core, memory, per_port, platform.nic.ports, prefixes)


def hierarchy(platform: Platform) -> Hierarchy:
    """The profile's measured memory: load latency by working set, and overlap."""
    m = platform.memory
    frames = [FramesPoint(q.bytes, q.frame_bytes, q.cycles, q.alone_cycles)
              for q in m.frames_latency or ()]
    return Hierarchy([(q.bytes, q.cycles) for q in m.load_latency],
                     [(q.in_flight, q.cycles) for q in m.overlap], m.serial_overlap, frames,
                     int(platform.cache.line_bytes))


def streamed_bytes(frame_bytes: int, line_bytes: int) -> int:
    """The bytes a packet brings into the NF core's caches besides its tables: the frame's
    lines and its mbuf's first line (written there by whoever fills the buffer: the data
    plane's generator on the NF's CPU, or a NIC with DDIO into the shared cache)."""
    return line_bytes * (1 + math.ceil(frame_bytes / line_bytes))


def access_time_s(platform: Platform) -> float:
    """The time a DRAM access takes in the memory bound: one at a time (Sec. 3.1.1), or, where
    the waits are in the cycles, at the most loads in flight the core sustained (the bound is
    then what the memory system can serve, the waits being in the CPU bound)."""
    if platform.conventions.memory_stalls == "cycles":
        return min(q.cycles for q in platform.memory.overlap) / platform.cpu.clock_hz
    return platform.memory.access_latency_s
