"""Plan files (YAML): the hosts one may use, the chains (``nfvperf.chain.ChainSpec``, with their
traffic and targets).

    name: bng-10g
    hosts:
      - {name: xeon, platform: xeon-e5-2690v2, count: 1}   # cores, clock, NIC: the profile's
    chains:
      - name: bng
        services:
          - {nf: bng@paper}       # an NF or an EO model: packaged name or file; params
        traffic:
          - {frame_bytes: 64, rate_gbps: 10}
        targets: {loss: 1.0e-5, latency_p99_us: 100}
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from nfvperf.chain import ChainSpec
from nfvperf.chain.spec import relative_to
from nfvperf.files import FileModel


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
    return spec.model_copy(update={"hosts": hosts,
                                   "chains": [relative_to(c, base) for c in spec.chains]})


def load_plan(path: str | Path) -> PlanSpec:
    """Read and check a plan file; InputError names the file, line and field."""
    from nfvperf.files import load_file

    doc, spec = load_file(path, PlanSpec, "hosts and chains")
    spec = _relative_to(spec, Path(path).resolve().parent)
    names = [h.name for h in spec.hosts]
    for i, h in enumerate(spec.hosts):
        if names.count(h.name) > 1:
            raise doc.error(("hosts", i, "name"), "a name no other host kind has", h.name)
    if spec.ring < spec.burst:
        raise doc.error(("ring",), f"a ring of at least burst ({spec.burst}) packets", spec.ring)
    for i, c in enumerate(spec.chains):
        if not c.traffic:
            raise doc.error(("chains", i), "a chain with its traffic (traffic: [...])", None)
        bad = c.problem()
        if bad:
            raise doc.error(("chains", i, *bad[0]), bad[1], bad[2])
    return spec
