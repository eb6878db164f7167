"""Validation on the authors' VPP measurements (Geissler et al., Sec. 5.1, Fig. 5-7, Table 3).

Cross-connect, β = 256, L = 4096, 64 B frames, 20 offered rates (``data/vpp``). For each rate the
model (global or per-rate service fit, any arrival distribution) predicts the mean batch size and
the loss; the samples themselves give the measured mean batch size and the loss as
1 - served/offered, with served = Σ batch sizes / Σ service times within each chunk and offered
from the rate with 20 B per frame on the wire.
"""

from __future__ import annotations

import functools
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from nfvperf import units
from nfvperf.batching import fit as fitting
from nfvperf.batching.arrivals import interarrival
from nfvperf.batching.metrics import jensen_shannon, relative_error
from nfvperf.batching.model import BatchQueue

DATA = Path(__file__).resolve().parent.parent / "data" / "vpp" / \
    "clock_samples_xc_beta256_64B_L4096.csv"
#: MoonGen's latency histograms of the same configuration (Sec. 5.3; ``batching.latency``)
HISTOGRAMS = DATA.with_name("latency_xc_beta256_64B_L4096.csv")
BETA, QUEUE, FRAME_BYTES, TSC_GHZ, DT_S = 256, 4096, 64, 3.393, 10e-9
#: Table 3 of the paper: packet loss at 8.0-10.0 Gbps, measured and model (percent).
TABLE3 = {8000: (0.97, 1.09), 8500: (6.69, 6.78), 9000: (11.58, 11.56), 9500: (16.44, 16.30),
          10000: (20.17, 20.13)}
#: Targets of the validation: batch size within max(2 packets, 10 %) at ≥ 85 % of the rates;
#: loss within 1.5 percentage points at every rate.
BATCH_ABS, BATCH_REL, BATCH_SHARE, LOSS_PP = 2.0, 0.10, 0.85, 1.5


@dataclass(frozen=True)
class RateCheck:
    rate_mbps: float
    offered_mpps: float
    measured_served_mpps: float
    measured_mean_batch: float
    measured_loss: float
    model_mean_batch: float
    model_loss: float
    batch_relative_error: float
    batch_jsd: float
    batch_ok: bool
    loss_ok: bool


def table3_loss() -> dict[float, float]:
    """Table 3's measured loss by rate (a share)."""
    return {float(r): m / 100 for r, (m, _) in TABLE3.items()}


def samples() -> fitting.Samples:
    return fitting.read_samples(DATA, beta=BETA, tsc_ghz=TSC_GHZ)


@functools.lru_cache(maxsize=8)
def extended_service(beta: int, dt_s: float) -> tuple:
    """Poisson service-time pmfs for batch sizes 0..beta around the global fit of these
    samples, extended linearly beyond their β = 256 (for studies over larger batches, as
    Geissler et al.'s Sec. 4: the only measured service times published): the fit fills the
    sizes it has no samples of from its line."""
    return tuple(fitting.fit(samples(), max(beta, BETA)).pmfs(dt_s)[: beta + 1])


def measured(s: fitting.Samples) -> dict[float, dict[str, object]]:
    """Per rate: mean batch size, batch size pmf, served and offered Mpps, loss."""
    out = {}
    for rate, (served, offered) in fitting.served_by_rate(s, FRAME_BYTES).items():
        sizes = s.batch_size[s.rate_mbps == rate]
        out[rate] = {"mean_batch": float(sizes.mean()),
                     "pmf": np.bincount(sizes, minlength=BETA + 1) / sizes.size,
                     "served_mpps": served / 1e6, "offered_mpps": offered / 1e6,
                     "loss": max(0.0, 1.0 - served / offered)}
    return out


def validate(*, arrivals: str = "poisson", per_rate: bool = False, min_samples: int = 5,
             progress=None) -> list[RateCheck]:
    s = samples()
    meas = measured(s)
    tables = ({t.rate_mbps: t for t in fitting.fit_per_rate(s, BETA, min_samples=min_samples)}
              if per_rate else None)
    table = fitting.fit(s, BETA, min_samples=min_samples)
    out = []
    for n, (rate, m) in enumerate(sorted(meas.items())):
        service = (tables[rate] if tables else table).pmfs(DT_S)
        a = interarrival(arrivals, m["offered_mpps"] * 1e6, DT_S)
        r = BatchQueue(QUEUE, BETA, a, service, DT_S).solve()
        mb, loss = r.mean_batch_size, r.loss_probability
        batch_ok = abs(mb - m["mean_batch"]) <= max(BATCH_ABS, BATCH_REL * m["mean_batch"])
        loss_ok = abs(loss - m["loss"]) * 100 <= LOSS_PP
        out.append(RateCheck(rate, m["offered_mpps"], m["served_mpps"], m["mean_batch"],
                             m["loss"], mb, loss, relative_error(m["mean_batch"], mb),
                             jensen_shannon(m["pmf"], r.batch_size), batch_ok, loss_ok))
        if progress:
            progress(n + 1, len(meas))
    return out


def rows(checks: list[RateCheck]) -> list[dict[str, object]]:
    out = []
    for c in checks:
        row = asdict(c)
        paper = TABLE3.get(int(c.rate_mbps))
        row["paper_measured_loss"] = None if paper is None else paper[0] / 100
        row["paper_model_loss"] = None if paper is None else paper[1] / 100
        out.append(row)
    return out


def saturation_mpps(s: fitting.Samples | None = None) -> dict[str, float]:
    """Where the server saturates: β / E[B_β] from the samples, and the rate Table 3 implies
    (offered × (1 - loss) at 10 Gbps)."""
    s = s or samples()
    full = s.service_time_ns[s.batch_size == BETA]
    offered = units.line_rate_pps(10e9, FRAME_BYTES) / 1e6
    return {"samples_mpps": BETA / full.mean() * 1e3,
            "table3_mpps": offered * (1 - TABLE3[10000][0] / 100),
            "b_beta_samples_ns": float(full.mean()),
            "b_beta_for_table3_ns": BETA / (offered * (1 - TABLE3[10000][0] / 100)) * 1e3}


ARRIVAL_VARIANTS = (("poisson", "Poisson (CV 1/√E[A])"), ("negbin:0.5", "neg. binomial, CV 0.5"),
                    ("geometric", "geometric (CV ≈ 1)"), ("negbin:2", "neg. binomial, CV 2"))


def fig6_data(progress=None) -> dict[tuple[str, bool], list[RateCheck]]:
    """Mean batch sizes per rate for every arrival variant and both fits (Fig. 6)."""
    out = {}
    steps = len(ARRIVAL_VARIANTS) * 2
    for n, (kind, _) in enumerate(ARRIVAL_VARIANTS):
        for m, per_rate in enumerate((False, True)):
            out[(kind, per_rate)] = validate(arrivals=kind, per_rate=per_rate)
            if progress:
                progress(2 * n + m + 1, steps)
    return out


def plot_fig6(data, path) -> None:
    from nfvperf.plots import pyplot, save_png

    plt = pyplot()
    fig, axes = plt.subplots(2, 2, figsize=(12, 7), sharey=True)
    for ax, (kind, label) in zip(axes.flat, ARRIVAL_VARIANTS):
        glob, per = data[(kind, False)], data[(kind, True)]
        x = np.arange(len(glob))
        ax.bar(x - 0.27, [c.model_mean_batch for c in glob], 0.27, label="model, global fit",
               color="tab:red")
        ax.bar(x, [c.measured_mean_batch for c in glob], 0.27, label="measured (samples)",
               color="tab:blue")
        ax.bar(x + 0.27, [c.model_mean_batch for c in per], 0.27, label="model, per-rate fit",
               color="tab:green")
        ax.set_xticks(x, [f"{c.rate_mbps / 1000:g}" for c in glob], fontsize=7)
        ax.set_title(label, fontsize=10)
        ax.set_xlabel("rate (Gbps)")
        ax.set_ylabel("mean batch size")
        ax.legend(fontsize=7)
    fig.suptitle("Geissler et al. Fig. 6, redone: XC, β = 256, L = 4096, 64 B")
    fig.tight_layout()
    save_png(fig, path)
    plt.close(fig)


def plot_fig7(path, rates=(2000, 6000, 8000)) -> list[dict[str, object]]:
    """Batch size distributions, samples vs model, for three rates and the four arrival
    variants (Fig. 7); returns the JSD and RE of each panel."""
    from nfvperf.plots import pyplot, save_png

    s = samples()
    meas = measured(s)
    table = fitting.fit(s, BETA)
    service = table.pmfs(DT_S)
    plt = pyplot()
    fig, axes = plt.subplots(len(ARRIVAL_VARIANTS), len(rates), figsize=(12, 10))
    stats = []
    for row, (kind, label) in enumerate(ARRIVAL_VARIANTS):
        for col, rate in enumerate(rates):
            m = meas[float(rate)]
            a = interarrival(kind, m["offered_mpps"] * 1e6, DT_S)
            r = BatchQueue(QUEUE, BETA, a, service, DT_S).solve()
            jsd = jensen_shannon(m["pmf"], r.batch_size)
            re = relative_error(m["mean_batch"], r.mean_batch_size)
            stats.append({"arrivals": kind, "rate_mbps": rate, "jsd": jsd, "re": re})
            ax = axes[row, col]
            hi = min(BETA + 1, int(max(np.flatnonzero(m["pmf"])[-1], np.searchsorted(
                np.cumsum(r.batch_size), 0.9999))) + 3)
            k = np.arange(hi)
            ax.bar(k, m["pmf"][:hi], width=1.0, alpha=0.5, label="measured")
            ax.plot(k, r.batch_size[:hi], color="tab:red", label="model")
            ax.set_title(f"{label}, {rate / 1000:g} Gbps", fontsize=8)
            ax.text(0.98, 0.95, f"JSD {jsd:.3f}\nRE {re:.3f}", transform=ax.transAxes,
                    ha="right", va="top", fontsize=7)
            if row == len(ARRIVAL_VARIANTS) - 1:
                ax.set_xlabel("batch size")
            if col == 0:
                ax.set_ylabel("probability")
    axes[0, 0].legend(fontsize=7)
    fig.suptitle("Geissler et al. Fig. 7, redone: batch size distributions (global fit)")
    fig.tight_layout()
    save_png(fig, path)
    plt.close(fig)
    return stats


def plot_table3(checks: list[RateCheck], path) -> None:
    from nfvperf.plots import pyplot, save_png

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    x = [c.rate_mbps / 1000 for c in checks]
    ax.plot(x, [100 * c.measured_loss for c in checks], "o-", label="samples: 1 - served/offered")
    ax.plot(x, [100 * c.model_loss for c in checks], "s--", label="model (global fit, Poisson)")
    t3 = sorted(TABLE3.items())
    ax.plot([r / 1000 for r, _ in t3], [v[0] for _, v in t3], "^:", label="paper Table 3: measured")
    ax.plot([r / 1000 for r, _ in t3], [v[1] for _, v in t3], "v:", label="paper Table 3: model")
    ax.set_xlabel("offered rate (Gbps, 64 B)")
    ax.set_ylabel("packet loss (%)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title("Packet loss: samples, model and the paper's Table 3")
    fig.tight_layout()
    save_png(fig, path)
    plt.close(fig)
