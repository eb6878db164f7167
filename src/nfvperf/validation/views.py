"""Tables of predictions beside measurements: the estimator vs the NFs, a plan vs its run."""

from __future__ import annotations

from typing import Any

from nfvperf.output import Column, number, table


def dataplane_table(rows: list[dict[str, Any]]) -> Any:
    """The estimate of each NF's model beside the NF measured (nfvperf validate dataplane)."""
    cols = [Column("nf", "NF", justify="left"), Column("traffic", "traffic", justify="left"),
            Column("packet_size", "B"),
            Column("estimated_cycles", "est. cycles", lambda v: f"{v:.1f}"),
            Column("measured_cycles", "meas. cycles", lambda v: f"{v:.1f}"),
            Column("error_pct", "error %", lambda v: f"{v:+.1f}"),
            Column("estimated_mpps", "est. Mpps", lambda v: f"{v:.2f}"),
            Column("measured_mpps", "meas. Mpps", lambda v: f"{v:.2f}"),
            Column("top_eos", "largest EOs (cycles)", lambda v: ", ".join(
                f"{e['eo']} {e['cycles']:.0f}" for e in v[:2]), justify="left")]
    return table(rows, cols, title="estimate vs data plane "
                                   f"({rows[0]['platform'] if rows else ''})")


def summary_table(rows: list[dict[str, Any]]) -> Any:
    """Each traffic pattern, over all its rows and per placement of the CPUs."""
    return table(rows, [
        Column("nf", "NF", justify="left"), Column("traffic", "traffic", justify="left"),
        Column("placement", "placement", justify="left"), Column("rows", "rows"),
        Column("within", "within 25 %"),
        Column("median_abs_error_pct", "median |error| %", lambda v: f"{v:.1f}")],
        title="by traffic pattern and placement (the one-way core-to-core trip before the run)")


def _signed(v) -> str:
    return "–" if v is None else f"{v:+.1f}"


def colocation_table(rows: list[dict[str, Any]]) -> Any:
    """An NF beside neighbours: its slowdown predicted and measured (validate colocation)."""
    return table(rows, [
        Column("nf", "NF", justify="left"), Column("traffic", "traffic", justify="left"),
        Column("neighbours", "neighbours"),
        Column("shares_cache", "shared L3", lambda v: "yes" if v else "no"),
        Column("predicted_cycles", "cycles predicted", lambda v: f"{v:.1f}"),
        Column("measured_cycles", "measured", lambda v: f"{v:.1f}"),
        Column("predicted_slowdown_pct", "slowdown predicted %", _signed),
        Column("measured_slowdown_pct", "measured %", _signed),
        Column("error_points", "error (points)", _signed),
        Column("paired_runs", "paired runs")],
        title="an NF beside neighbours on the other core: slowdown against none")


def plan_table(rows: list[dict[str, Any]]) -> Any:
    """A plan run on this data plane (plan --validate): predicted beside measured."""
    def fmt(v, spec=".1f"):
        return "–" if v is None else format(v, spec)

    return table(rows, [
        Column("chain", "chain", justify="left"), Column("nf", "NF", justify="left"),
        Column("instances", "instances"), Column("offered_mpps", "Mpps", number(3)),
        Column("predicted_loss", "loss predicted", lambda v: fmt(v, ".1e")),
        Column("measured_loss", "measured", lambda v: fmt(v, ".1e")),
        Column("predicted_p99_us", "p99 µs predicted", lambda v: fmt(v)),
        Column("measured_p99_us", "measured", lambda v: fmt(v)),
        Column("predicted_cycles_per_packet", "cycles predicted", lambda v: fmt(v)),
        Column("measured_cycles_per_packet", "measured", lambda v: fmt(v)),
        Column("chain_predicted_p99_us", "chain p99 µs simulated", lambda v: fmt(v)),
        Column("chain_measured_p99_us", "measured", lambda v: fmt(v))],
        title="the plan on this machine's data plane, scaled to its one NF core (per service: "
              "the planner's batching model; the chain end to end: the simulator as the data "
              "plane runs here)")


def chain_rows(d: dict[str, Any]) -> list[dict[str, Any]]:
    """A row per load, place and quantity of a chain's validation (the table and the CSV)."""
    rows = []
    for p in d["points"]:
        at = "its traffic" if p["load"] is None else f"{p['load']:g} of capacity"
        places = [("end to end", p["end_to_end"])] + [
            (i["name"], {k: v for k, v in i.items() if k != "name"})
            for s in p["services"] for i in s["instances"]]
        for where, quantities in places:
            for q, v in quantities.items():
                rows.append({"load": at, "offered_mpps": p["offered_mpps"], "where": where,
                             "quantity": q, "predicted": v["predicted"],
                             "measured": v["measured"], "error": v["error"],
                             "unit": v["unit"], "within": v["within"],
                             "repeatable": v.get("repeatable")})
    return rows


def chain_table(d: dict[str, Any]) -> Any:
    """Prediction beside measurement for every quantity (nfvperf chain validate)."""
    def fmt(v, spec=".3g"):
        return "–" if v is None else format(v, spec)

    def err(row):
        if row["error"] is None:
            return "–"
        mark = "" if row["within"] is None else (" ✓" if row["within"] else " ✗")
        unit = " pp" if row["unit"] == "points" else " %"
        return f"{row['error']:+.1f}{unit}{mark}"

    rows = [{**r, "err": err(r)} for r in chain_rows(d)]
    stalls = [x for p in d["points"] for x in p.get("vswitch_stalls_per_s") or () if x is not None]
    shares = [x for p in d["points"] for x in p.get("vswitch_stall_share") or () if x is not None]
    caption = (f"the host took the vSwitch's CPU {min(stalls):.0f}-{max(stalls):.0f} times a "
               f"second in the runs, {100 * min(shares):.2f}-{100 * max(shares):.2f} % of the "
               f"time (the profile's stalls are what the prediction has)") if stalls else None
    return table(rows, [
        Column("load", "load", justify="left"), Column("where", "where", justify="left"),
        Column("quantity", "quantity", justify="left"),
        Column("predicted", "predicted", fmt), Column("measured", "measured", fmt),
        Column("err", "error", justify="right"),
        Column("repeatable", "runs agree", lambda v: "" if v is None else "yes" if v else "no")],
        title=f"{d['chain']}: predicted ({d['platform']}) vs measured on the data plane, "
              f"median of {d['runs']} run(s); ✓/✗: within the target or not; runs agree: "
              f"every run's measurement within the target of their median", caption=caption)
