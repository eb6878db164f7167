"""TCP through a chain between two network namespaces: the kernel's own stack on both sides,
the data plane between them (TAP ports, `nfvperf chain attach`), beside a veth pair that joins
the same two namespaces directly.

    python benchmarks/kernel_traffic.py [--seconds 3] [-o out/kernel_traffic.json]

One TCP stream (Python sockets, 64 KiB writes) from the inside host to the outside one for
--seconds, through the NAT in each exchange architecture; the goodput the receiver counted, the
NF's packets and the vSwitch's drops. Needs root (namespaces, TAP devices) and the data plane.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from nfvperf.chain import ChainSpec
from nfvperf.dataplane import netns

RECEIVER = r"""
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 5003)); s.listen(1); s.settimeout(30)
print("listening", flush=True)
c, peer = s.accept(); c.settimeout(30)
n, t0 = 0, None
while True:
    b = c.recv(1 << 20)
    if not b:
        break
    if t0 is None:
        t0 = time.monotonic()
    n += len(b)
print(n, time.monotonic() - t0, peer[0], flush=True)
"""

SENDER = r"""
import socket, sys, time
s = socket.create_connection((sys.argv[1], 5003), timeout=30)
buf, end = bytes(65536), time.monotonic() + float(sys.argv[2])
while time.monotonic() < end:
    s.sendall(buf)
s.close()
"""


def stream(p: netns.Pair, dst: str, seconds: float) -> dict:
    rx = subprocess.Popen(netns.in_ns(p.outside, sys.executable, "-c", RECEIVER),
                          stdout=subprocess.PIPE, text=True)
    try:
        assert rx.stdout.readline().strip() == "listening"
        subprocess.run(netns.in_ns(p.inside, sys.executable, "-c", SENDER, dst, str(seconds)),
                       check=True, timeout=seconds + 60)
        n, secs, peer = rx.stdout.readline().split()
        rx.wait(30)
    finally:
        rx.kill()
    return {"bytes": int(n), "seconds": float(secs), "gbps": int(n) * 8 / float(secs) / 1e9,
            "peer": peer}


def direct(seconds: float) -> dict:
    """The same two namespaces joined by a veth pair, the kernel alone (no NAT)."""
    with netns.pair("d") as p:
        netns.ip("link", "add", "nvd0", "netns", p.inside, "type", "veth", "peer", "name",
                 "nvd1", "netns", p.outside)
        for ns, dev, addr in ((p.inside, "nvd0", netns.INSIDE), (p.outside, "nvd1",
                                                                 "192.168.77.3")):
            netns.ip("-n", ns, "addr", "add", f"{addr}/24", "dev", dev)
            netns.ip("-n", ns, "link", "set", dev, "up")
        return stream(p, "192.168.77.3", seconds)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("-o", "--out", type=Path, default=Path("out/kernel_traffic.json"))
    args = ap.parse_args()
    why = netns.usable()
    if why:
        sys.exit(f"kernel_traffic: {why}")
    spec = ChainSpec.model_validate({"name": "nat", "services": [
        {"nf": "nat", "args": ["--public-ip", netns.PUBLIC]}]})
    rows = []
    d = direct(args.seconds)
    rows.append({"path": "veth pair, kernel only", **d})
    print(f"   veth pair, kernel only            {d['gbps']:6.2f} Gbps", flush=True)
    for arch in ("double-buffer", "semaphore", "shared-ring"):
        with netns.pair() as p, netns.attached(spec, p, arch=arch) as counters:
            r = stream(p, netns.OUTSIDE, args.seconds)
        nat = counters["nfs"][0]
        row = {"path": f"NAT on the data plane, {arch}", **r, "nat_packets": nat["tx"],
               "dropped": counters["dropped"]}
        rows.append(row)
        print(f"   NAT, {arch:14} TAP ports     {r['gbps']:6.2f} Gbps  (the receiver saw "
              f"{r['peer']}; the NAT passed {nat['tx']} packets; vSwitch drops "
              f"{sum(counters['dropped'].values())})", flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(rows, indent=1))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
