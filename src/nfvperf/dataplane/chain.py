"""A chain of services, each with parallel NF instances, run on the data plane (issue 6, after
Hajji, Tso & Pezaros): the spec file, its checks, and one run of it.

A spec (YAML)::

    name: nat-ids
    services:
      - {nf: nat, instances: 2, policy: nf-aware}
      - {nf: ids, instances: 2, policy: nf-aware, args: [--random, "200"]}
    traffic:                              # flow classes; else the command line's one class
      - {frame_bytes: 1518, rate_pps: 20000, flows: 8}
      - {frame_bytes: 64, rate_pps: 200000, flows: 64}
    scale:                                # instance changes while the traffic runs
      - {at_s: 0.5, service: 0, instances: 3}

Policies (the vSwitch's, dataplane/vswitch/service.c): ``flow`` (consistent hashing, flows
pinned), ``weighted`` (the same with ``weights``), ``round-robin`` (per packet, stateless NFs
only), ``nf-aware`` (large and small flows apart, by what drives the NF's cost).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from pydantic import Field

from nfvperf.dataplane.build import NF_TRAITS, NFS
from nfvperf.errors import InputError
from nfvperf.validation import FileModel

POLICIES = ("flow", "weighted", "round-robin", "nf-aware")
MAX_INSTANCES = 16
#: the vSwitch's weights are integers 0..1000
WEIGHT_SCALE = 1000


class ServiceSpec(FileModel):
    nf: str = Field(description="the NF every instance runs (" + ", ".join(NFS) + ")")
    instances: int = Field(1, ge=1, le=MAX_INSTANCES)
    policy: Literal[POLICIES] = "flow"
    weights: list[float] | None = Field(None, description="weighted: one per instance, ≥ 0")
    stateless: bool | None = Field(None, description="default: what the NF is")
    cost: Literal["packets", "bytes"] | None = Field(
        None, description="nf-aware: what drives the NF's cost (default: what the NF is)")
    large_bytes: int = Field(512, ge=64, le=1518,
                             description="nf-aware: a flow whose first frame has this many "
                                         "bytes is large")
    args: list[str] = Field(default_factory=list,
                            description="the NF's own options; {k} is the instance's index "
                                        "(a NAT instance's own --public-ip 192.0.2.1{k})")
    cpu: int | None = Field(None, ge=0, description="CPU of its instances (default --nf-cpu)")
    # the simulator's (nfvperf simulate --chain); the data plane measures these
    model: str | None = Field(None, description="EO model (packaged name or file) that prices "
                              "a packet; default: the one beside the NF's C source")
    params: dict[str, float] = Field(default_factory=dict, description="the model's params")
    cycles_per_packet: float | dict[int, float] | None = Field(
        None, description="measured cost instead of the model: one figure, or by frame size "
                          "(interpolated)")
    cores: float = Field(1.0, gt=0, description="cores given to each instance")
    threads: int = Field(1, ge=1, description="threads an instance runs: it uses at most "
                                              "this many of its cores")
    batch_overhead_cycles: float = Field(200.0, ge=0, description="cost of a batch besides "
                                         "its packets (the NF's loop: dequeue, enqueue; "
                                         "validation measures 6-8 cycles a packet between "
                                         "the loop and the handler at batches of ~30)")


class FlowClass(FileModel):
    frame_bytes: int = Field(ge=64, le=1518)
    rate_pps: float = Field(gt=0)
    flows: int = Field(1, ge=1, le=65536)


class ScaleEvent(FileModel):
    at_s: float = Field(gt=0, description="seconds after the traffic starts")
    service: int = Field(ge=0, description="index in services")
    instances: int = Field(ge=1, le=MAX_INSTANCES)
    weights: list[float] | None = None


class Stalls(FileModel):
    """Times the host takes a shared core away (e.g. a VM's vCPU descheduled): measured."""

    per_s: float = Field(ge=0, description="stalls a second")
    durations_us: list[float] = Field(min_length=1, description="their lengths, as measured")


class ChainSpec(FileModel):
    name: str = "chain"
    services: list[ServiceSpec] = Field(min_length=1, max_length=16)
    traffic: list[FlowClass] | None = Field(None, min_length=1, max_length=4)
    scale: list[ScaleEvent] = Field(default_factory=list)
    # the simulator's queues: the data plane's NF rings and bursts
    ring: int = Field(512, ge=1, le=65536, description="packets an instance's queue holds")
    burst: int = Field(32, ge=1, le=256, description="packets an instance takes at most")
    quantum_us: float = Field(0, ge=0, description="instances that share a cpu: how long one "
                              "may keep it while it has packets (the kernel's time slice); "
                              "0: one batch per turn")
    stalls: Stalls | None = Field(None, description="simulator: stalls of the shared cores")
    switch_us: float = Field(0, ge=0, description="instances that share a cpu: the cost of "
                             "a change of turn (a yield and a context switch); > 0 makes them "
                             "poll in turn, as NF processes that yield do; 0: no cost")

    def problem(self) -> tuple[tuple, str, object] | None:
        """What pydantic cannot see — NFs, policies against the NFs, weights, scale events:
        the first problem as (where in the file, what was expected, what was found)."""
        for i, s in enumerate(self.services):
            if s.nf not in NFS:
                return ("services", i, "nf"), ", ".join(NFS), s.nf
            if s.policy == "round-robin" and not self.stateless(i):
                return (("services", i, "policy"),
                        (f"a policy that keeps flows whole: {s.nf} is stateful (round-robin "
                         "splits flows; say stateless: true if it is not)"), s.policy)
            bad = _weights_problem(s.weights, s.instances)
            if bad:
                return ("services", i, "weights"), *bad
        for j, e in enumerate(self.scale):
            if e.service >= len(self.services):
                return (("scale", j, "service"), f"a service index 0..{len(self.services) - 1}",
                        e.service)
            bad = _weights_problem(e.weights, e.instances)
            if bad:
                return ("scale", j, "weights"), *bad
        if self.traffic and sum(c.flows for c in self.traffic) > 65536:
            return ("traffic",), "at most 65536 flows in all", sum(c.flows for c in self.traffic)
        return None

    def check(self) -> None:
        """Raise the first problem (a spec built in code rather than read from a file)."""
        from nfvperf.io import format_path

        bad = self.problem()
        if bad:
            raise InputError(bad[1], bad[2], field=format_path(bad[0]))

    def stateless(self, i: int) -> bool:
        s = self.services[i]
        return s.stateless if s.stateless is not None else NF_TRAITS[s.nf][0]

    def cost(self, i: int) -> str:
        s = self.services[i]
        return s.cost or NF_TRAITS[s.nf][1]

    def classes(self, frame_bytes: int, rate_pps: float, flows: int) -> list[tuple]:
        """(frame bytes, packets a second, flows) per traffic class: the file's, or one
        from the command line when it has none."""
        return [(c.frame_bytes, c.rate_pps, c.flows) for c in self.traffic] or \
            [(frame_bytes, rate_pps, flows)]

    def most_instances(self, i: int) -> int:
        return max([self.services[i].instances]
                   + [e.instances for e in self.scale if e.service == i])


def _weights_problem(weights: list[float] | None, n: int) -> tuple[str, object] | None:
    if weights is None:
        return None
    if len(weights) != n:
        return f"one weight per instance ({n})", len(weights)
    if any(not math.isfinite(w) or w < 0 for w in weights) or sum(weights) <= 0:
        return "weights ≥ 0 that sum to a positive value", weights
    return None


def vswitch_weights(weights: list[float] | None, n: int) -> list[int] | None:
    """Weights as the vSwitch takes them: integers up to 1000, in the same proportions (a
    positive weight stays at least 1)."""
    if weights is None:
        return None
    top = max(weights)
    return [0 if w == 0 else max(1, round(w / top * WEIGHT_SCALE)) for w in weights[:n]]


def load_chain(path: str | Path) -> ChainSpec:
    """Read and check a chain spec; InputError names the file, line and field."""
    from nfvperf.validation import load_file

    doc, spec = load_file(path, ChainSpec, "services")
    bad = spec.problem()
    if bad:
        raise doc.error(*bad)
    return spec


def instance_name(i: int, nf: str, k: int) -> str:
    return f"s{i}-{nf}{k}"


def run_chain(spec: ChainSpec, *, arch: str = "double-buffer", frame_bytes: int = 64,
              rate_pps: float = 1e5, flows: int = 1, duration_s: float = 1.0,
              vswitch_cpu: int = 0, nf_cpu: int = 1, gen_cpu: int = 1,
              progress: Callable[[str, int, int], None] | None = None) -> dict:
    """Run the chain once: start every instance a scale event will need (idle until it joins
    its service), send the traffic, apply the scale events on time, and report per class,
    service and instance."""
    from nfvperf.dataplane.run import Session, _need, chain_mac

    spec.check()
    if progress:
        progress("starting the NFs", 0, 1)
    _need("vswitch", "gen", *{f"nf-{s.nf}" for s in spec.services})
    classes = spec.classes(frame_bytes, rate_pps, flows)
    total = sum(spec.most_instances(i) for i in range(len(spec.services)))
    events: list[dict] = []
    with Session(arch, vswitch_cpu=vswitch_cpu, max_nfs=max(16, total)) as s:
        for i, svc in enumerate(spec.services):
            names = [instance_name(i, svc.nf, k) for k in range(spec.most_instances(i))]
            for k, name in enumerate(names):
                s.add_nfs(svc.nf, [name], cpu=nf_cpu if svc.cpu is None else svc.cpu,
                          args=tuple(a.replace("{k}", str(k)) for a in svc.args))
            s.add_service(f"s{i}", names[:svc.instances], policy=svc.policy,
                          stateless=spec.stateless(i), cost=spec.cost(i),
                          large_bytes=svc.large_bytes,
                          weights=vswitch_weights(svc.weights, svc.instances))
        s.set_chain(0, [f"s{i}" for i in range(len(spec.services))])
        s.start_traffic(rate_pps=sum(c[1] for c in classes), frame_bytes=classes[0][0],
                        macs=[chain_mac(0)], duration_s=duration_s, cpu=gen_cpu,
                        classes=classes)
        t0 = time.monotonic()
        failed: list[BaseException] = []
        scaler = threading.Thread(target=_scale, args=(s, spec, t0, events, failed),
                                  daemon=True)
        scaler.start()
        gen = s.wait_traffic(progress)
        scaler.join()
        report = s.close()
    if failed:                  # a scale event the vSwitch refused: the run is not what was asked
        raise failed[0]
    return chain_result(spec, arch, gen, report, events)


def _scale(s, spec: ChainSpec, t0: float, events: list[dict],
           failed: list[BaseException]) -> None:
    try:
        for e in sorted(spec.scale, key=lambda e: e.at_s):
            time.sleep(max(0.0, t0 + e.at_s - time.monotonic()))
            nf = spec.services[e.service].nf
            names = [instance_name(e.service, nf, k) for k in range(e.instances)]
            moved = s.set_service(f"s{e.service}", names,
                                  weights=vswitch_weights(e.weights, e.instances))
            events.append({"at_s": round(time.monotonic() - t0, 3), "service": e.service,
                           "instances": e.instances, **moved})
    except Exception as exc:    # noqa: BLE001 - handed to the caller's thread, raised there
        failed.append(exc)


def loss(offered: int, delivered: int) -> float | None:
    """Per cent of what was offered that was not delivered (None: nothing offered)."""
    return None if offered == 0 else 100.0 * (offered - delivered) / offered


def chain_result(spec: ChainSpec, arch: str, gen: dict, vs: dict, events: list[dict]) -> dict:
    """The JSON of a chain run: totals, a row per traffic class, per service and instance."""
    from nfvperf.dataplane.run import dropped_of, latency_us

    dur = gen["duration_s"]
    per_nf = {nf["name"]: nf for nf in vs["per_nf"]}
    offered = gen["sent"] + gen["tx_dropped"]

    classes = [{
        "frame_bytes": c["frame_bytes"], "rate_pps": c["rate_pps"], "flows": c["flows"],
        "offered": c["sent"] + c["tx_dropped"], "delivered": c["received"],
        "loss_pct": loss(c["sent"] + c["tx_dropped"], c["received"]),
        "delivered_mpps": c["received"] / dur / 1e6,
        "delivered_gbps": c["received_bytes"] * 8 / dur / 1e9,
        "latency_us": latency_us(c["latency_ns"]),
    } for c in gen["classes"]]
    services = []
    for i, svc in enumerate(spec.services):
        v = next(x for x in vs["services"] if x["name"] == f"s{i}")
        instances = []
        for k in range(spec.most_instances(i)):
            name = instance_name(i, svc.nf, k)
            nf = per_nf.get(name, {})
            row = next((x for x in v["instances"] if x["name"] == name), None)
            # offered: what the vSwitch meant for it, its ring's overflow included
            given = nf.get("sent_by_vswitch", 0) + nf.get("ring_full", 0)
            instances.append({
                "name": name, "in_service_at_end": row is not None,
                "flows": row["flows"] if row else None,
                "offered": given, "delivered": nf.get("tx", 0),
                "dropped": given - nf.get("tx", 0),
                "ring_full": nf.get("ring_full", 0),
                "bytes": nf.get("bytes_sent_by_vswitch", 0),
                "latency_us": {k2: nf.get("sojourn_us", {}).get(k2) for k2 in
                               ("mean", "p50", "p99")},
                "cycles_per_packet": nf.get("loop_cycles_median"),
            })
        services.append({
            "name": v["name"], "nf": svc.nf, "policy": v["policy"],
            "stateless": v["stateless"], "cost": v["cost"],
            "offered": sum(x["offered"] for x in instances),
            "delivered": sum(x["delivered"] for x in instances),
            "dropped": sum(x["dropped"] for x in instances),
            "flows_pinned": v["flows_pinned"], "flows_moved": v["flows_moved"],
            "instances": instances,
        })
    return {
        "chain": spec.name, "arch": arch, "duration_s": dur,
        "offered_packets": offered, "delivered_packets": gen["received"],
        "loss_pct": loss(offered, gen["received"]),
        "delivered_mpps": gen["received"] / dur / 1e6,
        "delivered_gbps": gen["received_bytes"] * 8 / dur / 1e9,
        "latency_us": latency_us(gen["latency_ns"]),
        "dropped": dropped_of(gen, vs),
        "classes": classes, "services": services, "scaling": events,
    }
