"""One run of the data plane: start the vSwitch, the NFs and the generator, program the chains,
stop everything, and merge the three processes' reports into one result.

Cores: the vSwitch polls on a CPU of its own (``vswitch_cpu``); the NFs share another
(``nf_cpu``), as in the paper where many NFs share few cores; the generator runs beside the NFs
by default, since a 2-core machine has no third CPU (the paper used separate machines).
"""

from __future__ import annotations

import glob
import json
import math
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from nfvperf.dataplane.build import ARCHS, HUGEPAGES, NFS, binaries, hugepages
from nfvperf.errors import InputError, RuntimeFailure

WIRE_OVERHEAD_BYTES = 20  # preamble and inter-frame gap


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
    wake_batch: int = 32
    wake_timeout_us: int = 100

    def validate(self) -> None:
        if self.arch not in ARCHS:
            raise InputError(" or ".join([", ".join(ARCHS[:-1]), ARCHS[-1]]), self.arch,
                             field="--arch")
        if self.nf not in NFS:
            raise InputError(", ".join(NFS), self.nf, field="--nf")
        if not 1 <= self.nfs <= 8192:
            raise InputError("1..8192 NFs", self.nfs, field="--nfs")
        if not 1 <= self.chain_length <= 16:
            raise InputError("1..16", self.chain_length, field="--chain-length")
        if self.chain_length > self.nfs:
            raise InputError(f"a chain no longer than --nfs ({self.nfs})", self.chain_length,
                             field="--chain-length")
        if not 64 <= self.packet_size <= 1518:
            raise InputError("a frame size of 64..1518 B", self.packet_size,
                             field="--packet-size")
        if (self.rate_mpps is None) == (self.rate_gbps is None):
            raise InputError("one of --rate-mpps or --rate-gbps", "both" if self.rate_mpps
                             is not None else "neither", field="rate")
        rate = self.rate_mpps if self.rate_mpps is not None else self.rate_gbps
        field = "--rate-mpps" if self.rate_mpps is not None else "--rate-gbps"
        if not (isinstance(rate, (int, float)) and math.isfinite(rate) and rate > 0):
            raise InputError("a rate > 0", rate, field=field)
        if not 1 <= self.flows <= 1 << 24:
            raise InputError("1..16777216 flows", self.flows, field="--flows")
        if not (math.isfinite(self.duration_s) and 0 < self.duration_s <= 3600):
            raise InputError("0 < seconds ≤ 3600", self.duration_s, field="--duration")
        cpus = os.cpu_count() or 1
        for name in ("vswitch_cpu", "nf_cpu", "gen_cpu"):
            if not 0 <= getattr(self, name) < cpus:
                raise InputError(f"a CPU number 0..{cpus - 1}", getattr(self, name),
                                 field="--" + name.replace("_", "-"))

    @property
    def rate_pps(self) -> float:
        if self.rate_mpps is not None:
            return self.rate_mpps * 1e6
        return self.rate_gbps * 1e9 / ((self.packet_size + WIRE_OVERHEAD_BYTES) * 8)

    @property
    def chains(self) -> list[list[int]]:
        """Chain c takes NFs cK .. cK+K-1 (mod N): every NF is in a chain; consecutive
        packets go to different chains, as in the paper's tests (Sec. V)."""
        n, k = self.nfs, self.chain_length
        return [[(c * k + j) % n for j in range(k)] for c in range(math.ceil(n / k))]


def chain_mac(c: int) -> str:
    return f"02:00:00:{(c >> 16) & 255:02x}:{(c >> 8) & 255:02x}:{c & 255:02x}"


class Control:
    """The vSwitch's control socket: one text message out, one back."""

    def __init__(self, path: Path) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.sock.settimeout(10)
        self.sock.connect(str(path))

    def call(self, msg: str) -> str:
        self.sock.send(msg.encode())
        reply = self.sock.recv(65536).decode()
        if not reply.startswith("ok"):
            raise RuntimeFailure(f"dataplane: the vSwitch answered `{msg}` with: {reply}")
        return reply

    def status(self) -> dict[str, int]:
        return {k: int(v) for k, v in (f.split("=") for f in self.call("status").split()[1:])}

    def close(self) -> None:
        self.sock.close()


class _Processes:
    """Every process of a run, so that a failure anywhere stops them all."""

    def __init__(self) -> None:
        self.procs: list[subprocess.Popen] = []

    def start(self, cmd: list[str], **kw: Any) -> subprocess.Popen:
        p = subprocess.Popen(cmd, **kw)
        self.procs.append(p)
        return p

    def stop(self, procs: list[subprocess.Popen] | None = None, timeout: float = 10) -> None:
        procs = self.procs if procs is None else procs
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + timeout
        for p in procs:
            try:
                p.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def _cpu_seconds(pid: int) -> float | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _wait_for(what: str, check: Callable[[], bool], timeout: float,
              alive: subprocess.Popen, err: Path) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if alive.poll() is not None:
            raise RuntimeFailure(f"dataplane: the vSwitch stopped while waiting for {what}: "
                                 f"{_last_line(err)}")
        if time.monotonic() > deadline:
            raise RuntimeFailure(f"dataplane: no {what} after {timeout:.0f} s")
        time.sleep(0.02)


def _last_line(path: Path) -> str:
    try:
        lines = [ln for ln in path.read_text(errors="replace").splitlines() if ln.strip()
                 and "TELEMETRY" not in ln]
    except OSError:
        return "(no output)"
    return lines[-1] if lines else "(no output)"


def _check_host(cfg: RunConfig) -> dict[str, Path]:
    bins = binaries()
    needed = [bins["vswitch"], bins["gen"], bins[f"nf-{cfg.nf}"]]
    absent = [p.name for p in needed if not p.is_file()]
    if absent:
        raise RuntimeFailure(f"dataplane: {', '.join(absent)} not built (try: nfvperf "
                             "dataplane build)")
    total, free, mounted = hugepages()
    if not mounted or free < 128:
        raise RuntimeFailure(f"dataplane: {free} free hugepages"
                             f"{'' if mounted else ', hugetlbfs not mounted'} "
                             f"(try: {HUGEPAGES})")
    return bins


def run(cfg: RunConfig, progress: Callable[[str, int, int], None] | None = None) -> dict:
    """Run the data plane once and return the merged result (see the README's JSON keys)."""
    cfg.validate()
    bins = _check_host(cfg)
    say = progress or (lambda what, done, total: None)
    tmp = Path(tempfile.mkdtemp(prefix="nfvp-"))
    prefix = f"nfvp{os.getpid()}x{int(time.time() * 1000) % 100000}"
    ctl, vs_json, gen_json = tmp / "ctl.sock", tmp / "vswitch.json", tmp / "gen.json"
    procs = _Processes()
    eal = ["--no-pci", "--file-prefix", prefix, "--log-level", "lib.eal:error"]
    try:
        vs_err = tmp / "vswitch.err"
        vs = procs.start(
            [str(bins["vswitch"]), "-l", str(cfg.vswitch_cpu), "-m", "64", *eal, "--",
             "--arch", cfg.arch, "--ctl", str(ctl), "--stats-out", str(vs_json),
             "--max-nfs", str(max(cfg.nfs, 16)), "--wake-batch", str(cfg.wake_batch),
             "--wake-timeout-us", str(cfg.wake_timeout_us)],
            stdout=subprocess.DEVNULL, stderr=vs_err.open("w"))
        _wait_for("control socket", ctl.exists, 30, vs, vs_err)
        control = Control(ctl)
        nf_err = (tmp / "nfs.err").open("w")
        nf_procs = []
        for i in range(cfg.nfs):
            nf_procs.append(procs.start(
                [str(bins[f"nf-{cfg.nf}"]), "--ctl", str(ctl), "--name", f"nf{i}",
                 "--cpu", str(cfg.nf_cpu)], stdout=subprocess.DEVNULL, stderr=nf_err))
            say("starting NFs", i + 1, cfg.nfs)
        _wait_for(f"{cfg.nfs} attached NFs", lambda: control.status()["nfs"] >= cfg.nfs,
                  30 + 0.05 * cfg.nfs, vs, vs_err)
        chains = cfg.chains
        for c, members in enumerate(chains):
            control.call(f"chain add {c} {chain_mac(c)} 1 {','.join(f'nf{i}' for i in members)}")
        cpu0 = [_cpu_seconds(p.pid) for p in nf_procs]
        t0 = time.monotonic()
        gen_err = tmp / "gen.err"
        gen = procs.start(
            [str(bins["gen"]), "-l", str(cfg.gen_cpu), "--proc-type=secondary", *eal, "--",
             "--ctl", str(ctl), "--rate-pps", f"{cfg.rate_pps:.0f}", "--frame-bytes",
             str(cfg.packet_size), "--flows", str(cfg.flows), "--duration", str(cfg.duration_s),
             "--macs", ",".join(chain_mac(c) for c in range(len(chains))),
             "--stats-out", str(gen_json)]
            + (["--mpls"] if cfg.nf == "mpls" else []) + (["--fdir"] if cfg.arch == "fdir"
                                                          else []),
            stdout=subprocess.DEVNULL, stderr=gen_err.open("w"))
        while gen.poll() is None:
            elapsed = time.monotonic() - t0
            say("running", min(int(elapsed * 10), int(cfg.duration_s * 10)),
                int(cfg.duration_s * 10))
            if elapsed > cfg.duration_s + 60:
                raise RuntimeFailure("dataplane: the generator did not stop")
            time.sleep(0.05)
        wall = time.monotonic() - t0
        cpu1 = [_cpu_seconds(p.pid) for p in nf_procs]
        if gen.returncode != 0 or not gen_json.exists():
            raise RuntimeFailure(f"dataplane: the generator failed: {_last_line(gen_err)}")
        control.call("quit")
        control.close()
        vs.wait(60)
        if vs.returncode != 0 or not vs_json.exists():
            raise RuntimeFailure(f"dataplane: the vSwitch failed: {_last_line(vs_err)}")
        procs.stop(nf_procs)
        report = json.loads(vs_json.read_text())
        gen_report = json.loads(gen_json.read_text())
    finally:
        procs.stop()
        shutil.rmtree(tmp, ignore_errors=True)
        for leftover in glob.glob(f"/dev/hugepages/{prefix}*") + glob.glob(
                f"/var/run/dpdk/{prefix}"):
            shutil.rmtree(leftover, ignore_errors=True) if os.path.isdir(leftover) \
                else os.unlink(leftover)
    shares = [None if a is None or b is None else (b - a) / wall for a, b in zip(cpu0, cpu1)]
    return merge(cfg, report, gen_report, shares)


def _mean_batch(hist: list[int], skip_zero: bool) -> float | None:
    pairs = [(i, c) for i, c in enumerate(hist) if c and (i > 0 or not skip_zero)]
    n = sum(c for _, c in pairs)
    return sum(i * c for i, c in pairs) / n if n else None


def merge(cfg: RunConfig, vs: dict, gen: dict, cpu_shares: list[float | None]) -> dict:
    """One result from the vSwitch's and the generator's reports (the JSON contract)."""
    wire_bits = (cfg.packet_size + WIRE_OVERHEAD_BYTES) * 8
    dur = gen["duration_s"]
    dropped = {"port_rx": gen["tx_dropped"], **{k: v for k, v in vs["dropped"].items()
                                                if k != "in_flight_at_stop"}}
    in_flight = vs["dropped"]["in_flight_at_stop"]
    offered = gen["sent"] + gen["tx_dropped"]
    accounted = gen["received"] + sum(dropped.values()) + in_flight
    lat = gen["latency_ns"]
    per_nf = [{**nf, "cpu_share": share} for nf, share in zip(vs["per_nf"], cpu_shares)]
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
        "latency_us": {k: (None if lat[k] is None else lat[k] / 1e3)
                       for k in ("mean", "p50", "p90", "p99", "p999", "max")},
        "pool": {"size": vs["pool"]["size"], "free_at_end": vs["pool"]["free"],
                 "all_returned": vs["pool"]["free"] == vs["pool"]["size"]},
        "vswitch": {"rx_batch_mean": _mean_batch(vs["rx_batch_hist"], skip_zero=True),
                    "nf_batch_mean": _mean_batch(vs["nf_batch_hist"], skip_zero=True),
                    "rx_batch_hist": vs["rx_batch_hist"], "nf_batch_hist": vs["nf_batch_hist"],
                    "loops": vs["loops"]},
        "per_nf": per_nf,
    }
