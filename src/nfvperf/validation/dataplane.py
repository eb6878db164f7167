"""The estimator against real NFs on the data plane (Baldi & Sapio, Sec. 4, on this host).

For each NF and workload (its tables and the traffic that exercises them) and frame size: the
estimate of its EO model (the NF catalogue's) on a platform profile, beside what the NF
measured on the data plane: TSC cycles per packet of its whole busy loop (ring dequeue,
handler, enqueue back: the I/O EOs and the processing of the model) and of the handler alone,
as the median over the NF's busy loops (a loop the scheduler interrupted is an outlier
there, while it would inflate a mean); its single-core rate is the TSC rate over the loop's
cycles per packet.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from nfvperf.calibrate.placement import (PLACEMENT_STEP, PlacedRun, placed_run,
                                         placement_labels, priced)
from nfvperf.dataplane.session import Session, chain_mac
from nfvperf.dataplane.watch import WINDOW_S, between, hist_median, steady, window_medians
from nfvperf.errors import InputError
from nfvperf.validation.journal import Journal
from nfvperf.validation.workloads import Workload, cases

#: the fields that name a row of the validation (in a journal of its rows)
JOURNAL_KEY = ("nf", "traffic", "packet_size")


#: bursts of one measurement at most: here the machine changes within a second, and a burst
#: costs about one second with its checks
BURST_TRIES = 8


@contextmanager
def nf_alone(nf: str, traffic: Workload) -> Iterator[Session]:
    """A data plane with the NF alone in a chain (every MAC goes to it), its tables filled."""
    with Session("double-buffer") as s:
        s.add_nfs(nf, ["x"], args=traffic.nf_args)
        s.set_chain(0, ["x"])
        s.default_chain(0)
        yield s


def burst(s: Session, traffic: Workload, frame_bytes: int, *, rate_pps: float,
          duration_s: float) -> dict:
    """One burst of the traffic through the NF of ``nf_alone``, and what its counters say of
    that burst alone: the median over the NF's busy loops of their cycles a packet (a loop
    that the scheduler interrupted, the generator sharing the NF's core here, is an outlier
    there, not counted in full), and the same window by window (``dataplane.watch``)."""
    before = s.stats()
    s.start_traffic(rate_pps=rate_pps, frame_bytes=frame_bytes, duration_s=duration_s,
                    macs=[chain_mac(0) if traffic.mpls else "02:00:00:00:00:00"],
                    mpls=traffic.mpls, extra=traffic.gen)
    gen = s.wait_traffic(sample_s=WINDOW_S)
    after = s.stats()
    a, b = before["per_nf"][0], after["per_nf"][0]
    rx = b["rx"] - a["rx"]

    def median(hist: str) -> float:
        return hist_median(between(a[hist], b[hist])) or 0.0

    return {"rx": rx, "delivered": gen["received"], "sent": gen["sent"],
            "dropped_by_nf": b["drop"] - a["drop"], "tsc_hz": after["tsc_hz"],
            "loop_cycles": median("loop_cycles_hist"),
            "handler_cycles": median("handler_cycles_hist"),
            "loop_cycles_mean": (b["loop_cycles"] - a["loop_cycles"]) / max(rx, 1),
            "batch_mean": rx / max(b["busy_polls"] - a["busy_polls"], 1),
            "windows": window_medians([before, *s.samples, after])}


def measure(nf: str, traffic: Workload, frame_bytes: int, *, rate_pps: float,
            duration_s: float) -> dict:
    """Run the NF alone with one burst of the traffic and read its cycle counts (``burst``)."""
    with nf_alone(nf, traffic) as s:
        m = burst(s, traffic, frame_bytes, rate_pps=rate_pps, duration_s=duration_s)
        s.close()
    return m


def measure_placed(nf: str, traffic: Workload, frame_bytes: int, platform, *,
                   rate_pps: float, duration_s: float,
                   tries: int = BURST_TRIES) -> PlacedRun[dict]:
    """The NF alone, its tables filled once, and bursts of the traffic until one holds its
    placement undisturbed (``calibrate.placement.until_held``: checked at each burst's edges,
    the NF's core not shared, the burst's windows steady within the tolerance), with the
    profile priced for that placement. The machine changes within a second here (the vCPUs
    move, another machine takes the NF core's other hardware thread): bursts within one
    session make a try cost the burst alone, not the NF's start and table fill."""
    with nf_alone(nf, traffic) as s:
        p = placed_run(platform, int(platform.cache.l2_bytes), lambda: burst(
            s, traffic, frame_bytes, rate_pps=rate_pps, duration_s=duration_s),
            tries=tries, steady=lambda m: steady(m["windows"], TOLERANCE_PCT / 100))
        s.close()
    return p


def estimate_workload(nf: str, traffic: Workload, platform, frame_bytes: int,
                      batch_mean: float, sharing=None):
    """The estimate of ``nf``'s model for ``traffic`` (its params, the path its packets take)
    at the bursts the NF took (how many of its bulk lookups were in flight)."""
    from nfvperf.eo.estimate import estimate
    from nfvperf.eo.model import load_nf

    rows = estimate(load_nf(nf), platform, frame_bytes=frame_bytes, params=traffic.params,
                    burst=max(1.0, batch_mean), sharing=sharing)
    return next(r for r in rows if r.path == traffic.path) if traffic.path else rows[-1]


def error_pct(estimated: float, measured: float) -> float:
    """The estimate's error against the measurement, in percent of the measurement."""
    return 100 * (estimated - measured) / measured


def repriced(rows: Sequence[dict], platform) -> list[dict]:
    """``rows`` of a validation with each estimate made again by this model on ``platform``
    (a profile, as validate loaded it), priced as the row's run was by what its checks
    recorded (the hand-over's ratio and write-back, the shared cache's scale as credited now,
    the rte_hash lookup's cost):
    a change to the model or to the pricing of a placement, judged on measurements already
    made. The row's run is the one whose error is the row's; its workload the one whose
    ``params`` the row has (rows without them: the full run's of its name)."""
    from nfvperf.calibrate.placement import priced_as, recorded
    from nfvperf.validation.workloads import cases

    known = [(nf, w) for quick in (False, True) for nf, ws in cases(quick).items() for w in ws]
    out = []
    for r in rows:
        # the full run's workload of that name, or the quick one whose params the row has
        named = [w for nf, w in known if (nf, w.name) == (r["nf"], r["traffic"])]
        w = next((w for w in named if w.params == r.get("params", w.params)), named[0])
        runs = r["error_pct_runs"]
        i = runs.index(min(runs, key=lambda e: abs(e - r["error_pct"])))
        p = priced_as(platform, r["placement_ratio"][i], **recorded(r, i))
        est = estimate_workload(r["nf"], w, p, r["packet_size"], r["batch_mean"])
        out.append({**r, "estimated_cycles": est.cycles_per_packet,
                    "error_pct": error_pct(est.cycles_per_packet, r["measured_cycles"])})
    return out


def summary(rows: Sequence[dict]) -> list[dict]:
    """Each traffic pattern's rows within the tolerance and its median absolute error, over
    all its rows and for each placement of the CPUs (by the trip before the row's run)."""
    import statistics

    labels, order = placement_labels(rows)
    out = []
    for (nf, traffic) in dict.fromkeys((r["nf"], r["traffic"]) for r in rows):
        mine = [(r, lab) for r, lab in zip(rows, labels)
                if (r["nf"], r["traffic"]) == (nf, traffic)]
        groups = [("all", [r for r, _ in mine])] + [
            (name, [r for r, lab in mine if lab == name]) for name in order]
        for placement, group in groups:
            if not group:
                continue
            errs = [abs(r["error_pct"]) for r in group]
            out.append({"nf": nf, "traffic": traffic, "placement": placement,
                        "rows": len(group),
                        "within": sum(e <= TOLERANCE_PCT for e in errs),
                        "median_abs_error_pct": statistics.median(errs),
                        "measured_cycles": [min(r["measured_cycles"] for r in group),
                                            max(r["measured_cycles"] for r in group)]})
    return out


def validate(platform_path: str, nfs: Sequence[str], frame_sizes: Sequence[int], *,
             quick: bool = False, rate_pps: float = 2e6, duration_s: float = 0.5,
             repeats: int = 3,
             progress: Callable[[str, int, int], None] | None = None,
             journal: Journal | None = None) -> list[dict]:
    """Estimate beside measurement, one row per NF, traffic pattern and frame size. Each of
    ``repeats`` runs gets its own estimate, priced for the CPU placement just before it; the
    row is the run of median error, with every run's cycles, error and placement beside it.
    With a ``journal`` (keyed by JOURNAL_KEY), a row it holds is taken from it, not measured,
    and each row measured is added to it as soon as it is done."""
    from nfvperf.eo.platform import load_platform

    platform = load_platform(platform_path)
    table = cases(quick)
    unknown = [n for n in nfs if n not in table]
    if unknown:
        raise InputError(", ".join(table), unknown[0], field="nfs")
    jobs = [(nf, t, size) for nf in nfs for t in table[nf] for size in frame_sizes
            if size >= t.min_frame]
    rows = []
    for i, (nf, traffic, size) in enumerate(jobs):
        if progress:
            progress(f"{nf}, {traffic.name}, {size} B", i, len(jobs))
        kept = journal.get(nf, traffic.name, size) if journal else None
        if kept is not None:
            rows.append(kept)
            continue
        runs = []
        for _ in range(repeats):
            p = measure_placed(nf, traffic, size, platform, rate_pps=rate_pps,
                               duration_s=duration_s)
            m = p.result
            m["estimate"] = estimate_workload(nf, traffic, p.placement.platform, size,
                                              m["batch_mean"])
            m["ratio"], m["trip"] = p.placement.ratio, p.placement.trip_cycles
            m.update(priced(p.placement))
            m["moved"], m["held"], m["disturbed"] = p.retries, p.held, p.disturbed
            m["core_ratio"] = p.placement.core_ratio
            m["error_pct"] = error_pct(m["estimate"].cycles_per_packet, m["loop_cycles"])
            runs.append(m)
        m = sorted(runs, key=lambda r: r["error_pct"])[len(runs) // 2]   # the median error
        est = m["estimate"]
        top = sorted(est.lines, key=lambda line: -line.cycles)[:3]
        rows.append({                     # a ValidationRow (dataplane_json.py): the contract
            "nf": nf, "packet_size": size, "traffic": traffic.name, "path": est.path,
            "params": dict(traffic.params), "platform": platform.name,
            "memory_stalls": platform.conventions.memory_stalls,
            "estimated_cycles": est.cycles_per_packet,
            "measured_cycles": m["loop_cycles"],
            "measured_handler_cycles": m["handler_cycles"],
            "estimated_mpps": est.cpu_bound_pps_per_core / 1e6,
            "measured_mpps": m["tsc_hz"] / m["loop_cycles"] / 1e6,
            "error_pct": m["error_pct"],
            "estimated_dram_accesses": est.dram_accesses_per_packet,
            "estimated_throughput_mpps": est.throughput_pps / 1e6,
            "bottleneck": est.bottleneck,
            "top_eos": [{"eo": line.operation.text, "cycles": line.cycles} for line in top],
            "batch_mean": m["batch_mean"], "packets": m["rx"],
            "dropped_by_nf": m["dropped_by_nf"], "delivered": m["delivered"],
            "measured_cycles_runs": [round(r["loop_cycles"], 1) for r in runs],
            "error_pct_runs": [round(r["error_pct"], 1) for r in runs],
            "measured_cycles_mean": m["loop_cycles_mean"],
            "placement_ratio": _rounded(runs, "ratio"),
            "cache_scale": _rounded(runs, "cache_scale"),
            "io_cycles": [r["io_cycles"] for r in runs],
            "lookup_cycles": [r["lookup_cycles"] for r in runs],
            "trip_cycles": None if m["trip"] is None else round(m["trip"], 1),
            "placement_moves": sum(r["moved"] for r in runs),
            "placement_held": m["held"],
            "disturbed_runs": sum(r["disturbed"] for r in runs),
            "core_ratio": _rounded(runs, "core_ratio"),
            "window_cycles": m["windows"],
        })
        causes = gap(rows[-1], m["ratio"])
        rows[-1]["gap_causes"] = list(causes)
        rows[-1]["gap"] = gap_text(causes, m["ratio"])
        if journal:
            journal.add(rows[-1])
    if progress:
        progress("done", len(jobs), len(jobs))
    return rows


def _rounded(runs: Sequence[dict], key: str) -> list[float | None]:
    """Each run's ``key`` to two decimals (None where unknown)."""
    return [None if r[key] is None else round(r[key], 2) for r in runs]


#: beyond this share, the estimate and the measurement disagree (25 %: the validation's target)
TOLERANCE_PCT = 25


#: why a row may be beyond the tolerance: the causes docs/background/validation.md works out
GAP_CAUSES = {
    "memory_stalls": "the model puts its DRAM accesses a packet in the memory bound, the NF "
                     "waits for them in its cycles (a profile with memory_stalls: cycles "
                     "counts them)",
    "placed_further": "the CPUs were placed further than at calibration: only the I/O EOs are "
                      "re-priced for it",
    "placed_nearer": "the CPUs were placed nearer than at calibration: only the I/O EOs are "
                     "re-priced for it",
    "small_nf": "a small NF: its I/O EOs price the hand-over's lines one after another, while "
                "the core overlaps part of them with its own work",
    "unexplained": "not explained by these rules (see docs/background/validation.md)",
}


def gap(row: dict, ratio: float | None) -> tuple[str, ...]:
    """Why a row is beyond the tolerance, as codes of GAP_CAUSES, from what the row itself
    shows (none within it): each cause only where its sign is in the row."""
    err = row["error_pct"]
    if abs(err) <= TOLERANCE_PCT:
        return ()
    why = []
    if err < 0 and row["estimated_dram_accesses"] > 0 and \
            row.get("memory_stalls", "separate") == "separate":
        why.append("memory_stalls")
    if ratio is not None and not 0.5 <= ratio <= 2:
        why.append("placed_further" if ratio > 1 else "placed_nearer")
    if err > 0 and row["measured_cycles"] < 100:
        why.append("small_nf")
    return tuple(why) or ("unexplained",)


def gap_text(causes: Sequence[str], ratio: float | None = None) -> str:
    """The causes in words (the placement's trip ratio beside it), for tables and reports."""
    words = [GAP_CAUSES[c] + (f" (trip × {ratio:.2f})" if c.startswith("placed") and ratio
                              else "") for c in causes]
    return "; ".join(words)


def plot(rows: Sequence[dict], nf: str, path: Path) -> None:
    """Estimate and measurement over frame sizes for one NF, like the paper's Figs. 10-13."""
    from matplotlib.ticker import FixedLocator, NullLocator, ScalarFormatter

    from nfvperf.plots import pyplot, save_png

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(9.5, 4))
    mine = [r for r in rows if r["nf"] == nf]
    for traffic in dict.fromkeys(r["traffic"] for r in mine):
        pts = sorted((r for r in mine if r["traffic"] == traffic), key=lambda r: r["packet_size"])
        x = [r["packet_size"] for r in pts]
        line, = ax.plot(x, [r["measured_mpps"] for r in pts], "-o", ms=3,
                        label=f"{traffic}: measured")
        ax.plot(x, [r["estimated_mpps"] for r in pts], "--", color=line.get_color(),
                label=f"{traffic}: estimate (CPU bound)")
    sizes = sorted({r["packet_size"] for r in mine})
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator(sizes))
    ax.xaxis.set_major_formatter(ScalarFormatter())
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xlabel("frame size (B)")
    ax.set_ylabel("Mpps on one core")
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.set_title(f"{nf}: estimate vs data plane ({mine[0]['platform']})", fontsize=10)
    fig.tight_layout()
    save_png(fig, path)


def html_report(rows: Sequence[dict], pngs: dict[str, Path]) -> str:
    """A self-contained HTML page: the table, and each NF's figure inline."""
    import html

    from nfvperf.plots import img_tag

    def cell(v) -> str:
        if isinstance(v, float):
            return f"{v:,.1f}"
        if isinstance(v, list):
            return "<br>".join(f"{html.escape(e['eo'])}: {e['cycles']:.1f}" for e in v)
        return html.escape(str(v))

    cols = ["nf", "traffic", "packet_size", "estimated_cycles", "measured_cycles",
            "measured_handler_cycles", "error_pct", "estimated_mpps", "measured_mpps",
            "bottleneck", "top_eos", "gap"]
    head = "".join(f"<th>{c.replace('_', ' ')}</th>" for c in cols)
    body = "\n".join(
        "<tr" + (' class="far"' if abs(r["error_pct"]) > TOLERANCE_PCT else "") + ">"
        + "".join(f"<td>{cell(r[c])}</td>" for c in cols) + "</tr>" for r in rows)
    figs = "\n".join(f"<h2>{html.escape(nf)}</h2>{img_tag(p.read_bytes(), nf)}"
                      for nf, p in pngs.items())
    within = sum(abs(r["error_pct"]) <= TOLERANCE_PCT for r in rows)
    sums = "\n".join(
        f"<tr><td>{html.escape(g['nf'])}</td><td>{html.escape(g['traffic'])}</td>"
        f"<td>{html.escape(g['placement'])}</td><td>{g['within']} / {g['rows']}</td>"
        f"<td>{g['median_abs_error_pct']:.1f}</td></tr>" for g in summary(rows))
    platform = html.escape(rows[0]["platform"]) if rows else ""
    return f"""<!doctype html>
<html><head><meta charset="utf-8"><title>nfvperf: estimate vs data plane</title>
<style>body{{font-family:sans-serif;margin:2em;max-width:75em}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:.25em .5em;text-align:right;font-size:90%}}
tr.far td{{background:#fee}}img{{max-width:100%}}</style></head><body>
<h1>Estimate vs data plane on {platform}</h1>
<p>Cycles are TSC cycles per packet. Measured: the NF's whole busy loop on the data plane (ring
dequeue, handler, enqueue back), and its handler alone; its single-core Mpps is the TSC rate
over the loop's cycles. Estimated: the EO model beside the NF's source, on the profile.
{within} of {len(rows)} rows within {TOLERANCE_PCT} %; rows beyond are shaded, with what the row
shows of why (gap).</p>
<h2>By traffic pattern and placement</h2>
<p>Placement: the one-way trip of a line between the vSwitch's CPU and the NF's, measured
before each run; runs whose trips differ by more than {PLACEMENT_STEP:g}x are apart.</p>
<table><tr><th>NF</th><th>traffic</th><th>placement</th><th>within {TOLERANCE_PCT} %</th>
<th>median |error| %</th></tr>
{sums}
</table>
<h2>Every row</h2>
<table><tr>{head}</tr>
{body}
</table>
{figs}
</body></html>
"""
