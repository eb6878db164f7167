"""Replay a pcap file through a chain of NFs and capture what leaves (a net_pcap port)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from nfvperf import limits
from nfvperf.dataplane.build import NFS
from nfvperf.dataplane.report import ReplayReport
from nfvperf.dataplane.run import check_run, per_nf_of
from nfvperf.dataplane.session import Session
from nfvperf.errors import InputError


def replay(pcap_in: Path, capture: Path, *, nf: str = "forward", chain_length: int = 1,
           arch: str = "double-buffer", nf_args: tuple[str, ...] = ()) -> ReplayReport:
    """Replay a pcap file through a chain of NFs and capture what leaves (net_pcap port).

    Every destination MAC in the file gets a chain through the same NFs; the vSwitch holds its
    port until the chains exist, so no frame goes unclassified. The capture is written to a
    temporary file and renamed when the run is complete.
    """
    from nfvperf.dataplane import pcap

    check_run(arch=arch, duration_s=1.0, cpus={})
    if arch == "fdir":
        raise InputError("an architecture without NIC queues (fdir needs the generator)", arch,
                         field="arch")
    if nf not in NFS:
        raise InputError(", ".join(NFS), nf, field="nf")
    if not 1 <= chain_length <= limits.MAX_CHAIN_LEN:
        raise InputError(f"1..{limits.MAX_CHAIN_LEN}", chain_length, field="chain_length")
    for path, field in ((pcap_in, "pcap_in"), (capture, "capture")):
        if "," in str(path):
            raise InputError("a path without commas (DPDK's vdev arguments)", str(path),
                             field=field)
    frames = pcap.read(pcap_in)
    macs = list(dict.fromkeys(f[:6] for f in frames if len(f) >= 14))
    if len(macs) > limits.MAX_CHAINS:
        raise InputError(f"at most {limits.MAX_CHAINS} destination MACs", len(macs),
                         file=str(pcap_in))
    capture = Path(capture)
    tmp_out = capture.with_name(f".{capture.name}.tmp")
    names = [f"nf{i}" for i in range(chain_length)]
    with Session(arch, vdevs=(f"net_pcap0,rx_pcap={Path(pcap_in).resolve()},"
                              f"tx_pcap={tmp_out.resolve()}",),
                 ring_ports=0, rx_hold=True, max_nfs=max(16, chain_length)) as s:
        s.add_nfs(nf, names, args=nf_args)
        for c, mac in enumerate(macs):
            s.set_chain(c, names, out_port=0, mac=":".join(f"{b:02x}" for b in mac))
        s.start_rx()
        deadline = time.monotonic() + 30 + len(frames) / 1e5
        while time.monotonic() < deadline:
            st = s.status()
            if st["inflight"] == 0 and s.stats()["ports"][0]["rx"] >= len(frames):
                break
            time.sleep(0.05)
        report = s.close()
    os.replace(tmp_out, capture)
    return {"frames_in": len(frames), "frames_out": report["ports"][0]["tx"],
            "chains": len(macs), "nf": nf, "chain_length": chain_length, "arch": arch,
            "dropped": {k: v for k, v in report["dropped"].items() if v},
            "per_nf": per_nf_of(report, [None] * len(report["per_nf"])),
            "capture": str(capture)}
