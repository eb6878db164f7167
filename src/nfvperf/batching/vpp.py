"""Validation on the authors' VPP measurements (Geissler et al., Sec. 5.1, Fig. 5-7, Table 3).

Cross-connect, β = 256, L = 4096, 64 B frames, 20 offered rates (``data/vpp``). For each rate the
model (global or per-rate service fit, any arrival distribution) predicts the mean batch size and
the loss; the samples themselves give the measured mean batch size and the loss as
1 - served/offered, with served = Σ batch sizes / Σ service times within each chunk and offered
from the rate with 20 B per frame on the wire.
"""

from __future__ import annotations

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


def samples() -> fitting.Samples:
    return fitting.read_samples(DATA, beta=BETA, tsc_ghz=TSC_GHZ)


def measured(s: fitting.Samples) -> dict[float, dict[str, object]]:
    """Per rate: mean batch size, batch size pmf, served and offered Mpps, loss."""
    out = {}
    for rate in np.unique(s.rate_mbps):
        sel = s.rate_mbps == rate
        sizes, times = s.batch_size[sel], s.service_time_ns[sel]
        served = sizes.sum() / times.sum() * 1e3            # packets per µs = Mpps
        offered = units.line_rate_pps(rate * 1e6, FRAME_BYTES) / 1e6
        out[float(rate)] = {"mean_batch": float(sizes.mean()),
                            "pmf": np.bincount(sizes, minlength=BETA + 1) / sizes.size,
                            "served_mpps": float(served), "offered_mpps": float(offered),
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
