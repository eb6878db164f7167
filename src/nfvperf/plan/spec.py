"""Plan files (YAML): the hosts one may use, the chains, their traffic and targets.

    name: bng-10g
    hosts:
      - {name: xeon, platform: xeon-e5-2690v2, count: 1}   # cores, clock, NIC: the profile's
    chains:
      - name: bng
        services:
          - {nf: bng}                   # an EO model: packaged name or file; params
        traffic:
          - {frame_bytes: 64, rate_gbps: 10}
        targets: {loss: 1.0e-5, latency_p99_us: 100}
"""

from __future__ import annotations

import math
from pathlib import Path

from pydantic import Field, model_validator

from nfvperf.errors import InputError
from nfvperf.validation import FileModel


class HostSpec(FileModel):
    name: str = Field(min_length=1)
    platform: str = Field(description="platform profile: packaged name or file")
    count: int = Field(1, ge=1, le=10_000, description="hosts of this kind")
    cores: int | None = Field(None, ge=1, description="cores for NFs (default: the profile's)")
    ports: int | None = Field(None, ge=1, description="NIC ports (default: the profile's)")
    link_gbps: float | None = Field(None, gt=0, description="a port's rate (default: the "
                                    "profile's)")

    def nic_bps(self, platform) -> float:
        """What the host's NICs carry each way."""
        return ((self.link_gbps * 1e9 if self.link_gbps else platform.nic.link_bps)
                * (self.ports or platform.nic.ports))


class ServiceSpec(FileModel):
    nf: str = Field(description="EO model: packaged name or file")
    params: dict[str, float] = Field(default_factory=dict)
    stateful: bool = Field(True, description="keeps per-flow state: a flow stays on one "
                           "instance (else packets may be spread round-robin)")


class TrafficClass(FileModel):
    frame_bytes: int = Field(ge=64, le=9216)
    rate_gbps: float | None = Field(None, gt=0, description="on the wire (20 B a frame more)")
    rate_mpps: float | None = Field(None, gt=0)
    flows: int | None = Field(None, ge=1, description="flows in the class, each an equal "
                              "share of its rate (default: many, each small)")

    @model_validator(mode="after")
    def _one_rate(self) -> TrafficClass:
        if (self.rate_gbps is None) == (self.rate_mpps is None):
            raise ValueError("one of rate_gbps or rate_mpps")
        return self

    @property
    def pps(self) -> float:
        from nfvperf import units

        if self.rate_mpps is not None:
            return self.rate_mpps * 1e6
        return units.line_rate_pps(self.rate_gbps * 1e9, self.frame_bytes)


class Targets(FileModel):
    loss: float = Field(1e-5, ge=0, lt=1, description="loss probability at each instance")
    latency_p99_us: float | None = Field(None, gt=0, description="chain latency, p99, summed "
                                         "over its services")


class ChainSpec(FileModel):
    name: str = Field(min_length=1)
    services: list[ServiceSpec] = Field(min_length=1, max_length=16)
    traffic: list[TrafficClass] = Field(min_length=1)
    targets: Targets = Field(default_factory=Targets)

    @property
    def pps(self) -> float:
        """Packets a second through each of its services."""
        return sum(t.pps for t in self.traffic)

    @property
    def largest_flow_pps(self) -> float:
        """The largest flow's packets a second (0: many, each small)."""
        return max((t.pps / t.flows for t in self.traffic if t.flows), default=0.0)

    @property
    def wire_bps(self) -> float:
        """Bits a second on the wire (20 B a frame beyond it), each way."""
        from nfvperf import units

        return sum(t.pps * units.wire_bits(t.frame_bytes) for t in self.traffic)


class PlanSpec(FileModel):
    name: str = "plan"
    hosts: list[HostSpec] = Field(min_length=1)
    chains: list[ChainSpec] = Field(min_length=1)
    # the instances' queues (the batching model's L and beta) and a batch's fixed cost
    ring: int = Field(512, ge=1)
    burst: int = Field(32, ge=1, le=256)
    batch_overhead_cycles: float = Field(200, ge=0)
    # cost: a core, a host, a hop between hosts in a chain
    cost_core: float = Field(1, ge=0)
    cost_host: float = Field(4, ge=0)
    cost_hop_host: float = Field(2, ge=0, description="a chain spread over one more host")
    cost_hop_socket: float = Field(0.5, ge=0, description="... over one more socket")


def _relative_to(spec: PlanSpec, base: Path) -> PlanSpec:
    """Model and profile files named relative to the plan file, as the plan's reader sees
    them (packaged names stay as they are)."""
    from nfvperf.io import relative_file

    hosts = [h.model_copy(update={"platform": relative_file(h.platform, base)})
             for h in spec.hosts]
    chains = [c.model_copy(update={"services": [
        s.model_copy(update={"nf": relative_file(s.nf, base)}) for s in c.services]})
        for c in spec.chains]
    return spec.model_copy(update={"hosts": hosts, "chains": chains})


def load_plan(path: str | Path) -> PlanSpec:
    """Read and check a plan file; InputError names the file, line and field."""
    from nfvperf.validation import load_file

    doc, spec = load_file(path, PlanSpec, "hosts and chains")
    spec = _relative_to(spec, Path(path).resolve().parent)
    names = [h.name for h in spec.hosts]
    for i, h in enumerate(spec.hosts):
        if names.count(h.name) > 1:
            raise doc.error(("hosts", i, "name"), "a name no other host kind has", h.name)
    if spec.ring < spec.burst:
        raise doc.error(("ring",), f"a ring of at least burst ({spec.burst}) packets", spec.ring)
    for c in spec.chains:
        if not all(math.isfinite(t.pps) for t in c.traffic):
            raise InputError("finite rates", None, file=str(path), field=f"chains.{c.name}")
    return spec
