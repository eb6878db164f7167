"""Tables of a chain run (``ChainResult.to_dict()``), the same for both back ends."""

from __future__ import annotations

from typing import Any

from nfvperf.output import Column, number, table


def _fmt(v: Any, digits: int = 3) -> str:
    return "–" if v is None else f"{v:,.{digits}f}".replace(",", " ")


def chain_rows(d: dict[str, Any]) -> list[dict[str, Any]]:
    """A row per instance (CSV): the service's and the instance's figures side by side."""
    return [{"chain": d["chain"], "service": s["name"], "nf": s["nf"], "policy": s["policy"],
             "instance": i["name"], "flows": i["flows"], "offered": i["offered"],
             "delivered": i["delivered"], "dropped": i["dropped"], "in_flight": i["in_flight"],
             "bytes": i["bytes"], "cycles_per_packet": i["cycles_per_packet"],
             "mean_batch": i["mean_batch"],
             **{f"latency_us_{k}": v for k, v in i["latency_us"].items()}}
            for s in d["services"] for i in s["instances"]]


def chain_tables(d: dict[str, Any]) -> list[Any]:
    lat = d["latency_us"]
    where = d["arch"] or f"the {d['backend'].replace('-', ' ')}"
    title = (f"{d['chain']} on {where}: {_fmt(d['delivered_mpps'])} Mpps "
             f"{_fmt(d['delivered_gbps'])} Gbps delivered, loss {_fmt(d['loss_pct'], 2)} %, "
             f"latency mean / p50 / p99 " + " / ".join(_fmt(lat[k], 1) for k in
                                                      ("mean", "p50", "p99")) + " µs")
    classes = table(d["classes"], [
        Column("frame_bytes", "frame B"), Column("rate_pps", "offered pps", number(0)),
        Column("flows", "flows"), Column("delivered_mpps", "delivered Mpps", number(4)),
        Column("loss_pct", "loss %", number(2)),
        Column("latency_us", "mean / p50 / p99 µs",
               lambda v: " / ".join(_fmt(v[k], 1) for k in ("mean", "p50", "p99")))],
        title=title)
    rows = chain_rows(d)
    inst = table(rows, [
        Column("service", "service", justify="left"), Column("nf", "NF", justify="left"),
        Column("policy", "policy", justify="left"), Column("instance", "instance",
                                                           justify="left"),
        Column("flows", "flows"), Column("offered", "offered"), Column("delivered", "delivered"),
        Column("dropped", "dropped"),
        Column("latency_us_mean", "sojourn mean µs", lambda v: _fmt(v, 1)),
        Column("latency_us_p99", "p99 µs", lambda v: _fmt(v, 1)),
        Column("cycles_per_packet", "cycles/pkt", lambda v: _fmt(v, 0))],
        title="per service and instance (sojourn: from the vSwitch to the NF and back)")
    out = [classes, inst]
    if d["scaling"]:
        out.append(table(d["scaling"], [
            Column("at_s", "at s", number(3)), Column("service", "service"),
            Column("instances", "instances"), Column("flows", "flows pinned"),
            Column("moved", "moved"), Column("hash_moved", "Maglev would move"),
            Column("mod_moved", "hash mod n would move")], title="scaling"))
    return out
