"""The JSON of ``nfvperf validate dataplane``: a list of ``ValidationRow``, one per NF, traffic
and frame size. A contract, written once as types that the documentation's reference is
generated from and that the tests validate every run against. Cycles are TSC cycles a packet."""

from __future__ import annotations

from typing_extensions import TypedDict

from nfvperf.output import contract


@contract
class TopEO(TypedDict):
    eo: str
    """The EO as the model writes it."""
    cycles: float


@contract
class ValidationRow(TypedDict):
    """One NF with one traffic at one frame size: the estimate of its EO model beside the NF
    measured alone on the data plane (the median-error run of ``--runs``)."""

    nf: str
    packet_size: int
    traffic: str
    """The traffic pattern's name (``nfvperf validate dataplane`` lists them)."""
    path: str
    """The model's path the packets take."""
    params: dict[str, float | str]
    """The model's parameters for this traffic."""
    platform: str
    memory_stalls: str
    """How the profile prices DRAM: ``separate`` (a bound of its own, the paper's) or
    ``cycles`` (stall cycles in the packet's cost)."""
    estimated_cycles: float
    measured_cycles: float
    """Median over the NF's busy loops of their cycles a packet."""
    measured_handler_cycles: float
    """The same of its handler alone (without the ring operations)."""
    estimated_mpps: float
    """The estimate's CPU bound of one core."""
    measured_mpps: float
    """The TSC rate over ``measured_cycles``."""
    error_pct: float
    """(estimated - measured) / measured, %."""
    estimated_dram_accesses: float
    estimated_throughput_mpps: float
    bottleneck: str
    top_eos: list[TopEO]
    """The three EOs the estimate prices highest."""
    batch_mean: float
    """Packets the NF took a poll."""
    packets: int
    dropped_by_nf: int
    delivered: int
    measured_cycles_runs: list[float]
    """``measured_cycles`` of each run."""
    error_pct_runs: list[float]
    measured_cycles_mean: float
    """Mean over all its loops (the scheduler's interruptions in full)."""
    placement_ratio: list[float | None]
    """The core-to-core trip before each run, against calibration (1.0: the same placement;
    that run's estimate is priced with it; null: unknown)."""
    cache_scale: list[float | None]
    """How many times less shared cache there was before each run than at calibration."""
    io_cycles: list[list[float]]
    """The I/O EOs' constants each run was priced with: a line read that the vSwitch's core
    wrote, a line written that it read."""
    lookup_cycles: list[float]
    """The rte_hash lookup's cycles each run was priced with."""
    trip_cycles: float | None
    """The one-way core-to-core trip before this row's run."""
    placement_moves: int
    """Runs thrown away because the vCPUs moved during them."""
    placement_held: bool
    """This row's run held its placement undisturbed (false: no try did)."""
    disturbed_runs: int
    """Runs whose NF core was shared at an edge of the traffic, or whose windows were further
    apart than the tolerance."""
    core_ratio: list[float | None]
    """The NF core's rte_hash lookup before each run, against calibration (above 1.25: shared
    with another machine)."""
    window_cycles: list[float]
    """This row's run window by window: median cycles of the NF's busy loops a packet."""
    gap_causes: list[str]
    """Why the row is beyond the 25 % tolerance, as codes (none within it)."""
    gap: str
    """The same in words."""
