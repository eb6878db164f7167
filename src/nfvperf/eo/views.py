"""Tables of the estimator (estimate, explain, list, demo): which columns each shows and how."""

from __future__ import annotations

from typing import Any

from typing_extensions import TypedDict

from nfvperf.output import Column, compact, contract, number, table


@contract
class ExplainRow(TypedDict):
    """One EO line of a model's path (or the profile's per-packet overhead), priced: what
    ``nfvperf explain --format json`` lists."""

    nf: str
    path: str
    packet_size: int
    line: int | None
    """The EO's line in the model file (null: the per-packet overhead)."""
    operation: str
    """The EO as the model writes it."""
    arguments: dict[str, float]
    """Its arguments, evaluated."""
    cycles: float
    """Its cycles a packet, stall cycles included."""
    dram_accesses: float
    stall_cycles: float
    """Memory stall cycles (profiles that count them in cycles)."""
    share: float
    """Of the path's cycles a packet."""
    formula: str
    """How its cycles were computed, with this profile's constants."""

_ESTIMATE = [
    Column("nf", "NF", justify="left"),
    Column("path", "path", justify="left"),
    Column("packet_size", "B"),
    Column("cores", "cores"),
    Column("cycles_per_packet", "cycles", compact),
    Column("dram_accesses_per_packet", "DRAM", compact),
    Column("cpu_bound_mpps", "CPU", number()),
    Column("memory_bound_mpps", "memory", number()),
    Column("link_bound_mpps", "link", number()),
    Column("throughput_mpps", "Mpps", number()),
    Column("throughput_gbps", "Gbps", number()),
    Column("bottleneck", "bound", justify="left"),
]


def estimate_table(rows: list[dict[str, Any]]) -> list[Any]:
    if not rows:
        return []
    units = "binary prefixes (the paper's printed figures)" if rows[0]["units"] == "binary" \
        else "SI"
    caption = (f"per packet: cycles and DRAM accesses; bounds in Mpps. Platform "
               f"{rows[0]['platform']}, {units}; link = all NIC ports, 20 B per frame on the wire")
    if rows[0]["remote_fraction"]:
        caption += f"; {rows[0]['remote_fraction']:g} of packets read from the other socket"
    return [table(rows, _ESTIMATE, caption=caption)]


def explain_rows(estimates) -> list[ExplainRow]:
    """One row per EO line (and the per-packet overhead) of each path."""
    rows = []
    for est in estimates:
        for line in est.lines:
            op = line.operation
            rows.append({"nf": est.nf, "path": est.path, "packet_size": est.frame_bytes,
                         "line": op.line, "operation": op.text,
                         "arguments": {k: v for k, v in line.values.items()},
                         "cycles": line.cycles, "dram_accesses": line.cost.dram_accesses,
                         "stall_cycles": line.stall.cycles if line.stall else 0.0,
                         "share": line.cycles / est.cycles_per_packet,
                         "formula": line.cost.formula
                         + (f"; {line.stall.formula}" if line.stall else "")})
        if est.lines:
            rows.append({"nf": est.nf, "path": est.path, "packet_size": est.frame_bytes,
                         "line": None, "operation": "per-packet overhead (profile)",
                         "arguments": {}, "cycles": est.overhead_cycles, "dram_accesses": 0.0,
                         "stall_cycles": 0.0,
                         "share": est.overhead_cycles / est.cycles_per_packet,
                         "formula": "conventions.per_packet_overhead_cycles"})
    return rows


def explain_tables(estimates) -> list[Any]:
    cols = [
        Column("line", "line", lambda v: "" if v is None else str(v)),
        Column("operation", "EO", justify="left"),
        Column("cycles", "cycles", compact),
        Column("dram_accesses", "DRAM", compact),
        *([Column("stall_cycles", "stall", compact)]
          if any(line.stall for est in estimates for line in est.lines) else []),
        Column("share", "share", lambda v: f"{100 * v:.1f} %"),
        Column("formula", "formula (Sec. 2.2, with this profile's constants)", justify="left"),
    ]
    out = []
    rows = explain_rows(estimates)
    for est in estimates:
        if not est.lines:
            continue
        mine = [r for r in rows if r["path"] == est.path]
        d = est.to_dict()
        title = (f"{est.nf}" + (f" / {est.path}" if est.path != "main" else "")
                 + f" on {est.platform} at {est.frame_bytes} B: {compact(est.cycles_per_packet)}"
                 f" cycles + {compact(est.dram_accesses_per_packet)} DRAM accesses per packet")
        caption = (f"CPU {number()(d['cpu_bound_mpps_per_core'])} Mpps per core, memory "
                   f"{number()(d['memory_bound_mpps'])} Mpps, link "
                   f"{number()(d['link_bound_mpps'])} Mpps")
        out.append(table(mine, cols, title=title, caption=caption))
    return out


def list_table(what: str, rows: list[dict[str, Any]]) -> list[Any]:
    if what == "models":
        cols = [Column("name", "model", justify="left"),
                Column("paths", "paths", lambda v: ", ".join(v), justify="left"),
                Column("operations", "EOs"), Column("source", "source", justify="left")]
    elif what == "platforms":
        cols = [Column("name", "platform", justify="left"),
                Column("cpu", "CPU", justify="left"),
                Column("clock_ghz", "GHz", compact), Column("cores", "cores"),
                Column("nic_ports", "ports"), Column("link_gbps", "Gbps/port", compact),
                Column("description", "", justify="left")]
    else:
        cols = [Column("name", "EO", justify="left"),
                Column("params", "parameters", lambda v: ", ".join(v), justify="left"),
                Column("dual", "dual", lambda v: v or "", justify="left"),
                Column("description", "", justify="left")]
    return [table(rows, cols)]


def demo_tables(report) -> list[Any]:
    from nfvperf.eo.reproduction import DOUBTED, MISSED

    rows = [dict(vars(f)) for f in report.figures]
    for row in rows:
        row["nf_path"] = row["nf"] + ("" if row["path"] == "main" else f"/{row['path']}") + (
            f" @{row['packet_size']} B x{row['cores']}" if (row["packet_size"], row["cores"])
            != (64, 1) else "")
        style = {MISSED: "bold red", DOUBTED: "yellow"}.get(row["status"], "green")
        row["status_text"] = f"[{style}]{row['status']}[/]"
        row["why"] = "; ".join(x for x in (row["reason"], row["implied"] and
                                         f"implies {row['implied']}") if x)
    digits = lambda v: compact(v) if v is None or float(v).is_integer() else f"{v:.3f}"  # noqa: E731
    figure_cols = [
        Column("where", "where", justify="left"),
        Column("nf_path", "NF", justify="left"),
        Column("quantity", "quantity", justify="left"),
        Column("printed", "paper"),
        Column("ours", "nfvperf", digits),
        Column("ours_si", "SI", digits),
        Column("status_text", "status", justify="left"),
        Column("why", "note", justify="left"),
    ]
    n_ok = sum(f.status.startswith("reproduced") for f in report.figures)
    n_doubt = sum(f.status == DOUBTED for f in report.figures)
    title = (f"Baldi & Sapio 2018 on {report.platform}: {n_ok} of {len(report.figures)} "
             f"printed figures reproduced, {n_doubt} inconsistent in the paper itself")
    caption = ("nfvperf = the paper's binary prefixes (--paper-units); SI = nfvperf's default "
               "units. BNG: Figure 8 reconstructed (see `nfvperf explain bng@paper`).")
    out = [table(rows, figure_cols, title=title, caption=caption)]

    labels = [t["nf"] for t in report.totals]
    short = {lbl: lbl.replace("l2_", "").replace("_forwarding", "").replace("_switch", "")
             for lbl in labels}
    eff_rows = []
    for e in report.effects:
        row = {"setting": e.setting, "ours": _setting(e.setting, e.ours),
               "printed": _setting(e.setting, e.printed)}
        for lbl in labels:
            dc, dd = e.delta_cycles[lbl], e.delta_dram[lbl]
            row[lbl] = ("0" if dc == 0 else f"{dc:+g}") + (f" {dd:+g}D" if dd else "")
        factors = []
        if abs(e.cpu_rate_factor - 1) > 1e-12:
            factors.append(f"CPU x{e.cpu_rate_factor:.3f}")
        if abs(e.memory_rate_factor - 1) > 1e-12:
            factors.append(f"memory x{e.memory_rate_factor:.3f}")
        row["rates"] = ", ".join(factors)
        eff_rows.append(row)
    eff_cols = [Column("setting", "setting", justify="left"),
                Column("ours", "xeon-e5-2690v2"), Column("printed", "as printed")]
    eff_cols += [Column(lbl, short[lbl] + " cyc") for lbl in labels]
    eff_cols += [Column("rates", "rates", justify="left")]
    out.append(table(eff_rows, eff_cols,
                     title="What Section 2.2 as printed changes, one setting at a time (64 B)",
                     caption="cycles per packet (D = DRAM accesses); rates are SI"))
    tot_cols = [Column("nf", "NF", justify="left"),
                Column("cycles", "cycles", compact), Column("dram", "DRAM", compact),
                Column("cpu_mpps", "CPU Mpps", number()),
                Column("memory_mpps", "mem Mpps", number()),
                Column("printed_cycles", "printed: cycles", compact),
                Column("printed_dram", "DRAM", compact),
                Column("printed_cpu_mpps", "CPU Mpps", number()),
                Column("printed_memory_mpps", "mem Mpps", number())]
    out.append(table(report.totals, tot_cols,
                     title="Per core at 64 B, SI: xeon-e5-2690v2 vs xeon-e5-2690v2-printed"))
    return out


def _setting(key: str, value: Any) -> str:
    """A profile value as a person reads it: 3.6 GHz rather than 3600000000.0."""
    if isinstance(value, bool) or isinstance(value, str):
        return str(value).lower() if isinstance(value, bool) else value
    if key.endswith("clock"):
        return f"{value / 1e9:g} GHz"
    return compact(value)
