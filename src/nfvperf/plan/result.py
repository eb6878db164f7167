"""The JSON of ``nfvperf plan`` (``plan()``'s result): a contract, written once as types that the
documentation's reference is generated from and that the tests validate every plan against.
Rates are packets a second unless named Mpps; latencies µs; losses are shares 0..1."""

from __future__ import annotations

from typing import Any

from typing_extensions import NotRequired, TypedDict

from nfvperf.output import contract


@contract
class Placement(TypedDict):
    """Instances of one service on one host's socket."""

    host: str
    """The host: its kind and index (``kind-i``)."""
    kind: str
    """The plan file's host kind."""
    socket: int
    """0: the NIC's socket; another reads every packet from across the sockets."""
    instances: int
    pps_per_instance: float
    """The traffic each instance carries."""
    utilisation: float
    """Of its core: that traffic over the estimator's CPU bound."""
    cycles_per_packet: float
    dram_per_packet: float
    max_pps_per_instance: float
    """The most an instance may carry within the chain's loss and latency targets."""
    loss: float
    """The batching model's loss at that traffic."""
    latency_p99_us: float
    """The batching model's p99 sojourn at that traffic."""


@contract
class PlannedService(TypedDict):
    nf: str
    """The NF catalogue's name of the model."""
    model: str
    """The model as the plan file names it."""
    instances: int
    cores: int
    """One core an instance."""
    placement: list[Placement]
    loss: float
    """At its worst instance."""
    latency_p99_us: float
    """At its worst instance."""


@contract
class PlannedChain(TypedDict):
    name: str
    demand_mpps: float
    services: list[PlannedService]
    hosts: list[str]
    """The hosts its instances are on."""
    latency_p99_us: float
    """The sum of its services' worst p99s (a bound on the chain's)."""
    loss: float
    """A packet lost at any service, each at its worst instance's loss."""
    latency_target_us: float | None
    loss_target: float


@contract
class HostUsage(TypedDict):
    host: str
    kind: str
    cores_used: int
    cores: int
    memory_pct: float
    """DRAM accesses a second over what the host's memory serves one at a time."""
    links_pct: float
    """Bits on the wire over the host's NIC ports' rate."""


@contract
class ResourceBinding(TypedDict):
    """``--explain``: the plan solved again without one resource's limit."""

    resource: str
    """cores, memory or links."""
    binds: bool | None
    """The plan costs less without it (None: not solved in time)."""
    cost_without: float | None
    says: NotRequired[str]
    """The sentence ``binding`` gains when it binds."""


@contract
class PlanResult(TypedDict):
    """What ``nfvperf plan --format json`` prints."""

    plan: str
    """The plan file's name."""
    optimal: bool
    """CP-SAT proved no plan costs less."""
    cores: int
    """Instances in all (one core each)."""
    hosts: dict[str, int]
    """Hosts used, by kind."""
    cost: float
    cost_lower_bound: float
    """No plan costs less than this (CP-SAT's proof so far; the cost when optimal)."""
    hops_host: int
    """Chain hops between hosts."""
    hops_socket: int
    """Chain hops between sockets of one host."""
    chains: list[PlannedChain]
    usage: list[HostUsage]
    binding: list[str]
    """What limits the plan, one sentence each."""
    resources: NotRequired[list[ResourceBinding]]
    """With ``--explain``."""
    validation: NotRequired[list[dict[str, Any]]]
    """With ``--validate``: the plan run on this host's data plane, each quantity predicted
    (planner, chain simulator) beside measured, as ``nfvperf chain validate`` reports it."""
