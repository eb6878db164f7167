"""Tables of a data plane run (the CLI's view of the merged result)."""

from __future__ import annotations

from typing import Any

from nfvperf.output import Column, number, table


def _fmt(v: Any, digits: int = 3) -> str:
    return "–" if v is None else f"{v:,.{digits}f}".replace(",", " ")


def run_tables(d: dict[str, Any]) -> list[Any]:
    lat = d["latency_us"]
    rows = [
        {"kpi": "offered", "value": f"{_fmt(d['offered_mpps'])} Mpps  "
                                    f"{_fmt(d['offered_gbps'])} Gbps"},
        {"kpi": "delivered", "value": f"{_fmt(d['delivered_mpps'])} Mpps  "
                                      f"{_fmt(d['delivered_gbps'])} Gbps"},
        {"kpi": "latency mean / p50 / p99 / p99.9",
         "value": " / ".join(_fmt(lat[k], 1) for k in ("mean", "p50", "p99", "p999")) + " µs"},
        {"kpi": "dropped by place", "value": ", ".join(f"{k} {v}" for k, v in
                                                       d["dropped"].items() if v) or "none"},
        {"kpi": "in flight at stop", "value": str(d["in_flight_at_stop"])},
        {"kpi": "conservation", "value": f"offered {d['conservation']['offered']} = "
         f"delivered + dropped + in flight {d['conservation']['accounted']}: "
         + ("yes" if d["conservation"]["balanced"] else "NO")},
        {"kpi": "mbufs back in the pool", "value": f"{d['pool']['free_at_end']} of "
         f"{d['pool']['size']}: " + ("yes" if d["pool"]["all_returned"] else "NO")},
        {"kpi": "vSwitch mean batch: from ports / from NFs",
         "value": f"{_fmt(d['vswitch']['rx_batch_mean'], 1)} / "
                  f"{_fmt(d['vswitch']['nf_batch_mean'], 1)} packets"},
    ]
    title = (f"{d['arch']}: {d['nfs']} × {d['nf']} NFs in {d['chains']} chains of "
             f"{d['chain_length']}, {d['packet_size']} B, {d['flows']} flows, "
             f"{d['duration_s']} s")
    out = [table(rows, [Column("kpi", "", justify="left"), Column("value", "", justify="left")],
                 title=title)]
    nf_cols = [Column("name", "NF", justify="left"), Column("rx", "rx"), Column("tx", "tx"),
               Column("drop", "drop"), Column("sleeps", "sleeps"),
               Column("cpu_share", "CPU %", lambda v: _fmt(None if v is None else v * 100, 1)),
               Column("cycles_per_packet", "cycles/pkt", number(1))]
    shown = d["per_nf"][:20]
    for nf in shown:
        nf["cycles_per_packet"] = nf["busy_cycles"] / nf["rx"] if nf["rx"] else None
    more = f" (first 20 of {len(d['per_nf'])})" if len(d["per_nf"]) > 20 else ""
    out.append(table(shown, nf_cols, title="per NF" + more))
    return out


def doctor_table(checks: list[dict[str, Any]]) -> list[Any]:
    rows = [{**c, "ok": "ok" if c["ok"] else "FIX"} for c in checks]
    return [table(rows, [Column("ok", "", justify="left"), Column("check", "check", justify="left"),
                         Column("detail", "found", justify="left"),
                         Column("fix", "how to fix", justify="left")], title="nfvperf doctor")]


def sweep_table(rows: list[dict[str, Any]], title: str) -> list[Any]:
    cols = [Column("arch", "arch", justify="left"), Column("nfs", "NFs"),
            Column("offered_mpps", "offered Mpps", number(3)),
            Column("delivered_mpps", "delivered Mpps", number(3)),
            Column("delivered_gbps", "Gbps", number(3)),
            Column("latency_us_mean", "mean µs", number(1)),
            Column("latency_us_p50", "p50 µs", number(1)),
            Column("latency_us_p99", "p99 µs", number(1)),
            Column("dropped", "dropped"),
            Column("balanced", "conserved", lambda v: "yes" if v else "NO")]
    return [table(rows, cols, title=title)]


def replay_tables(r: dict[str, Any]) -> list[Any]:
    """A replay (nfvperf dataplane replay): frames in and out, chains, drops, the capture."""
    rows = [{"what": "frames in", "value": r["frames_in"]},
            {"what": "frames out", "value": r["frames_out"]},
            {"what": "chains (destination MACs)", "value": r["chains"]},
            {"what": "dropped", "value": ", ".join(f"{k} {v}" for k, v in r["dropped"].items())
             or "none"},
            {"what": "capture", "value": r["capture"]}]
    cols = [Column("what", "", justify="left"), Column("value", "", justify="left")]
    return [table(rows, cols, title=f"{r['nf']} × {r['chain_length']}, {r['arch']}")]


def attach_tables(r: dict[str, Any]) -> list[Any]:
    """A chain between kernel interfaces (nfvperf chain attach): its ports' and NFs' counts."""
    ports = table(r["ports"], [Column("port", "port", justify="left"), Column("rx", "rx"),
                               Column("tx", "tx"), Column("tx_dropped", "tx dropped")],
                  title=f"{r['chain']}: {' ⇄ '.join(p['port'] for p in r['ports'])}")
    nfs = table(r["nfs"], [Column("name", "NF", justify="left"), Column("rx", "rx"),
                           Column("tx", "tx"), Column("drop", "dropped")])
    dropped = ", ".join(f"{k} {v}" for k, v in r["dropped"].items() if v) or "none"
    return [ports, nfs, f"dropped in the vSwitch: {dropped}"]
