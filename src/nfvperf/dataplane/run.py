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

from nfvperf import limits, units
from nfvperf.dataplane.build import ARCHS, HUGEPAGES, NFS, RUN_NFS, binaries, hugepages
from nfvperf.errors import InputError, RuntimeFailure



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
            raise InputError("one of rate_mpps or rate_gbps", "both" if self.rate_mpps
                             is not None else "neither", field="rate")
        rate = self.rate_mpps if self.rate_mpps is not None else self.rate_gbps
        field = "rate_mpps" if self.rate_mpps is not None else "rate_gbps"
        if not (isinstance(rate, (int, float)) and math.isfinite(rate) and rate > 0):
            raise InputError("a rate > 0", rate, field=field)
        if not 1 <= self.flows <= limits.MAX_FLOWS:
            raise InputError(f"1..{limits.MAX_FLOWS} flows", self.flows, field="flows")

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


def chain_mac(c: int) -> str:
    return f"02:00:00:{(c >> 16) & 255:02x}:{(c >> 8) & 255:02x}:{c & 255:02x}"


class Control:
    """The vSwitch's control socket: one text message out, one back."""

    def __init__(self, path: Path) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.sock.settimeout(10)
        try:
            self.sock.connect(str(path))
        except OSError:
            self.sock.close()
            raise

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


def _instances(names: list[str], weights: list[int] | None) -> str:
    if weights is None:
        return ",".join(names)
    return ",".join(f"{n}:{w}" for n, w in zip(names, weights, strict=True))


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


def _last_line(path: Path) -> str:
    try:
        lines = [ln for ln in path.read_text(errors="replace").splitlines() if ln.strip()
                 and "TELEMETRY" not in ln]
    except OSError:
        return "(no output)"
    return lines[-1] if lines else "(no output)"


def _need(*names: str) -> dict[str, Path]:
    bins = binaries()
    absent = [bins[n].name for n in names if not bins[n].is_file()]
    if absent:
        raise RuntimeFailure(f"dataplane: {', '.join(absent)} not built (try: nfvperf "
                             "dataplane build)")
    total, free, mounted = hugepages()
    if not mounted or free < 128:
        raise RuntimeFailure(f"dataplane: {free} free hugepages"
                             f"{'' if mounted else ', hugetlbfs not mounted'} "
                             f"(try: {HUGEPAGES})")
    return bins


class Session:
    """A running data plane: the vSwitch, then NFs, chains and traffic, step by step.

    ``with Session("semaphore") as s:`` starts the vSwitch; ``add_nfs``, ``set_chain``,
    ``start_traffic``/``wait_traffic``, ``kill_nf`` and ``stats`` drive it; ``close()`` stops
    it and returns its final report. Leaving the block by an exception stops every process and
    removes the run's files (sockets, hugepage files), so nothing is left running.
    """

    def __init__(self, arch: str, *, vswitch_cpu: int = 0, max_nfs: int = 64,
                 wake_batch: int = 32, wake_timeout_us: int = 100,
                 vdevs: tuple[str, ...] = (), ring_ports: int = 2, rx_ports: int = 0,
                 rx_hold: bool = False) -> None:
        self.bins = _need("vswitch")
        self.arch = arch
        self.tmp = Path(tempfile.mkdtemp(prefix="nfvp-"))
        self.prefix = f"nfvp{os.getpid()}x{int(time.time() * 1000) % 100000}"
        self.ctl_path = self.tmp / "ctl.sock"
        self.procs = _Processes()
        self.nfs: dict[str, subprocess.Popen] = {}
        self.eal = ["--no-pci", "--file-prefix", self.prefix, "--log-level", "lib.eal:error"]
        self.logs: list = []        # the processes' stderr files, closed by abort()
        self.vs_err = self.tmp / "vswitch.err"
        self.nf_err = self._log("nfs.err")
        self.gen: subprocess.Popen | None = None
        self.final: dict | None = None
        vdev_args = [a for v in vdevs for a in ("--vdev", v)]
        self.vs = self.procs.start(
            [str(self.bins["vswitch"]), "-l", str(vswitch_cpu), "-m", "64", *self.eal,
             *vdev_args, "--", "--ring-ports", str(ring_ports), "--rx-ports", str(rx_ports),
             *(["--rx-hold"] if rx_hold else []),
             "--arch", arch, "--ctl", str(self.ctl_path), "--stats-out",
             str(self.tmp / "vswitch.json"), "--max-nfs", str(max_nfs), "--wake-batch",
             str(wake_batch), "--wake-timeout-us", str(wake_timeout_us)],
            stdout=subprocess.DEVNULL, stderr=self._log("vswitch.err"))
        try:
            self._wait_for("control socket", self._connect, 30)
        except BaseException:
            self.abort()
            raise

    def _log(self, name: str):
        """A file in the run's folder for a process's stderr; abort() closes it."""
        f = (self.tmp / name).open("w")
        self.logs.append(f)
        return f

    def _connect(self) -> bool:
        """Connect to the control socket once the vSwitch listens on it (the file appears at
        bind(), a moment before listen(): a connect in between is refused)."""
        if not self.ctl_path.exists():
            return False
        try:
            self.control = Control(self.ctl_path)
        except ConnectionRefusedError:
            return False
        return True

    def __enter__(self) -> Session:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is not None or self.final is None:
            self.abort()

    def _wait_for(self, what: str, check: Callable[[], bool], timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not check():
            if self.vs.poll() is not None:
                raise RuntimeFailure(f"dataplane: the vSwitch stopped while waiting for "
                                     f"{what}: {_last_line(self.vs_err)}")
            if time.monotonic() > deadline:
                raise RuntimeFailure(f"dataplane: no {what} after {timeout:.0f} s")
            time.sleep(0.02)

    def add_nfs(self, kind: str, names: list[str], *, cpu: int = 1, args: tuple[str, ...] = (),
                progress: Callable[[str, int, int], None] | None = None) -> None:
        """Start NF processes of one kind and wait until all have attached."""
        binary = _need(f"nf-{kind}")[f"nf-{kind}"]
        before = self.control.status()["nfs"]
        for i, name in enumerate(names):
            cmd = [str(binary), "--ctl", str(self.ctl_path), "--name", name, "--cpu", str(cpu)]
            self.nfs[name] = self.procs.start(cmd + (["--", *args] if args else []),
                                              stdout=subprocess.DEVNULL, stderr=self.nf_err)
            if progress:
                progress("starting NFs", i + 1, len(names))
        started = [self.nfs[n] for n in names]

        def attached() -> bool:
            dead = next((p for p in started if p.poll() is not None), None)
            if dead is not None:
                raise RuntimeFailure(f"dataplane: an NF exited while attaching: "
                                     f"{_last_line(Path(self.nf_err.name))}")
            return self.control.status()["nfs"] >= before + len(names)

        self._wait_for(f"{len(names)} attached NFs", attached, 30 + 0.05 * len(names))

    def set_chain(self, chain: int, nfs: list[str], *, out_port: int = 1,
                  mac: str | None = None) -> None:
        """Chain ``chain``: packets to ``mac`` (default: chain_mac(chain)) go through ``nfs``
        and out of ``out_port``; a chain of that id is replaced, at run time."""
        self.control.call(f"chain add {chain} {mac or chain_mac(chain)} {out_port} "
                          f"{','.join(nfs)}")

    def add_service(self, name: str, instances: list[str], *, policy: str = "flow",
                    stateless: bool = False, cost: str = "packets", large_bytes: int = 512,
                    weights: list[int] | None = None) -> None:
        """A service: a chain step served by the attached NFs ``instances``, the vSwitch
        spreading its packets by ``policy`` (flow, weighted, round-robin, nf-aware; see
        dataplane/vswitch/service.c). Chains name it like an NF."""
        self.control.call(f"service add {name} {policy} "
                          f"{'stateless' if stateless else 'stateful'} {cost} {large_bytes} "
                          f"{_instances(instances, weights)}")

    def set_service(self, name: str, instances: list[str],
                    weights: list[int] | None = None) -> dict[str, int]:
        """Change a service's instances while traffic runs; flows keep their instance unless
        it is removed. Returns what the change did to the flows pinned so far: ``flows``,
        ``moved`` (those of removed instances), ``hash_moved`` (those whose Maglev choice
        changed) and ``mod_moved`` (those hash mod n would have moved); and ``dispatched``, the
        packets the service had placed before the change."""
        reply = self.control.call(f"service set {name} {_instances(instances, weights)}")
        return {k: int(v) for k, v in (f.split("=") for f in reply.split()[1:])}

    def start_rx(self) -> None:
        """With ``rx_hold``: let the vSwitch take packets from its ports from now on."""
        self.control.call("start")

    def default_chain(self, chain: int | None) -> None:
        """Send packets whose destination MAC no chain has to ``chain`` (None: drop them)."""
        self.control.call(f"chain default {'none' if chain is None else chain}")

    def del_chain(self, chain: int) -> None:
        self.control.call(f"chain del {chain}")

    def kill_nf(self, name: str, sig: int = signal.SIGKILL) -> None:
        """Kill an NF as a crash would; the vSwitch sees its control connection close."""
        p = self.nfs.pop(name)
        p.send_signal(sig)
        p.wait(10)

    def status(self) -> dict[str, int]:
        return self.control.status()

    def stats(self) -> dict:
        """The vSwitch's report now, while it runs."""
        path = self.tmp / f"stats-{time.monotonic_ns()}.json"
        self.control.call(f"stats {path}")
        return json.loads(path.read_text())

    def port_rate(self, port: int, seconds: float) -> float:
        """Packets per second sent on a port over the next ``seconds`` (steady state)."""
        a = self.stats()
        time.sleep(seconds)
        b = self.stats()
        sent = b["ports"][port]["tx"] - a["ports"][port]["tx"]
        return sent / (b["elapsed_s"] - a["elapsed_s"])

    def start_traffic(self, *, rate_pps: float, frame_bytes: int, macs: list[str],
                      duration_s: float, flows: int = 1, cpu: int = 1, mpls: bool = False,
                      fdir: bool = False, extra: tuple[str, ...] = (),
                      idle: str = "sleep",
                      classes: list[tuple[int, float, int]] | None = None) -> None:
        """Start nfvp-gen; ``extra`` are more of its options (``--dst-ip-count`` ...).
        ``classes``: flow classes (frame bytes, pps, flows) sent together, instead of
        ``frame_bytes``, ``rate_pps`` and ``flows``; the report has a row per class."""
        if classes:
            extra = (*extra, *(a for b, r, f in classes
                               for a in ("--class", f"{b}:{r:.0f}:{f}")))
        bins = _need("gen")
        self.gen_json = self.tmp / "gen.json"
        self.gen_json.unlink(missing_ok=True)
        self.gen_err = self.tmp / "gen.err"
        self.gen_duration = duration_s
        self.gen = self.procs.start(
            [str(bins["gen"]), "-l", str(cpu), "--proc-type=secondary", *self.eal, "--",
             "--ctl", str(self.ctl_path), "--rate-pps", f"{rate_pps:.0f}", "--frame-bytes",
             str(frame_bytes), "--flows", str(flows), "--duration", str(duration_s),
             "--macs", ",".join(macs), "--stats-out", str(self.gen_json)]
            + ["--idle", idle] + (["--mpls"] if mpls else []) + (["--fdir"] if fdir else [])
            + list(extra),
            stdout=subprocess.DEVNULL, stderr=self._log("gen.err"))
        self.gen_t0 = time.monotonic()

    def wait_traffic(self, progress: Callable[[str, int, int], None] | None = None) -> dict:
        """Wait for the generator to finish; its report (sent, received, latency)."""
        assert self.gen is not None, "start_traffic first"
        tenths = max(1, int(self.gen_duration * 10))
        while self.gen.poll() is None:
            elapsed = time.monotonic() - self.gen_t0
            if progress:
                progress("running", min(int(elapsed * 10), tenths), tenths)
            if elapsed > self.gen_duration + 60:
                raise RuntimeFailure("dataplane: the generator did not stop")
            time.sleep(0.05)
        self.gen_wall_s = time.monotonic() - self.gen_t0
        if self.gen.returncode != 0 or not self.gen_json.exists():
            raise RuntimeFailure(f"dataplane: the generator failed: {_last_line(self.gen_err)}")
        return json.loads(self.gen_json.read_text())

    def close(self) -> dict:
        """Drain, stop the vSwitch and the NFs; the vSwitch's final report."""
        self.control.call("quit")
        self.control.close()
        self.vs.wait(60)
        report = self.tmp / "vswitch.json"
        if self.vs.returncode != 0 or not report.exists():
            raise RuntimeFailure(f"dataplane: the vSwitch failed: {_last_line(self.vs_err)}")
        self.final = json.loads(report.read_text())
        self.abort()
        return self.final

    def abort(self) -> None:
        """Stop every process of the run and remove its files."""
        self.procs.stop()
        for f in self.logs:
            f.close()
        self.logs.clear()
        shutil.rmtree(self.tmp, ignore_errors=True)
        for leftover in glob.glob(f"/dev/hugepages/{self.prefix}*"):
            os.unlink(leftover)
        shutil.rmtree(f"/var/run/dpdk/{self.prefix}", ignore_errors=True)


def run(cfg: RunConfig, progress: Callable[[str, int, int], None] | None = None) -> dict:
    """Run the data plane once and return the merged result (see the README's JSON keys)."""
    cfg.validate()
    _need("vswitch", "gen", f"nf-{cfg.nf}")
    names = [f"nf{i}" for i in range(cfg.nfs)]
    chains = cfg.chains
    with Session(cfg.arch, vswitch_cpu=cfg.vswitch_cpu, max_nfs=max(cfg.nfs, 16),
                 wake_batch=cfg.wake_batch, wake_timeout_us=cfg.wake_timeout_us) as s:
        s.add_nfs(cfg.nf, names, cpu=cfg.nf_cpu, progress=progress)
        for c, members in enumerate(chains):
            s.set_chain(c, [names[i] for i in members])
        pids = [s.nfs[n].pid for n in names]
        cpu0 = [_cpu_seconds(p) for p in pids]
        s.start_traffic(rate_pps=cfg.rate_pps, frame_bytes=cfg.packet_size, flows=cfg.flows,
                        macs=[chain_mac(c) for c in range(len(chains))],
                        duration_s=cfg.duration_s, cpu=cfg.gen_cpu, mpls=cfg.nf == "mpls",
                        fdir=cfg.arch == "fdir")
        gen_report = s.wait_traffic(progress)
        cpu1 = [_cpu_seconds(p) for p in pids]
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


def latency_us(ns: dict, keys=("mean", "p50", "p99")) -> dict:
    """A latency summary in ns (None where nothing was measured) in µs."""
    return {k: (None if ns[k] is None else ns[k] / 1e3) for k in keys}


def merge(cfg: RunConfig, vs: dict, gen: dict, cpu_shares: list[float | None]) -> dict:
    """One result from the vSwitch's and the generator's reports (the JSON contract)."""
    wire_bits = units.wire_bits(cfg.packet_size)
    dur = gen["duration_s"]
    dropped = dropped_of(gen, vs)
    in_flight = vs["dropped"]["in_flight_at_stop"]
    offered = gen["sent"] + gen["tx_dropped"]
    accounted = gen["received"] + sum(dropped.values()) + in_flight
    lat = gen["latency_ns"]
    per_nf = [{**nf, "cpu_share": share}
              for nf, share in zip(vs["per_nf"], cpu_shares, strict=True)]
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
                    "loops": vs["loops"]},
        "per_nf": per_nf,
    }


def replay(pcap_in: Path, capture: Path, *, nf: str = "forward", chain_length: int = 1,
           arch: str = "double-buffer", nf_args: tuple[str, ...] = ()) -> dict:
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
            "per_nf": report["per_nf"], "capture": str(capture)}
