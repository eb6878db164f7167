"""A running data plane, step by step: the vSwitch (a DPDK primary process) started on a CPU of
its own, NF processes attached over its control socket, chains and services programmed, the
generator's traffic sent and read back, every process stopped and every file of the run
removed at the end, whatever happens.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from nfvperf import limits
from nfvperf.dataplane.build import HUGEPAGES, binaries, hugepages
from nfvperf.dataplane.watch import at_traffic_edge
from nfvperf.wake import Wake
from nfvperf.errors import RuntimeFailure


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


def cpu_seconds(pid: int) -> float | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _stopped(pid: int) -> bool:
    """Whether the kernel shows ``pid`` stopped (or gone)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] in "tT"
    except (OSError, IndexError):
        return True


def _last_line(path: Path) -> str:
    try:
        lines = [ln for ln in path.read_text(errors="replace").splitlines() if ln.strip()
                 and "TELEMETRY" not in ln]
    except OSError:
        return "(no output)"
    return lines[-1] if lines else "(no output)"


def need_binaries(*names: str) -> dict[str, Path]:
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
                 wake: Wake | None = None,
                 vdevs: tuple[str, ...] = (), ring_ports: int = 2, rx_ports: int = 0,
                 rx_hold: bool = False) -> None:
        self.bins = need_binaries("vswitch")
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
        self.samples: list[dict] = []   # the vSwitch's reports during the last traffic
        self.final: dict | None = None
        vdev_args = [a for v in vdevs for a in ("--vdev", v)]
        self.vs = self.procs.start(
            [str(self.bins["vswitch"]), "-l", str(vswitch_cpu), "-m", "64", *self.eal,
             *vdev_args, "--", "--ring-ports", str(ring_ports), "--rx-ports", str(rx_ports),
             *(["--rx-hold"] if rx_hold else []),
             "--arch", arch, "--ctl", str(self.ctl_path), "--stats-out",
             str(self.tmp / "vswitch.json"), "--max-nfs", str(max_nfs),
             *(wake or Wake()).vswitch_args()],
            stdout=subprocess.DEVNULL, stderr=self._log("vswitch.err"))
        try:
            self._wait_for("control socket", self._connect, 30)
        except BaseException:
            self.abort()
            raise

    @contextmanager
    def paused(self, timeout: float = 2.0) -> Iterator[None]:
        """Every running process of the session stopped (SIGSTOP, waited for until the kernel
        shows it stopped) for the block, then let go (SIGCONT): a measurement of the machine
        itself then has the CPUs to itself."""
        live = [p for p in self.procs.procs if p.poll() is None]
        for p in live:
            p.send_signal(signal.SIGSTOP)
        try:
            deadline = time.monotonic() + timeout
            while not all(_stopped(p.pid) for p in live if p.poll() is None) \
                    and time.monotonic() < deadline:
                time.sleep(0.002)
            yield
        finally:
            for p in live:
                if p.poll() is None:
                    p.send_signal(signal.SIGCONT)

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
        binary = need_binaries(f"nf-{kind}")[f"nf-{kind}"]
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

    def port_chain(self, port: int, chain: int | None) -> None:
        """Send every packet that arrives on ``port`` to ``chain``, whatever its MAC (a bump in
        the wire between kernel interfaces); None: by MAC again."""
        self.control.call(f"chain port {port} {'none' if chain is None else chain}")

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
        bins = need_binaries("gen")
        at_traffic_edge(self.paused)   # where the run is placed: the placement now
        self.gen_json = self.tmp / "gen.json"
        self.gen_json.unlink(missing_ok=True)
        self.gen_err = self.tmp / "gen.err"
        self.gen_duration = duration_s
        self.gen = self.procs.start(
            [str(bins["gen"]), "--lcores", f"{limits.GEN_LCORE}@{cpu}",
             "--proc-type=secondary", *self.eal, "--",
             "--ctl", str(self.ctl_path), "--rate-pps", f"{rate_pps:.0f}", "--frame-bytes",
             str(frame_bytes), "--flows", str(flows), "--duration", str(duration_s),
             "--macs", ",".join(macs), "--stats-out", str(self.gen_json)]
            + ["--idle", idle] + (["--mpls"] if mpls else []) + (["--fdir"] if fdir else [])
            + list(extra),
            stdout=subprocess.DEVNULL, stderr=self._log("gen.err"))
        self.gen_t0 = time.monotonic()

    def wait_traffic(self, progress: Callable[[str, int, int], None] | None = None,
                     sample_s: float | None = None) -> dict:
        """Wait for the generator to finish; its report (sent, received, latency). With
        ``sample_s``, the vSwitch's report every that many seconds meanwhile, in ``samples``."""
        assert self.gen is not None, "start_traffic first"
        tenths = max(1, int(self.gen_duration * 10))
        self.samples = []
        while self.gen.poll() is None:
            elapsed = time.monotonic() - self.gen_t0
            if progress:
                progress("running", min(int(elapsed * 10), tenths), tenths)
            if sample_s and elapsed >= sample_s * len(self.samples):
                self.samples.append(self.stats())
            if elapsed > self.gen_duration + 60:
                raise RuntimeFailure("dataplane: the generator did not stop")
            time.sleep(0.05)
        self.gen_wall_s = time.monotonic() - self.gen_t0
        if self.gen.returncode != 0 or not self.gen_json.exists():
            raise RuntimeFailure(f"dataplane: the generator failed: {_last_line(self.gen_err)}")
        at_traffic_edge(self.paused)
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
            try:
                os.unlink(leftover)
            except FileNotFoundError:   # DPDK removed it between the glob and here
                pass
        shutil.rmtree(f"/var/run/dpdk/{self.prefix}", ignore_errors=True)
