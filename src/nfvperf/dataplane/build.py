"""Where the data plane's sources and binaries are, how to build them, and what the host lacks."""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from typing_extensions import TypedDict

from nfvperf import limits, nfs
from nfvperf.errors import RuntimeFailure
from nfvperf.output import contract

ARCHS = limits.ARCH_NAMES
NFS = nfs.names()
#: the NFs `dataplane run` feeds with its generic traffic (the table NFs need their own:
#: `nfvperf validate dataplane` makes it)
RUN_NFS = tuple(n for n in NFS if nfs.CATALOGUE[n].generic_traffic)
INSTALL_DPDK = "apt-get install -y dpdk dpdk-dev libdpdk-dev meson ninja-build pkg-config"
HUGEPAGES = "echo 512 > /proc/sys/vm/nr_hugepages && mkdir -p /dev/hugepages && " \
            "mount -t hugetlbfs nodev /dev/hugepages"


#: where the C sources may be, in the order looked at (see source_dir)
SOURCE_ENV, BUILD_ENV = "NFVPERF_DATAPLANE_SRC", "NFVPERF_DATAPLANE_BUILD"
_PACKAGE = Path(__file__).resolve().parents[1]
_CHECKOUT = _PACKAGE.parents[1] / "dataplane"     # src/nfvperf -> the repository's dataplane/


def source_dir() -> Path:
    """The C sources: the folder ``NFVPERF_DATAPLANE_SRC`` names, else ``dataplane/`` of the
    repository this package runs from, else the copy an installed wheel carries."""
    env = os.environ.get(SOURCE_ENV)
    if env:
        return Path(env)
    if (_CHECKOUT / "meson.build").is_file():
        return _CHECKOUT
    return _PACKAGE / "_dataplane"


def build_dir() -> Path:
    """Where meson builds: ``NFVPERF_DATAPLANE_BUILD``, else ``build/dataplane`` beside a
    repository's sources, else the user's cache (an installed nfvperf)."""
    env = os.environ.get(BUILD_ENV)
    if env:
        return Path(env)
    src = source_dir()
    if src == _CHECKOUT:
        return src.parent / "build" / "dataplane"
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "nfvperf" / "dataplane"


def binaries() -> dict[str, Path]:
    """The executables by role: ``vswitch``, ``gen`` and ``nf-<name>`` for each NF."""
    d = build_dir()
    out = {"vswitch": d / "nfvp-vswitch", "gen": d / "nfvp-gen",
           "calibrate": d / "nfvp-calibrate"}
    out.update({f"nf-{nf.name}": d / nf.binary for nf in nfs.CATALOGUE.values()})
    return out


def _missing_tools() -> list[str]:
    missing = [t for t in ("meson", "ninja", "pkg-config", "cc") if shutil.which(t) is None]
    if "pkg-config" not in missing:
        ok = subprocess.run(["pkg-config", "--exists", "libdpdk"], capture_output=True)
        if ok.returncode != 0:
            missing.append("libdpdk (pkg-config)")
    return missing


def build(*, quiet: bool = True) -> Path:
    """Configure (once) and build the data plane with meson and ninja; return the build dir."""
    missing = _missing_tools()
    if missing:
        raise RuntimeFailure(f"dataplane build: missing {', '.join(missing)} "
                             f"(try: {INSTALL_DPDK})")
    src, out = source_dir(), build_dir()
    if not (src / "meson.build").is_file():
        raise RuntimeFailure(f"dataplane build: no C sources in {src} (set {SOURCE_ENV} to "
                             "the dataplane/ folder of an nfvperf checkout)")
    steps = []
    if not (out / "build.ninja").is_file():
        steps.append(["meson", "setup", str(out), str(src)])
    steps.append(["ninja", "-C", str(out)])
    for cmd in steps:
        p = subprocess.run(cmd, capture_output=quiet, text=True)
        if p.returncode != 0:
            tail = (p.stdout or "")[-2000:] + (p.stderr or "")[-2000:] if quiet else ""
            raise RuntimeFailure(f"dataplane build: `{' '.join(cmd)}` failed"
                                 + (f":\n{tail.strip()}" if tail.strip() else ""))
    return out


@contract
class DoctorRow(TypedDict):
    """One line of ``nfvperf doctor --format json``."""

    check: str
    """What was checked: build tools, DPDK's version, hugepages, the binaries, the CPUs."""
    ok: bool
    detail: str
    """What was found."""
    fix: str
    """How to fix it (empty when ok)."""


@dataclass(frozen=True)
class Check:
    """One line of ``nfvperf doctor``: what was checked, whether it is fine, and the fix."""

    name: str
    ok: bool
    detail: str
    fix: str = ""

    def to_dict(self) -> DoctorRow:
        return {"check": self.name, "ok": self.ok, "detail": self.detail, "fix": self.fix}


def hugepages() -> tuple[int, int, bool]:
    """(total, free) 2 MiB hugepages and whether hugetlbfs is mounted on /dev/hugepages."""
    total = free = 0
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("HugePages_Total:"):
                total = int(line.split()[1])
            elif line.startswith("HugePages_Free:"):
                free = int(line.split()[1])
    except OSError:
        pass
    try:
        mounted = any(f.split()[2] == "hugetlbfs" for f in
                      Path("/proc/mounts").read_text().splitlines() if len(f.split()) > 2)
    except OSError:
        mounted = False
    return total, free, mounted


def doctor() -> list[Check]:
    """Check what the data plane needs: tools, DPDK, hugepages, the built binaries, CPUs."""
    checks = []
    missing = _missing_tools()
    checks.append(Check("build tools and DPDK", not missing,
                        "meson, ninja, pkg-config, cc and libdpdk found" if not missing
                        else "missing: " + ", ".join(missing), "" if not missing else INSTALL_DPDK))
    if not missing:
        v = subprocess.run(["pkg-config", "--modversion", "libdpdk"], capture_output=True,
                           text=True).stdout.strip()
        ver = tuple(int(x) for x in v.split(".")[:2] if x.isdigit())
        checks.append(Check("DPDK version", ver >= (22, 11), f"libdpdk {v}",
                            "" if ver >= (22, 11) else INSTALL_DPDK))
    total, free, mounted = hugepages()
    checks.append(Check("hugepages", free >= 128, f"{free} of {total} 2 MiB pages free",
                        "" if free >= 128 else HUGEPAGES))
    checks.append(Check("hugetlbfs mounted", mounted, "on /dev/hugepages" if mounted
                        else "not mounted", "" if mounted else HUGEPAGES))
    bins = binaries()
    absent = [n for n, p in bins.items() if not p.is_file()]
    checks.append(Check("data plane built", not absent,
                        f"in {build_dir()}" if not absent else f"missing {', '.join(absent)}",
                        "" if not absent else "nfvperf dataplane build"))
    cpus = len(os.sched_getaffinity(0))
    checks.append(Check("CPUs", cpus >= 2, f"{cpus} usable",
                        "" if cpus >= 2 else "the vSwitch needs one CPU of its own and the "
                        "NFs another"))
    checks.append(Check("root", os.geteuid() == 0, "running as root" if os.geteuid() == 0
                        else f"uid {os.geteuid()}", "" if os.geteuid() == 0
                        else "run as root (DPDK maps hugepages)"))
    return checks
