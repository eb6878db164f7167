"""PNG figures (matplotlib, imported only when a plot is asked for)."""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path

from nfvperf.eo.estimate import Estimate


def pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _series(rows: Sequence[Estimate]) -> dict[tuple[str, str], list[Estimate]]:
    series: dict[tuple[str, str], list[Estimate]] = {}
    for row in rows:
        series.setdefault((row.nf, row.path), []).append(row)
    for key in series:
        series[key].sort(key=lambda r: r.frame_bytes)
    return series


def _panel(ax, rows: Sequence[Estimate], *, label: str | None = None) -> None:
    """Throughput over frame size for each NF path, the CPU bound dotted, the link capacity dashed."""
    from matplotlib.ticker import FixedLocator, NullLocator

    mega = rows[0].prefixes.mega
    for (nf, path), series in _series(rows).items():
        x = [r.frame_bytes for r in series]
        name = label or (nf if path == "main" else f"{nf} / {path}")
        line, = ax.plot(x, [r.throughput_pps / mega for r in series], "-", marker="o", ms=3,
                        label=name)
        ax.plot(x, [r.cpu_bound_pps / mega for r in series], ":", color=line.get_color(), lw=1,
                label=f"{name}: CPU bound")
    link = sorted({r.frame_bytes: r for r in rows}.values(), key=lambda r: r.frame_bytes)
    ax.plot([r.frame_bytes for r in link], [r.link_bound_pps / mega for r in link], "--",
            color="black", lw=1, label=f"link ({link[0].ports} ports)")
    ax.set_xlabel("frame size (B)")
    ax.set_ylabel("Mpps" + (" (binary prefixes)" if rows[0].prefixes.name == "binary" else ""))
    ax.set_xscale("log", base=2)
    sizes = sorted({r.frame_bytes for r in rows})
    ax.xaxis.set_major_locator(FixedLocator(sizes))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xticklabels([str(s) for s in sizes], fontsize=7)
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)


def png_bytes(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=120, bbox_inches="tight")
    return buf.getvalue()


def save_png(fig, path: str | Path) -> None:
    from nfvperf.io import write_atomic

    write_atomic(path, png_bytes(fig))


def img_tag(png: bytes, alt: str, cls: str = "") -> str:
    """A PNG inline in an HTML page (a data URI): reports are one self-contained file."""
    import base64
    import html

    klass = f' class="{cls}"' if cls else ""
    return (f'<img{klass} alt="{html.escape(alt)}" src="data:image/png;base64,'
            f'{base64.b64encode(png).decode()}">')


def throughput_vs_frame(rows: Sequence[Estimate], path: str | Path) -> None:
    """Estimated throughput of each NF path over frame sizes (solid), its CPU bound (dotted) and
    the platform's link capacity (dashed): the estimate lines of Baldi & Sapio's Figs. 10-13."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    _panel(ax, rows)
    first = rows[0]
    ax.set_title(f"Estimated throughput on {first.platform}, {first.cores} core(s)")
    ax.legend(fontsize=8)
    save_png(fig, path)
    plt.close(fig)


def paper_figures(panels: Sequence[tuple[str, Sequence[Estimate], Sequence[Estimate]]],
                  path: str | Path) -> None:
    """One panel per paper figure: the generic estimate (solid) and, where given, the
    platform-specific one of Sec. 4.2 (dash-dotted)."""
    plt = pyplot()
    fig, axes = plt.subplots(2, 2, figsize=(11, 8))
    for ax, (title, rows, other) in zip(axes.flat, panels):
        _panel(ax, rows, label="generic estimate" if other else "estimate")
        if other:
            mega = other[0].prefixes.mega
            series = sorted(other, key=lambda r: r.frame_bytes)
            ax.plot([r.frame_bytes for r in series], [r.throughput_pps / mega for r in series],
                    "-.", marker="s", ms=3, label="platform-specific estimate "
                    f"({other[0].remote_fraction:g} from the other socket)")
        ax.set_title(title, fontsize=10)
        ax.legend(fontsize=7)
    fig.suptitle("Baldi & Sapio 2018, estimate lines of Figs. 10-13 (nfvperf, SI)")
    fig.tight_layout()
    save_png(fig, path)
    plt.close(fig)
