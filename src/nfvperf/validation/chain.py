"""A chain predicted and measured side by side: the chain simulator run as the data plane runs it
on this host (``sim.host``: the profile's ``dataplane`` section), and the chain run on the data
plane, a few times; each quantity's prediction, measurement and error, end to end and per
service and instance, at one or several offered loads.

Each run is priced for the machine as it is placed just before it (the CPUs of a VM move: the
core-to-core trip, and every NF's I/O cost with it, changes by up to 8x; see
``validation.dataplane``) and predicted with its own seed; a quantity is the median over the
runs, its spread the measured minimum and maximum, and whether it repeats: every run's
measurement within the quantity's target of their median (the data plane agreeing with itself
as closely as the prediction is asked to agree with it; where it does not, the median of a few
runs is not a figure a model can be held to).

The JSON (a contract) is ``chain_json.ChainValidation``.
Errors are relative (%, over the measurement) except loss, whose error is the difference in
percentage points.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable

from nfvperf.chain import ChainResult, ChainSpec, TrafficClass
from nfvperf.errors import InputError
from nfvperf.validation.chain_json import ChainValidation

#: targets: relative error (%) or loss difference (points) within which a quantity agrees
TOLERANCE = {"delivered_mpps": 10.0, "loss_pct": 2.0, "latency_mean_us": 30.0,
             "latency_p99_us": 50.0, "cycles_per_packet": 25.0}
#: loss under this (%) on both sides counts as none on both
NO_LOSS_PCT = 0.1
#: quantities end to end, and per instance
END_TO_END = ("delivered_mpps", "loss_pct", "latency_mean_us", "latency_p50_us",
              "latency_p90_us", "latency_p99_us")
PER_INSTANCE = ("delivered_mpps", "loss_pct", "latency_mean_us", "latency_p99_us",
                "cycles_per_packet", "mean_batch")


def end_to_end(r: ChainResult) -> dict[str, float | None]:
    lat = r.latency_us
    return {"delivered_mpps": r.delivered_mpps, "loss_pct": r.loss_pct,
            "latency_mean_us": lat.mean, "latency_p50_us": lat.p50, "latency_p90_us": lat.p90,
            "latency_p99_us": lat.p99}


def per_instance(r: ChainResult) -> dict[str, dict[str, float | None]]:
    out = {}
    for s in r.services:
        for i in s.instances:
            out[i.name] = {
                "delivered_mpps": i.delivered / r.duration_s / 1e6,
                "loss_pct": 100.0 * i.dropped / i.offered if i.offered else None,
                "latency_mean_us": i.latency_us.mean, "latency_p99_us": i.latency_us.p99,
                "cycles_per_packet": i.cycles_per_packet, "mean_batch": i.mean_batch}
    return out


def _median(xs: list[float | None]) -> float | None:
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def agrees(name: str, value: float, reference: float) -> bool | None:
    """Whether ``value`` is within ``name``'s target of ``reference`` (None: no target)."""
    if name == "loss_pct":
        return abs(value - reference) <= TOLERANCE[name] and \
            (value < NO_LOSS_PCT) == (reference < NO_LOSS_PCT)
    if name not in TOLERANCE:
        return None
    if reference == 0:
        return value == 0
    return abs(100.0 * (value - reference) / reference) <= TOLERANCE[name]


def repeats(name: str, measured: float | None, spread: list[float] | None) -> bool | None:
    """Whether every run's measurement (from ``spread``'s least to its most) is within
    ``name``'s target of their median ``measured`` (None: no target, or nothing measured)."""
    if measured is None or not spread or name not in TOLERANCE:
        return None
    return bool(agrees(name, spread[0], measured) and agrees(name, spread[1], measured))


def compare(name: str, predicted: list[float | None], measured: list[float | None]) -> dict:
    """One quantity over the runs: the medians, the error, whether it is within its target,
    and whether the runs' measurements repeat within it."""
    p, m = _median(predicted), _median(measured)
    ms = [x for x in measured if x is not None]
    spread = [min(ms), max(ms)] if ms else None
    out = {"predicted": p, "measured": m, "error": None, "unit": "%", "within": None,
           "spread": spread, "repeatable": repeats(name, m, spread)}
    if p is None or m is None:
        return out
    if name == "loss_pct":
        out["unit"] = "points"
        out["error"] = p - m
    elif m != 0:
        out["error"] = 100.0 * (p - m) / m
    elif p == 0:
        out["error"] = 0.0
    if out["error"] is not None:
        out["within"] = agrees(name, p, m)
    return out


def capacity_pps(spec: ChainSpec, platform, options) -> float:
    """Packets a second the chain's NF core carries at most, as the model has it: the core's
    time left by the host's stalls, over what a packet of the chain's mix costs there (each
    service's cycles and its loop at full batches, stretched by the generator's wakes that
    preempt it busy — their run and what they cost it beyond, ``sim.costs.refill_s`` — and
    the generator's time a packet where it runs beside them); and, where the generator shares
    the core, no more than the rate at which it takes the whole core by itself
    (``generator_pps``)."""
    import numpy as np

    from nfvperf import limits
    from nfvperf.sim.costs import refill_s, service_cycles, service_estimates

    classes = spec.classes(None)
    sizes = [c.frame_bytes for c in classes]
    estimates = service_estimates(spec, platform, options, sizes, spec.keys(classes))
    cycles = service_cycles(spec, platform, options, sizes, estimates)
    share = np.array([c.pps for c in classes]) / spec.pps
    busy = np.array([float(cycles[i] @ share) + options.cost(i).overhead(options.burst)[-1]
                     / options.burst for i in range(len(spec.services))]) / platform.cpu.clock_hz
    free, most, extra = 1.0, np.inf, 0.0
    gen = options.generator
    if gen is not None and gen.cpu == options.nf_cpu:
        # each wake takes its run from the busy NFs, and what it costs them beyond it
        core = np.full((len(spec.services), max(map(spec.most_instances,
                                                     range(len(spec.services))))), gen.cpu)
        taken = (gen.wake_cost_us(1.0) + gen.switch_us) * 1e-6 + refill_s(
            spec, platform, options, spec.keys(classes), core, estimates)[:, options.burst]
        # its wake's CPU time is inside its nap, as measured (sim.chain.generator_wakes)
        cycle = (limits.GEN_NAP_MAX_US
                 + float(np.mean(gen.busy_overshoot_us or gen.overshoot_us))) * 1e-6
        busy = busy / (1 - taken / cycle)
        extra = 2 * gen.packet_us * 1e-6
        most = generator_pps(gen, options.burst)
    stalls = options.stalls
    if isinstance(stalls, dict):
        stalls = stalls.get(options.nf_cpu)
    if stalls is not None:
        free -= stalls.per_s * float(np.mean(stalls.durations_us)) * 1e-6
    return float(min(max(free, 0.05) / (busy.sum() + extra), most))


def generator_pps(gen, burst: int) -> float:
    """The rate at which the generator, waking once a burst (its CPU time a wake and its
    shortest nap) to send it and read as many back, takes its whole core by itself. The
    model's capacity of a core it shares stops there: beyond it the generator is behind and
    shares the core with busy NFs as the kernel does, which is not modelled (offered 1.5 times
    that rate, this host's data plane delivered a third to three quarters of it)."""
    from nfvperf import limits

    return burst / ((gen.wake_us + limits.GEN_NAP_MIN_US + 2 * gen.packet_us * burst) * 1e-6)


def check_offer(total_pps: float, options) -> None:
    """A load the generator cannot send (its CPU time a packet sent and received, measured)
    is refused before anything starts."""
    gen = options.generator
    if gen is None or gen.packet_us <= 0:
        return
    most = 1e6 / (2 * gen.packet_us)
    if total_pps > most:
        raise InputError(f"a load the generator can send (at most {most / 1e6:.2f} Mpps on "
                         "this host)", f"{total_pps / 1e6:.2f} Mpps", field="load")


def _rounded(x: float | None, digits: int) -> float | None:
    return None if x is None else round(x, digits)


def cdf(hists: list[list[list[float]] | None]) -> list[list[float]]:
    """The runs' latency histograms pooled, as [µs, fraction at or below] at each bin's top."""
    bins: dict[tuple[float, float], float] = {}
    for h in hists:
        for lo, hi, n in h or []:
            bins[(lo, hi)] = bins.get((lo, hi), 0.0) + n
    total = sum(bins.values())
    out, acc = [], 0.0
    for (lo, hi), n in sorted(bins.items()):
        acc += n
        out.append([hi, acc / total])
    return out


def point(spec: ChainSpec, platform, options, *, runs: int, duration_s: float, arch: str,
          cpus: dict[str, int], load: float | None, capacity: float,
          progress: Callable[[str], None] | None = None) -> dict:
    """Predict and measure ``spec`` ``runs`` times; the comparison."""
    from nfvperf.calibrate.placement import PRICED, placed_run, priced
    from nfvperf.dataplane.chain import run_chain
    from nfvperf.sim.analytic import predict_chain

    preds, meas, ratios, cores, records, moves = [], [], [], [], [], 0
    for r in range(runs):
        if progress:
            progress(f"run {r + 1} of {runs}")
        # a chain is predicted for the machine as it is: a neighbour on the NF core's other
        # hardware thread throughout is priced (the lookups it slows), not waited out
        run = placed_run(platform, int(platform.cache.l2_bytes),
                         lambda: run_chain(spec, arch=arch, duration_s=duration_s, **cpus),
                         shared=True)
        ratio, moves = run.placement.ratio, moves + run.retries
        ratios.append(None if ratio is None else round(ratio, 2))
        core = run.placement.core_ratio
        cores.append(None if core is None else round(core, 2))
        records.append(priced(run.placement))
        meas.append(run.result)
        preds.append(predict_chain(spec, run.placement.platform, options.model_copy(
            update={"seed": options.seed + r}), duration_s=duration_s))
    e2e_p, e2e_m = [end_to_end(x) for x in preds], [end_to_end(x) for x in meas]
    inst_p, inst_m = [per_instance(x) for x in preds], [per_instance(x) for x in meas]
    services = []
    for s in meas[0].services:
        services.append({"name": s.name, "nf": s.nf, "instances": [
            {"name": i.name, **{q: compare(q, [x[i.name][q] for x in inst_p],
                                           [x[i.name][q] for x in inst_m])
                                for q in PER_INSTANCE}}
            for i in s.instances]})
    offered = spec.pps
    return {
        "load": load, "offered_mpps": offered / 1e6, "capacity_mpps": capacity / 1e6,
        "predicted_by": preds[0].backend,
        "saturated": bool(offered >= capacity),
        "end_to_end": {q: compare(q, [x[q] for x in e2e_p], [x[q] for x in e2e_m])
                       for q in END_TO_END},
        "services": services,
        "cdf": {"predicted": cdf([x.latency_hist_us for x in preds]),
                "measured": cdf([x.latency_hist_us for x in meas])},
        "placement_ratio": ratios,
        "core_ratio": cores,
        # what each run was priced with, so that a model change can be judged on these runs
        **{k: [r[k] for r in records] for k in PRICED},
        "placement_moves": moves,
        # how often the host took the vSwitch's CPU in each run, against the profile's
        "vswitch_stalls_per_s": [_rounded(x.vswitch_stalls["per_s"], 1) for x in meas],
        "vswitch_stall_share": [_rounded(x.vswitch_stalls["time_share"], 5) for x in meas],
        "measured_runs": [end_to_end(x) for x in meas],
    }


def validate_chain(spec: ChainSpec, platform, *, loads: list[float] | None = None,
                   runs: int = 3, duration_s: float = 1.0, arch: str = "double-buffer",
                   default: TrafficClass | None = None, vswitch_cpu: int = 0,
                   nf_cpu: int = 1, gen_cpu: int = 1, sim=None,
                   progress: Callable[[str, int, int], None] | None = None
                   ) -> ChainValidation:
    """The chain predicted and measured ``runs`` times at each of ``loads`` (fractions of the
    predicted capacity of its NF core; None: the chain's own traffic). Everything is checked
    (the chain, the profile's dataplane section, each load) before a process starts."""
    from nfvperf.dataplane.run import check_run
    from nfvperf.sim.host import host_options

    if not 1 <= runs <= 20:
        raise InputError("1..20 runs", runs, field="runs")
    spec.check(runnable=True)
    cpus = {"vswitch_cpu": vswitch_cpu, "nf_cpu": nf_cpu, "gen_cpu": gen_cpu}
    check_run(arch=arch, duration_s=duration_s, cpus=cpus)
    spec = spec.model_copy(update={"traffic": spec.classes(default)})
    options = host_options(platform, len(spec.services), nf_cpu=nf_cpu, gen_cpu=gen_cpu,
                           base=sim)
    capacity = capacity_pps(spec, platform, options)
    if loads is not None:
        for x in loads:
            if not 0 < x <= 10:
                raise InputError("loads in (0, 10] (fractions of the capacity)", x,
                                 field="load")
    specs = [(None, spec)] if loads is None else \
        [(x, spec.at_rate(x * capacity)) for x in loads]
    for _, s in specs:
        check_offer(s.pps, options)
    points = []
    for j, (load, s) in enumerate(specs):
        def say(what: str, j=j, load=load) -> None:
            if progress:
                at = "its traffic" if load is None else f"load {load:g}"
                progress(f"{spec.name}, {at}: {what}", j, len(specs))
        points.append(point(s, platform, options, runs=runs, duration_s=duration_s, arch=arch,
                            cpus=cpus, load=load, capacity=capacity, progress=say))
    if progress:
        progress("done", len(specs), len(specs))
    return {"chain": spec.name, "platform": platform.name, "runs": runs,
            "duration_s": duration_s, "arch": arch, "points": points}
