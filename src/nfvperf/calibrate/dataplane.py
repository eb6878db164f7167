"""The data plane's own costs, measured on this host (the profile's ``dataplane`` section,
``nfvperf.hostmodel``): the smallest chain (one ``forward`` NF) run at loads from light to
heavy, read through the reports the processes write, and the scheduler measured beside it.

- the vSwitch: its poll loop's cycles stage by stage, against the packets each stage moved;
- the NF loop: its cycles a packet besides the handler, against the batch it took;
- the generator: its naps (asked for, and slept) and its CPU time (a wake, a packet);
- the scheduler: a change of turn between two processes that yield, the time slice between two
  busy ones, and the times the host takes a CPU away;
- the floor: the smallest chain's latency end to end at the light load;
- preemption: what a wake of the generator costs an NF busy beside it, by working set.

Nothing here looks at a chain's result: these are the parts the simulator puts together.
"""

from __future__ import annotations

import json
import os
import statistics
import time
from collections.abc import Callable

from nfvperf import limits
from nfvperf.hostmodel import KEEP_SAMPLES, quantiles  # noqa: F401 - the profile's samples

#: offered loads of the smallest chain (packets a second): light (the floor), middle, heavy
LOADS = (20_000, 100_000, 300_000, 1_000_000)
#: the preemption probe: working sets (bytes: in L1, in L2, beyond L2), dependent loads a
#: packet (enough that the NF is busy at the rate), and the rate offered
PREEMPT_SETS = (16 << 10, 640 << 10, 4 << 20)
PREEMPT_STEPS = 4000
PREEMPT_RATE = 300_000
#: a gap in a busy process's clock longer than this is a stall (the host took the CPU): the
#: vSwitch's loop counts its own the same way
STALL_GAP_S = limits.STALL_GAP_US * 1e-6


def _pinned(cpus: list[int], fn) -> list:
    """fn() run at once in a forked process pinned to each of ``cpus`` (a CPU may be named
    twice: two processes share it); their results (JSON), in the order of ``cpus``. Each
    reports through a pipe of its own: two reports larger than a pipe's atomic write
    interleave in a shared one."""
    pipes, pids = [], []
    for c in cpus:
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:            # pragma: no cover - the child reports through its pipe
            try:
                os.close(r)
                os.sched_setaffinity(0, {c})
                with os.fdopen(w, "w") as out:
                    json.dump(fn(), out)
            finally:
                os._exit(0)
        os.close(w)
        pipes.append(r)
        pids.append(pid)
    reports = []
    for r in pipes:             # read before waiting: the reports outgrow a pipe's buffer
        with os.fdopen(r) as f:
            reports.append(f.read())
    for pid in pids:
        os.waitpid(pid, 0)
    for c, text in zip(cpus, reports):
        if not text:
            raise RuntimeError(f"the measuring process on CPU {c} reported nothing")
    return [json.loads(text) for text in reports]


def _gaps(seconds: float, over_s: float) -> list[list[float]]:
    """Busy for ``seconds``, watching its own clock: each time it jumps by more than
    ``over_s`` (the process did not run), the run before and the gap, in seconds."""
    out, end = [], time.perf_counter() + seconds
    last = start = time.perf_counter()
    while last < end:
        now = time.perf_counter()
        if now - last > over_s:
            out.append([last - start, now - last])
            start = now
        last = now
    return out


def slice_us(cpu: int, seconds: float = 0.5) -> float:
    """How long the kernel lets one of two busy processes on one CPU run before the other: the
    median run between the gaps each sees in its own clock."""
    both = _pinned([cpu, cpu], lambda: _gaps(seconds, 50e-6))
    runs = [run for g in both for run, _ in g]
    return statistics.median(runs) * 1e6 if runs else seconds * 1e6


def turn_us(cpu: int, seconds: float = 0.5) -> float:
    """A change of turn between two processes on one CPU that yield to each other
    (sched_yield ping-pong): the time over the yields of both."""
    def ping() -> int:
        n, t0 = 0, time.perf_counter()
        while time.perf_counter() < t0 + seconds:
            os.sched_yield()
            n += 1
        return n

    return seconds / max(sum(_pinned([cpu, cpu], ping)), 1) * 1e6


def stalls(cpus: list[int], seconds: float = 3.0) -> dict[int, dict]:
    """Times the host takes each CPU away while all of them are busy, as the data plane keeps
    them (a VM's vCPUs are descheduled more, and for longer, when the VM uses all of them): a
    busy process on each CPU at once, the gaps over 20 µs in its own clock: how often, how
    long."""
    got = _pinned(cpus, lambda: _gaps(seconds, STALL_GAP_S))
    return {c: {"per_s": len(g) / seconds,
                "durations_us": [round(x * 1e6, 1) for _, x in g] or [0.0]}
            for c, g in zip(cpus, got)}


def smallest_chain(rate_pps: float, *, duration_s: float, vswitch_cpu: int, nf_cpu: int,
                   gen_cpu: int, nf_args: tuple[str, ...] = ()) -> dict:
    """One run of one ``forward`` NF at ``rate_pps`` (64 B, one flow): the generator's and the
    vSwitch's reports (the generator's has its CPU time while it sent)."""
    from nfvperf.dataplane.session import Session, chain_mac

    with Session("double-buffer", vswitch_cpu=vswitch_cpu) as s:
        s.add_nfs("forward", ["fwd"], cpu=nf_cpu, args=nf_args)
        s.add_service("s0", ["fwd"])
        s.set_chain(0, ["s0"])
        s.start_traffic(rate_pps=rate_pps, frame_bytes=64, macs=[chain_mac(0)],
                        duration_s=duration_s, cpu=gen_cpu)
        gen = s.wait_traffic()
        vs = s.close()
    return {"rate_pps": rate_pps, "gen": gen, "vswitch": vs}


def preemption(working_set: int, *, duration_s: float, vswitch_cpu: int, nf_cpu: int,
               gen_cpu: int) -> dict:
    """What a wake of the generator costs a busy NF of ``working_set`` bytes: ``forward``
    walking a table of that size (``--chase-bytes``, ``PREEMPT_STEPS`` dependent loads a
    packet), alone on the NF core (the generator on the vSwitch's) and then beside the
    generator, offered more than it can take. Its cycles a packet, over the clock, rise by
    the core's time it loses; over the wakes, the time lost a wake."""
    args = ("--chase-bytes", str(working_set), "--chase-steps", str(PREEMPT_STEPS))
    other = vswitch_cpu if gen_cpu == nf_cpu else gen_cpu
    runs = [smallest_chain(PREEMPT_RATE, duration_s=duration_s, vswitch_cpu=vswitch_cpu,
                           nf_cpu=nf_cpu, gen_cpu=g, nf_args=args) for g in (other, gen_cpu)]
    alone, beside = (r["vswitch"]["per_nf"][0] for r in runs)
    gen = runs[1]["gen"]
    return {"working_set": working_set,
            "alone_cycles": alone["busy_cycles"] / max(alone["rx"], 1),
            "beside_cycles": beside["busy_cycles"] / max(beside["rx"], 1),
            "wakes_per_s": gen["naps"]["count"] / duration_s,
            "gen_cpu_us": gen["send_cpu_ns"] / 1e3, "gen_naps": gen["naps"]["count"],
            "gen_packets": gen["sent"] + gen["received"],
            "gen_overshoot_us": _overshoots(gen)}


def _overshoots(gen: dict) -> list[float]:
    """µs each sampled nap of the generator's report lasted beyond the one asked for."""
    return [max(s - q, 0) / 1e3 for q, s in gen["naps"]["samples"]]


def on_placement(trip: float | None, l2_bytes: int, run: Callable[[], dict],
                 cpu: int = 1) -> dict:
    """``run()`` with the CPUs placed as when ``trip`` was measured (the one-way core-to-core
    trip of the microbenchmarks; None: any placement that holds through the run). A virtual
    machine's vCPUs move every few seconds here, and the data plane's costs move with them
    (the NF loop 2-3x), so a run that began or ended placed otherwise is run again
    (``placement.until_held``); the result says how many were thrown away
    (``placement_moves``) and whether the last held (``placement_held``)."""
    from nfvperf.calibrate.measure import reference_cycles
    from nfvperf.calibrate.placement import Placement, until_held

    def where() -> Placement:
        return Placement(None, None, reference_cycles(l2_bytes, cpu=cpu).get("core_to_core"))

    got = until_held(run, where, at=trip)
    return {**got.result, "placement_moves": got.retries, "placement_held": got.held}


def measure(*, quick: bool = False, vswitch_cpu: int = 0, nf_cpu: int = 1, gen_cpu: int = 1,
            trip: float | None = None, l2_bytes: int = 1 << 20,
            progress: Callable[[str, int, int], None] | None = None) -> dict:
    """The raw measurements (``derive`` turns them into the profile's section), each run of
    the data plane on the placement of ``trip`` (see on_placement)."""
    repeats, seconds = (1, 0.5) if quick else (3, 1.0)
    steps = 3 + (len(LOADS) + len(PREEMPT_SETS)) * repeats
    done = 0

    def step(what: str) -> None:
        nonlocal done
        if progress:
            progress(f"data plane: {what}", done, steps)
        done += 1

    step("turns between processes")
    turns = [turn_us(nf_cpu, 0.2 if quick else 0.5) for _ in range(repeats)]
    step("the kernel's time slice")
    slices = [slice_us(nf_cpu, 0.2 if quick else 0.5) for _ in range(repeats)]
    step("stalls of the CPUs, all busy")
    cpu_stalls = stalls(sorted({vswitch_cpu, nf_cpu, gen_cpu}), 1.0 if quick else 3.0)
    runs = []
    for rate in LOADS:
        for _ in range(repeats):
            step(f"the smallest chain at {rate / 1e3:.0f} kpps")
            runs.append(on_placement(trip, l2_bytes, lambda: smallest_chain(
                rate, duration_s=seconds, vswitch_cpu=vswitch_cpu, nf_cpu=nf_cpu,
                gen_cpu=gen_cpu), nf_cpu))
    pre = []
    for _ in range(repeats):
        for w in PREEMPT_SETS:
            step(f"a busy NF of {w >> 10} KiB beside the generator")
            pre.append(on_placement(trip, l2_bytes, lambda: preemption(
                w, duration_s=seconds, vswitch_cpu=vswitch_cpu, nf_cpu=nf_cpu,
                gen_cpu=gen_cpu), nf_cpu))
    if progress:
        progress("data plane: done", steps, steps)
    return {"cpus": {"vswitch": vswitch_cpu, "nfs": nf_cpu, "generator": gen_cpu},
            "turn_us": turns, "slice_us": slices, "stalls": cpu_stalls, "runs": runs,
            "preemption": pre}


def _stage(runs: list[dict], name: str) -> dict:
    """cycles = batch + packet × n over the loops of every run (their sums pooled)."""
    n = p = c = pp = cp = 0.0
    for r in runs:
        st = r["vswitch"]["stages"][name]
        n, p, c = n + st["calls"], p + st["packets"], c + st["cycles"]
        pp, cp = pp + st["sum_pp"], cp + st["sum_cp"]
    if n == 0:
        return {"batch_cycles": 0.0, "packet_cycles": 0.0}
    den = n * pp - p * p
    b = (n * cp - c * p) / den if den > 0 else c / max(p, 1)
    a = (c - b * p) / n
    if b < 0:
        a, b = c / n, 0.0
    if a < 0:
        a, b = 0.0, c / max(p, 1)
    return {"batch_cycles": round(a, 1), "packet_cycles": round(b, 2)}


def _nf_loop(runs: list[dict]) -> dict:
    """forward's loop and handler, cycles a packet (the medians over its busy loops), at each
    load's mean batch (the median over that load's runs)."""
    by_rate: dict[float, list[tuple[float, float, float]]] = {}
    for r in runs:
        nf = r["vswitch"]["per_nf"][0]
        if nf["busy_polls"] and nf["loop_cycles_median"] > 0:
            by_rate.setdefault(r["rate_pps"], []).append(
                (nf["rx"] / nf["busy_polls"], nf["loop_cycles_median"],
                 nf["handler_cycles_median"]))
    rows = sorted(tuple(statistics.median(x[i] for x in pts) for i in range(3))
                  for pts in by_rate.values())
    return {"batches": [round(b, 2) for b, _, _ in rows],
            "loop_cycles": [round(c, 1) for _, c, _ in rows],
            "handler_cycles": [round(h, 1) for _, _, h in rows]}


def _generator(runs: list[dict], probes: list[dict]) -> dict:
    """Its naps' overshoot, and its CPU time split into wakes and packets (least squares
    through the origin over the runs, neither negative); beside a busy NF (the preemption
    ``probes``), its CPU time a wake less its packets' (the median over the probes) and its
    naps' overshoot."""
    import numpy as np
    from scipy.optimize import nnls

    over = quantiles([x for r in runs for x in _overshoots(r["gen"])])
    a = np.array([[r["gen"]["naps"]["count"], r["gen"]["sent"] + r["gen"]["received"]]
                  for r in runs], dtype=float)
    y = np.array([r["gen"]["send_cpu_ns"] / 1e3 for r in runs])
    wake, packet = nnls(a, y)[0] if a.any() else (0.0, 0.0)
    out = {"wake_us": round(float(wake), 3), "packet_us": round(float(packet), 4),
           "overshoot_us": [round(x, 2) for x in over]}
    busy = [max(p["gen_cpu_us"] - packet * p["gen_packets"], 0.0) / p["gen_naps"]
            for p in probes if p.get("gen_naps")]
    if busy:
        out["busy_wake_us"] = round(float(np.median(busy)), 3)
    busy_over = [x for p in probes for x in p.get("gen_overshoot_us", [])]
    if busy_over:
        out["busy_overshoot_us"] = [round(x, 2) for x in quantiles(busy_over)]
    return out


def _preemption(probes: list[dict]) -> dict | None:
    """µs the core loses a wake of the generator, by working set: the share of the clock the
    busy NF lost beside it (1 - alone / beside cycles a packet) over its wakes a second; the
    median of the probes of each size, and their least and most."""
    import statistics

    by_size: dict[float, list[float]] = {}
    for p in probes:
        if p["beside_cycles"] > 0 and p["wakes_per_s"] > 0:
            lost = max(1 - p["alone_cycles"] / p["beside_cycles"], 0.0) / p["wakes_per_s"]
            by_size.setdefault(p["working_set"] / 1024, []).append(lost * 1e6)
    if not by_size:
        return None
    sizes = sorted(by_size)
    return {"working_set_kb": [round(w, 1) for w in sizes],
            "lost_us": [round(statistics.median(by_size[w]), 2) for w in sizes],
            "spread_us": [[round(min(by_size[w]), 2), round(max(by_size[w]), 2)]
                          for w in sizes]}


def _vswitch_stalls(raw: dict) -> dict:
    """The vSwitch CPU's stalls as the vSwitch's own loop saw them while the smallest chain's
    traffic ran (``dataplane.run.stall_window``), pooled over those runs: the data plane as it
    keeps the CPUs, over more seconds than the probe's, where the vSwitch reported them."""
    from nfvperf.dataplane.run import stall_window

    cpus = raw["cpus"]
    if cpus["vswitch"] in (cpus["nfs"], cpus["generator"]):
        return {}               # its loop's gaps would hold the others' turns
    got = [stall_window(r["vswitch"], r["gen"]) for r in raw["runs"]
           if "stalls" in r["vswitch"] and r["gen"].get("end_tsc")]
    secs = sum(s for _, s in got)
    if not got or secs <= 0:
        return {}
    d = [x for g, _ in got for x in g]
    return {int(cpus["vswitch"]): {"per_s": round(len(d) / secs, 1),
                                   "durations_us": quantiles(d, KEEP_SAMPLES // 2)}}


def derive(raw: dict) -> dict:
    """The profile's ``dataplane`` section (``nfvperf.hostmodel.DataplaneHost``) from the raw
    measurements, with the spread of the values measured more than once."""
    runs = raw["runs"]
    light = [r for r in runs if r["rate_pps"] == min(LOADS)]
    lat = [r["gen"]["latency_ns"] for r in light if r["gen"]["latency_ns"].get("count")]
    stages = {k: _stage(runs, k) for k in ("rx", "nf", "flush")}
    idle = sum(r["vswitch"]["stages"]["idle_cycles"] for r in runs) / max(
        sum(r["vswitch"]["stages"]["idle_loops"] for r in runs), 1)
    out = {
        "cpus": raw["cpus"],
        "vswitch": {**stages, "idle_loop_cycles": round(idle, 1)},
        "nf_loop": _nf_loop(runs),
        "turn_us": round(statistics.median(raw["turn_us"]), 3),
        "slice_us": round(statistics.median(raw["slice_us"]), 1),
        "stalls": {**{int(c): {"per_s": round(s["per_s"], 1),
                               "durations_us": quantiles(s["durations_us"], KEEP_SAMPLES // 2)}
                      for c, s in raw["stalls"].items()}, **_vswitch_stalls(raw)},
        "generator": _generator(runs, raw.get("preemption", [])),
        "preemption": _preemption(raw.get("preemption", [])),
        "spread": {"turn_us": [round(min(raw["turn_us"]), 3), round(max(raw["turn_us"]), 3)],
                   "slice_us": [round(min(raw["slice_us"]), 1),
                                round(max(raw["slice_us"]), 1)]},
    }
    if lat:
        out["floor_us"] = {k: round(statistics.median(x[k] for x in lat) / 1e3, 2)
                           for k in ("mean", "p50", "p90", "p99")}
        out["spread"]["floor_p50_us"] = [round(min(x["p50"] for x in lat) / 1e3, 2),
                                         round(max(x["p50"] for x in lat) / 1e3, 2)]
    return out


def section_yaml(section: dict) -> str:
    """The section as YAML for the profile, lists of samples on one line each."""
    import yaml

    return yaml.safe_dump({"dataplane": section}, sort_keys=False, width=100,
                           default_flow_style=None)
