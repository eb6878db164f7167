"""Tables of a plan."""

from __future__ import annotations

from typing import Any

from nfvperf.output import Column, number, table


def plan_rows(d: dict[str, Any]) -> list[dict[str, Any]]:
    """A row per chain, service and host kind (CSV and the table)."""
    return [{"chain": c["name"], "nf": s["nf"], "host": p["host"], "socket": p["socket"],
             "instances": p["instances"],
             "mpps_per_instance": p["pps_per_instance"] / 1e6,
             "utilisation_pct": 100 * p["utilisation"],
             "cycles_per_packet": p["cycles_per_packet"], "loss": p["loss"],
             "latency_p99_us": p["latency_p99_us"]}
            for c in d["chains"] for s in c["services"] for p in s["placement"]]


def plan_tables(d: dict[str, Any], explain: bool = False) -> list[Any]:
    hosts = ", ".join(f"{k} × {v}" for k, v in d["hosts"].items())
    proof = ("optimal" if d["optimal"] else
             f"best found; none below {d['cost_lower_bound']:.4g}")
    title = f"{d['plan']}: {d['cores']} cores on {hosts} (cost {d['cost']:g}, {proof})"
    out = [table(plan_rows(d), [
        Column("chain", "chain", justify="left"), Column("nf", "NF", justify="left"),
        Column("host", "host", justify="left"), Column("socket", "socket"),
        Column("instances", "instances"),
        Column("mpps_per_instance", "Mpps each", number(3)),
        Column("utilisation_pct", "core %", number(0)),
        Column("cycles_per_packet", "cycles/pkt", number(1)),
        Column("loss", "loss", lambda v: f"{v:.1e}"),
        Column("latency_p99_us", "p99 µs", number(1))], title=title)]
    chains = [{"chain": c["name"], "demand": c["demand_mpps"], "p99": c["latency_p99_us"],
               "target": c["latency_target_us"], "loss": c["loss"]} for c in d["chains"]]
    out.append(table(chains, [
        Column("chain", "chain", justify="left"), Column("demand", "Mpps", number(3)),
        Column("loss", "loss (any service)", lambda v: f"{v:.1e}"),
        Column("p99", "p99 µs (sum of its services)", number(1)),
        Column("target", "target µs", lambda v: "–" if v is None else f"{v:g}")],
        title="chains"))
    if explain:
        out.append(table(d["usage"], [
            Column("host", "host", justify="left"),
            Column("cores_used", "cores used"), Column("cores", "of"),
            Column("memory_pct", "memory %", number(0)),
            Column("links_pct", "links %", number(0))],
            title="what each host uses"))
        if "resources" in d:
            out.append(table(d["resources"], [
                Column("resource", "resource", justify="left"),
                Column("binds", "binds", lambda v: "?" if v is None else "yes" if v else "no"),
                Column("cost_without", "cost without its limit",
                       lambda v: "–" if v is None else f"{v:g}")],
                title="each resource lifted"))
        out.append(table([{"what": b} for b in d["binding"]],
                         [Column("what", "what binds", justify="left")], title="binding"))
    return out
