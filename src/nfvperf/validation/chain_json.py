"""The JSON of ``nfvperf chain validate`` (``validate_chain()``'s result): a contract, written
once as types that the documentation's reference is generated from and that the tests validate
every run against. The quantities' names are ``chain.END_TO_END`` and ``chain.PER_INSTANCE``
(a test checks that these types name the same)."""

from __future__ import annotations

from typing_extensions import TypedDict

from nfvperf.output import contract


@contract
class Comparison(TypedDict):
    """One quantity over the runs: the medians of its predictions and measurements, and the
    error of the one against the other."""

    predicted: float | None
    measured: float | None
    error: float | None
    """Relative, % of the measurement; for loss, the difference in percentage points."""
    unit: str
    """Of the error: ``%`` or ``points``."""
    within: bool | None
    """The error is within the quantity's target (``validation.chain.TOLERANCE``)."""
    spread: list[float] | None
    """The runs' measurements: [least, most]."""
    repeatable: bool | None
    """Every run's measurement is within the target of their median (the data plane agrees
    with itself as closely as the prediction is asked to)."""


@contract
class EndToEnd(TypedDict):
    delivered_mpps: Comparison
    loss_pct: Comparison
    latency_mean_us: Comparison
    latency_p50_us: Comparison
    latency_p90_us: Comparison
    latency_p99_us: Comparison


@contract
class InstanceComparison(TypedDict):
    name: str
    delivered_mpps: Comparison
    loss_pct: Comparison
    latency_mean_us: Comparison
    """Its sojourn: handed to it .. back from it."""
    latency_p99_us: Comparison
    cycles_per_packet: Comparison
    mean_batch: Comparison
    """Packets it took a poll."""


@contract
class ServiceComparison(TypedDict):
    name: str
    nf: str
    instances: list[InstanceComparison]


@contract
class Cdf(TypedDict):
    """End-to-end latency's CDF, the runs pooled: [µs, fraction at or below] a point."""

    predicted: list[list[float]]
    measured: list[list[float]]


@contract
class MeasuredRun(TypedDict):
    """One run's end-to-end measurement."""

    delivered_mpps: float | None
    loss_pct: float | None
    latency_mean_us: float | None
    latency_p50_us: float | None
    latency_p90_us: float | None
    latency_p99_us: float | None


@contract
class Point(TypedDict):
    """One offered load, predicted and measured ``runs`` times."""

    load: float | None
    """The fraction of the predicted capacity offered (null: the chain's own traffic)."""
    offered_mpps: float
    capacity_mpps: float
    """What the chain's NF core carries at most, as the model has it."""
    predicted_by: str
    """``batching-model`` (a single polling NF on a core of its own) or ``simulator``."""
    saturated: bool
    """The offer is at or over the capacity."""
    end_to_end: EndToEnd
    services: list[ServiceComparison]
    cdf: Cdf
    placement_ratio: list[float | None]
    """Each run's core-to-core hand-over before it over calibration's (the vCPUs move)."""
    core_ratio: list[float | None]
    """Each run's rte_hash lookup before it over calibration's: above 1.25 a neighbour shares
    the NF core."""
    cache_scale: list[float | None]
    """What each run was priced with: the shared cache's scale its check found."""
    io_cycles: list[list[float]]
    """... the I/O EOs' two constants (a line read that the vSwitch's core wrote, a line
    written that it read)."""
    lookup_cycles: list[float]
    """... the rte_hash lookup's cycles."""
    placement_moves: int
    """Runs thrown away because the vCPUs moved, or a neighbour came or went, during them."""
    vswitch_stalls_per_s: list[float | None]
    """How often the host took the vSwitch's CPU in each run."""
    vswitch_stall_share: list[float | None]
    """The share of the traffic's time it did."""
    measured_runs: list[MeasuredRun]


@contract
class ChainValidation(TypedDict):
    """What ``nfvperf chain validate --format json`` prints."""

    chain: str
    platform: str
    """The host profile's name."""
    runs: int
    """Runs at each load."""
    duration_s: float
    """Of each run's traffic."""
    arch: str
    points: list[Point]
