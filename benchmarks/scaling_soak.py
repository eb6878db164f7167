"""Instances coming and going under load, for a while: is every flow kept whole?

    python benchmarks/scaling_soak.py [--seconds 20] [--every 0.25] [--rate 50000]

Three NATs, each with its own public address, serve one `flow` service (or --policy); every
--every seconds the service gets another set of them (cycling through 2, 3, 1, 3, 2 ...
instances) while 256 flows of 128 B frames run at --rate. Every frame that leaves is captured
(pcap) and grouped by generator flow (its stamp): a flow may change its public address only when
the instance it was on is removed. Reported: scaling events, flows moved (the vSwitch's count and
the capture's), moves with no removal of the flow's instance between its two frames (must be
0), frames sent and captured, the mbuf pool.
"""

from __future__ import annotations

import argparse
import struct
import tempfile
import time
from pathlib import Path

from nfvperf.dataplane import pcap
from nfvperf.dataplane.session import Session, chain_mac

SETS = [["nat0", "nat1"], ["nat0", "nat1", "nat2"], ["nat1"], ["nat0", "nat1", "nat2"],
        ["nat2", "nat0"], ["nat1", "nat2"]]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--every", type=float, default=0.25)
    ap.add_argument("--rate", type=float, default=5e4)
    ap.add_argument("--policy", default="flow", choices=["flow", "weighted", "nf-aware"])
    a = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="nfvp-soak-"))
    empty, out = tmp / "empty.pcap", tmp / "out.pcap"
    pcap.write(empty, [])
    changes = []      # (time, members before, members after)
    with Session("double-buffer", vdevs=(f"net_pcap0,rx_pcap={empty},tx_pcap={out}",),
                 ring_ports=2) as s:
        for i in range(3):
            s.add_nfs("nat", [f"nat{i}"], args=("--public-ip", f"192.0.2.{i + 1}"))
        members = SETS[0]
        s.add_service("nat", members, policy=a.policy)
        s.set_chain(0, ["nat"], out_port=0)
        s.start_traffic(rate_pps=a.rate, frame_bytes=128, macs=[chain_mac(0)],
                        duration_s=a.seconds, flows=256)
        t0 = time.monotonic()
        k = 1
        moved_vs = 0
        while time.monotonic() - t0 < a.seconds - a.every:
            time.sleep(a.every)
            new = SETS[k % len(SETS)]
            r = s.set_service("nat", new)
            moved_vs += r["moved"]
            changes.append((r["dispatched"], members, new))
            members = new
            k += 1
        gen = s.wait_traffic()
        report = s.close()
    # the capture is in the order the vSwitch sent, which is the order the service placed the
    # packets give or take what its instances' rings held (2 x 512): a move of a flow between
    # its frames i1 and i2 needs a change, placed between them, that removed its instance
    slack = 2048
    last: dict[int, tuple[int, str]] = {}
    moves = bad = 0
    frames = pcap.read(out)
    for i, f in enumerate(frames):
        flow = struct.unpack_from("<H", f, len(f) - 2)[0]
        nat = f"nat{f[29] - 1}"                           # 192.0.2.(i + 1)
        if flow in last and last[flow][1] != nat:
            moves += 1
            i1, was = last[flow]
            if not any(i1 - slack <= at <= i + slack and was in before and was not in after
                       for at, before, after in changes):
                bad += 1
        last[flow] = (i, nat)
    n_frames = len(frames)
    svc = report["services"][0]
    print(f"{a.seconds:.0f} s, {len(changes)} scaling events ({a.policy}), {len(last)} flows")
    print(f"frames sent {gen['sent']}, captured {n_frames}; flows moved: vSwitch "
          f"{moved_vs} (service total {svc['flows_moved']}), seen in the capture {moves}")
    print(f"moves with no removal of the flow's instance: {bad}; mbuf pool at the end "
          f"{report['pool']['free']} of {report['pool']['size']}")
    out.unlink()


if __name__ == "__main__":
    main()
