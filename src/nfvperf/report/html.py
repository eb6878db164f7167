"""`nfvperf report RESULTS --html out.html`: a self-contained page (figures inline as PNG) with
the plots and tables a reader of the papers would expect from a sweep's results:

- a batching study (Geissler et al., Figs. 8-12): loss, mean batch size and p99 sojourn time
  over the offered rate, one line per queue size and maximum batch, a panel per frame size;
- an estimate sweep (Baldi & Sapio, Figs. 10-13): throughput over the frame size per model;
- a plan sweep: cores and hosts over the traffic's scale.

The page marks itself rendered (its title gains " ✓") once every figure has loaded, which is
what the headless-browser test checks."""

from __future__ import annotations

import html
from pathlib import Path

from nfvperf.errors import InputError
from nfvperf.plots import img_tag, png_bytes, pyplot
from nfvperf.sweep.run import read_results


def kind(df) -> str:
    cols = set(df.columns)
    if {"queue", "beta", "rate_mbps", "loss_probability"} <= cols:
        return "batching"
    if {"frame_bytes", "throughput_mpps", "cycles_per_packet"} <= cols:   # drawn over frame_bytes
        return "estimate"
    if {"scale", "cores"} <= cols:
        return "plan"
    raise InputError("results of nfvperf sweep (batching; estimate over frame_bytes; plan over "
                     "scale)",
                     ", ".join(sorted(cols)[:8]), field="RESULTS")


def _batching_figures(df) -> list[tuple[str, str]]:
    plt = pyplot()
    out = []
    frames = sorted(df.frame_bytes.unique()) if "frame_bytes" in df else [None]
    for metric, label, log in (("loss_probability", "loss probability", True),
                               ("mean_batch_size", "mean batch size", False),
                               ("p99_sojourn_time_us", "p99 sojourn time (µs)", True)):
        if metric not in df:
            continue
        fig, axes = plt.subplots(1, len(frames), figsize=(4 * len(frames), 3.2), squeeze=False)
        for ax, fb in zip(axes[0], frames):
            sub = df if fb is None else df[df.frame_bytes == fb]
            for (q, b), g in sub.groupby(["queue", "beta"]):
                g = g.sort_values("rate_mbps")
                y = g[metric].clip(lower=1e-12) if log else g[metric]
                ax.plot(g.rate_mbps, y, marker=".", label=f"L={q}, β={b}")
            if log:
                ax.set_yscale("log")
            ax.set_xlabel("offered rate (Mbps)")
            ax.set_title(f"{fb} B frames" if fb is not None else "", fontsize=9)
            ax.grid(True, alpha=0.3)
        axes[0][0].set_ylabel(label)
        axes[0][-1].legend(fontsize=6)
        fig.tight_layout()
        out.append((label, png_bytes(fig)))
        plt.close(fig)
    return out


def _xy_figure(df, x: str, ys: list[str], by: str | None, title: str) -> list[tuple[str, str]]:
    plt = pyplot()
    fig, axes = plt.subplots(1, len(ys), figsize=(4.5 * len(ys), 3.2), squeeze=False)
    for ax, y in zip(axes[0], ys):
        groups = df.groupby(by) if by and by in df else [("", df)]
        for name, g in groups:
            g = g.sort_values(x)
            ax.plot(g[x], g[y], marker=".", label=str(name))
        ax.set_xlabel(x.replace("_", " "))
        ax.set_ylabel(y.replace("_", " "))
        ax.grid(True, alpha=0.3)
    if by and by in df:
        axes[0][-1].legend(fontsize=7)
    fig.tight_layout()
    png = png_bytes(fig)
    plt.close(fig)
    return [(title, png)]


def report(path: Path) -> str:
    """The HTML page for the results in ``path``."""
    df = read_results(path)
    k = kind(df)
    if k == "batching":
        figs = _batching_figures(df)
        lead = ("The batching model over the study's grid (Geissler et al., Sec. 4): loss, "
                "mean batch size and p99 sojourn time over the offered rate.")
    elif k == "estimate":
        figs = _xy_figure(df, "frame_bytes", ["throughput_mpps", "cycles_per_packet"],
                          "model" if "model" in df else None, "throughput and cycles")
        lead = "The estimator over frame sizes (Baldi & Sapio, Figs. 10-13)."
    else:
        figs = _xy_figure(df, "scale", ["cores", "hosts"], None, "cores and hosts")
        lead = "Plans over the traffic's growth: the cores and hosts each scale needs."
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in df.columns)
    body = "\n".join("<tr>" + "".join(f"<td>{html.escape(_cell(v))}</td>" for v in row)
                     + "</tr>" for row in df.itertuples(index=False))
    imgs = "\n".join(f"<h2>{html.escape(t)}</h2>{img_tag(p, t, 'fig')}" for t, p in figs)
    title = f"nfvperf: {html.escape(path.name)}"
    return f"""<!doctype html>
<html><head><meta charset="utf-8"><title>{title}</title>
<style>body{{font-family:sans-serif;margin:2em;max-width:80em}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:.2em .4em;text-align:right;font-size:80%}}
img{{max-width:100%}}</style></head><body>
<h1>{title}</h1><p>{html.escape(lead)} {len(df)} points.</p>
{imgs}
<h2>results</h2><table><tr>{head}</tr>
{body}
</table>
<script>
window.addEventListener("load", function () {{
  var imgs = document.querySelectorAll("img.fig"), ok = imgs.length > 0;
  imgs.forEach(function (i) {{ ok = ok && i.complete && i.naturalWidth > 0; }});
  if (ok) document.title += " \\u2713";
}});
</script>
</body></html>
"""


def _cell(v) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)
