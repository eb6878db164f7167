"""The JSON of the data plane's commands: ``nfvperf dataplane run`` (``RunReport``, built by
``run.merge``), ``dataplane sweep`` (a list of ``SweepRow``), ``dataplane replay``
(``ReplayReport``) and ``chain attach`` (``AttachReport``). A contract, written once as types:
the documentation's output reference is generated from these types (each field's docstring is
its meaning), and a test validates every run's JSON against them with no field left out and
none unknown. Counts are packets unless named otherwise; rates
are SI (1 Mpps = 10^6 packet/s); cycles are TSC cycles.
"""

from __future__ import annotations

from typing_extensions import TypedDict

from nfvperf.output import contract


@contract
class Dropped(TypedDict):
    """Where packets were lost."""

    port_rx: int
    """At the generator's port into the vSwitch (the vSwitch did not take them in time)."""
    port_tx: int
    """At the vSwitch's output port."""
    ring_full: int
    """An NF's ring (or, isolated, its buffers) was full."""
    nf: int
    """By an NF's own verdict (``per_nf[].drops_by_reason`` says why)."""
    no_chain: int
    """No chain for the destination MAC and no default chain."""
    nf_absent: int
    """The chain's NF was gone (detached or not yet attached)."""
    nf_dead: int
    """Held by an NF when it died, given back to the pool."""


@contract
class Conservation(TypedDict):
    """Every packet offered is delivered, dropped somewhere or in flight at the stop."""

    offered: int
    """Packets the generator sent or failed to send."""
    accounted: int
    """Delivered + every drop + in flight at the stop."""
    balanced: bool
    """``offered == accounted``."""


@contract
class Latency(TypedDict):
    """The generator's end-to-end latency of the packets delivered, µs (null: none measured)."""

    mean: float | None
    p50: float | None
    p90: float | None
    p99: float | None
    p999: float | None
    max: float | None


@contract
class Pool(TypedDict):
    """The mbuf pool: a run that ends with every mbuf back leaks nothing."""

    size: int
    """Mbufs in the pool."""
    free_at_end: int
    """Mbufs back in the pool when the vSwitch stopped."""
    all_returned: bool
    """``free_at_end == size``."""


@contract
class Stalls(TypedDict):
    """Times the vSwitch lost its CPU (a loop iteration far longer than any loop takes)."""

    count: int
    per_s: float
    time_share: float
    """Share of the run's time lost, 0..1."""
    longest_us: float
    durations_us: list[float]
    """The stalls' lengths, µs, sorted (evenly spaced quantiles of them when there are many)."""


@contract
class Wakes(TypedDict):
    """How the vSwitch woke blocking NFs (``semaphore``, ``isolated``)."""

    by_count: int
    """Wake-ups posted because an NF's batch reached ``batch`` packets."""
    by_age: int
    """Wake-ups posted because its oldest packet waited ``timeout_us``."""
    batch: int
    """The wake-up batch asked for (``--wake-batch``)."""
    timeout_us: int
    """The wake-up timeout asked for (``--wake-timeout-us``)."""
    rate_max: int
    """Wake-ups a second over which batch and timeout stretch (``--wake-rate-max``)."""
    timeout_mean_us: float
    """The timeout in force, averaged over the run."""
    post_us_mean: float
    """Mean time a wake-up's post took the vSwitch."""
    stretch_mean: float
    """The mean stretch of batch and timeout (1: as asked)."""
    stretch_max: float


@contract
class VSwitch(TypedDict):
    """The vSwitch's loop."""

    rx_batch_mean: float | None
    """Packets a receive burst took, over bursts that took some."""
    nf_batch_mean: float | None
    """Packets a look at an NF's returns took, over looks that found some."""
    rx_batch_hist: list[int]
    """Receive bursts by size 0..32."""
    nf_batch_hist: list[int]
    """Looks at NFs' returns by packets found, 0..32."""
    loops: int
    """Iterations of the loop."""
    stalls: Stalls
    wakes: Wakes | None


@contract
class Sojourn(TypedDict):
    """Handed to the NF .. back from it, µs (null: none came back)."""

    count: int
    mean: float | None
    p50: float | None
    p90: float | None
    p99: float | None


@contract
class PerNF(TypedDict):
    """One NF process, as the vSwitch and the NF's own counters saw it."""

    id: int
    """Its slot in the vSwitch."""
    name: str
    pid: int
    alive: bool
    """Still running when the vSwitch stopped."""
    rx: int
    """Packets it took from its ring."""
    nic_rx: int
    """Packets it took straight from a NIC queue (``fdir``)."""
    tx: int
    """Packets it passed on."""
    drop: int
    """Packets it dropped by its verdict."""
    busy_polls: int
    """Polls that found packets."""
    idle_polls: int
    """Polls that found none."""
    sleeps: int
    """Times it slept waiting for a wake-up (blocking architectures)."""
    busy_cycles: int
    """Cycles in its loop's iterations that handled packets."""
    loop_cycles: int
    """Cycles in all its loop's iterations."""
    sent_by_vswitch: int
    """Packets the vSwitch put into its ring."""
    returned: int
    """Packets the vSwitch took back from it."""
    wakeups: int
    """Wake-ups the vSwitch posted to it."""
    lost_at_death: int
    """Mbufs it held when it died, given back to the pool."""
    loop_cycles_median: float
    """Median cycles of a loop iteration that handled packets."""
    handler_cycles_median: float
    """Median cycles of its handler a burst."""
    bytes_sent_by_vswitch: int
    """Bytes of the packets put into its ring (no FCS)."""
    ring_full: int
    """Packets meant for it dropped because its ring was full."""
    drops_by_reason: dict[str, int]
    """Its drops by reason: ``nfvperf.limits.DROP_REASON_NAMES`` (``no_route``, ``ttl``...)."""
    loop_cycles_hist: list[list[float]]
    """Loop iterations by cycles: [lower bound, count] per bin."""
    handler_cycles_hist: list[list[float]]
    """Handler calls by cycles: [lower bound, count] per bin."""
    sojourn_us: Sojourn
    wakeups_per_packet: float | None
    """Wake-ups over packets taken (null: none taken)."""
    batch_per_wakeup: float | None
    """Packets taken a wake-up (null: never woken)."""
    cpu_share: float | None
    """Share of a CPU its process used over the run (null: not measured)."""


@contract
class RunReport(TypedDict):
    """What ``nfvperf dataplane run --format json`` prints: the run's parameters, then what was
    measured."""

    arch: str
    """The exchange architecture: double-buffer, semaphore, shared-ring, fdir or isolated."""
    nfs: int
    chain_length: int
    packet_size: int
    """Frame bytes, FCS included."""
    flows: int
    duration_s: float
    nf: str
    """The NF every slot runs (the NF catalogue's name)."""
    vswitch_cpu: int
    nf_cpu: int
    gen_cpu: int
    wake_batch: int
    wake_timeout_us: int
    wake_rate_max: int
    chains: int
    requested_mpps: float
    offered_mpps: float
    """What the generator managed to send (its port's refusals included)."""
    offered_gbps: float
    """On the wire: 20 B of preamble and gap a frame beyond its bytes."""
    delivered_mpps: float
    delivered_gbps: float
    offered_packets: int
    delivered_packets: int
    dropped: Dropped
    in_flight_at_stop: int
    """Packets still in rings or NFs when the vSwitch stopped."""
    conservation: Conservation
    latency_us: Latency
    pool: Pool
    vswitch: VSwitch
    per_nf: list[PerNF]


@contract
class SweepRow(TypedDict):
    """One architecture at one NF count: what Cerrato et al.'s Fig. 3 and 4 plot."""

    arch: str
    nfs: int
    offered_mpps: float
    delivered_mpps: float
    delivered_gbps: float
    latency_us_mean: float | None
    latency_us_p50: float | None
    latency_us_p99: float | None
    dropped: int
    """Everywhere (the run's ``dropped`` summed)."""
    balanced: bool
    """The run accounted for every packet."""
    all_returned: bool
    """Every mbuf came back to the pool."""


@contract
class ReplayReport(TypedDict):
    """A pcap file replayed through a chain of NFs, what left captured."""

    frames_in: int
    frames_out: int
    chains: int
    """One per destination MAC in the file."""
    nf: str
    chain_length: int
    arch: str
    dropped: dict[str, int]
    """Drops by place (``RunReport``'s names), only the places that dropped."""
    per_nf: list[PerNF]
    capture: str
    """The pcap file written."""


@contract
class AttachedPort(TypedDict):
    port: str
    """``tap:NAME`` or ``af_packet:IFACE``."""
    rx: int
    """Frames the vSwitch took from the kernel there."""
    tx: int
    """Frames it handed to the kernel there."""
    tx_dropped: int


@contract
class AttachedNF(TypedDict):
    name: str
    service: int | None
    """Its service's index in the chain."""
    rx: int
    tx: int
    drop: int


@contract
class AttachReport(TypedDict):
    """A chain put between two kernel interfaces: what crossed it, when it was stopped."""

    chain: str
    ports: list[AttachedPort]
    nfs: list[AttachedNF]
    dropped: dict[str, int]
    """Drops by place (``RunReport``'s names)."""
