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

The same set-ups are then simulated (costs from the NFs' EO models on --platform, a profile
from `nfvperf calibrate` with its dataplane section) twice: as the data plane runs them here
(the NF processes and the generator on one core, turns, the kernel's slice, the host's stalls,
the generator's wakes: nfvperf.sim.host) and as on the seed's testbed (each NF has 2 cores: one
single-threaded instance uses one of them; two instances get one each); --sim-only skips the
data plane. For each set-up and KPI, the measured change from one to two instances is set
beside the predicted one, with the run-to-run spread (the range of the runs of either
configuration) and whether the directions agree.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
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


def simulated(platform, setup: str, testbed: bool) -> dict:
    """The set-up simulated: on this machine, as the data plane runs it here (the profile's
    dataplane section: the NF processes and the generator on one core, turns, the slice, the
    host's stalls, the generator's wakes); on the seed's testbed each NF has 2 cores (1
    instance: 2 cores, used by its 1 thread; 2 instances: 1 core each)."""
    from nfvperf.sim.chain import simulate_chain
    from nfvperf.sim.host import host_options

    res = {}
    for parallel in (False, True):
        s = spec(setup, parallel)
        o = options(cores=1.0 if parallel else 2.0) if testbed else host_options(platform, 2)
        r = simulate_chain(s, platform, o, duration_s=2.0).to_dict()
        res["two" if parallel else "one"] = kpis(r)
    res["change_pct"] = {k: change(res["one"][k], res["two"][k]) for k in res["one"]}
    return {"setup": setup, **res}


#: the seed's three KPIs: loss, mean latency, throughput
SEED_KPIS = ("loss_pct", "latency_mean_us", "delivered_gbps")


def directions(measured: list[dict], predicted: list[dict]) -> list[dict]:
    """Per set-up and KPI: the measured change from one to two instances (medians of the runs)
    and whether it exceeds the run-to-run spread (the runs' range of either configuration),
    the predicted change, and whether their directions agree."""
    out = []
    for m, p in zip(measured, predicted):
        for k in SEED_KPIS:
            a, b = m["one"][k], m["two"][k]
            spread = max(m["spread"]["one"][k], m["spread"]["two"][k])
            pa, pb = p["one"][k], p["two"][k]
            if None in (a, b, pa, pb):
                continue
            moved, said = _sign(a, b), _sign(pa, pb)
            out.append({"setup": m["setup"], "kpi": k, "measured_change": b - a,
                        "spread": spread, "beyond_spread": moved != 0 and abs(b - a) > spread,
                        "measured_change_pct": change(a, b), "predicted_change": pb - pa,
                        "predicted_change_pct": change(pa, pb), "same_direction": moved == said})
    return out


def _sign(before: float, after: float) -> int:
    """-1, 0 or 1: the direction of a change, none where the two differ by rounding only (a
    rate summed over runs in another order)."""
    if math.isclose(before, after, rel_tol=1e-9, abs_tol=1e-12):
        return 0
    return 1 if after > before else -1


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
    ap.add_argument("--platform", required=True,
                    help="this host's profile, with its dataplane section (nfvperf calibrate)")
    ap.add_argument("--sim-only", action="store_true")
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    out: dict = {}
    if not a.sim_only:
        rows = []
        for setup in SETUPS:
            res, spread = {}, {}
            for parallel in (False, True):
                runs = []
                for k in range(a.runs):
                    print(f"{setup} {'2 instances' if parallel else '1 instance'} "
                          f"run {k + 1}", flush=True)
                    runs.append(kpis(run_chain(spec(setup, parallel),
                                                       duration_s=a.duration).to_dict()))
                key = "two" if parallel else "one"
                res[key] = median_kpis(runs)
                spread[key] = {k: (max(r[k] for r in runs) - min(r[k] for r in runs))
                               if all(r[k] is not None for r in runs) else 0.0
                               for k in runs[0]}
            res["change_pct"] = {k: change(res["one"][k], res["two"][k]) for k in res["one"]}
            rows.append({"setup": setup, **res, "spread": spread})
        out["dataplane"] = rows
        plot(rows, a.out / "nf_parallel.png")
        table(rows, "data plane, this machine")
    platform = load_platform(a.platform)
    if platform.dataplane is None:
        raise SystemExit("nf_parallel: --platform needs the dataplane section of this host "
                         "(nfvperf calibrate -o out/host.yaml)")
    for key, testbed, title in (
            ("sim_this_machine", False, "simulated as the data plane runs here"),
            ("sim_testbed", True, "simulated, 2 cores per NF")):
        out[key] = [simulated(platform, setup, testbed) for setup in SETUPS]
        table(out[key], f"{title} ({platform.name})")
    if "dataplane" in out:
        out["directions"] = directions(out["dataplane"], out["sim_this_machine"])
        print("\none -> two instances: measured (spread) vs predicted change; the direction "
              "is judged where the measured change exceeds the spread")
        for d in out["directions"]:
            print(f"{d['setup']:5} {d['kpi']:16} measured {d['measured_change']:+9.3f} "
                  f"(spread {d['spread']:.3f}{', beyond' if d['beyond_spread'] else ''}) "
                  f"predicted {d['predicted_change']:+9.3f}  "
                  + ("" if not d["beyond_spread"] else
                     "same direction" if d["same_direction"] else "OPPOSITE"))
    (a.out / "nf_parallel.json").write_text(json.dumps(out, indent=1))
    print(f"wrote {a.out / 'nf_parallel.json'}" + ("" if a.sim_only else
                                                   f" and {a.out / 'nf_parallel.png'}"))


if __name__ == "__main__":
    main()
