"""Two network namespaces joined through the data plane, for real traffic from the kernel's
own stack (the tests and ``benchmarks/kernel_traffic.py``): an inside host behind a NAT's
public address and an outside host, each in a namespace of its own, their interfaces the
vSwitch's TAP ports. Addresses exist only inside the namespaces, and leaving the block deletes
them. Needs root and iproute2."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from nfvperf.errors import RuntimeFailure

#: the inside host, its gateway (the NAT), the NAT's public address and the outside host
INSIDE, GATEWAY, PUBLIC, OUTSIDE = "192.168.77.2", "192.168.77.1", "203.0.113.1", "203.0.113.2"


def ip(*args: str) -> str:
    """Run iproute2's ``ip``; its output."""
    p = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=10)
    if p.returncode != 0:
        raise RuntimeFailure(f"ip {' '.join(args)}: {p.stderr.strip()}")
    return p.stdout


def usable() -> str | None:
    """Why namespaces joined by TAP ports cannot be made here, or None."""
    if os.geteuid() != 0:
        return "network namespaces need root"
    if shutil.which("ip") is None:
        return "iproute2's ip is missing (apt-get install iproute2)"
    if not os.path.exists("/dev/net/tun"):
        return "no /dev/net/tun: TAP devices cannot be made here"
    return None


def in_ns(ns: str, *args: str) -> list[str]:
    """A command line that runs ``args`` inside namespace ``ns``."""
    return ["ip", "netns", "exec", ns, *args]


@dataclass(frozen=True)
class Pair:
    """The two namespaces and the vSwitch's TAP interfaces that join them."""

    inside: str
    outside: str
    tap_inside: str
    tap_outside: str


@contextmanager
def pair(tag: str | None = None) -> Iterator[Pair]:
    """Two empty namespaces (and the names of the TAP ports to make for them), deleted at the
    end of the block with everything in them."""
    tag = tag or str(os.getpid() % 100000)
    p = Pair(f"nfvpin{tag}", f"nfvpout{tag}", f"nvi{tag}", f"nvo{tag}")
    made = []
    try:
        for ns in (p.inside, p.outside):
            ip("netns", "add", ns)
            made.append(ns)
        yield p
    finally:
        for ns in made:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=10)


def _mac(dev: str) -> str:
    return json.loads(ip("-j", "link", "show", "dev", dev))[0]["address"]


def _wire(ns: str, dev: str, addr: str, peer_ip: str, peer_mac: str, gateway: str | None):
    ip("link", "set", dev, "netns", ns)
    subprocess.run(in_ns(ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1"),
                   check=True, timeout=10, capture_output=True)
    ip("-n", ns, "link", "set", "lo", "up")
    ip("-n", ns, "addr", "add", f"{addr}/24", "dev", dev)
    ip("-n", ns, "link", "set", dev, "up")
    # the bump in the wire answers no ARP and keeps the frames' MACs: the far host's MAC
    ip("-n", ns, "neigh", "replace", peer_ip, "lladdr", peer_mac, "dev", dev, "nud",
       "permanent")
    if gateway:
        ip("-n", ns, "route", "add", "default", "via", gateway)


def wire(p: Pair) -> None:
    """Once the vSwitch has made the TAP ports (in this namespace): move each into its
    namespace and give the hosts their addresses, routes and the far side's MAC."""
    mac_in, mac_out = _mac(p.tap_inside), _mac(p.tap_outside)
    _wire(p.inside, p.tap_inside, INSIDE, GATEWAY, mac_out, GATEWAY)
    _wire(p.outside, p.tap_outside, OUTSIDE, PUBLIC, mac_in, None)


@contextmanager
def attached(spec, p: Pair, *, arch: str = "double-buffer", timeout_s: float = 300.0
             ) -> Iterator[dict]:
    """The chain between the pair's TAP ports, wired, for the block; the dict it yields gets
    the chain's counters when the block ends."""
    from nfvperf.dataplane.attach import KernelPort, attach_chain

    ready, stop, out, failed = threading.Event(), threading.Event(), {}, []

    def run():
        try:
            out.update(attach_chain(spec, (KernelPort("tap", p.tap_inside),
                                           KernelPort("tap", p.tap_outside)), arch=arch,
                                    duration_s=timeout_s, stop=stop, ready=ready.set))
        except BaseException as exc:  # noqa: BLE001 - raised in the caller's thread
            failed.append(exc)
            ready.set()

    th = threading.Thread(target=run, daemon=True)
    th.start()
    try:
        if not ready.wait(60) or failed:
            raise failed[0] if failed else RuntimeFailure("dataplane: the chain did not start")
        wire(p)
        yield out
    finally:
        stop.set()
        th.join(60)
    if failed:
        raise failed[0]
