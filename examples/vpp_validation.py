"""Redo Geissler et al.'s VPP comparisons (Fig. 6, Fig. 7, Table 3) on the published samples.

    python examples/vpp_validation.py [OUT_DIR]       # default: out/vpp

Prints the per-rate table (measured vs model, global fit, Poisson arrivals) with the validation
targets, the Table 3 comparison and the saturation analysis, and writes fig6.png, fig7.png,
table3.png and vpp_validation.csv. About three minutes on 2 cores (168 solves at L = 4096).
"""

from __future__ import annotations

import sys
from pathlib import Path

from rich.console import Console
from rich.progress import Progress

from nfvperf import output
from nfvperf.batching import vpp
from nfvperf.io import write_atomic


def _optional(value) -> str:
    return "" if value is None else f"{value:.4f}"


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    console = Console(width=170)
    with Progress(console=console, transient=True) as bar:
        task = bar.add_task("Fig. 6: 4 arrival processes x 2 fits x 20 rates", total=8)
        data = vpp.fig6_data(progress=lambda done, total: bar.update(task, completed=done))
    checks = data[("poisson", False)]
    rows = vpp.rows(checks)
    write_atomic(out / "vpp_validation.csv", output.to_csv(rows))
    cols = [output.Column("rate_mbps", "Mbps", output.compact),
            output.Column("offered_mpps", "offered Mpps", output.number(3)),
            output.Column("measured_served_mpps", "served Mpps", output.number(3)),
            output.Column("measured_mean_batch", "batch: samples", output.number(1)),
            output.Column("model_mean_batch", "model", output.number(1)),
            output.Column("batch_ok", "ok", str),
            output.Column("measured_loss", "loss: samples", output.number(4)),
            output.Column("model_loss", "model", output.number(4)),
            output.Column("loss_ok", "ok", str),
            output.Column("paper_measured_loss", "Table 3: meas.", _optional),
            output.Column("paper_model_loss", "model", _optional),
            output.Column("batch_jsd", "JSD", output.number(3))]
    n_batch = sum(c.batch_ok for c in checks)
    n_loss = sum(c.loss_ok for c in checks)
    console.print(output.table(rows, cols, title=(
        f"VPP XC, β=256, L=4096, 64 B: batch size within max(2, 10 %) at {n_batch}/20 rates "
        f"(target ≥ 17), loss within 1.5 pp at {n_loss}/20 (target 20)")))
    for (kind, per_rate), cs in data.items():
        worst = max(abs(c.model_mean_batch - c.measured_mean_batch) for c in cs)
        console.print(f"  {kind:11} {'per-rate' if per_rate else 'global  '} fit: largest mean "
                      f"batch difference {worst:.1f} packets")
    sat = vpp.saturation_mpps()
    console.print(f"\nSaturation: the samples' full batches (β = 256) take {sat['b_beta_samples_ns']:.0f}"
                  f" ns: {sat['samples_mpps']:.2f} Mpps. Table 3's 20.17 % loss at 10 Gbps means "
                  f"{sat['table3_mpps']:.2f} Mpps, i.e. {sat['b_beta_for_table3_ns']:.0f} ns per "
                  f"full batch. See the README (batching) for what explains the gap.")
    vpp.plot_fig6(data, out / "fig6.png")
    stats = vpp.plot_fig7(out / "fig7.png")
    vpp.plot_table3(checks, out / "table3.png")
    best = min(stats, key=lambda s: s["jsd"])
    console.print(f"Fig. 7: lowest JSD {best['jsd']:.4f} with {best['arrivals']} arrivals at "
                  f"{best['rate_mbps']} Mbps; mean JSD by arrival process: " + ", ".join(
                      f"{k} {sum(s['jsd'] for s in stats if s['arrivals'] == k) / 3:.3f}"
                      for k, _ in vpp.ARRIVAL_VARIANTS))
    console.print(f"wrote {out}/fig6.png, fig7.png, table3.png, vpp_validation.csv")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("out/vpp"))
