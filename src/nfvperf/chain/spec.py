"""A chain of services, each served by parallel NF instances (after Hajji, Tso & Pezaros), as
one backend-neutral description: the simulator predicts it, the data plane measures it, the
planner sizes it. A chain file (YAML)::

    name: nat-ids
    services:
      - {nf: nat, instances: 2, policy: nf-aware, args: [--public-ip, "192.0.2.1{k}"]}
      - {nf: ids, instances: 2, policy: nf-aware}
    traffic:                              # flow classes sent together
      - {frame_bytes: 1518, rate_pps: 20000, flows: 8}
      - {frame_bytes: 64, rate_mpps: 0.2, flows: 64}
    scale:                                # instance changes while the traffic runs
      - {at_s: 0.5, service: 0, instances: 3}
    targets: {loss: 1.0e-5, latency_p99_us: 500}
    wake: {batch: 32, timeout_us: 100}    # blocking NFs on the data plane (nfvperf.wake)

``nf`` names an NF of the catalogue (``nfvperf.nfs``); a chain that is only predicted (the
planner, the simulator) may also name an EO model (``bng@paper``, a file). How the simulator
runs a chain (queues, turns, stalls, measured costs) is the simulator's option, not the
chain's: ``nfvperf.sim.SimOptions``.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator

from nfvperf import limits, nfs, units
from nfvperf.chain.headers import Headers
from nfvperf.chain.policies import POLICIES, weights_problem
from nfvperf.errors import InputError
from nfvperf.files import FileModel
from nfvperf.wake import Wake

#: the fields of a service, chain or file that moved to the simulator's options
SIMULATOR_FIELDS = frozenset({"model", "cycles_per_packet", "cores", "threads",
                              "batch_overhead_cycles", "ring", "burst", "quantum_us", "stalls",
                              "switch_us"})


class _Checked(FileModel):
    @model_validator(mode="before")
    @classmethod
    def _moved(cls, data):
        if isinstance(data, dict):
            for key in data:
                if key in SIMULATOR_FIELDS:
                    raise ValueError(f"no '{key}' here: it is a simulator option now "
                                     "(a SimOptions file, nfvperf chain simulate --sim)")
        return data


class ServiceSpec(_Checked):
    """One step of the chain: ``instances`` copies of one NF and how traffic is spread."""

    nf: str = Field(description="the NF every instance runs: a name of the catalogue ("
                    + ", ".join(nfs.names()) + "); predictions also take an EO model "
                    "(NAME@paper or a file)")
    instances: int = Field(1, ge=1, le=limits.MAX_INSTANCES)
    policy: Literal[POLICIES] = Field("flow", description="how the vSwitch spreads packets")
    weights: list[float] | None = Field(None, description="weighted: one per instance, ≥ 0")
    stateless: bool | None = Field(None, description="keeps no per-flow state, so packets may "
                                   "be spread round-robin (default: what the NF is; an EO "
                                   "model file: stateful)")
    cost: Literal["packets", "bytes"] | None = Field(
        None, description="nf-aware: what drives the NF's cost (default: what the NF is)")
    large_bytes: int = Field(512, ge=limits.MIN_FRAME, le=units.MAX_FRAME_BYTES,
                             description="nf-aware: a flow whose first frame has this many "
                                         "bytes is large")
    args: list[str] = Field(default_factory=list,
                            description="the NF's own options; {k} is the instance's index "
                                        "(a NAT instance's own --public-ip 192.0.2.1{k})")
    params: dict[str, float] = Field(default_factory=dict, description="the EO model's params")
    path: str | None = Field(None, description="the EO model's path these packets take "
                             "(default: its mix, or its only path)")
    cpu: int | None = Field(None, ge=0, description="CPU of its instances (default: the run's "
                            "NF CPU); instances that name one CPU share it")

    @model_validator(mode="before")
    @classmethod
    def _stateful(cls, data):
        """Plan files of earlier releases said ``stateful``: read as ``stateless``."""
        if isinstance(data, dict) and "stateful" in data:
            data = dict(data)
            value = data.pop("stateful")
            if not isinstance(value, bool):
                raise ValueError("stateful: true or false")
            data.setdefault("stateless", not value)
        return data

    @property
    def catalogued(self) -> nfs.NF | None:
        """The NF of the catalogue this service runs (None: an EO model only)."""
        return nfs.CATALOGUE.get(self.nf)

    @property
    def is_stateless(self) -> bool:
        nf = self.catalogued
        return self.stateless if self.stateless is not None else bool(nf and nf.stateless)

    @property
    def stateful(self) -> bool:
        """Keeps per-flow state: a flow stays on one instance."""
        return not self.is_stateless

    @property
    def cost_driver(self) -> str:
        nf = self.catalogued
        return self.cost or (nf.cost if nf else "packets")


class TrafficClass(FileModel):
    """Frames of one size at one rate over some flows. One of ``rate_pps``, ``rate_mpps`` or
    ``rate_gbps`` (on the wire: 20 B a frame more than the frame)."""

    frame_bytes: int = Field(ge=units.MIN_FRAME_BYTES, le=units.MAX_FRAME_BYTES)
    rate_pps: float | None = Field(None, gt=0)
    rate_mpps: float | None = Field(None, gt=0)
    rate_gbps: float | None = Field(None, gt=0)
    flows: int | None = Field(None, ge=1, description="flows in the class, each an equal share "
                              "of its rate (default: the planner takes many small ones; a run "
                              "sends one)")

    @model_validator(mode="after")
    def _one_rate(self) -> TrafficClass:
        given = [r for r in (self.rate_pps, self.rate_mpps, self.rate_gbps) if r is not None]
        if len(given) != 1:
            raise ValueError("one of rate_pps, rate_mpps or rate_gbps")
        if not math.isfinite(self.pps):
            raise ValueError("a finite rate")
        return self

    @property
    def pps(self) -> float:
        """Packets a second."""
        if self.rate_pps is not None:
            return self.rate_pps
        if self.rate_mpps is not None:
            return self.rate_mpps * 1e6
        return units.line_rate_pps(self.rate_gbps * 1e9, self.frame_bytes)

    @property
    def run_flows(self) -> int:
        """Flows a run sends (one when the class does not say)."""
        return self.flows or 1


class ScaleEvent(FileModel):
    at_s: float = Field(gt=0, description="seconds after the traffic starts")
    service: int = Field(ge=0, description="index in services")
    instances: int = Field(ge=1, le=limits.MAX_INSTANCES)
    weights: list[float] | None = None


class Targets(FileModel):
    loss: float = Field(1e-5, ge=0, lt=1, description="loss probability at each instance")
    latency_p99_us: float | None = Field(None, gt=0, description="chain latency, p99, summed "
                                         "over its services")


class ChainSpec(_Checked):
    """A chain: its services in order, its traffic, scale events and targets."""

    name: str = Field("chain", min_length=1)
    services: list[ServiceSpec] = Field(min_length=1, max_length=limits.MAX_CHAIN_LEN)
    traffic: list[TrafficClass] | None = Field(None, min_length=1,
                                               max_length=limits.MAX_CLASSES)
    headers: Headers = Field(default_factory=Headers, description="what the generator "
                             "writes in the headers: address sweeps, encapsulation")
    scale: list[ScaleEvent] = Field(default_factory=list)
    targets: Targets = Field(default_factory=Targets)
    wake: Wake = Field(default_factory=Wake, description="how the data plane's vSwitch wakes "
                       "blocking NFs (the semaphore and isolated architectures)")

    def passes(self, i: int) -> float:
        """The share of its packets service ``i``'s NF hands on (the rest it drops by design:
        no route, no MAC entry, no NAT port for these headers and flows); 1 for an NF outside
        the catalogue."""
        s = self.services[i]
        if s.catalogued is None:
            return 1.0
        flows = tuple(c.run_flows for c in self.traffic or ()) or (1,)
        return s.catalogued.passes(self.headers, s.args, flows, s.instances)

    def problem(self) -> tuple[tuple, str, object] | None:
        """What pydantic cannot see — policies against the NFs, weights, scale events, flows:
        the first problem as (where in the file, what was expected, what was found)."""
        for i, s in enumerate(self.services):
            if s.catalogued is None and nfs.model_file(s.nf) is None \
                    and not s.nf.endswith((".yaml", ".yml")):
                return (("services", i, "nf"), "an NF of the catalogue (" + ", ".join(nfs.names())
                        + ") or an EO model (NAME@paper, a .yaml file)", s.nf)
            if s.policy == "round-robin" and not s.is_stateless:
                return (("services", i, "policy"),
                        (f"a policy that keeps flows whole: {s.nf} is stateful (round-robin "
                         "splits flows; say stateless: true if it is not)"), s.policy)
            bad = weights_problem(s.weights, s.instances)
            if bad:
                return ("services", i, "weights"), *bad
            try:
                self.passes(i)
            except InputError as exc:
                return ("services", i, "args"), f"{exc.field} {exc.expected}", exc.found
        for j, e in enumerate(self.scale):
            if e.service >= len(self.services):
                return (("scale", j, "service"), f"a service index 0..{len(self.services) - 1}",
                        e.service)
            bad = weights_problem(e.weights, e.instances)
            if bad:
                return ("scale", j, "weights"), *bad
        return None

    def runnable_problem(self) -> tuple[tuple, str, object] | None:
        """What the data plane needs beyond a valid chain: NFs it has, frames it carries,
        flows its generator numbers (a plan's chains may have more)."""
        for i, s in enumerate(self.services):
            if s.catalogued is None:
                return ("services", i, "nf"), ", ".join(nfs.names()), s.nf
        for j, c in enumerate(self.traffic or ()):
            if c.frame_bytes > limits.MAX_FRAME:
                return (("traffic", j, "frame_bytes"),
                        f"a frame of {limits.MIN_FRAME}..{limits.MAX_FRAME} B (the data "
                        "plane's)", c.frame_bytes)
        flows = _flows(self.traffic or ())
        if flows > limits.MAX_FLOWS:
            return ("traffic",), f"at most {limits.MAX_FLOWS} flows in all", flows
        return None

    def first_problem(self, *, runnable: bool = False) -> tuple[tuple, str, object] | None:
        """The first problem, with the data plane's own when ``runnable``."""
        return self.problem() or (self.runnable_problem() if runnable else None)

    def check(self, *, runnable: bool = False) -> None:
        """Raise the first problem (of a spec built in code rather than read from a file)."""
        from nfvperf.io import format_path

        bad = self.first_problem(runnable=runnable)
        if bad:
            raise InputError(bad[1], bad[2], field=format_path(bad[0]))

    def classes(self, default: TrafficClass | None = None) -> list[TrafficClass]:
        """The traffic classes a run sends (both back ends number its flows as the generator
        does, up to MAX_FLOWS): the chain's, or ``default`` when it has none."""
        classes = list(self.traffic) if self.traffic else [default]
        if classes == [None]:
            raise InputError("flow classes in the chain, or a default class", None,
                             field="traffic")
        flows = _flows(classes)
        if flows > limits.MAX_FLOWS:
            raise InputError(f"at most {limits.MAX_FLOWS} flows in all", flows, field="flows")
        return classes

    def keys(self, classes: list[TrafficClass]) -> int:
        """Distinct keys the NFs' tables see: the classes' flows, or the addresses and MACs
        the generator sweeps where they are more."""
        h = self.headers
        return max(_flows(classes), h.dst_ip.count, h.dst_mac_count,
                   h.src_mac_count * h.vlan_count)

    def at_rate(self, total_pps: float) -> ChainSpec:
        """The chain with its traffic classes' rates scaled together to ``total_pps`` in all
        (the mix of frame sizes and flows kept)."""
        classes = self.classes()
        factor = total_pps / sum(c.pps for c in classes)
        traffic = [TrafficClass(frame_bytes=c.frame_bytes, rate_pps=c.pps * factor,
                                flows=c.flows) for c in classes]
        return self.model_copy(update={"traffic": traffic})

    def most_instances(self, i: int) -> int:
        """The most instances service ``i`` has at any time (scale events included)."""
        return max([self.services[i].instances]
                   + [e.instances for e in self.scale if e.service == i])

    @property
    def pps(self) -> float:
        """Packets a second through each of its services."""
        return sum(t.pps for t in self.traffic or ())

    @property
    def largest_flow_pps(self) -> float:
        """The largest flow's packets a second (0: many, each small)."""
        return max((t.pps / t.flows for t in self.traffic or () if t.flows), default=0.0)

    @property
    def wire_bps(self) -> float:
        """Bits a second on the wire (20 B a frame beyond it), each way."""
        return sum(t.pps * units.wire_bits(t.frame_bytes) for t in self.traffic or ())


def _flows(classes) -> int:
    """Flows a run of these classes sends, in all."""
    return sum(c.run_flows for c in classes)


def instance_name(i: int, nf: str, k: int) -> str:
    """The name of instance ``k`` of service ``i`` (the data plane's process name)."""
    return f"s{i}-{nf}{k}"


def relative_to(spec: ChainSpec, base: Path) -> ChainSpec:
    """EO model files named relative to the file in ``base`` that names them."""
    from nfvperf.io import relative_file

    return spec.model_copy(update={"services": [
        s.model_copy(update={"nf": relative_file(s.nf, base)}) for s in spec.services]})


def load_chain(path: str | Path, *, runnable: bool = False) -> ChainSpec:
    """Read and check a chain file; :class:`InputError` names the file, line and field.
    ``runnable``: also check what the data plane needs (NFs it has, frames it carries)."""
    from nfvperf.files import load_file

    doc, spec = load_file(path, ChainSpec, "services")
    spec = relative_to(spec, Path(path).resolve().parent)
    bad = spec.first_problem(runnable=runnable)
    if bad:
        raise doc.error(*bad)
    return spec
