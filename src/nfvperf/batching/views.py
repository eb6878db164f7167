"""Tables and plots of batching results (the CLI's view of ``BatchingResult``)."""

from __future__ import annotations

from typing import Any

from nfvperf.output import Column, table

_ROWS = [
    ("arrival_rate_mpps", "arrival rate", "Mpps", 3),
    ("load", "load ρ (arrivals / β per E[B_β])", "", 3),
    ("mean_batch_size", "mean batch size", "packets", 2),
    ("loss_probability", "loss probability", "", 6),
    ("throughput_mpps", "throughput", "Mpps", 3),
    ("mean_queue_size", "mean queue size (random times)", "packets", 2),
    ("mean_queue_size_at_arrival", "mean queue size seen by arrivals", "packets", 2),
    ("mean_service_time_us", "mean batch service time", "µs", 3),
    ("mean_waiting_time_us", "mean waiting time", "µs", 3),
    ("mean_sojourn_time_us", "mean sojourn time", "µs", 3),
]


def result_table(d: dict[str, Any], title: str) -> list[Any]:
    rows = []
    for key, label, unit, digits in _ROWS:
        value = f"{d[key]:.{digits}f}" if isinstance(d.get(key), float) else str(d.get(key))
        ci = d.get(f"{key}_ci99")
        if ci is not None:
            value += f" ± {ci:.{digits}f}"
        rows.append({"kpi": label, "value": value, "unit": unit})
    for name in ("sojourn", "waiting"):
        pct = d[f"{name}_time_us_percentiles"]
        rows.append({"kpi": f"{name} time p50 / p90 / p99 / p99.9",
                     "value": " / ".join(f"{pct[q]:.2f}" for q in ("50", "90", "99", "99.9")),
                     "unit": "µs"})
    if "residual" in d and "simulated_packets" not in d:
        rows.append({"kpi": "steady state: refinements, residual",
                     "value": f"{d['iterations']}, {d['residual']:.1e}", "unit": ""})
    if "simulated_packets" in d:
        rows.append({"kpi": "simulated packets, drop policy",
                     "value": f"{d['simulated_packets']:,}, {d['drop']}", "unit": ""})
    cols = [Column("kpi", "KPI", justify="left"), Column("value", "value"),
            Column("unit", "", justify="left")]
    return [table(rows, cols, title=title,
                  caption="± = 99 % confidence half-width (batch means)" if "simulated_packets"
                  in d else None)]


def plot(result, path, title: str) -> None:
    """Batch size distribution and sojourn time CDF, side by side (PNG)."""
    import numpy as np

    from nfvperf.plots import pyplot, save_png

    plt = pyplot()
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.8))
    v = result.batch_size
    ax1.bar(np.arange(v.size), v, width=1.0)
    ax1.set_xlabel("batch size (packets)")
    ax1.set_ylabel("probability")
    ax1.set_title(f"batch size, mean {result.mean_batch_size:.2f}")
    d = result.sojourn
    t = np.arange(d.size) * result.queue.dt_s * 1e6
    cdf = np.cumsum(d)
    last = int(np.searchsorted(cdf, 0.99999)) + 1
    ax2.plot(t[:last], cdf[:last])
    ax2.set_xlabel("sojourn time (µs)")
    ax2.set_ylabel("P(D ≤ t)")
    ax2.set_title("sojourn time CDF")
    ax2.grid(True, alpha=0.3)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    save_png(fig, path)
    plt.close(fig)


def fit_table(rows: list[dict], per_rate: bool):
    """The fitted service times (nfvperf fit), a row per batch size (and rate)."""
    from nfvperf.output import Column, table

    cols = [Column("batch_size", "batch size"), Column("mean_service_time_ns", "mean ns"),
            Column("source", "source", justify="left")]
    if per_rate:
        cols.insert(0, Column("rate_mbps", "rate Mbps"))
    return table(rows, cols)
