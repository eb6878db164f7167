"""Tables, figures and the HTML page of the batching model's latency against measured
histograms (``batching.latency``): the CDFs per rate (as Geissler et al., Fig. 13), the mean
over the rate (Fig. 11) and the ECDF of the differences (Fig. 12)."""

from __future__ import annotations

import html
import math
from typing import Any

from nfvperf.batching.latency import TARGETS
from nfvperf.output import Column, number, table


def rate_rows(d: dict[str, Any]) -> list[dict[str, Any]]:
    """A flat row per rate (the table's, and the CSV's)."""
    out = []
    for r in d["rates"]:
        m, p, e = r["measured"], r["predicted"], r["error"]
        out.append({
            "rate_mbps": r["rate_mbps"], "loss_free": r["loss_free"],
            "mean_measured_us": m["mean_us"], "mean_predicted_us": p["mean_us"],
            "mean_error_us": e["mean_us"],
            "mean_without_outliers_us": m["mean_without_outliers_us"],
            "outliers": r["outliers"], "packets": r["packets"],
            "p50_measured_us": m["p50_us"], "p50_predicted_us": p["p50_us"],
            "p50_error_us": e["p50_us"],
            "p90_measured_us": m["p90_us"], "p90_predicted_us": p["p90_us"],
            "p99_measured_us": m["p99_us"], "p99_predicted_us": p["p99_us"],
            "p99_error_pct": e["p99_pct"], "ks": r["ks"], "wasserstein_us": r["wasserstein_us"],
            "within": " ".join(k for k in ("mean", "p50", "p99") if r["within"][k]) or "-"})
    return out


def tables(d: dict[str, Any]) -> list[Any]:
    """The per-rate table and the summary, for the terminal."""
    rows = rate_rows(d)
    for r in rows:
        for q in ("mean", "p50", "p90", "p99"):
            r[q] = f"{r[q + '_measured_us']:.2f} / {r[q + '_predicted_us']:.2f}"
        r["loss-free"] = "yes" if r["loss_free"] else "no"
        r["outl"] = f"{r['outliers']}/{r['packets']}"
    cols = [Column("rate_mbps", "Mbps", number(0)), Column("loss-free", "loss-free", str),
            Column("mean", "mean µs meas/model"), Column("mean_error_us", "error", number(2)),
            Column("mean_without_outliers_us", "mean w/o outl.", number(2)),
            Column("outl", "outliers", str),
            Column("p50", "p50 meas/model"), Column("p90", "p90 meas/model"),
            Column("p99", "p99 meas/model"), Column("p99_error_pct", "p99 err %", number(1)),
            Column("ks", "KS", number(3)), Column("within", "within", str, justify="left")]
    c, off = d["config"], d["offset"]
    title = (f"{c['scenario']}, β = {c['beta']}, L = {c['queue']}, {c['frame_bytes']} B: "
             f"model ({d['method']['arrivals']} arrivals, {d['method']['service']} service) "
             f"+ offset {off['value_us']:.2f} µs")
    s = d["summary"]
    summary_rows = [{"target": name, "within": f"{s[k]['within']}/{s[k]['of']}",
                     "asked": f"≥ {100 * s[k]['target_share']:.0f} %",
                     "met": "yes" if s[k]["met"] else "no"}
                    for k, (_, name) in TARGETS.items()]
    caption = (f"offset: median over {len(off['rates_mbps'])} loss-free rates of measured p50 "
               f"less the model's; those differences {off['spread_us'][0]:.2f}-"
               f"{off['spread_us'][1]:.2f} µs (quartiles {off['quartiles_us'][0]:.2f}-"
               f"{off['quartiles_us'][1]:.2f}); outliers: beyond {d['outlier_bound_us']:.0f} µs")
    return [table(rows, cols, title=title, caption=caption),
            table(summary_rows, [Column("target", "target (loss-free rates)", justify="left"),
                                 Column("within", "within"), Column("asked", "asked"),
                                 Column("met", "met")])]


def cdf_figure(d: dict[str, Any]) -> bytes:
    """One panel per rate: the measured CDF, the model's and the model's + offset (Fig. 13)."""
    from nfvperf.plots import png_bytes, pyplot

    plt = pyplot()
    rates = d["rates"]
    cols = min(5, len(rates))
    rows = math.ceil(len(rates) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 2.6 * rows), squeeze=False)
    off = d["offset"]["value_us"]
    for ax, r in zip(axes.flat, rates):
        q, meas, pred = r["cdf"]["q"], r["cdf"]["measured_us"], r["cdf"]["predicted_us"]
        ax.plot(meas, q, color="tab:red", label="measured")
        ax.plot([x - off for x in pred], q, color="tab:blue", lw=0.8, label="model")
        ax.plot(pred, q, "--", color="tab:green", label="model + offset")
        ax.set_title(f"{r['rate_mbps'] / 1000:g} Gbps" + ("" if r["loss_free"] else
                                                          " (lossy)"), fontsize=9)
        # to the model's p99.9 and the measured p98: the generator's outliers would squash it
        ax.set_xlim(0, max(meas[q.index(0.98)], pred[-1]) * 1.15)
        ax.grid(True, alpha=0.3)
        ax.tick_params(labelsize=7)
    for ax in axes.flat[len(rates):]:
        ax.set_visible(False)
    axes[0][0].legend(fontsize=7)
    for ax in axes[-1]:
        ax.set_xlabel("latency (µs)", fontsize=8)
    fig.suptitle(_title(d, "latency CDFs, measured and model (+ offset)"), fontsize=10)
    fig.tight_layout()
    out = png_bytes(fig)
    plt.close(fig)
    return out


def mean_figure(d: dict[str, Any]) -> bytes:
    """Mean latency over the rate: measured (with and without outliers), model, model +
    offset (Fig. 11), and the ECDF of measured less model over the loss-free rates (Fig. 12)."""
    import numpy as np

    from nfvperf.plots import png_bytes, pyplot

    plt = pyplot()
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 3.8))
    off = d["offset"]["value_us"]
    rs = d["rates"]
    x = [r["rate_mbps"] / 1000 for r in rs]
    ax.plot(x, [r["measured"]["mean_us"] for r in rs], "o-", color="tab:red", label="measured")
    ax.plot(x, [r["measured"]["mean_without_outliers_us"] for r in rs], "o:", color="tab:red",
            alpha=0.5, label="measured, without outliers")
    ax.plot(x, [r["predicted"]["mean_us"] - off for r in rs], "s-", color="tab:blue",
            label="model")
    ax.plot(x, [r["predicted"]["mean_us"] for r in rs], "s--", color="tab:green",
            label="model + offset")
    ax.set_yscale("log")
    ax.set_xlabel("offered rate (Gbps)")
    ax.set_ylabel("mean latency (µs)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    free = [r for r in rs if r["loss_free"]]
    for key, label, color in (("mean_us", "mean", "tab:red"),
                              ("mean_without_outliers_us", "mean without outliers", "tab:orange"),
                              ("p50_us", "p50", "tab:purple")):
        model = "p50_us" if key == "p50_us" else "mean_us"
        diff = np.sort([r["measured"][key] - (r["predicted"][model] - off) for r in free
                        if r["measured"][key] is not None])
        bx.step(diff, np.arange(1, diff.size + 1) / diff.size, where="post", color=color,
                label=label)
    bx.axvline(off, color="tab:green", ls="--", label=f"offset {off:.2f} µs")
    bx.set_xscale("log")
    bx.set_xlabel("measured less model (µs), loss-free rates")
    bx.set_ylabel("share of rates")
    bx.grid(True, alpha=0.3)
    bx.legend(fontsize=7)
    fig.suptitle(_title(d, "mean latency over the rate; differences"), fontsize=10)
    fig.tight_layout()
    out = png_bytes(fig)
    plt.close(fig)
    return out


def _title(d: dict[str, Any], what: str) -> str:
    c = d["config"]
    return f"{c['scenario']}, β = {c['beta']}, L = {c['queue']}, {c['frame_bytes']} B: {what}"


FIGURES = {"cdf.png": cdf_figure, "mean.png": mean_figure}


def html_report(d: dict[str, Any]) -> str:
    """A self-contained page: the figures inline and the per-rate table."""
    from nfvperf.plots import img_tag

    rows = rate_rows(d)
    cols = list(rows[0]) if rows else []

    def cell(v: Any) -> str:
        return f"{v:.4g}" if isinstance(v, float) else html.escape(str(v))

    body = "\n".join("<tr>" + "".join(f"<td>{cell(r[c])}</td>" for c in cols) + "</tr>"
                     for r in rows)
    s = d["summary"]
    said = "; ".join(f"{name}: {s[k]['within']}/{s[k]['of']}"
                     for k, (_, name) in TARGETS.items())
    figs = img_tag(cdf_figure(d), "latency CDFs") + img_tag(mean_figure(d), "mean latency")
    return f"""<!doctype html>
<html><head><meta charset="utf-8"><title>nfvperf: batching model latency</title>
<style>body{{font-family:sans-serif;margin:2em;max-width:90em}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:.25em .5em;text-align:right;font-size:85%}}
img{{max-width:100%}}</style></head><body>
<h1>{html.escape(_title(d, "batching model latency vs measured"))}</h1>
<p>Model: {html.escape(d['method']['arrivals'])} arrivals, {html.escape(d['method']['service'])}
service times around the fitted means, Δt {d['method']['dt_ns']:g} ns; offset
{d['offset']['value_us']:.2f} µs (the median over the loss-free rates of measured p50 less the
model's). Within target at the loss-free rates: {html.escape(said)}.</p>
{figs}
<table><tr>{''.join(f'<th>{html.escape(c)}</th>' for c in cols)}</tr>
{body}
</table>
</body></html>
"""
