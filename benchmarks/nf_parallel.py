"""Hajji, Tso & Pezaros's experiment on this machine: NAT -> IDS under four traffic set-ups,
one instance of each NF vs two instances of each with NF-aware distribution.

    python benchmarks/nf_parallel.py [-o out/nf_parallel] [--runs 3] [--duration 2]

Traffic (two flow classes, sent together): large frames (1518 B, 16 flows) at a high rate
(100 000 pps, 1.2 Gbps) or a low one (20 000 pps); small frames (64 B, 64 flows) at a high rate
(400 000 pps) or a low one (50 000 pps): FHSH, FHSL, FLSH, FLSL. The NAT's cost follows
packets, the IDS's (Aho-Corasick over every payload byte) follows bytes.

The two configurations use the same CPUs: the NFs share one core here (the vSwitch polls the
other; the generator naps beside the NFs), so "all the cores" for one instance and "half
each" for two are the same core, time-shared by the kernel among 2 or 4 processes. What
changes is the distribution: with one instance, large and small frames wait in one queue per
NF; with two and nf-aware, the vSwitch keeps large-frame flows and small-frame flows on
different instances (sized by each class's share of the NF's cost driver).

Reported per set-up: loss, latency (mean, p99, over all delivered packets and per class),
delivered throughput, and the change in %, the median of --runs runs each; a table on stdout,
JSON and a PNG under -o. The seed: -75.86 % loss, -21.74 % latency, +8.28 % throughput for
pfSense NAT -> Snort IDS (Coseners 2017).

The same set-ups are then simulated (nfvperf chain simulate, costs from the NFs' EO models
on --platform) twice: as on this machine (the NF processes poll in turn on the one NF core,
yielding to each other: a turn costs the yield measured here, a busy one runs up to the
kernel's slice measured here, and the host takes the core away as often and as long as
measured here) and as on the seed's testbed (each NF has 2 cores: one single-threaded instance uses one
of them; two instances get one each); --sim-only skips the data plane.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from nfvperf.chain import ChainSpec
from nfvperf.dataplane.chain import run_chain
from nfvperf.sim.options import SimOptions

SETUPS = {
    "FHSH": (100_000, 400_000),
    "FHSL": (100_000, 50_000),
    "FLSH": (20_000, 400_000),
    "FLSL": (20_000, 50_000),
}
LARGE, SMALL = (1518, 16), (64, 64)


def _on_cpu(cpu: int, fn, twin: bool = False) -> list:
    """fn() run pinned to ``cpu`` in this process, and with ``twin`` at the same time in a
    forked copy beside it; their results (JSON) in a list. The affinity is restored after."""
    import os

    before = os.sched_getaffinity(0)
    r, w = os.pipe()
    pid = os.fork() if twin else -1
    os.sched_setaffinity(0, {cpu})
    out = fn()
    if pid == 0:
        os.write(w, json.dumps(out).encode())
        os._exit(0)
    results = [out]
    if pid > 0:
        os.waitpid(pid, 0)
        results.append(json.loads(os.read(r, 1 << 22)))
    os.close(r)
    os.close(w)
    os.sched_setaffinity(0, before)
    return results


def _gaps(seconds: float, over_s: float) -> list[list[float]]:
    """Busy for ``seconds``, watching its own clock: each time it jumps by more than
    ``over_s`` (the process did not run), the run before and the gap, in seconds."""
    out, end = [], time.perf_counter() + seconds
    last = start = time.perf_counter()
    while last < end:
        now = time.perf_counter()
        if now - last > over_s:
            out.append([last - start, now - last])
            start = now
        last = now
    return out


def scheduler_slice_us(cpu: int = 1, seconds: float = 0.5) -> float:
    """How long the kernel lets one of two busy processes on one CPU run before the other: the
    median run between the gaps each sees in its own clock (a measurement of this machine)."""
    both = _on_cpu(cpu, lambda: _gaps(seconds, 50e-6), twin=True)
    return statistics.median(run for g in both for run, _ in g) * 1e6


def yield_switch_us(cpu: int = 1, seconds: float = 0.5) -> float:
    """The cost of a change of turn between two processes on one CPU that yield to each other
    (sched_yield ping-pong): the time over the yields of both."""
    import os

    def ping() -> int:
        n, t0 = 0, time.perf_counter()
        while time.perf_counter() < t0 + seconds:
            os.sched_yield()
            n += 1
        return n

    return seconds / sum(_on_cpu(cpu, ping, twin=True)) * 1e6


def core_stalls(cpu: int = 1, seconds: float = 3.0) -> dict:
    """Times the host takes the NF core away: one busy process alone on it, the gaps over
    20 µs in its own clock (a VM's vCPU descheduled, interrupts): how often, how long."""
    (gaps,) = _on_cpu(cpu, lambda: _gaps(seconds, 20e-6))
    return {"per_s": len(gaps) / seconds, "durations_us": [g * 1e6 for _, g in gaps] or [0.0]}


def spec(setup: str, parallel: bool, cpu: int | None = None) -> ChainSpec:
    large_pps, small_pps = SETUPS[setup]
    n, policy = (2, "nf-aware") if parallel else (1, "flow")
    return ChainSpec.model_validate({
        "name": f"{setup}-{'2x' if parallel else '1x'}",
        "services": [
            {"nf": "nat", "instances": n, "policy": policy, "cpu": cpu,
             "args": ["--public-ip", "192.0.2.1{k}"]},
            {"nf": "ids", "instances": n, "policy": policy, "cpu": cpu},
        ],
        "traffic": [
            {"frame_bytes": LARGE[0], "rate_pps": large_pps, "flows": LARGE[1]},
            {"frame_bytes": SMALL[0], "rate_pps": small_pps, "flows": SMALL[1]},
        ],
    })


def options(cores: float = 1.0, quantum_us: float = 0, switch_us: float = 0,
            stalls: dict | None = None) -> SimOptions:
    """How the simulator runs it: cores per instance, turns on a shared core, stalls."""
    return SimOptions.model_validate({
        "services": {i: {"cores": cores} for i in range(2)}, "quantum_us": quantum_us,
        "switch_us": switch_us, "stalls": stalls})


def kpis(r: dict) -> dict:
    large, small = r["classes"]
    return {"loss_pct": r["loss_pct"], "latency_mean_us": r["latency_us"]["mean"],
            "latency_p99_us": r["latency_us"]["p99"], "delivered_gbps": r["delivered_gbps"],
            "delivered_mpps": r["delivered_mpps"],
            "small_latency_mean_us": small["latency_us"]["mean"],
            "large_latency_mean_us": large["latency_us"]["mean"],
            "small_loss_pct": small["loss_pct"], "large_loss_pct": large["loss_pct"]}


def median_kpis(runs: list[dict]) -> dict:
    return {k: statistics.median(r[k] for r in runs if r[k] is not None)
            if any(r[k] is not None for r in runs) else None for k in runs[0]}


def change(a: float | None, b: float | None) -> float | None:
    if a is None or b is None or a == 0:
        return None
    return 100.0 * (b - a) / a


def plot(rows: list[dict], path: Path) -> None:
    from nfvperf.plots import pyplot, save_png

    plt = pyplot()
    metrics = [("loss_pct", "loss %"), ("latency_mean_us", "mean latency µs"),
               ("latency_p99_us", "p99 latency µs"), ("delivered_gbps", "delivered Gbps")]
    fig, axes = plt.subplots(1, 4, figsize=(13, 3.4))
    x = range(len(rows))
    for ax, (key, label) in zip(axes, metrics):
        ax.bar([i - 0.2 for i in x], [r["one"][key] or 0 for r in rows], 0.4,
               label="1 instance each")
        ax.bar([i + 0.2 for i in x], [r["two"][key] or 0 for r in rows], 0.4,
               label="2 instances each, nf-aware")
        ax.set_xticks(list(x), [r["setup"] for r in rows])
        ax.set_title(label, fontsize=10)
        ax.grid(True, axis="y", alpha=0.3)
    axes[0].legend(fontsize=7)
    fig.suptitle("NAT → IDS on this machine (one NF core shared by all NF processes)",
                 fontsize=10)
    fig.tight_layout()
    save_png(fig, path)


def simulated(platform, setup: str, testbed: bool, quantum_us: float = 0,
              switch_us: float = 0, stalls: dict | None = None) -> dict:
    """The set-up simulated: on this machine, the 2 or 4 NF processes take turns on one core
    (each keeps it up to the kernel's slice while it has packets); on the seed's testbed each NF
    has 2 cores (1 instance: 2 cores, used by its 1 thread; 2 instances: 1 core each)."""
    from nfvperf.sim.chain import simulate_chain

    res = {}
    for parallel in (False, True):
        if testbed:
            s, o = spec(setup, parallel), options(cores=1.0 if parallel else 2.0)
        else:
            s, o = spec(setup, parallel, cpu=1), options(quantum_us=quantum_us,
                                                        switch_us=switch_us, stalls=stalls)
        r = simulate_chain(s, platform, o, duration_s=2.0).to_dict()
        res["two" if parallel else "one"] = kpis(r)
    res["change_pct"] = {k: change(res["one"][k], res["two"][k]) for k in res["one"]}
    return {"setup": setup, **res}


def table(rows: list[dict], title: str) -> None:
    print(title)
    head = f"{'setup':6} {'':10} {'loss %':>8} {'mean µs':>9} {'p99 µs':>9} {'Gbps':>7} " \
           f"{'small µs':>9} {'large µs':>9}"
    print(head)
    for r in rows:
        for key, label in (("one", "1 each"), ("two", "2 each"), ("change_pct", "change %")):
            v = r[key]

            def f(x, d=2):
                return "–" if x is None else f"{x:.{d}f}"
            print(f"{r['setup']:6} {label:10} {f(v['loss_pct'], 3):>8} "
                  f"{f(v['latency_mean_us'], 1):>9} {f(v['latency_p99_us'], 1):>9} "
                  f"{f(v['delivered_gbps'], 3):>7} {f(v['small_latency_mean_us'], 1):>9} "
                  f"{f(v['large_latency_mean_us'], 1):>9}")


def main() -> None:
    from nfvperf.eo.platform import load_platform

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--out", type=Path, default=Path("out/nf_parallel"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--duration", type=float, default=2.0)
    ap.add_argument("--platform", default="xeon-e5-2690v2",
                    help="profile pricing the simulated packets (e.g. nfvperf calibrate's)")
    ap.add_argument("--sim-only", action="store_true")
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    out: dict = {}
    if not a.sim_only:
        rows = []
        for setup in SETUPS:
            res = {}
            for parallel in (False, True):
                runs = []
                for k in range(a.runs):
                    print(f"{setup} {'2 instances' if parallel else '1 instance'} "
                          f"run {k + 1}", flush=True)
                    runs.append(kpis(run_chain(spec(setup, parallel),
                                                       duration_s=a.duration).to_dict()))
                res["two" if parallel else "one"] = median_kpis(runs)
            res["change_pct"] = {k: change(res["one"][k], res["two"][k]) for k in res["one"]}
            rows.append({"setup": setup, **res})
        out["dataplane"] = rows
        plot(rows, a.out / "nf_parallel.png")
        table(rows, "data plane, this machine")
    platform = load_platform(a.platform)
    quantum, switch, stalls = scheduler_slice_us(), yield_switch_us(), core_stalls()
    out["scheduler_slice_us"], out["yield_switch_us"] = quantum, switch
    out["core_stalls"] = {"per_s": stalls["per_s"],
                          "p50_us": statistics.median(stalls["durations_us"]),
                          "max_us": max(stalls["durations_us"])}
    print(f"this machine: scheduler slice {quantum:.0f} µs (two busy processes on one CPU), "
          f"a yield to another process {switch:.2f} µs, the core taken away "
          f"{stalls['per_s']:.0f} times a second (median {out['core_stalls']['p50_us']:.0f} "
          f"µs, longest {out['core_stalls']['max_us']:.0f} µs)")
    for key, testbed, title in (
            ("sim_this_machine", False, (f"simulated, one shared NF core ({quantum:.0f} µs "
                                         f"slices, {switch:.2f} µs a turn, stalls)")),
            ("sim_testbed", True, "simulated, 2 cores per NF")):
        out[key] = [simulated(platform, setup, testbed, quantum, switch,
                              None if testbed else stalls) for setup in SETUPS]
        table(out[key], f"{title} ({platform.name})")
    (a.out / "nf_parallel.json").write_text(json.dumps(out, indent=1))
    print(f"wrote {a.out / 'nf_parallel.json'}" + ("" if a.sim_only else
                                                   f" and {a.out / 'nf_parallel.png'}"))


if __name__ == "__main__":
    main()
