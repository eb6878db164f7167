"""Throughput and latency versus the number of NFs, per architecture: the shape of Cerrato et
al.'s Figures 3 and 4, measured on this machine."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from nfvperf.dataplane.report import SweepRow
from nfvperf.dataplane.run import RunConfig, run
from nfvperf.errors import InputError

ROW_KEYS = ("arch", "nfs", "offered_mpps", "delivered_mpps", "delivered_gbps", "latency_us_mean",
            "latency_us_p50", "latency_us_p99", "dropped", "balanced", "all_returned")


def parse_list(text: str, field: str, kind=str) -> list:
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        raise InputError("a comma-separated list", text, field=field)
    try:
        return [kind(t) for t in items]
    except ValueError:
        raise InputError(f"a comma-separated list of {kind.__name__}s", text, field=field) \
            from None


def sweep(base: RunConfig, archs: Sequence[str], nfs: Sequence[int],
          progress: Callable[[str, int, int], None] | None = None) -> list[SweepRow]:
    """One run per (architecture, NF count); a row each with the figures of Fig. 3 and 4."""
    configs = [replace(base, arch=a, nfs=n, chain_length=min(base.chain_length, n))
               for a in archs for n in nfs]
    for cfg in configs:
        cfg.validate()
    rows = []
    for i, cfg in enumerate(configs):
        if progress:
            progress(f"{cfg.arch}, {cfg.nfs} NFs", i, len(configs))
        r = run(cfg)
        rows.append({
            "arch": cfg.arch, "nfs": cfg.nfs, "offered_mpps": r["offered_mpps"],
            "delivered_mpps": r["delivered_mpps"], "delivered_gbps": r["delivered_gbps"],
            "latency_us_mean": r["latency_us"]["mean"], "latency_us_p50": r["latency_us"]["p50"],
            "latency_us_p99": r["latency_us"]["p99"], "dropped": sum(r["dropped"].values()),
            "balanced": r["conservation"]["balanced"], "all_returned": r["pool"]["all_returned"],
        })
    if progress:
        progress("done", len(configs), len(configs))
    return rows


def plot(rows: Sequence[dict], path: str | Path, title: str) -> None:
    """Two panels: delivered Mpps and mean latency over the number of NFs, a line per arch."""
    from nfvperf.plots import pyplot, save_png

    plt = pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    for arch in dict.fromkeys(r["arch"] for r in rows):
        mine = sorted((r for r in rows if r["arch"] == arch), key=lambda r: r["nfs"])
        x = [r["nfs"] for r in mine]
        left.plot(x, [r["delivered_mpps"] for r in mine], "-o", ms=3, label=arch)
        right.plot(x, [r["latency_us_mean"] for r in mine], "-o", ms=3, label=arch)
    offered = max(r["offered_mpps"] for r in rows)
    left.axhline(offered, ls="--", color="black", lw=1, label="offered")
    left.set_ylabel("delivered Mpps")
    right.set_ylabel("mean latency (µs)")
    right.set_yscale("log")
    from matplotlib.ticker import FixedLocator, NullLocator, ScalarFormatter

    counts = sorted({r["nfs"] for r in rows})
    for ax in (left, right):
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_locator(FixedLocator(counts))
        ax.xaxis.set_major_formatter(ScalarFormatter())
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xlabel("NFs")
        ax.grid(True, which="both", alpha=0.3)
    left.legend(fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    save_png(fig, path)
