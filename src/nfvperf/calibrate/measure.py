"""Run the C microbenchmarks (``nfvp-calibrate``) and return what they measured."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable

from nfvperf.calibrate.host import Host
from nfvperf.dataplane.build import binaries, hugepages
from nfvperf.errors import RuntimeFailure


def _lcores(cpu: int) -> list[str]:
    """EAL lcores: the measuring CPU, and another (the vSwitch's role) for core-to-core."""
    import os

    others = sorted(set(os.sched_getaffinity(0)) - {cpu})
    return ["-l", f"{others[0]},{cpu}", "--main-lcore", str(cpu)] if others else ["-l", str(cpu)]


#: the frame bytes written for each load of the frames' chase (a short frame's lines, a
#: mid-size one's, a full frame's) and the largest table it ranges over (beyond the shared
#: cache a table's loads go to DRAM with frames or without)
FRAME_BYTES = (128, 512, 1536)
FRAMES_MAX_WS = 32 << 20
FRAME_BYTES_QUICK = (512,)
FRAMES_MAX_WS_QUICK = 4 << 20


def measure(host: Host, *, quick: bool = False, cpu: int = 1,
            progress: Callable[[str, int, int], None] | None = None) -> dict:
    """The measurements as ``nfvp-calibrate`` prints them (cycles are TSC cycles)."""
    binary = binaries()["calibrate"]
    if not binary.is_file():
        raise RuntimeFailure("calibrate: nfvp-calibrate not built (try: nfvperf dataplane "
                             "build)")
    max_ws = (64 << 20) if quick else max(512 << 20, 16 * (host.l3_bytes or 0))
    total, free, mounted = hugepages()
    # hugepages as DPDK applications use them; without, plain pages (more TLB misses)
    memory = [] if mounted and free * 2 * (1 << 20) >= max_ws + (300 << 20) else \
        ["--no-huge", "-m", str((max_ws >> 20) + 600)]
    cmd = [str(binary), *_lcores(cpu), "--no-pci", "--file-prefix", "nfvp_calib",
           "--log-level", "lib.eal:error", *memory, "--", "--l1", str(host.l1_bytes),
           "--l2", str(host.l2_bytes), "--max-ws", str(max_ws)] + (["--quick"] if quick else [])
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    errors = []
    assert p.stderr is not None
    for line in p.stderr:
        parts = line.split(maxsplit=3)
        if len(parts) == 4 and parts[0] == "progress":
            if progress:
                progress(parts[3].strip(), int(parts[1]), int(parts[2]))
        elif line.strip() and "TELEMETRY" not in line:
            errors.append(line.strip())
    out = p.stdout.read() if p.stdout else ""
    if p.wait() != 0:
        raise RuntimeFailure(f"calibrate: nfvp-calibrate failed: "
                             f"{errors[-1] if errors else 'exit ' + str(p.returncode)}")
    data = json.loads(out)
    data["hugepages"] = not memory
    sizes = FRAME_BYTES_QUICK if quick else FRAME_BYTES
    for i, b in enumerate(sizes):
        if progress:
            progress(f"frames' chase, {b} B a load", i, len(sizes))
        data.setdefault("frames", []).append(
            frames_in_cache(b, FRAMES_MAX_WS_QUICK if quick else FRAMES_MAX_WS, cpu))
    return data


def reference_cycles(l2_bytes: int, cpu: int = 1) -> dict:
    """A quick health check on ``cpu``: median cycles of a dependent load within L1 (16 KB,
    ``"l1_cycles"``) and over 8 x L2 (in the shared cache: ``"shared_bytes"`` and
    ``"shared_cycles"``), and of a cache line's one-way trip to another core and back
    (``"core_to_core"``; ``"core_to_core_burst"``: a line of a burst of 32; ``"read_line"``
    and ``"upgrade_line"``: this CPU's own side of a burst, a line read that the other wrote and
    a line written that the other read: what the I/O EOs price), and of an rte_hash lookup
    that hits in a small table (``"hash_hit"``, with ``"hash_entries"`` and
    ``"hash_key_bytes"``: the core's speed on an NF's work, which a neighbour on its other
    hardware thread slows). On a shared machine these move: a virtual machine's CPUs are
    placed near each other (one L3) or far (across the package), and the trip between them
    changes by 8x; compare them with the calibration's."""
    d = _quick_run(cpu, ["--l2", str(l2_bytes), "--reference"], "the reference check",
                   "nfvp_ref")
    out = {"l1_cycles": d["l1_chase_cycles"]["median"], "shared_bytes": d["l3_bytes"],
           "shared_cycles": d["l3_chase_cycles"]["median"],
           "hash_hit": d["hash_hit_cycles"]["median"], "hash_entries": d["hash_entries"],
           "hash_key_bytes": d["hash_key_bytes"]}
    if d.get("core_to_core"):
        out["core_to_core"] = d["core_to_core"]["one_way_cycles"]["median"]
        out["core_to_core_burst"] = d["core_to_core"]["burst_line_cycles"]["median"]
        for name in ("read_line", "upgrade_line"):
            out[name] = d["core_to_core"][f"{name}_cycles"]["median"]
    return out


def frames_in_cache(frame_bytes: int, max_ws: int = 32 << 20, cpu: int = 1) -> dict:
    """A chase through working sets of 16 KB .. ``max_ws`` on ``cpu``, alone and with
    ``frame_bytes`` of a frame written for each of its loads, the loads timed apart from the
    writes (``nfvp-calibrate --stream``: 2 KB buffers of a 64 MB pool written in turn, as the
    data plane's generator fills its mbufs): how frames streaming through the caches slow a
    table's loads. The JSON it prints."""
    return _quick_run(cpu, ["--stream", str(frame_bytes), "--max-ws", str(max_ws)],
                      "the frames' chase", "nfvp_frames", timeout=300)


def _quick_run(cpu: int, args: list[str], what: str, prefix: str, timeout: int = 60) -> dict:
    """``nfvp-calibrate`` on ``cpu`` (and another lcore), plain pages, EAL file prefix
    ``prefix``, with ``args``: the JSON object it prints; a RuntimeFailure naming ``what``
    where it fails."""
    binary = binaries()["calibrate"]
    p = subprocess.run([str(binary), *_lcores(cpu), "--no-huge", "-m", "128",
                        "--no-pci", "--file-prefix", prefix, "--log-level",
                        "lib.eal:error", "--", *args], capture_output=True, text=True,
                       timeout=timeout)
    if p.returncode != 0:
        raise RuntimeFailure(f"calibrate: {what} failed: "
                             + (p.stderr.strip().splitlines() or ["?"])[-1])
    return json.loads(p.stdout)
