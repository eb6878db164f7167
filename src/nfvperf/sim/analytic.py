"""A chain the batching model answers on its own: one service, one instance, on a core of its
own, fed by a renewal process (Poisson or evenly paced arrivals) — the single polling NF of
Geissler et al. There the discrete-time model (``nfvperf.batching``) gives the stationary loss,
batch sizes and sojourn times exactly, without the simulator's sampling; anywhere else (several
services or instances, a shared core, the generator's bursts at its wakes, the host's stalls,
scale events) the chain simulator runs. ``predict_chain`` picks, and the result's ``backend``
says which ("batching-model" or "simulator").

The model's queue is the instance's ring (``ring``), its batches take up to ``burst`` packets,
and a batch of n costs the NF loop's overhead for n (``ServiceCost.overhead``) plus the cycles
of its n packets: with one frame size, a fixed time; with several, the n-fold convolution of a
packet's cost over the classes' mix. An empty poll costs one time step (the simulator's
instance waits for a packet at no cost). The NF's verdicts (``ChainSpec.passes``) drop their
share of what it served. Counts are the expected ones over ``duration_s``.
"""

from __future__ import annotations

import numpy as np

from nfvperf.chain import (DROP_PLACES, ChainResult, ChainSpec, ClassResult, InstanceResult,
                           Latency, ServiceResult, TrafficClass, instance_name, loss)
from nfvperf.errors import InputError
from nfvperf.sim.options import SimOptions

#: the model's time step: a full batch's service spans this many steps
STEPS_PER_BATCH = 200
METHODS = ("auto", "model", "simulator")


def why_not(spec: ChainSpec, options: SimOptions) -> str | None:
    """Why the batching model alone cannot answer this chain (None: it can)."""
    if len(spec.services) != 1:
        return "more than one service"
    if spec.most_instances(0) != 1:
        return "more than one instance"
    if options.generator is not None:
        return "the generator shares the core and sends in bursts at its wakes"
    if options.stalls is not None or options.vswitch_cpu is not None:
        return "the host's stalls"
    if options.hop_us > 0:
        return "passes through the vSwitch"
    return None


def predict_chain(spec: ChainSpec, platform, options: SimOptions | None = None, *,
                  default: TrafficClass | None = None, duration_s: float = 1.0,
                  method: str = "auto") -> ChainResult:
    """The chain predicted by the batching model where it applies (``auto``, or ``model``:
    InputError saying why where it does not), else by the simulator."""
    from nfvperf.sim.chain import simulate_chain

    options = options or SimOptions()
    if method not in METHODS:
        raise InputError(" or ".join(METHODS), method, field="method")
    reason = why_not(spec, options) if method != "simulator" else "asked"
    if reason is None:
        return solve_chain(spec, platform, options, default=default, duration_s=duration_s)
    if method == "model":
        raise InputError("a chain the batching model answers: one service, one instance on a "
                         "core of its own, no generator or stalls", reason, field="method")
    return simulate_chain(spec, platform, options, default=default, duration_s=duration_s)


def _service(cycles: np.ndarray, share: np.ndarray, overhead: np.ndarray, speed: float,
             dt: float):
    """The service time pmfs of batches of 0..burst packets, in steps of ``dt``: a fixed time
    for one frame size (its mean exact on the grid), the overhead plus the n-fold convolution
    of a packet's cost over the classes' mix for several."""
    from nfvperf.batching.distributions import Pmf, deterministic

    steps = cycles / speed / dt
    over = overhead / speed / dt
    out = [deterministic(max(1.0, over[0]))]
    if np.allclose(steps, steps[0]):
        return tuple(out + [deterministic(over[n] + n * steps[0])
                            for n in range(1, over.size)])
    parts = [deterministic(float(x)).p for x in steps]
    mix = np.zeros(max(x.size for x in parts))
    for w, x in zip(share, parts):
        mix[: x.size] += w * x
    packet = acc = Pmf(mix)
    for n in range(1, over.size):
        out.append(acc + deterministic(float(over[n])))
        acc = acc + packet
    return tuple(out)


def solve_chain(spec: ChainSpec, platform, options: SimOptions, *,
                default: TrafficClass | None = None, duration_s: float = 1.0) -> ChainResult:
    """The batching model's answer for a chain ``why_not`` accepts, in the chain's record."""
    from nfvperf.batching.arrivals import interarrival
    from nfvperf.batching.model import BatchQueue
    from nfvperf.sim.costs import service_cycles

    bad = why_not(spec, options)
    if bad is not None:
        raise InputError("a chain the batching model answers", bad, field="method")
    spec.check()
    classes = spec.classes(default)
    cost = options.cost(0)
    cycles = service_cycles(spec, platform, options, [c.frame_bytes for c in classes],
                            keys=spec.keys(classes))[0]
    rate = sum(c.pps for c in classes)
    share = np.array([c.pps for c in classes]) / rate
    speed = platform.cpu.clock_hz * min(cost.cores, cost.threads)
    overhead = np.asarray(cost.overhead(options.burst), dtype=float)
    dt = (overhead[-1] + options.burst * float(cycles @ share)) / speed / STEPS_PER_BATCH
    kind = "geometric" if options.arrivals == "poisson" else "deterministic"
    r = BatchQueue(options.ring, options.burst, interarrival(kind, rate, dt),
                   _service(cycles, share, overhead, speed, dt), dt).solve()
    keep = spec.passes(0)
    sojourn = r.sojourn / r.sojourn.sum()
    pct = r.percentiles_us(sojourn)
    lat = Latency(mean=r.time_us(float(np.arange(sojourn.size) @ sojourn)), p50=pct["50"],
                  p90=pct["90"], p99=pct["99"])
    v = r.batch_size
    n = np.arange(v.size)
    polls_with_packets = v[1:].sum()
    per_batch = (overhead[1:] + n[1:] * float(cycles @ share)) / n[1:]
    weight = n[1:] * v[1:]
    median = float(per_batch[np.searchsorted(np.cumsum(weight), 0.5 * weight.sum())]) \
        if weight.sum() > 0 else None

    def counts(pps: float) -> tuple[int, int, int, int]:
        offered = round(pps * duration_s)
        full = round(offered * r.loss_probability)
        verdict = round((offered - full) * (1 - keep))
        return offered, offered - full - verdict, full, verdict

    o, d, full, verdict = counts(rate)
    hist = [[r.time_us(k), r.time_us(k + 1), float(p * d)] for k, p in enumerate(sojourn)
            if p > 0]
    rows = []
    for c in classes:
        co, cd, cf, cv = counts(c.pps)
        rows.append(ClassResult(
            frame_bytes=c.frame_bytes, rate_pps=c.pps, flows=c.run_flows, offered=co,
            delivered=cd, dropped=cf + cv, in_flight=0, loss_pct=loss(co, cd),
            delivered_mpps=cd / duration_s / 1e6,
            delivered_gbps=cd * c.frame_bytes * 8 / duration_s / 1e9, latency_us=lat))
    svc = spec.services[0]
    inst = InstanceResult(
        name=instance_name(0, svc.nf, 0), in_service_at_end=True, flows=sum(
            c.run_flows for c in classes), offered=o, delivered=d, dropped=full + verdict,
        ring_full=full, in_flight=0, bytes=round(sum(
            c.pps * duration_s * (c.frame_bytes - 4) for c in classes)), latency_us=lat,
        cycles_per_packet=median,
        mean_batch=float(n @ v / polls_with_packets) if polls_with_packets > 0 else None)
    dropped = dict.fromkeys(DROP_PLACES)
    dropped.update(ring_full=full, nf=verdict)
    return ChainResult(
        chain=spec.name, backend="batching-model", arch=None, duration_s=duration_s,
        offered_packets=o, delivered_packets=d, loss_pct=loss(o, d),
        delivered_mpps=d / duration_s / 1e6,
        delivered_gbps=sum(x.delivered_gbps for x in rows), latency_us=lat, dropped=dropped,
        in_flight=0, classes=rows, services=[ServiceResult(
            name="s0", nf=svc.nf, policy=svc.policy, stateless=svc.is_stateless,
            cost=svc.cost_driver, offered=o, delivered=d, dropped=full + verdict,
            flows_pinned=inst.flows, flows_moved=0, instances=[inst])],
        latency_hist_us=hist)
