"""Soak: minutes of traffic through many NFs; mbufs in use and memory must not grow.

    python benchmarks/soak.py [--minutes 5] [--arch semaphore] [--nfs 64] [--rate-mpps 0.5]

Traffic runs in back-to-back generator runs of 10 s; after each, with the rings drained, it
samples the mbufs in use (pool size - free), the vSwitch's and the NFs' resident memory, and
whether every packet was accounted for. It ends with the first and last samples side by side
and exits 1 if mbufs in use or memory grew by more than 1 %.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from nfvperf.dataplane.session import Session, chain_mac


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=5)
    ap.add_argument("--arch", default="semaphore")
    ap.add_argument("--nfs", type=int, default=64)
    ap.add_argument("--rate-mpps", type=float, default=0.5)
    args = ap.parse_args()
    names = [f"nf{i}" for i in range(args.nfs)]
    samples = []
    with Session(args.arch, max_nfs=args.nfs) as s:
        s.add_nfs("signature", names)
        chains = [names[i:i + 2] for i in range(0, len(names), 2)]
        for c, members in enumerate(chains):
            s.set_chain(c, members)
        end = time.monotonic() + args.minutes * 60
        while time.monotonic() < end:
            s.start_traffic(rate_pps=args.rate_mpps * 1e6, frame_bytes=64,
                            macs=[chain_mac(c) for c in range(len(chains))], duration_s=10)
            gen = s.wait_traffic()
            st = s.stats()
            dropped = sum(st["dropped"].values())
            sample = {"t_s": round(st["elapsed_s"]),
                      "in_use": st["pool"]["size"] - st["pool"]["free"],
                      "vswitch_kib": rss_kib(s.vs.pid),
                      "nfs_kib": sum(rss_kib(p.pid) for p in s.nfs.values()),
                      "sent": gen["sent"], "received": gen["received"],
                      "in_flight": st["in_flight"]}
            samples.append(sample)
            print(f"{sample['t_s']:5d} s  mbufs in use {sample['in_use']:6d}  vSwitch RSS "
                  f"{sample['vswitch_kib'] / 1024:7.1f} MiB  NFs RSS "
                  f"{sample['nfs_kib'] / 1024:7.1f} MiB  delivered "
                  f"{gen['received'] / gen['sent']:.4f}  dropped so far {dropped}",
                  flush=True)
        s.close()
    first, last = samples[0], samples[-1]
    grew = [k for k in ("in_use", "vswitch_kib", "nfs_kib")
            if last[k] > first[k] * 1.01 + (8 if k == "in_use" else 0)]
    print(f"first {first}\nlast  {last}\n" + ("no growth" if not grew else f"GREW: {grew}"))
    sys.exit(1 if grew else 0)


if __name__ == "__main__":
    main()
