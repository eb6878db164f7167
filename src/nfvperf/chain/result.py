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


@dataclass
class Latency:
    """Microseconds; None where nothing was measured."""

    mean: float | None = None
    p50: float | None = None
    p90: float | None = None
    p99: float | None = None


@dataclass
class InstanceResult:
    name: str
    in_service_at_end: bool
    flows: int | None               # flows pinned to it at the end (None: not in service)
    offered: int                    # packets meant for it, its ring's overflow included
    delivered: int                  # packets it handed on
    dropped: int                    # by it, or because its ring was full
    ring_full: int
    in_flight: int
    bytes: int                      # of the packets offered, without the FCS
    latency_us: Latency             # sojourn: handed to it -> back from it
    cycles_per_packet: float | None  # its loop's cycles a packet (median, packets weigh)
    mean_batch: float | None        # packets it took a poll, over polls that found some


@dataclass
class ServiceResult:
    name: str
    nf: str
    policy: str
    stateless: bool
    cost: str
    offered: int
    delivered: int
    dropped: int
    flows_pinned: int
    flows_moved: int
    instances: list[InstanceResult]


@dataclass
class ClassResult:
    frame_bytes: int
    rate_pps: float
    flows: int
    offered: int
    delivered: int
    dropped: int | None             # lost on the way (None: not counted per class)
    in_flight: int | None
    loss_pct: float | None
    delivered_mpps: float
    delivered_gbps: float           # frames with their FCS, as the generator counts them
    latency_us: Latency


@dataclass
class ScaleResult:
    at_s: float
    service: int
    instances: int
    moved: int                      # flows of removed instances, placed again
    flows: int | None               # flows pinned in the service before the change
    hash_moved: int | None          # flows whose Maglev choice the change altered
    mod_moved: int | None           # flows `hash mod n` would have moved


@dataclass
class ChainResult:
    """One run of a chain (see the module docstring for the accounting)."""

    chain: str
    backend: str                    # "simulator", "batching-model" or "dataplane"
    arch: str | None                # the data plane's exchange architecture
    duration_s: float
    offered_packets: int
    delivered_packets: int
    loss_pct: float | None
    delivered_mpps: float
    delivered_gbps: float
    latency_us: Latency             # end to end
    dropped: dict[str, int | None]  # by place, DROP_PLACES
    in_flight: int
    classes: list[ClassResult]
    services: list[ServiceResult]
    scaling: list[ScaleResult] = field(default_factory=list)
    #: end-to-end latency's histogram: [low µs, high µs, packets] per bin that has packets
    #: (the simulator's bins, or the generator's), for CDFs
    latency_hist_us: list[list[float]] | None = None
    #: the data plane's: how often the host took the vSwitch's CPU while the traffic ran
    #: (``dataplane.run.stalls_of``); each null from a model
    vswitch_stalls: dict = field(default_factory=lambda: dict.fromkeys(STALL_KEYS))

    def __post_init__(self) -> None:
        assert self.backend in BACKENDS and set(self.dropped) == set(DROP_PLACES)

    def to_dict(self) -> dict:
        """The JSON contract: plain numbers, None for what the back end cannot observe."""
        return asdict(self)
