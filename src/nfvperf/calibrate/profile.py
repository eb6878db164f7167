"""Turn the microbenchmarks into a platform profile: the fields the EO mapping reads, each with
its measured spread beside it, and the raw measurements under ``calibration``.

All cycle counts are TSC cycles and ``cpu.clock`` is the TSC rate, so rates come out right even
where the cores run at another clock (turbo): cycles / clock is a time either way.
"""

from __future__ import annotations

import datetime as _dt
import math
from typing import Any

import yaml
from typing_extensions import TypedDict

from nfvperf.calibrate.host import Host
from nfvperf.eo.costs import DFA_STATE_BYTES
from nfvperf.output import contract

HASH_KEY_BYTES = 16       # the key size whose in-cache lookup prices ht_lookup
CHECKSUM_WORD_BYTES = 2


def _stat(s: dict[str, float]) -> str:
    return f"median of runs, min {s['min']:.1f}, max {s['max']:.1f}"


def _latency_at(d: dict, lo: float, hi: float) -> dict[str, Any]:
    """The load-latency point with the largest working set in (lo, hi]."""
    points = [p for p in d["load_latency"] if lo < p["bytes"] <= hi]
    if not points:
        points = d["load_latency"][:1]
    return max(points, key=lambda p: p["bytes"])


def _pick(point: dict, key: str) -> dict:
    """A load-latency point with ``cycles`` being the statistic of the chosen access mode."""
    return {"bytes": point["bytes"], "cycles": point[key]}


def _fit(xs: list[float], ys: list[float]) -> tuple[float, float]:
    """Least-squares line through (x, y): slope, intercept."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx if sxx else 0.0
    return slope, my - slope * mx


#: How a load is priced: "overlapped" — independent loads in flight together, as the loads of a
#: burst of packets are (the data plane hands NFs bursts of up to 32); "dependent" — one at a
#: time, each waiting for the last (pointer chasing), the latency Sec. 2.2 of the paper uses.
ACCESS_MODES = ("overlapped", "dependent")
_ACCESS_TEXT = {
    "overlapped": "overlapped (independent loads in flight together, as a burst of packets "
                  "makes them)",
    "dependent": "one at a time (dependent loads: latency, as the paper does)",
}


def _points(field: str, points: list[tuple[str, dict]], y: str, digits: int) -> list[str]:
    """A measured curve in the profile: ``field:`` and a line a point, ``{X, y: median}`` with
    its spread beside it; ``points`` are (``"x: value"``, the point's median/min/max)."""
    return [f"  {field}:"] + [
        f"    - {{{x}, {y}: {st['median']:.{digits}f}}}{'':<4}"
        f"# {st['min']:.{digits}f}-{st['max']:.{digits}f}" for x, st in points]


def _curves(d: dict) -> str:
    """memory.load_latency (a pointer chase by working set) and memory.overlap (chases in
    flight together over DRAM), medians, each with its spread: what the stall term reads."""
    if "overlap" not in d:
        return ""
    ov = d["overlap"]
    out = ["  # cycles of one load by the working set it ranges over (one at a time)",
           *_points("load_latency", [(f"bytes: {p['bytes']}", p["cycles"])
                                     for p in d["load_latency"]], "cycles", 1),
           f"  # cycles per load with k dependent chases interleaved over {ov['bytes'] >> 20} MB",
           *_points("overlap", [(f"in_flight: {p['in_flight']}", p["cycles"])
                                for p in ov["loads"]], "cycles", 1)]
    out += _frames(d)
    serial = serial_overlap(d)
    if serial is not None:
        out.append(f"  serial_overlap: {serial[0]:.2f}{'':<10}# {serial[1]}")
    return "\n".join(out) + "\n"


def _frames(d: dict) -> list[str]:
    """memory.frames_latency: the frames' chase (a table's loads with a frame written for
    each, and alone in the same run), medians, the spread of the loads with frames beside."""
    runs = d.get("frames") or []
    if not runs:
        return []
    pool = runs[0]
    out = ["  # cycles of a load through a table with a frame's bytes written for each load, and",
           f"  # alone (the same run): frames streaming through the caches ({pool['frame_slot']}"
           f" B buffers of a {pool['pool_bytes'] >> 20} MB pool)", "  frames_latency:"]
    for run in runs:
        for p in run["load_latency"]:
            c, a = p["cycles"], p["alone_cycles"]
            out.append(f"    - {{bytes: {p['bytes']}, frame: {run['stream_bytes']}, "
                       f"cycles: {c['median']:.1f}, alone: {a['median']:.1f}}}"
                       f"{'':<4}# {c['min']:.1f}-{c['max']:.1f}")
    return out


#: rte_hash's key slot: the data pointer and the key, aligned to 16 B
HASH_SLOT_BYTES = 8 + HASH_KEY_BYTES


def serial_overlap(d: dict) -> tuple[float, str] | None:
    """How many keys' waits a loop of rte_hash lookups one key at a time overlaps: what the
    stall term gives for the largest table measured (its bucket, then its slot, one after the
    other) over what it measured, each beyond the smallest table's. None without two sizes."""
    from nfvperf.eo.memory import Hierarchy, stalls

    rows = sorted((h for h in d["hash"] if h["key_bytes"] == HASH_KEY_BYTES),
                  key=lambda h: h["entries"])
    if len(rows) < 2:
        return None
    small, big = rows[0], rows[-1]
    h = Hierarchy([(p["bytes"], p["cycles"]["median"]) for p in d["load_latency"]],
                  [(p["in_flight"], p["cycles"]["median"]) for p in d["overlap"]["loads"]])

    def waits(entries: int) -> float:   # the table has room for twice its keys
        v = {"N": 1, "HE": HASH_SLOT_BYTES, "max": 2 * entries, "p": 0, "keys": entries}
        return stalls([(0, "ht_lookup", v, "serial")], h, 1, 64)[0].cycles

    model = waits(big["entries"]) - waits(small["entries"])
    measured = big["lookup_hit_cycles"]["median"] - small["lookup_hit_cycles"]["median"]
    if measured <= 0 or model <= 0:
        return 1.0, "no wait measured to overlap"
    return max(1.0, model / measured), (
        f"rte_hash lookups one key at a time, {big['entries']} vs {small['entries']} entries: "
        f"{measured:.0f} cycles more, {model:.0f} one wait after another")


def _inc_checksum(d: dict) -> dict[str, tuple[float, str]]:
    """RFC 1624 updates: fixed + per word from independent updates of 1..8 words (one per
    packet, as NFs do them)."""
    rows = d["inc_checksum"]
    per_word, fixed = _fit([r["words"] for r in rows], [r["cycles"]["median"] for r in rows])
    span = f"{rows[0]['words']}-{rows[-1]['words']}"
    return {"inc_checksum_cycles_per_word": (
                max(per_word, 0.0), f"least squares over RFC 1624 updates of {span} words"),
            "inc_checksum_fixed_cycles": (max(fixed, 0.0), "its intercept (the fold)")}


def _dfa(d: dict, cached: float) -> dict[str, tuple[float, str]]:
    """dfa_scan per byte: the walk over the largest table that fits L1. A scan of payload
    that does not match stays in the automaton's first levels, whose rows are few and hot."""
    fits = [r for r in d.get("dfa", []) if r["states"] * DFA_STATE_BYTES <= cached]
    if not fits:
        return {}
    r = fits[-1]
    return {"dfa_step_cycles": (r["cycles_per_byte"]["median"],
                                f"DFA walk, {r['states']} states "
                                f"({r['states'] * DFA_STATE_BYTES >> 10} KB), "
                                + _stat(r["cycles_per_byte"]))}


@contract
class CalibrationReport(TypedDict):
    """What ``nfvperf calibrate --format json`` prints (the profile itself is the YAML of
    ``-o``, whose fields the file schemas list)."""

    profile: dict[str, float]
    """Each profile value derived from the measurements (clock_hz, l1_load_cycles,
    l2_load_cycles, l3_access_cycles, dram_latency_s, hash_lookup_cycles, ...)."""
    measurements: dict[str, Any]
    """nfvp-calibrate's own report, section by section: tsc_hz and tsc_measured_hz;
    load_latency (cycles a load by working set, one at a time and independent); overlap (DRAM
    loads in flight); line_write and writeback cycles; hash (rte_hash lookups and inserts by
    table size) and hash_insert_by_load; lpm; checksum and inc_checksum; dfa and
    dfa_by_length; copy; core_to_core (the trips of a line between the two CPUs); frames (a
    table's loads while frames stream through the caches). Each figure is a {median, min, max}
    over the repetitions."""


def derive(host: Host, d: dict, access: str = "overlapped") -> dict[str, Any]:
    """The profile's values from the measurements, each as (value, note)."""
    l1, l2, l3 = host.l1_bytes, host.l2_bytes, host.l3_bytes or 8 * host.l2_bytes
    key = "independent_cycles" if access == "overlapped" and \
        "independent_cycles" in d["load_latency"][0] else "cycles"
    how = "independent random loads" if key != "cycles" else "pointer chase"
    p_l1 = _pick(_latency_at(d, 0, l1 / 2), key)
    p_l2 = _pick(_latency_at(d, l1, l2 / 2), key)
    p_l3 = _pick(_latency_at(d, l2, l3 / 4), key)
    p_dram = _pick(d["load_latency"][-1], key)
    hz = d["tsc_measured_hz"]
    words = [math.ceil(c["bytes"] / CHECKSUM_WORD_BYTES) for c in d["checksum"]]
    per_word, fixed = _fit(words, [c["cycles"]["median"] for c in d["checksum"]])
    small = min((h for h in d["hash"] if h["key_bytes"] == HASH_KEY_BYTES),
                key=lambda h: h["entries"])
    l1_load = p_l1["cycles"]["median"]
    regs = math.ceil(HASH_KEY_BYTES / 8)
    c2c = d.get("core_to_core")
    back = (d["writeback_cycles"]["median"], f"line writes over {d['writeback_bytes'] >> 20} MB "
            "(each evicts a dirty line), " + _stat(d["writeback_cycles"]))
    if c2c and "read_line_cycles" in c2c and key != "cycles":
        # On this data plane a packet reaches the NF from the vSwitch's core: I/O_mem's access
        # is the NF's own side of that hand-over (a line the vSwitch wrote, read in a burst of
        # 32: the mbuf's first line), and mem_I/O's write-back is a line the NF writes that
        # the vSwitch read (the frame's first line, which it classifies by), not an eviction.
        cpus = f"CPU {c2c['cpus'][1]}, from CPU {c2c['cpus'][0]}"
        l3 = (c2c["read_line_cycles"]["median"], f"a line the other core wrote, read on {cpus} "
              "(bursts of 32: the NF's side of a hand-over), " + _stat(c2c["read_line_cycles"]))
        back = (c2c["upgrade_line_cycles"]["median"], "a line the other core read, written on "
                f"{cpus} (bursts of 32: a header the NF rewrites), "
                + _stat(c2c["upgrade_line_cycles"]))
    elif c2c:
        # a line of the whole hand-over (the other core's writes and the handshake with them)
        s = c2c["burst_line_cycles" if key != "cycles" else "one_way_cycles"]
        l3 = (s["median"], f"a line from CPU {c2c['cpus'][0]} to CPU {c2c['cpus'][1]} ("
                           f"{'in bursts of 32' if key != 'cycles' else 'one at a time'}: "
                           "the vSwitch hands packets over), " + _stat(s))
    else:
        l3 = (p_l3["cycles"]["median"], f"{how} over {p_l3['bytes'] >> 10} KB, "
              + _stat(p_l3["cycles"]))
    return {
        "clock_hz": (hz, f"TSC measured against CLOCK_MONOTONIC (rte_get_tsc_hz: "
                         f"{d['tsc_hz'] / 1e6:.0f} MHz; kernel: "
                         f"{(host.kernel_tsc_hz or 0) / 1e6:.0f} MHz)"),
        "l1_load_cycles": (l1_load, f"{how} over {p_l1['bytes'] >> 10} KB, "
                           + _stat(p_l1["cycles"])),
        "l2_load_cycles": (p_l2["cycles"]["median"], f"{how} over "
                           f"{p_l2['bytes'] >> 10} KB, " + _stat(p_l2["cycles"])),
        "l3_access_cycles": l3,
        "l1_write_cycles": (d["line_write_cycles"]["median"],
                            f"64 B line writes within {d['line_write_bytes'] >> 10} KB, "
                            + _stat(d["line_write_cycles"])),
        "l3_writeback_cycles": back,
        "dram_latency_s": (p_dram["cycles"]["median"] / hz,
                           f"{how} over {p_dram['bytes'] >> 20} MB: "
                           f"{p_dram['cycles']['median']:.0f} cycles, "
                           + _stat(p_dram["cycles"])),
        "checksum_cycles_per_word": (max(per_word, 0.0), "least squares over "
                                     f"{len(words)} lengths of rte_raw_cksum"),
        "checksum_fixed_cycles": (max(fixed, 0.0), "its intercept"),
        "hash_lookup_cycles": (max(small["lookup_hit_cycles"]["median"] - l1_load * regs, 0.0),
                               f"rte_hash hit, {small['entries']} entries of "
                               f"{HASH_KEY_BYTES} B keys, less the {regs} key loads the formula "
                               "adds; " + _stat(small["lookup_hit_cycles"])),
        **_inc_checksum(d),
        **_dfa(d, l1),
        "ct_insertion_cycles": (small["insert_cycles"]["median"],
                                f"rte_hash add, {small['entries']} entries, "
                                + _stat(small["insert_cycles"])),
    }


def _scans(d: dict) -> str:
    """instructions.dfa_scan_by_length: DFA scans of n bytes one packet after another, the
    medians with their spread ("" where not measured)."""
    pts = d.get("dfa_by_length")
    if not pts:
        return ""
    out = ["  # dfa_scan by the bytes a scan reads, one packet's scan after another (short ones",
           "  # overlap in the core): cycles a byte over a DFA in L1",
           *_points("dfa_scan_by_length", [(f"bytes: {p['bytes']}", p["cycles_per_byte"])
                                           for p in pts], "cycles_per_byte", 2)]
    return "\n" + "\n".join(out)


def _inserts(d: dict) -> str:
    """instructions.ct_insertion_by_load: rte_hash inserts by the table's load, the medians with
    their spread ("" where not measured)."""
    m = d.get("hash_insert_by_load")
    if not m:
        return ""
    out = [f"  # rte_hash inserts by the table's load: {m['entries']} entries of "
           f"{m['key_bytes']} B keys, overflow buckets,", "  # filled from empty, each tenth's "
           "inserts (load: the share held at its end)",
           *_points("ct_insertion_by_load", [(f"load: {p['load']:.1f}", p["insert_cycles"])
                                             for p in m["steps"]], "cycles", 1)]
    return "\n" + "\n".join(out)


def profile_yaml(host: Host, d: dict, *, name: str = "host", access: str = "overlapped",
                 dataplane: dict | None = None) -> str:
    """The profile as YAML text, commented: what was measured, how, and its spread."""
    v = derive(host, d, access)
    c2c_known = bool(d.get("core_to_core"))

    def val(key: str, digits: int = 1) -> str:
        x = v[key][0]
        return f"{x:.{digits}f}".rstrip("0").rstrip(".") if digits else f"{x:.0f}"

    def row(field: str, key: str, unit: str = "", digits: int = 1) -> str:
        if key not in v:
            return f"  # {field}: not measured"
        text = f"  {field}: {val(key, digits)}{unit}"
        return f"{text:<38}# {v[key][1]}"

    raw = {k: d[k] for k in ("tsc_hz", "tsc_measured_hz", "quick", "repetitions", "hugepages",
                             "load_latency", "line_write_cycles", "writeback_cycles", "hash",
                             "hash_insert_by_load", "lpm", "checksum", "inc_checksum", "dfa",
                             "dfa_by_length", "copy", "overlap", "core_to_core", "frames")
           if k in d}
    when = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    pages = "" if d.get("hugepages") else ", without hugepages"
    l3 = f"\n  l3: {host.l3_bytes >> 10} KB" if host.l3_bytes else ""
    lines = f"""\
name: {name}
description: >
  This host, measured by `nfvperf calibrate` on {when}{' (--quick)' if d.get('quick') else ''}.
  Cycles are TSC cycles and the clock is the TSC rate. Loads and DRAM accesses are priced
  {_ACCESS_TEXT[access]};
  both kinds are recorded under `calibration`. Values marked "paper" were not measured and keep
  Baldi & Sapio's (Sec. 2.2).
source: "nfvperf calibrate (nfvp-calibrate microbenchmarks){pages}"

cpu:
  model: {host.model}
  clock: {v['clock_hz'][0] / 1e6:.0f} MHz                 # {v['clock_hz'][1]}
  sockets: {host.sockets}
  cores_per_socket: {host.cores_per_socket}
  register: 8 B

cache:
  line: 64 B
  l1: {host.l1_bytes >> 10} KB
  l2: {host.l2_bytes >> 10} KB{l3}
{row('l1_load_cycles', 'l1_load_cycles')}
{row('l2_load_cycles', 'l2_load_cycles')}
{row('l3_access_cycles', 'l3_access_cycles')}
{row('l1_write_cycles', 'l1_write_cycles')}
{row('l3_writeback_cycles', 'l3_writeback_cycles')}

memory:
  kind: unknown (measured latency)
  latency: {v['dram_latency_s'][0] * 1e9:.1f} ns              # {v['dram_latency_s'][1]}
{_curves(d)}
nic:
  # the data plane's ports here are DPDK vdevs (rings in shared memory): no line rate of their
  # own; 100 Gbps keeps the link bound out of the way. Packets land in the shared cache, as
  # with DDIO.
  model: DPDK ring vdev
  ports: 2
  link: 100 Gbps
  ddio: true

instructions:
  alu_cycles_per_register: 0.33       # paper: 3 ALU ops per cycle
  index_cycles: 1                     # paper: one ADD
{row('checksum_cycles_per_word', 'checksum_cycles_per_word', digits=2)}
{row('checksum_fixed_cycles', 'checksum_fixed_cycles')}
{row('inc_checksum_cycles_per_word', 'inc_checksum_cycles_per_word')}
{row('inc_checksum_fixed_cycles', 'inc_checksum_fixed_cycles')}
{row('dfa_step_cycles', 'dfa_step_cycles')}{_scans(d)}
  hash_cycles_per_key_component: 0   # folded into hash_lookup_cycles (rte_hash measured whole)
{row('hash_lookup_cycles', 'hash_lookup_cycles')}
  hash_store_cycles: 5                # paper: cache store per 32 B of entry
  hash_store_granule: 32 B
{row('ct_insertion_cycles', 'ct_insertion_cycles')}{_inserts(d)}
  ct_write_cycles_per_register: 0     # folded into ct_insertion_cycles
  remote_io_base_cycles: 30           # paper (Sec. 4.2); only read with a second socket

conventions:
  parse_cache_level: l1               # I/O_mem has just brought the header in
  parse_line_fetch: false
  ct_insertion_formula: printed       # priced by the measured rte_hash insert
  inc_checksum_memory_access: false
  per_packet_overhead_cycles: 0       # the NF loop's own cost: measured by nfvperf validate
  # the NF writes back header lines it already holds; their trip back to the vSwitch's core
  # is paid there, when the vSwitch reads the packet again
  mem_io_l3_access: {'false' if c2c_known else 'true'}
  # a table access beyond the caches waits in the packet's cycles, by the curves of memory:
  memory_stalls: {'cycles' if 'overlap' in d else 'separate'}

"""
    if dataplane is not None:
        from nfvperf.calibrate.dataplane import section_yaml

        lines += ("# the data plane's own costs here (nfvperf.hostmodel): what the chain "
                  "simulator adds to the NFs\n# to predict what the data plane reports\n"
                  + section_yaml(dataplane) + "\n")
    return lines + yaml.safe_dump({"calibration": raw}, sort_keys=False, width=100)


def profile_table(rows: list[dict], host: Host):
    """What each profile value was measured as, and how (nfvperf calibrate)."""
    from nfvperf.output import Column, table

    return table(rows, [Column("value", "profile value", justify="left"),
                        Column("measured", "measured", lambda x: f"{x:.4g}"),
                        Column("how", "how", justify="left")],
                 title=f"{host.model}: {host.sockets} socket(s) × {host.cores_per_socket} cores")
