"""The tables of the estimator against the data plane (docs/background/validation.md), from
the JSON of a run.

    nfvperf validate dataplane -p host.yaml -f json > validate.json
    nfvperf validate colocation -p host.yaml -f json > colocation.json
    python benchmarks/validate_summary.py validate.json [--platform host.yaml [--reprice]]
        [--colocation colocation.json] [--placements]

Prints Markdown: each traffic pattern's rows within 25 % and median absolute error (with
--placements, also per placement of the CPUs: the one-way trip of a line between them before
the row's run) and the measured cycles; with --platform, beside them the same measurements
against the estimate with the paper's separate memory bound (the profile's
conventions.memory_stalls set to separate, each row re-priced for its run's placement as
validate prices it); with --reprice (and --platform), every row estimated again by this model,
priced as its run was by what its checks recorded (a model change judged on measurements
already made); then, with --colocation, each NF's slowdown beside neighbours, predicted and
measured.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from nfvperf.eo.platform import load_platform
from nfvperf.validation.dataplane import TOLERANCE_PCT, repriced, summary


def separate_bound(rows: list[dict], platform) -> list[dict]:
    """The rows' errors had the estimate kept DRAM in the paper's separate bound."""
    p = platform.model_copy(update={"conventions": platform.conventions.model_copy(
        update={"memory_stalls": "separate"})})
    return repriced(rows, p)


def validate_table(rows: list[dict], paper: list[dict] | None = None,
                   placements: bool = False) -> str:
    extra = " | paper's bound: within | median |" if paper else " |"
    where = " placement |" if placements else ""
    lines = [f"| NF, traffic |{where} rows within {TOLERANCE_PCT} % | median abs. error "
             "| measured cycles" + extra,
             "|---|---|---|---|" + ("---|" if placements else "") + ("---|---|" if paper else "")]
    other = {(g["nf"], g["traffic"], g["placement"]): g for g in summary(paper or [])}
    for g in summary(rows):
        if g["placement"] != "all" and not placements:
            continue
        lo, hi = g["measured_cycles"]
        at = f" {g['placement']} |" if placements else ""
        line = (f"| `{g['nf']}`, {g['traffic']} |{at} {g['within']} / "
                f"{g['rows']} | {g['median_abs_error_pct']:.0f} % | {lo:.0f}-{hi:.0f} |")
        o = other.get((g["nf"], g["traffic"], g["placement"]))
        if o:
            line += f" {o['within']} / {o['rows']} | {o['median_abs_error_pct']:.0f} % |"
        lines.append(line)
    total = sum(abs(r["error_pct"]) <= TOLERANCE_PCT for r in rows)
    lines.append(f"\n{total} of {len(rows)} rows within {TOLERANCE_PCT} %"
                 + (f" ({sum(abs(r['error_pct']) <= TOLERANCE_PCT for r in paper)} with the "
                    "paper's separate memory bound)." if paper else "."))
    if "placement_moves" in rows[0]:
        moves = sum(r["placement_moves"] for r in rows)
        disturbed = sum(r.get("disturbed_runs", 0) for r in rows)
        lines.append(f"{moves} runs were run again because the vCPUs moved during them or "
                     f"they were disturbed ({disturbed}: the NF's core shared, or the traffic's "
                     "windows apart); "
                     f"rows whose every try moved: {sum(not r['placement_held'] for r in rows)}.")
    return "\n".join(lines)


def colocation_table(rows: list[dict]) -> str:
    lines = ["| NF, traffic | neighbours | shared L3 | cycles predicted / measured | slowdown "
             "predicted | measured | error (points) |", "|---|---|---|---|---|---|---|"]
    def pct(v, unit=" %"):
        return "–" if v is None else f"{v:+.0f}{unit}"

    for r in rows:
        lines.append(f"| `{r['nf']}`, {r['traffic']} | {r['neighbours']} | "
                     f"{'yes' if r['shares_cache'] else 'no'} | {r['predicted_cycles']:.0f} / "
                     f"{r['measured_cycles']:.0f} | {pct(r['predicted_slowdown_pct'])} | "
                     f"{pct(r['measured_slowdown_pct'])} | {pct(r['error_points'], '')} |")
    near = [r for r in rows if r["neighbours"] > 0 and r["error_points"] is not None]
    ok = sum(abs(r["error_points"]) <= 10 for r in near)
    lines.append(f"\n{ok} of {len(near)} points with neighbours (paired on one placement) "
                 "within 10 points.")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("validate", type=Path)
    ap.add_argument("--colocation", type=Path)
    ap.add_argument("--platform")
    ap.add_argument("--placements", action="store_true")
    ap.add_argument("--reprice", action="store_true",
                    help="estimate the rows again with this model (needs --platform)")
    args = ap.parse_args()
    rows = json.loads(args.validate.read_text())
    platform = load_platform(args.platform) if args.platform else None
    if args.reprice:
        if platform is None:
            ap.error("--reprice needs --platform")
        rows = repriced(rows, platform)
    paper = separate_bound(rows, platform) if platform else None
    print(validate_table(rows, paper, args.placements))
    if args.colocation:
        print()
        print(colocation_table(json.loads(args.colocation.read_text())))


if __name__ == "__main__":
    main()
