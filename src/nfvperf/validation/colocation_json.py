"""The JSON of ``nfvperf validate colocation``: a list of ``ColocationRow``, a contract written
once as a type that the documentation's reference is generated from and that the tests validate
every run against."""

from __future__ import annotations

from typing_extensions import TypedDict

from nfvperf.output import contract


@contract
class ColocationRow(TypedDict):
    """One NF with one traffic beside ``neighbours`` memory-hungry processes on the other core:
    its cycles a packet and its slowdown against running alone, predicted by the memory-stall
    term and measured on the data plane."""

    nf: str
    traffic: str
    path: str | None
    """The model's path its packets take (null: the model's last)."""
    neighbours: int
    neighbour_bytes: int
    """Each neighbour's working set."""
    packet_size: int
    measured_cycles: float
    """The median run's, TSC cycles a packet."""
    predicted_cycles: float
    shares_cache: bool
    """The two cores shared a last-level cache in that run (the core-to-core trip said so)."""
    trip_cycles: float | None
    neighbour_loads_per_s: list[float]
    """Each neighbour's cache-line loads a second, as it reported them."""
    measured_cycles_runs: list[float]
    paired_runs: int
    """Runs whose run alone just before saw the same placement (the slowdowns' pairs)."""
    placement_moves: int
    """Runs thrown away because the vCPUs moved during them."""
    measured_slowdown_pct: float | None
    """Median over the pairs of its cycles beside the neighbours over alone, - 1, %."""
    predicted_slowdown_pct: float | None
    error_points: float | None
    """Predicted minus measured slowdown, percentage points."""
