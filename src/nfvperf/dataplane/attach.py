"""A chain between two kernel interfaces: real traffic through the data plane.

The vSwitch takes two ports on interfaces the kernel has (``tap:NAME``, a TAP device it makes;
``af_packet:IFACE``, an interface that exists, a veth's end or a NIC), and every packet that
arrives on one goes through the chain's services and leaves by the other, whatever its MAC (a
bump in the wire: the hosts on each side see each other's frames, their MACs unchanged). Both
directions go through the same instances, so a NAT sees a connection's replies; a stateful
service must then have one instance (flow hashing would send a reply, whose 5-tuple is the
reverse, to another). It runs until ``duration_s`` is over or ``stop`` is set, and reports each
NF's and port's counters.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from nfvperf.chain import ChainSpec, instance_name
from nfvperf.dataplane.report import AttachReport
from nfvperf.errors import InputError

#: the kinds of kernel port, and the DPDK virtual device each becomes
PORT_KINDS = {"tap": "net_tap{i},iface={name}", "af_packet": "net_af_packet{i},iface={name}"}
_IFACE = re.compile(r"[A-Za-z0-9_.-]{1,15}")


@dataclass(frozen=True)
class KernelPort:
    """One side of the wire: ``kind`` (tap, af_packet) and the kernel interface's name."""

    kind: str
    name: str

    @classmethod
    def parse(cls, text: str, field: str = "between") -> KernelPort:
        kind, _, name = text.partition(":")
        if kind not in PORT_KINDS or not _IFACE.fullmatch(name):
            raise InputError("tap:NAME or af_packet:IFACE (an interface name of 1-15 "
                             "letters, digits, _ . -)", text, field=field)
        return cls(kind, name)

    def vdev(self, i: int) -> str:
        return PORT_KINDS[self.kind].format(i=i, name=self.name)


def check_both_ways(spec: ChainSpec) -> None:
    """Refuse a stateful service with more than one instance (see the module's text)."""
    for i, svc in enumerate(spec.services):
        if not svc.is_stateless and spec.most_instances(i) > 1:
            raise InputError("one instance of a stateful NF (both directions must reach the "
                             "same one)", spec.most_instances(i),
                             field=f"services[{i}].instances")


def attach_chain(spec: ChainSpec, ports: tuple[KernelPort, KernelPort], *, arch: str =
                 "double-buffer", duration_s: float = 10.0, vswitch_cpu: int = 0,
                 nf_cpu: int = 1, stop: threading.Event | None = None,
                 ready: Callable[[], None] | None = None) -> AttachReport:
    """Run the chain between the two ports; returns its counters: per port (rx, tx, tx
    dropped), per NF (rx, tx, drop), the vSwitch's drops by place. ``ready`` is called once
    the ports exist and the chain is in place (before that the interfaces are not there)."""
    from nfvperf.dataplane.chain import start_services
    from nfvperf.dataplane.run import check_run
    from nfvperf.dataplane.session import Session, need_binaries

    spec.check(runnable=True)
    check_both_ways(spec)
    if ports[0].name == ports[1].name:
        raise InputError("two different interfaces", ports[1].name, field="between")
    check_run(arch=arch, duration_s=duration_s, cpus={"vswitch_cpu": vswitch_cpu,
                                                     "nf_cpu": nf_cpu})
    need_binaries("vswitch", *{f"nf-{s.nf}" for s in spec.services})
    total = sum(spec.most_instances(i) for i in range(len(spec.services)))
    hops = [f"s{i}" for i in range(len(spec.services))]
    with Session(arch, vswitch_cpu=vswitch_cpu, max_nfs=max(16, total), wake=spec.wake,
                 vdevs=tuple(p.vdev(i) for i, p in enumerate(ports)), ring_ports=0) as s:
        start_services(s, spec, nf_cpu, out_port=1)
        for port in (0, 1):     # chain p: what comes in on port p leaves by the other
            s.set_chain(port, hops, out_port=1 - port, mac=f"02:00:00:00:00:0{port}")
            s.port_chain(port, port)
        if ready is not None:
            ready()
        end = time.monotonic() + duration_s
        while time.monotonic() < end and not (stop is not None and stop.is_set()):
            time.sleep(0.05)
        report = s.close()
    return _counters(spec, ports, report)


def _counters(spec: ChainSpec, ports, vs: dict) -> AttachReport:
    names = {instance_name(i, svc.nf, k): i for i, svc in enumerate(spec.services)
             for k in range(spec.most_instances(i))}
    return {
        "chain": spec.name,
        "ports": [{"port": f"{p.kind}:{p.name}", "rx": v["rx"], "tx": v["tx"],
                   "tx_dropped": v["tx_dropped"]} for p, v in zip(ports, vs["ports"])],
        "nfs": [{"name": nf["name"], "service": names.get(nf["name"]), "rx": nf["rx"],
                 "tx": nf["tx"], "drop": nf["drop"]} for nf in vs["per_nf"]],
        "dropped": {k: v for k, v in vs["dropped"].items() if k != "in_flight_at_stop"},
    }
