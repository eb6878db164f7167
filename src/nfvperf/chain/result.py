"""What one run of a chain gave, from either back end: the simulator's prediction or the data
plane's measurement. Both fill the same record, so their JSON (``to_dict()``, a contract) has the
same keys with the same meaning; a quantity a back end cannot observe is ``None`` (JSON null),
never a different key.

Packets are counted where they go: at every instance ``offered = delivered + dropped +
in_flight`` (``in_flight``: still there when the run stopped), and for the chain ``offered =
delivered + Σ dropped[place] + in_flight``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from nfvperf.output import contract

#: where a packet can be lost, chain-wide: the generator's port to the vSwitch (``port_rx``),
#: the vSwitch's output port (``port_tx``), an instance's full ring (``ring_full``), the NF's
#: own verdict (``nf``), no chain for its address (``no_chain``), its NF gone or dead
DROP_PLACES = ("port_rx", "port_tx", "ring_full", "nf", "no_chain", "nf_absent", "nf_dead")
BACKENDS = ("simulator", "batching-model", "dataplane")


def loss(offered: float, delivered: float) -> float | None:
    """Per cent of what was offered that was not delivered (None: nothing offered)."""
    return None if offered == 0 else 100.0 * (offered - delivered) / offered


#: what a run says of its vSwitch's stalls
STALL_KEYS = ("count", "per_s", "time_share", "longest_us", "durations_us")


@contract
@dataclass
class Latency:
    """Microseconds; None where nothing was measured."""

    mean: float | None = None
    p50: float | None = None
    p90: float | None = None
    p99: float | None = None


@contract
@dataclass
class InstanceResult:
    """One NF instance of a service."""

    name: str
    in_service_at_end: bool
    """Still taking traffic when the run ended (a scale event may have removed it)."""
    flows: int | None
    """Flows pinned to it at the end (None: not in service)."""
    offered: int
    """Packets meant for it, its ring's overflow included."""
    delivered: int
    """Packets it handed on."""
    dropped: int
    """By it, or because its ring was full."""
    ring_full: int
    """Of those dropped, because its ring was full."""
    in_flight: int
    """In its ring or its hands when the run stopped."""
    bytes: int
    """Of the packets offered, without the FCS."""
    latency_us: Latency
    """Sojourn: handed to it -> back from it."""
    cycles_per_packet: float | None
    """Its loop's cycles a packet (median, packets weigh)."""
    mean_batch: float | None
    """Packets it took a poll, over polls that found some."""


@contract
@dataclass
class ServiceResult:
    """One step of the chain, served by one or more instances of an NF."""

    name: str
    nf: str
    """The NF its instances run (the NF catalogue's name)."""
    policy: str
    """How packets are spread over the instances: flow, weighted, round-robin or nf-aware."""
    stateless: bool
    """Packets of a flow may go to any instance (no flow table)."""
    cost: str
    """What nf-aware counts as an instance's load: packets or bytes."""
    offered: int
    delivered: int
    dropped: int
    flows_pinned: int
    """Flows in its flow table at the end."""
    flows_moved: int
    """Flows placed again because their instance left."""
    instances: list[InstanceResult]


@contract
@dataclass
class ClassResult:
    """One traffic class of the chain file."""

    frame_bytes: int
    """Frame size, FCS included."""
    rate_pps: float
    """Offered rate."""
    flows: int
    offered: int
    delivered: int
    dropped: int | None
    """Lost on the way (None: not counted per class)."""
    in_flight: int | None
    loss_pct: float | None
    """Per cent of offered not delivered (None: nothing offered)."""
    delivered_mpps: float
    delivered_gbps: float
    """Frames with their FCS, as the generator counts them."""
    latency_us: Latency


@contract
@dataclass
class ScaleResult:
    """One scale event: a service's instance count changed during the run."""

    at_s: float
    """When, from the start of the traffic."""
    service: int
    """The service's index in the chain."""
    instances: int
    """Its instance count after the change."""
    moved: int
    """Flows of removed instances, placed again."""
    flows: int | None
    """Flows pinned in the service before the change."""
    hash_moved: int | None
    """Flows whose Maglev choice the change altered."""
    mod_moved: int | None
    """Flows `hash mod n` would have moved."""


@contract
@dataclass
class ChainResult:
    """One run of a chain, predicted or measured: what ``nfvperf chain simulate`` and ``nfvperf
    chain run`` print with ``--format json``. At every instance and for the chain, offered =
    delivered + dropped + in flight."""

    chain: str
    """The chain's name."""
    backend: str
    """Who answered: simulator, batching-model or dataplane."""
    arch: str | None
    """The data plane's exchange architecture."""
    duration_s: float
    """Of the traffic."""
    offered_packets: int
    delivered_packets: int
    loss_pct: float | None
    """Per cent of offered not delivered (None: nothing offered)."""
    delivered_mpps: float
    delivered_gbps: float
    """On the wire: 20 B a frame beyond its bytes."""
    latency_us: Latency
    """End to end."""
    dropped: dict[str, int | None]
    """By place: port_rx, port_tx, ring_full, nf, no_chain, nf_absent, nf_dead (None: a place
    the back end cannot observe)."""
    in_flight: int
    """Still in the chain when the run stopped."""
    classes: list[ClassResult]
    services: list[ServiceResult]
    scaling: list[ScaleResult] = field(default_factory=list)
    """The scale events, in the order they happened."""
    latency_hist_us: list[list[float]] | None = None
    """End-to-end latency's histogram: [low µs, high µs, packets] per bin that has packets (the
    simulator's bins, or the generator's), for CDFs."""
    vswitch_stalls: dict = field(default_factory=lambda: dict.fromkeys(STALL_KEYS))
    """The data plane's: how often the host took the vSwitch's CPU while the traffic ran (count,
    per_s, time_share, longest_us, durations_us); each null from a model."""

    def __post_init__(self) -> None:
        assert self.backend in BACKENDS and set(self.dropped) == set(DROP_PLACES)

    def to_dict(self) -> dict:
        """The JSON contract: plain numbers, None for what the back end cannot observe."""
        return asdict(self)
