"""Every chain of benchmarks/chains/ predicted and measured on this host, at loads from light to
overload (fractions of the predicted capacity of the NF core), and the share of points within
each target:

    python benchmarks/chain_validate.py --platform out/host.yaml [-o out/chain_validate]
        [--loads 0.2,0.5,0.8,1.5] [--runs 3] [--duration 1] [--chains nat,router]
    python benchmarks/chain_validate.py --tables out/chain_validate   # the docs' tables
    python benchmarks/chain_validate.py --reprice out/chain_validate --platform out/host.yaml \
        -o out/repriced      # a saved run's measurements against this model's predictions

The profile must come from `nfvperf calibrate` on this host (full, with its dataplane
section). Targets (end to end, per point): delivered throughput within 10 % in >= 90 % of the
points; loss within 2 percentage points, and both below 0.1 % or both above, in >= 90 %; mean
latency within 30 % and p99 within 50 % in >= 80 % of the points below saturation; cycles a
packet per NF instance within 25 % in >= 90 %. Every miss is listed with its figures. Each
target is also counted over the points whose runs repeat within it (every run within the
target of their median): a miss there is the model's; elsewhere the data plane did not agree
with itself.

Writes suite.json (every point of every chain), summary.json, an HTML report per chain and a
PNG of the predicted against the measured figures under -o; a table on stdout.
"""

from __future__ import annotations

import argparse
import json
import platform as _platform
import time
from pathlib import Path

from nfvperf.chain import load_chain
from nfvperf.eo.platform import load_platform
from nfvperf.errors import NfvperfError
from nfvperf.validation.chain import validate_chain
from nfvperf.validation.chain_report import html_report

HERE = Path(__file__).resolve().parent
#: target: (quantity, share of points that must be within its tolerance, below saturation only)
TARGETS = (("delivered_mpps", 0.9, False), ("loss_pct", 0.9, False),
           ("latency_mean_us", 0.8, True), ("latency_p99_us", 0.8, True),
           ("cycles_per_packet", 0.9, False))


def judged(points: list[dict], quantity: str, unsaturated: bool) -> list[tuple[dict, dict]]:
    """(point, comparison) of every judged figure of ``quantity``: end to end, or per
    instance for cycles a packet (instances that served packets on both sides)."""
    out = []
    for p in points:
        if unsaturated and p["saturated"]:
            continue
        if quantity == "cycles_per_packet":
            out += [(p, i[quantity]) for s in p["services"] for i in s["instances"]
                    if i[quantity]["within"] is not None]
        elif p["end_to_end"][quantity]["within"] is not None:
            out.append((p, p["end_to_end"][quantity]))
    return out


def _repeats(quantity: str, c: dict) -> bool:
    """Whether the runs of a judged figure agree with each other within its target (saved
    runs without the flag: from their spread)."""
    from nfvperf.validation.chain import repeats

    r = c.get("repeatable")
    return bool(repeats(quantity, c["measured"], c["spread"]) if r is None else r)


def summary(points: list[dict]) -> list[dict]:
    """Per target: the points judged, those within it, and the same among the points whose
    runs repeat within it (where the measurement is a figure a model can be held to)."""
    rows = []
    for q, share, unsaturated in TARGETS:
        pts = judged(points, q, unsaturated)
        ok = sum(bool(c["within"]) for _, c in pts)
        rep = [c for _, c in pts if _repeats(q, c)]
        rows.append({"quantity": q, "points": len(pts), "within": ok,
                     "share": ok / len(pts) if pts else None, "target": share,
                     "met": bool(pts) and ok / len(pts) >= share,
                     "repeatable": len(rep), "repeatable_within": sum(bool(c["within"])
                                                                      for c in rep),
                     "misses": [{"chain": p["chain"], "load": p["load"],
                                 "offered_mpps": round(p["offered_mpps"], 4),
                                 "predicted": c["predicted"], "measured": c["measured"],
                                 "error": c["error"]}
                                for p, c in pts if not c["within"]]})
    return rows


def scatter(points: list[dict], path: Path) -> None:
    """Predicted against measured, a panel per quantity (the diagonal: agreement)."""
    from nfvperf.plots import pyplot, save_png

    plt = pyplot()
    qs = ("delivered_mpps", "loss_pct", "latency_mean_us", "latency_p99_us")
    fig, axes = plt.subplots(1, len(qs), figsize=(16, 3.8))
    for ax, q in zip(axes, qs):
        xy = [(p["end_to_end"][q]["measured"], p["end_to_end"][q]["predicted"])
              for p in points if p["end_to_end"][q]["measured"] is not None
              and p["end_to_end"][q]["predicted"] is not None]
        if not xy:
            continue
        ax.scatter([x for x, _ in xy], [y for _, y in xy], s=10)
        hi = max(max(x, y) for x, y in xy) * 1.1 or 1
        ax.plot([0, hi], [0, hi], "k--", lw=0.8)
        if q.startswith("latency"):
            ax.set_xscale("log")
            ax.set_yscale("log")
        ax.set_xlabel(f"measured {q}")
        ax.set_ylabel("predicted")
        ax.grid(True, alpha=0.3)
    fig.suptitle("chains on this host: predicted vs measured, every load", fontsize=10)
    fig.tight_layout()
    save_png(fig, path)


def cdfs(points: list[dict], chain: str, path: Path) -> None:
    """One chain's end-to-end latency CDFs, predicted and measured, at each load (as Geissler
    et al.'s Fig. 13)."""
    from nfvperf.plots import pyplot, save_png

    plt = pyplot()
    mine = [p for p in points if p["chain"] == chain and p.get("cdf")]
    if not mine:
        return
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for i, p in enumerate(mine):
        color = f"C{i}"
        for side, style in (("measured", "-"), ("predicted", "--")):
            xy = p["cdf"].get(side) or []
            if xy:
                ax.step([x for x, _ in xy], [y for _, y in xy], style, color=color,
                        where="post", label=f"load {p['load']} {side}")
    ax.set_xscale("log")
    ax.set_xlabel("latency, µs")
    ax.set_ylabel("fraction of packets")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    ax.set_title(f"{chain}: latency CDFs, predicted (dashed) and measured", fontsize=10)
    fig.tight_layout()
    save_png(fig, path)


#: the words of the docs' tables for each target
TARGET_WORDS = {"delivered_mpps": "delivered Mpps (±10 %)",
                "loss_pct": "loss (±2 points, same side of 0.1 %)",
                "latency_mean_us": "mean latency, below saturation (±30 %)",
                "latency_p99_us": "p99 latency, below saturation (±50 %)",
                "cycles_per_packet": "cycles a packet per instance (±25 %)"}


def markdown(out: Path) -> str:
    """The tables of docs/background/validation.md from a run's suite.json (the targets
    counted again, so that a run saved before a count was added gets it too)."""
    points = json.loads((out / "suite.json").read_text())
    targets = summary(points)
    lines = ["| quantity | points within the target | share | target | where the runs "
             "repeat within it |", "|---|---|---|---|---|"]
    for r in targets:
        share = "–" if r["share"] is None else f"{100 * r['share']:.0f} %"
        rep = f"{r['repeatable_within']} / {r['repeatable']}"
        lines.append(f"| {TARGET_WORDS[r['quantity']]} | {r['within']} / {r['points']} | "
                     f"{share} | ≥ {100 * r['target']:.0f} % {'✓' if r['met'] else '✗'} | "
                     f"{rep} |")
    lines += ["", "| chain | load | offered Mpps | delivered pred. / meas. | loss % pred. / "
              "meas. | mean µs pred. / meas. | p99 µs pred. / meas. |",
              "|---|---|---|---|---|---|---|"]
    for p in points:
        e = p["end_to_end"]

        def pair(q, spec):
            return f"{format(e[q]['predicted'] or 0, spec)} / {format(e[q]['measured'] or 0, spec)}"
        lines.append(f"| {p['chain']} | {p['load']} | {p['offered_mpps']:.3f} | "
                     f"{pair('delivered_mpps', '.3f')} | {pair('loss_pct', '.2f')} | "
                     f"{pair('latency_mean_us', '.0f')} | {pair('latency_p99_us', '.0f')} |")
    return "\n".join(lines)


def reprice(saved: Path, prof, progress=print) -> list[dict]:
    """Every point of a saved run predicted again by this model on ``prof``, against the run's
    measurements (end to end run by run; per instance the runs' median): each run's seed as
    the run had it, each run priced as it was where the run recorded it (placement, shared
    cache, I/O constants, rte_hash lookup: ``calibrate.placement.priced_as``; older runs: the
    profile as given), the saturation judged by this model's capacity. An A/B of two models on
    one set of measurements, where the machine does not hold still long enough for two runs."""
    from nfvperf.calibrate.placement import priced_as, recorded
    from nfvperf.sim.analytic import predict_chain
    from nfvperf.sim.host import host_options
    from nfvperf.validation.chain import (capacity_pps, cdf, compare, end_to_end,
                                          per_instance, repeats)

    seconds = json.loads((saved / "summary.json").read_text())["duration_s"]
    points = json.loads((saved / "suite.json").read_text())
    for p in points:
        spec = load_chain(HERE / "chains" / f"{p['chain']}.yaml", runnable=True)
        spec = spec.model_copy(update={"traffic": spec.classes(None)})
        options = host_options(prof, len(spec.services))
        at = spec.at_rate(p["offered_mpps"] * 1e6)
        runs = len(p["measured_runs"])

        def as_run(r: int):
            if "lookup_cycles" not in p:         # a suite run before runs kept their record
                return prof
            return priced_as(prof, p["placement_ratio"][r], **recorded(p, r))
        preds = [predict_chain(at, as_run(r), options.model_copy(
            update={"seed": options.seed + r}), duration_s=seconds) for r in range(runs)]
        p["saturated"] = bool(at.pps >= capacity_pps(at, prof, options))
        p["end_to_end"] = {q: compare(q, [end_to_end(x)[q] for x in preds],
                                      [m[q] for m in p["measured_runs"]])
                           for q in p["end_to_end"]}
        p["cdf"]["predicted"] = cdf([x.latency_hist_us for x in preds])
        inst = [per_instance(x) for x in preds]
        for s in p["services"]:
            for i in s["instances"]:
                for q in PER_INSTANCE_JUDGED:
                    saved = i[q]
                    i[q] = compare(q, [x.get(i["name"], {}).get(q) for x in inst],
                                   [saved["measured"]])
                    # the runs' own spread, which the saved median alone does not carry
                    i[q]["spread"] = saved["spread"]
                    i[q]["repeatable"] = repeats(q, saved["measured"], saved["spread"])
        progress(f"{p['chain']:16} load {p['load']:4} repriced")
    return points


#: what the suite judges per instance
PER_INSTANCE_JUDGED = ("cycles_per_packet",)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=Path, metavar="DIR",
                    help="print the docs' tables of a run written to DIR, and stop")
    ap.add_argument("--platform", help="this host's profile (nfvperf calibrate)")
    ap.add_argument("-o", "--out", default="out/chain_validate")
    ap.add_argument("--loads", default="0.2,0.5,0.8,1.5")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--duration", type=float, default=1.0)
    ap.add_argument("--chains", default=None, help="names of benchmarks/chains/*.yaml")
    ap.add_argument("--reprice", type=Path, metavar="DIR",
                    help="predict a run written to DIR again with this model (no data plane)")
    args = ap.parse_args()
    if args.tables:
        print(markdown(args.tables))
        return
    if not args.platform:
        ap.error("--platform is required to run the suite")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    prof = load_platform(args.platform)
    if args.reprice:
        points = reprice(args.reprice, prof)
        report(points, out, prof, {**json.loads((args.reprice / "summary.json").read_text()),
                                   "repriced_from": str(args.reprice)})
        return
    files = sorted((HERE / "chains").glob("*.yaml"))
    if args.chains:
        files = [f for f in files if f.stem in args.chains.split(",")]
    loads = [float(x) for x in args.loads.split(",")]
    print(f"{len(files)} chains x {len(loads)} loads x {args.runs} runs of {args.duration} s on "
          f"{_platform.node()} ({prof.name}): vSwitch on CPU 0, NFs and generator on CPU 1")
    points, t0 = [], time.monotonic()
    for f in files:
        spec = load_chain(f, runnable=True)
        try:
            d = validate_chain(spec, prof, loads=loads, runs=args.runs,
                               duration_s=args.duration)
        except NfvperfError as exc:
            print(f"{spec.name:16} not run: {exc}", flush=True)
            continue
        (out / f"{spec.name}.html").write_text(html_report(d))
        for p in d["points"]:
            points.append({"chain": spec.name, **p})
            e = p["end_to_end"]
            print(f"{spec.name:16} load {p['load']:4} {p['offered_mpps']:7.4f} Mpps  "
                  + "  ".join(f"{q.replace('latency_', '').replace('_us', '')} "
                              f"{e[q]['predicted'] or 0:8.3f}/{e[q]['measured'] or 0:8.3f}"
                              for q in ("delivered_mpps", "loss_pct", "latency_mean_us",
                                        "latency_p99_us")), flush=True)
        (out / "suite.json").write_text(json.dumps(points, indent=1))   # as it goes
    report(points, out, prof, {"host": _platform.node(), "loads": loads, "runs": args.runs,
                               "duration_s": args.duration,
                               "minutes": (time.monotonic() - t0) / 60})


def report(points: list[dict], out: Path, prof, about: dict) -> None:
    """suite.json, summary.json (with ``about``), the plots, the summary on stdout."""
    rows = summary(points)
    (out / "suite.json").write_text(json.dumps(points, indent=1))
    (out / "summary.json").write_text(json.dumps(
        {**about, "platform": prof.name, "targets": rows}, indent=1))
    scatter(points, out / "chain-validate.png")
    cdfs(points, "nat-ids", out / "chain-validate-cdf.png")
    print("\nquantity              within / points   share   target        "
          "where the runs repeat")
    for r in rows:
        share = "–" if r["share"] is None else f"{100 * r['share']:5.1f} %"
        print(f"{r['quantity']:20} {r['within']:5} / {r['points']:<6}   {share}   "
              f">= {100 * r['target']:.0f} %  {'met   ' if r['met'] else 'MISSED'}  "
              f"{r['repeatable_within']:5} / {r['repeatable']}")


if __name__ == "__main__":
    main()
