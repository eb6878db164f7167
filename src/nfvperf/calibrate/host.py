"""What the kernel says about this machine: CPU model, sockets, cores, caches, TSC rate."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Host:
    model: str
    sockets: int
    cores_per_socket: int
    l1_bytes: int
    l2_bytes: int
    l3_bytes: int | None
    kernel_tsc_hz: float | None


def _size(text: str) -> int:
    m = re.match(r"(\d+)([KMG]?)", text.strip())
    if not m:
        return 0
    return int(m.group(1)) * {"": 1, "K": 1024, "M": 1 << 20, "G": 1 << 30}[m.group(2)]


def kernel_tsc_hz() -> float | None:
    """The TSC rate the kernel found at boot ("tsc: Refined TSC clocksource calibration" or
    "tsc: Detected" in its log), or None where the log is not readable or has rotated."""
    import subprocess

    try:
        log = subprocess.run(["dmesg"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    found = None
    for pattern in (r"tsc: Detected ([0-9.]+) MHz", r"Refined TSC clocksource calibration: "
                                                     r"([0-9.]+) MHz"):
        m = re.findall(pattern, log)
        if m:
            found = float(m[-1]) * 1e6     # the refined value, when there is one, wins
    return found


def describe_host(sys_root: Path = Path("/sys"), proc: Path = Path("/proc"),
                  tsc_from_log: bool = False) -> Host:
    cpuinfo = (proc / "cpuinfo").read_text(errors="replace")
    model = re.search(r"^model name\s*:\s*(.+)$", cpuinfo, re.M)
    mhz = re.search(r"^cpu MHz\s*:\s*([0-9.]+)$", cpuinfo, re.M)
    packages = set(re.findall(r"^physical id\s*:\s*(\d+)$", cpuinfo, re.M)) or {"0"}
    cpus = len(re.findall(r"^processor\s*:", cpuinfo, re.M)) or os.cpu_count() or 1
    caches: dict[tuple[int, str], int] = {}
    for index in sorted((sys_root / "devices/system/cpu/cpu0/cache").glob("index*")):
        try:
            level = int((index / "level").read_text())
            kind = (index / "type").read_text().strip()
            caches[(level, kind)] = _size((index / "size").read_text())
        except (OSError, ValueError):
            continue
    return Host(
        model=model.group(1).strip() if model else "unknown CPU",
        sockets=len(packages),
        cores_per_socket=max(1, cpus // len(packages)),
        l1_bytes=caches.get((1, "Data"), 32 * 1024),
        l2_bytes=caches.get((2, "Unified"), 256 * 1024),
        l3_bytes=caches.get((3, "Unified")),
        kernel_tsc_hz=(kernel_tsc_hz() if tsc_from_log else None)
        or (float(mhz.group(1)) * 1e6 if mhz else None),
    )
