"""What each service of a chain costs the simulator: a packet's cycles at each frame size (the
NF's EO model on the platform, or a measurement in the options), and what a preemption of one
of its batches costs it beyond the time away (its working set refetched, as the host's
calibration measured)."""

from __future__ import annotations

import numpy as np

from nfvperf.chain import ChainSpec
from nfvperf.errors import InputError
from nfvperf.sim.options import SimOptions


def service_estimates(spec: ChainSpec, platform, options: SimOptions,
                      frame_sizes: list[int], keys: int | None = None
                      ) -> list[list[list] | None]:
    """Each service's estimates at each frame size (every path's, the one it takes last; its
    NF's EO model, or the options' model), None where the options give measured cycles; its
    tables looked up with no more than the traffic's ``keys`` distinct keys."""
    from nfvperf import nfs
    from nfvperf.eo.estimate import estimate
    from nfvperf.eo.model import load_nf

    out: list[list[list] | None] = []
    for i, svc in enumerate(spec.services):
        cost = options.cost(i)
        if cost.cycles_per_packet is not None:
            out.append(None)
            continue
        ref = cost.model or svc.nf
        nf = nfs.CATALOGUE.get(ref)
        if nf is not None and not nf.has_model:
            raise InputError(f"an NF with an EO model, or a model or cycles_per_packet for "
                             f"service {i} in the simulator's options ({svc.nf} has no model)",
                             svc.nf, field=f"services[{i}].nf")
        model = load_nf(ref)
        by_size = []
        for fb in frame_sizes:
            rows = estimate(model, platform, frame_bytes=fb, params=svc.params,
                            traffic_keys=keys)
            if svc.path is None:
                by_size.append(rows)
                continue
            row = next((r for r in rows if r.path == svc.path), None)
            if row is None:
                raise InputError("a path of the NF's model (" + ", ".join(
                    dict.fromkeys(r.path for r in rows)) + ")", svc.path,
                    field=f"services[{i}].path")
            by_size.append([row])
        out.append(by_size)
    return out


def service_cycles(spec: ChainSpec, platform, options: SimOptions, frame_sizes: list[int],
                   estimates: list[list[list] | None] | None = None,
                   keys: int | None = None) -> np.ndarray:
    """Cycles a packet costs at each service, for each frame size: measured, or estimated from
    the EO model (the options', else the NF's own; ``estimates``: ``service_estimates``')."""
    if estimates is None:
        estimates = service_estimates(spec, platform, options, frame_sizes, keys)
    out = np.zeros((len(spec.services), len(frame_sizes)))
    for i, by_size in enumerate(estimates):
        if by_size is None:
            c = options.cost(i).cycles_per_packet
            if isinstance(c, dict):
                xs = sorted(c)
                out[i] = np.interp(frame_sizes, xs, [c[x] for x in xs])
            else:
                out[i] = c
            continue
        out[i] = [rows[-1].cycles_per_packet for rows in by_size]
    return out


def refill_s(spec: ChainSpec, platform, options: SimOptions, keys: int, core: np.ndarray,
             estimates: list[list[list] | None]) -> np.ndarray:
    """Seconds a preemption of a batch of n packets (0..burst, ``[s, n]``) costs service s
    beyond the time away, where it shares the generator's core: a wake of the generator costs
    a busy NF of its working set more than the generator's run (``options.preemption``,
    measured with an NF that walks its whole table at every packet: the changes of process,
    the caches refetched), by as much as measured beyond the run the model has
    (``generator``: its wake after a busy NF, ``wake_cost_us(1)``, and ``switch_us``;
    ``Preemption.beyond_us``). The NF refetches no more than its
    working set, nor than the batch's packets touch of it (``eo.footprint``). The working
    set: the
    options' ``working_set_bytes`` (all of it touched), else its EO model's tables over
    ``keys`` keys (the largest over frame sizes and paths)."""
    from nfvperf.eo.footprint import touched_bytes, working_set_bytes

    out = np.zeros((len(spec.services), options.burst + 1))
    pre, gen = options.preemption, options.generator
    if pre is None or gen is None:
        return out
    line = platform.cache.line_bytes
    n = np.arange(options.burst + 1)
    for i, by_size in enumerate(estimates):
        if not np.any(core[i, :spec.most_instances(i)] == gen.cpu):
            continue
        w = options.cost(i).working_set_bytes
        if w is not None:
            refetched = np.full(n.size, float(w))
        elif by_size is None:
            continue
        else:
            rows = [r for by in by_size for r in by]
            w = max(working_set_bytes(r.lines, keys, line) for r in rows)
            refetched = np.minimum(w, n * max(touched_bytes(r.lines, line) for r in rows))
        out[i] = pre.beyond_us(refetched, gen.wake_cost_us(1.0) + gen.switch_us) * 1e-6
    return out


def nf_share(spec: ChainSpec, classes, cycles: np.ndarray, clock_hz: float,
             on: np.ndarray) -> float:
    """The share of a core's clock that the NFs' own cycles take at the chain's offered rate,
    at most 1: each service's cycles a packet of each class (``cycles[s, c]``) at the rate that
    reaches it (the class's, less what the services before it drop by design), over the
    instances on that core (``on[s, k]``: whether instance k of service s runs there) as a
    share of the service's."""
    pps = np.array([c.pps for c in classes], dtype=float)
    total, reach = 0.0, 1.0
    for i, s in enumerate(spec.services):
        there = float(np.count_nonzero(on[i, :s.instances])) / s.instances
        total += reach * there * float(cycles[i] @ pps)
        reach *= spec.passes(i)
    return min(total / clock_hz, 1.0)
