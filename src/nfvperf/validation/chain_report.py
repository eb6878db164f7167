"""Figures and the HTML page of a chain's validation (``validation.chain``): the latency CDFs
predicted and measured at each load (as Geissler et al., Fig. 13), and delivered throughput,
loss and latency over the offered load."""

from __future__ import annotations

import html
from typing import Any

from nfvperf.validation.chain import TOLERANCE


def cdf_figure(d: dict[str, Any]) -> bytes:
    """One panel per load: the end-to-end latency CDF predicted (dashed) and measured."""
    from nfvperf.plots import pyplot

    plt = pyplot()
    pts = d["points"]
    fig, axes = plt.subplots(1, len(pts), figsize=(min(4.2 * len(pts), 16), 3.4),
                             squeeze=False)
    for ax, p in zip(axes[0], pts):
        for kind, style in (("measured", "-"), ("predicted", "--")):
            xy = p["cdf"][kind]
            if xy:
                ax.step([x for x, _ in xy], [y for _, y in xy], style, where="post",
                        label=kind)
        ax.set_xscale("log")
        ax.set_xlabel("latency (µs)")
        ax.set_ylim(0, 1.01)
        ax.grid(True, alpha=0.3)
        at = "its traffic" if p["load"] is None else f"load {p['load']:g}"
        ax.set_title(f"{at}: {p['offered_mpps']:.3f} Mpps", fontsize=9)
    axes[0][0].set_ylabel("fraction of packets")
    axes[0][0].legend(fontsize=8)
    fig.suptitle(f"{d['chain']}: end-to-end latency, predicted vs measured", fontsize=10)
    return _png(plt, fig)


def load_figure(d: dict[str, Any]) -> bytes:
    """Delivered Mpps, loss and mean latency over the offered load, predicted and measured."""
    from nfvperf.plots import pyplot

    plt = pyplot()
    pts = sorted(d["points"], key=lambda p: p["offered_mpps"])
    x = [p["offered_mpps"] for p in pts]
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.4))
    for ax, q, label in zip(axes, ("delivered_mpps", "loss_pct", "latency_mean_us"),
                            ("delivered Mpps", "loss %", "mean latency µs")):
        for kind, style in (("measured", "-o"), ("predicted", "--s")):
            ax.plot(x, [p["end_to_end"][q][kind] for p in pts], style, ms=3, label=kind)
        ax.set_xlabel("offered Mpps")
        ax.set_ylabel(label)
        ax.grid(True, alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.suptitle(f"{d['chain']} over the offered load", fontsize=10)
    return _png(plt, fig)


def _png(plt, fig) -> bytes:
    """The figure laid out, as PNG bytes; closed (a suite draws many)."""
    from nfvperf.plots import png_bytes

    fig.tight_layout()
    out = png_bytes(fig)
    plt.close(fig)
    return out


def _per_run(d: dict[str, Any], key: str) -> str:
    """A figure each run kept (``key``: a list a point), point by point: "1.1, 1; 0.9, ..."."""
    return "; ".join(", ".join("–" if x is None else f"{x:g}" for x in p.get(key) or ()) or "–"
                     for p in d["points"])


def html_report(d: dict[str, Any]) -> str:
    """A self-contained page: the figures inline, and every quantity's row."""
    from nfvperf.plots import img_tag
    from nfvperf.validation.views import chain_rows

    def cell(v: Any) -> str:
        if v is None:
            return "–"
        if isinstance(v, float):
            return f"{v:.4g}"
        return html.escape(str(v))

    rows = chain_rows(d)
    cols = ["load", "where", "quantity", "predicted", "measured", "error", "unit",
            "repeatable"]
    body = "\n".join(
        "<tr" + (' class="far"' if r["within"] is False else "") + ">"
        + "".join(f"<td>{cell(r[c])}</td>" for c in cols) + "</tr>" for r in rows)
    judged = [r for r in rows if r["within"] is not None]
    within = sum(bool(r["within"]) for r in judged)
    steady = [r for r in judged if r["repeatable"]]
    cores, stalls = (_per_run(d, k) for k in ("core_ratio", "vswitch_stalls_per_s"))
    figs = img_tag(cdf_figure(d), "latency CDFs")
    if len(d["points"]) > 1:
        figs += img_tag(load_figure(d), "over the offered load")
    targets = ", ".join(f"{k.replace('_', ' ')} {v:g}{' points' if k == 'loss_pct' else ' %'}"
                        for k, v in TOLERANCE.items())
    return f"""<!doctype html>
<html><head><meta charset="utf-8"><title>nfvperf: {html.escape(d['chain'])} predicted vs
measured</title>
<style>body{{font-family:sans-serif;margin:2em;max-width:80em}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:.25em .5em;text-align:right;font-size:90%}}
tr.far td{{background:#fee}}img{{max-width:100%}}</style></head><body>
<h1>{html.escape(d['chain'])}: predicted vs measured</h1>
<p>Predicted by the chain simulator with the data plane's own costs on
{html.escape(d['platform'])}; measured on the data plane ({html.escape(d['arch'])}); each figure
the median of {d['runs']} run(s) of {d['duration_s']:g} s, each run priced for the CPU placement
and the rte_hash lookup just before it (the lookup over calibration's, run by run:
{cores}). The host took the vSwitch's CPU this many times a second in each run: {stalls}.
{within} of {len(judged)} judged quantities within their targets ({targets});
rows beyond are shaded. Of the {len(steady)} whose runs repeat within the target (every run
within it of their median: <i>repeatable</i>), {sum(bool(r["within"]) for r in steady)} are
within; a miss where the runs do not repeat is the machine's as much as the model's.</p>
{figs}
<table><tr>{''.join(f'<th>{c}</th>' for c in cols)}</tr>
{body}
</table>
</body></html>
"""
