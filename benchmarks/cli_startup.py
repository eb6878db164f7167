"""Wall time of the CLI start-up and of the estimator, side by side in one run.

    python benchmarks/cli_startup.py [--repeat 15]

Times each command as a fresh process (best and median of --repeat runs) next to a bare
`python -c pass`, so the ratios survive a noisy shared machine; then the estimator's own speed
(estimates per second in-process) and which heavy modules an estimate imports (it must be none).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HEAVY = ("scipy", "numba", "numpy", "matplotlib", "pandas")


def wall(cmd: list[str], repeat: int) -> tuple[float, float]:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - t0)
    return min(times), statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args()
    exe = shutil.which("nfvperf") or str(Path(sys.executable).parent / "nfvperf")
    py = sys.executable
    cases = [
        ("python -c pass (baseline)", [py, "-c", "pass"]),
        ("nfvperf --help", [exe, "--help"]),
        ("nfvperf estimate l2fwd@paper", [exe, "estimate", "l2fwd@paper"]),
        ("nfvperf estimate <4 models> -f json", [exe, "estimate", "l2fwd@paper",
                                                 "learnsw@paper", "mpls@paper", "bng@paper",
                                                 "-f", "json"]),
        ("nfvperf estimate bng@paper --packet-sizes rfc2544", [exe, "estimate", "bng@paper",
                                                         "--packet-sizes", "rfc2544"]),
        ("nfvperf demo", [exe, "demo"]),
    ]
    print(f"{'command':45} {'best ms':>8} {'median ms':>10} {'x baseline':>11}")
    base = None
    for name, cmd in cases:
        best, med = wall(cmd, args.repeat)
        base = base or med
        print(f"{name:45} {best * 1e3:8.0f} {med * 1e3:10.0f} {med / base:11.2f}")

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
    import nfvperf as nfv

    nf, platform = nfv.load_nf("bng@paper"), nfv.load_platform("xeon-e5-2690v2")
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < 1.0:
        for size in range(64, 1519, 64):
            nfv.estimate(nf, platform, frame_bytes=size)
            n += 1
    rate = n / (time.perf_counter() - t0)
    print(f"\nin-process: {rate:,.0f} BNG estimates/s (3 rows each: access, core, mix)")
    heavy = [m for m in HEAVY if m in sys.modules]
    print(f"heavy modules imported by an estimate: {heavy or 'none'}")
    assert n > 0 and not heavy


if __name__ == "__main__":
    main()
