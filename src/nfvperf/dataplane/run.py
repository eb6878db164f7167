"""One run of the data plane (Cerrato et al.'s experiment): N NFs in chains of K, traffic from the
generator, and the three processes' reports merged into one result; the checks every run's
values get before anything starts.

Cores: the vSwitch polls on a CPU of its own (``vswitch_cpu``); the NFs share another
(``nf_cpu``), as in the paper where many NFs share few cores; the generator runs beside the NFs
by default, since a 2-core machine has no third CPU (the paper used separate machines).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import asdict, dataclass

from nfvperf import limits, units
from nfvperf.dataplane.build import ARCHS, RUN_NFS
from nfvperf.dataplane.report import PerNF, RunReport
from nfvperf.dataplane.session import Session, cpu_seconds, need_binaries, chain_mac
from nfvperf.errors import InputError
from nfvperf.wake import Wake, per_wake



@dataclass(frozen=True)
class RunConfig:
    """What to run; ``validate()`` names the option of the first bad value."""

    arch: str = "double-buffer"
    nfs: int = 2
    chain_length: int = 2
    packet_size: int = 64
    rate_mpps: float | None = None
    rate_gbps: float | None = None
    flows: int = 1
    duration_s: float = 1.0
    nf: str = "signature"
    vswitch_cpu: int = 0
    nf_cpu: int = 1
    gen_cpu: int = 1
    wake_batch: int = limits.WAKE_BATCH
    wake_timeout_us: int = limits.WAKE_TIMEOUT_US
    wake_rate_max: int = limits.WAKE_RATE_MAX

    @property
    def wake(self) -> Wake:
        """The wake-up policy of blocking NFs (checked as the chain files' ``wake``)."""
        return Wake.checked(batch=self.wake_batch, timeout_us=self.wake_timeout_us,
                            rate_max=self.wake_rate_max)

    def validate(self) -> None:
        """Raise InputError naming the first bad parameter (as this class names it)."""
        check_run(arch=self.arch, duration_s=self.duration_s,
                  cpus={"vswitch_cpu": self.vswitch_cpu, "nf_cpu": self.nf_cpu,
                        "gen_cpu": self.gen_cpu})
        if self.nf not in RUN_NFS:
            raise InputError(", ".join(RUN_NFS), self.nf, field="nf")
        if not 1 <= self.nfs <= limits.MAX_NFS:
            raise InputError(f"1..{limits.MAX_NFS} NFs", self.nfs, field="nfs")
        if not 1 <= self.chain_length <= limits.MAX_CHAIN_LEN:
            raise InputError(f"1..{limits.MAX_CHAIN_LEN}", self.chain_length,
                             field="chain_length")
        if self.chain_length > self.nfs:
            raise InputError(f"a chain no longer than nfs ({self.nfs})", self.chain_length,
                             field="chain_length")
        check_frame(self.packet_size, "packet_size")
        if (self.rate_mpps is None) == (self.rate_gbps is None):
            raise InputError("a packet rate or a bit rate, one of them", "both" if self.rate_mpps
                             is not None else "neither", field="rate_mpps")
        rate = self.rate_mpps if self.rate_mpps is not None else self.rate_gbps
        field = "rate_mpps" if self.rate_mpps is not None else "rate_gbps"
        if not (isinstance(rate, (int, float)) and math.isfinite(rate) and rate > 0):
            raise InputError("a rate > 0", rate, field=field)
        if not 1 <= self.flows <= limits.MAX_FLOWS:
            raise InputError(f"1..{limits.MAX_FLOWS} flows", self.flows, field="flows")
        self.wake                                   # InputError naming wake_FIELD

    @property
    def rate_pps(self) -> float:
        if self.rate_mpps is not None:
            return self.rate_mpps * 1e6
        return units.line_rate_pps(self.rate_gbps * 1e9, self.packet_size)

    @property
    def chains(self) -> list[list[int]]:
        """Chain c takes NFs cK .. cK+K-1 (mod N): every NF is in a chain; consecutive
        packets go to different chains, as in the paper's tests (Sec. V)."""
        n, k = self.nfs, self.chain_length
        return [[(c * k + j) % n for j in range(k)] for c in range(math.ceil(n / k))]


def check_frame(frame_bytes: int, field: str = "frame_bytes") -> None:
    """A frame the data plane carries (generator, mbufs), else InputError naming ``field``."""
    if not limits.MIN_FRAME <= frame_bytes <= limits.MAX_FRAME:
        raise InputError(f"a frame size of {limits.MIN_FRAME}..{limits.MAX_FRAME} B",
                         frame_bytes, field=field)


def check_run(*, arch: str, duration_s: float, cpus: dict[str, int]) -> None:
    """What every run needs: an architecture, a duration, CPUs this machine has."""
    if arch not in ARCHS:
        raise InputError(" or ".join([", ".join(ARCHS[:-1]), ARCHS[-1]]), arch, field="arch")
    if not (math.isfinite(duration_s) and 0 < duration_s <= 3600):
        raise InputError("0 < seconds ≤ 3600", duration_s, field="duration_s")
    n = os.cpu_count() or 1
    for name, cpu in cpus.items():
        if not 0 <= cpu < n:
            raise InputError(f"a CPU number 0..{n - 1}", cpu, field=name)


def run(cfg: RunConfig, progress: Callable[[str, int, int], None] | None = None) -> RunReport:
    """Run the data plane once and return the merged result (report.RunReport)."""
    cfg.validate()
    need_binaries("vswitch", "gen", f"nf-{cfg.nf}")
    names = [f"nf{i}" for i in range(cfg.nfs)]
    chains = cfg.chains
    with Session(cfg.arch, vswitch_cpu=cfg.vswitch_cpu, max_nfs=max(cfg.nfs, 16),
                 wake=cfg.wake) as s:
        s.add_nfs(cfg.nf, names, cpu=cfg.nf_cpu, progress=progress)
        for c, members in enumerate(chains):
            s.set_chain(c, [names[i] for i in members])
        pids = [s.nfs[n].pid for n in names]
        cpu0 = [cpu_seconds(p) for p in pids]
        s.start_traffic(rate_pps=cfg.rate_pps, frame_bytes=cfg.packet_size, flows=cfg.flows,
                        macs=[chain_mac(c) for c in range(len(chains))],
                        duration_s=cfg.duration_s, cpu=cfg.gen_cpu, mpls=cfg.nf == "mpls",
                        fdir=cfg.arch == "fdir")
        gen_report = s.wait_traffic(progress)
        cpu1 = [cpu_seconds(p) for p in pids]
        wall = s.gen_wall_s
        report = s.close()
    shares = [None if a is None or b is None else (b - a) / wall
              for a, b in zip(cpu0, cpu1, strict=True)]
    return merge(cfg, report, gen_report, shares)


def _mean_batch(hist: list[int], skip_zero: bool) -> float | None:
    pairs = [(i, c) for i, c in enumerate(hist) if c and (i > 0 or not skip_zero)]
    n = sum(c for _, c in pairs)
    return sum(i * c for i, c in pairs) / n if n else None


def dropped_of(gen: dict, vs: dict) -> dict:
    """Where packets were dropped: at the generator's port, and the vSwitch's counts."""
    return {"port_rx": gen["tx_dropped"], **{k: v for k, v in vs["dropped"].items()
                                             if k != "in_flight_at_stop"}}


def stall_window(vs: dict, gen: dict | None = None) -> tuple[list[float], float]:
    """The vSwitch loop's stalls (µs: the host took its CPU for over
    ``limits.STALL_GAP_US``; the first ``limits.STALLS_KEPT``) while the generator sent, and
    the seconds it sent (the vSwitch's whole run where the generator reports no window)."""
    st = vs.get("stalls") or {"durations_us": []}
    d, ends = st["durations_us"], st.get("end_tsc") or []
    if gen and gen.get("end_tsc") and len(ends) == len(d):
        lo, hi, hz = gen["start_tsc"], gen["end_tsc"], gen["tsc_hz"]
        return ([x for x, e in zip(d, ends) if lo < e and e - x * 1e-6 * hz < hi],
                (hi - lo) / hz)
    return d, vs.get("elapsed_s") or 0.0


def stalls_of(vs: dict, gen: dict | None = None) -> dict:
    """``stall_window``'s stalls: how many a second, the share of the time they took, the
    longest, and their lengths (``hostmodel.quantiles``)."""
    from nfvperf.hostmodel import quantiles

    d, secs = stall_window(vs, gen)
    secs = max(secs, 1e-9)
    return {"count": len(d), "per_s": len(d) / secs, "time_share": sum(d) / 1e6 / secs,
            "longest_us": max(d, default=0.0), "durations_us": quantiles(d)}


def latency_us(ns: dict, keys=("mean", "p50", "p99")) -> dict:
    """A latency summary in ns (None where nothing was measured) in µs."""
    return {k: (None if ns[k] is None else ns[k] / 1e3) for k in keys}


def per_nf_of(vs: dict, cpu_shares: list[float | None]) -> list[PerNF]:
    """The vSwitch's NF reports with what follows from them (``report.PerNF``): wake-ups a
    packet, packets a wake-up, and each process's CPU share (None: not measured)."""
    return [{**nf, **per_wake(nf["rx"], nf["wakeups"]), "cpu_share": share}
            for nf, share in zip(vs["per_nf"], cpu_shares, strict=True)]


def merge(cfg: RunConfig, vs: dict, gen: dict, cpu_shares: list[float | None]) -> RunReport:
    """One result from the vSwitch's and the generator's reports (the JSON contract:
    ``report.RunReport``)."""
    wire_bits = units.wire_bits(cfg.packet_size)
    dur = gen["duration_s"]
    dropped = dropped_of(gen, vs)
    in_flight = vs["dropped"]["in_flight_at_stop"]
    offered = gen["sent"] + gen["tx_dropped"]
    accounted = gen["received"] + sum(dropped.values()) + in_flight
    lat = gen["latency_ns"]
    per_nf = per_nf_of(vs, cpu_shares)
    return {
        **{k: v for k, v in asdict(cfg).items() if k not in ("rate_mpps", "rate_gbps")},
        "chains": len(cfg.chains),
        "requested_mpps": cfg.rate_pps / 1e6,
        "offered_mpps": offered / dur / 1e6,
        "offered_gbps": offered / dur * wire_bits / 1e9,
        "delivered_mpps": gen["received"] / dur / 1e6,
        "delivered_gbps": gen["received"] / dur * wire_bits / 1e9,
        "offered_packets": offered,
        "delivered_packets": gen["received"],
        "dropped": dropped,
        "in_flight_at_stop": in_flight,
        "conservation": {"offered": offered, "accounted": accounted,
                         "balanced": offered == accounted},
        "latency_us": latency_us(lat, ("mean", "p50", "p90", "p99", "p999", "max")),
        "pool": {"size": vs["pool"]["size"], "free_at_end": vs["pool"]["free"],
                 "all_returned": vs["pool"]["free"] == vs["pool"]["size"]},
        "vswitch": {"rx_batch_mean": _mean_batch(vs["rx_batch_hist"], skip_zero=True),
                    "nf_batch_mean": _mean_batch(vs["nf_batch_hist"], skip_zero=True),
                    "rx_batch_hist": vs["rx_batch_hist"], "nf_batch_hist": vs["nf_batch_hist"],
                    "loops": vs["loops"], "stalls": stalls_of(vs, gen),
                    "wakes": vs.get("wakes")},
        "per_nf": per_nf,
    }


