"""A chain of services with parallel instances, simulated (issue 6): each instance is a
batched polling queue (the batching model's server: it takes up to β waiting packets, serves
them as one batch, and polls again), the vSwitch's distribution policies pick the instance of
every packet, and the traffic is made of flow classes (frame size, rate, flows).

A packet's cost at a service comes from the estimator (the NF's EO model on a platform profile,
at the class's frame size) or from a measurement (``cycles_per_packet`` in the spec); a batch
adds ``batch_overhead_cycles``. An instance given ``cores`` runs at the clock × min(cores,
threads): a single-threaded NF gains nothing from a second core (Hajji et al.), a second
instance does. Instances run on a core of their own, or, where services name a ``cpu``, share
that core with every instance that names it, batch by batch. Chain latency is the sum of the waits and services along the chain; the hops
through the vSwitch are taken as free.

The result has the data plane's JSON shape (``dataplane.chain.chain_result``): totals, a row
per class, per service and instance.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from nfvperf.dataplane.chain import POLICIES, ChainSpec, loss
from nfvperf.errors import InputError

POLICY_CODES = {p: i for i, p in enumerate(POLICIES)}     # the kernel's POL_*


def service_cycles(spec: ChainSpec, platform, frame_sizes: list[int]) -> np.ndarray:
    """Cycles a packet costs at each service, for each frame size: measured, or estimated."""
    from nfvperf.dataplane.build import model_path
    from nfvperf.eo.estimate import estimate
    from nfvperf.eo.model import load_nf

    out = np.zeros((len(spec.services), len(frame_sizes)))
    for i, svc in enumerate(spec.services):
        field = f"services[{i}]"
        if svc.cycles_per_packet is not None:
            c = svc.cycles_per_packet
            if isinstance(c, dict):
                xs = sorted(c)
                out[i] = np.interp(frame_sizes, xs, [c[x] for x in xs])
            else:
                out[i] = c
            continue
        ref = svc.model or model_path(svc.nf)
        if svc.model is None and not Path(ref).is_file():
            raise InputError(f"a model or cycles_per_packet for {svc.nf} (it has no EO model)",
                             None, field=f"{field}.model")
        model = load_nf(ref)
        for j, fb in enumerate(frame_sizes):
            out[i, j] = estimate(model, platform, frame_bytes=fb,
                                 params=svc.params)[-1].cycles_per_packet
    return out


def arrivals(classes: list[tuple[int, float, int]], duration_s: float, how: str,
             rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Arrival times, class and flow of every packet, in time order. Poisson: exponential
    gaps, a random flow of the class; paced: even gaps, flows in turn (as nfvp-gen)."""
    ts, cs, fs = [], [], []
    first = 0
    for c, (_, rate, flows) in enumerate(classes):
        if how == "poisson":
            n = rng.poisson(rate * duration_s)
            t = np.sort(rng.uniform(0, duration_s, n))
            f = first + rng.integers(0, flows, n)
        else:
            n = int(rate * duration_s)
            t = (np.arange(n) + rng.uniform()) / rate
            f = first + np.arange(n) % flows
        ts.append(t)
        cs.append(np.full(n, c))
        fs.append(f)
        first += flows
    t, c, f = np.concatenate(ts), np.concatenate(cs), np.concatenate(fs)
    order = np.argsort(t, kind="stable")
    return t[order], c[order].astype(np.int64), f[order].astype(np.int64)


def simulate_chain(spec: ChainSpec, platform, *, frame_bytes: int = 64, rate_pps: float = 1e5,
                   flows: int = 1, duration_s: float = 1.0, how: str = "poisson",
                   warmup_s: float | None = None, seed: int = 7) -> dict:
    from nfvperf.dataplane.chain import instance_name, vswitch_weights
    from nfvperf.sim import chain_kernel as kn

    spec.check()
    if how not in ("poisson", "paced"):
        raise InputError("poisson or paced", how, field="--arrivals")
    classes = spec.classes(frame_bytes, rate_pps, flows)
    sizes = [c[0] for c in classes]
    cycles = service_cycles(spec, platform, sizes)
    S = len(spec.services)
    n_inst = np.array([s.instances for s in spec.services], dtype=np.int64)
    most = [spec.most_instances(i) for i in range(S)]
    K = max(most)
    weights = np.zeros((S, K))
    speed = np.zeros((S, K))
    core = np.zeros((S, K), dtype=np.int64)
    own = 1 + max([s.cpu for s in spec.services if s.cpu is not None], default=-1)
    for i, s in enumerate(spec.services):
        w = vswitch_weights(s.weights, s.instances) or [1] * s.instances
        weights[i, :s.instances] = w
        speed[i, :most[i]] = platform.cpu.clock_hz * min(s.cores, s.threads)
        for k in range(most[i]):         # a shared core (cpu), or one of its own
            if s.cpu is not None:
                core[i, k] = s.cpu
            else:
                core[i, k] = own
                own += 1
    warm = duration_s * 0.1 if warmup_s is None else warmup_s
    t, c, f = arrivals(classes, duration_s + warm, how, np.random.default_rng(seed))
    events = sorted(spec.scale, key=lambda e: e.at_s)
    sc_w = np.zeros((len(events), K))
    for j, ev in enumerate(events):
        sc_w[j, :ev.instances] = vswitch_weights(ev.weights, ev.instances) or [1] * ev.instances
    stats, soj, cls_stats, cls_lat, cls_hist, moved = kn.run_chain(
        t, c, f, np.array(sizes, dtype=np.int64), sum(x[2] for x in classes), n_inst,
        np.array([POLICY_CODES[s.policy] for s in spec.services], dtype=np.int64), weights,
        np.array([s.large_bytes for s in spec.services], dtype=np.int64),
        np.array([spec.cost(i) == "bytes" for i in range(S)]), cycles,
        np.array([s.batch_overhead_cycles for s in spec.services]), speed, core,
        spec.quantum_us * 1e-6, spec.switch_us * 1e-6, spec.ring, spec.burst, warm,
        np.array([warm + ev.at_s for ev in events], dtype=float),
        np.array([ev.service for ev in events], dtype=np.int64),
        np.array([ev.instances for ev in events], dtype=np.int64), sc_w,
        *_stalls(spec, core, duration_s + warm, np.random.default_rng(seed + 1)))
    scaling = [{"at_s": ev.at_s, "service": ev.service, "instances": ev.instances,
                "moved": int(m)} for ev, m in zip(events, moved)]
    result = _result(spec, classes, duration_s, stats, soj, cls_stats, cls_lat, cls_hist,
                     cycles, instance_name)
    result["scaling"] = scaling
    for e in scaling:
        result["services"][e["service"]]["flows_moved"] += e["moved"]
    for i, svc in enumerate(result["services"]):
        final = ([e["instances"] for e in scaling if e["service"] == i]
                 or [spec.services[i].instances])[-1]
        for k, inst in enumerate(svc["instances"]):
            inst["in_service_at_end"] = k < final
            if k >= final:              # as the data plane: a removed instance pins nothing
                inst["flows"] = None
    return _plain(result)


def _plain(x):
    """NumPy scalars as Python numbers, for JSON."""
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_plain(v) for v in x]
    return x.item() if isinstance(x, np.generic) else x


def _stalls(spec: ChainSpec, core: np.ndarray, horizon: float, rng: np.random.Generator):
    """Stalls of the shared cores (those services name with `cpu`): Poisson in time at the
    spec's rate, durations drawn from its measured ones."""
    on = np.zeros(core.max() + 1, dtype=np.bool_)
    if spec.stalls is None:
        return np.zeros(0), np.zeros(0), on
    for s in spec.services:
        if s.cpu is not None:
            on[s.cpu] = True
    n = rng.poisson(spec.stalls.per_s * horizon)
    t = np.sort(rng.uniform(0, horizon, n))
    d = rng.choice(np.asarray(spec.stalls.durations_us) * 1e-6, n)
    return t, d, on


def _quantiles(hist: np.ndarray, n: float) -> tuple[float | None, float | None]:
    from nfvperf.sim.chain_kernel import LAT_LO, LAT_PER_DECADE

    if n <= 0:
        return None, None
    cum = np.cumsum(hist)
    mids = LAT_LO * 10 ** ((np.arange(hist.size) + 0.5) / LAT_PER_DECADE)
    return tuple(float(mids[min(np.searchsorted(cum, q * n), hist.size - 1)]) * 1e6
                 for q in (0.5, 0.99))


def _result(spec, classes, dur, stats, soj, cls_stats, cls_lat, cls_hist, cycles,
            instance_name) -> dict:
    from nfvperf.sim import chain_kernel as kn

    cls_rows = []
    for j, (fb, rate, flows) in enumerate(classes):
        o, d = cls_stats[j, 0], cls_stats[j, 1]
        p50, p99 = _quantiles(cls_hist[j], d)
        cls_rows.append({"frame_bytes": fb, "rate_pps": rate, "flows": flows,
                         "offered": int(o), "delivered": int(d), "loss_pct": loss(o, d),
                         "delivered_mpps": d / dur / 1e6,
                         "delivered_gbps": d * fb * 8 / dur / 1e9,   # FCS in, as gen
                         "latency_us": {"mean": cls_lat[j] / d * 1e6 if d else None,
                                        "p50": p50, "p99": p99}})
    services = []
    for i, svc in enumerate(spec.services):
        inst = []
        for k in range(spec.most_instances(i)):
            st = stats[i, k]
            served = st[kn.I_SERVED]
            p50, p99 = _quantiles(soj[i, k], served)
            inst.append({"name": instance_name(i, svc.nf, k), "in_service_at_end": True,
                         "flows": int(st[kn.I_FLOWS]), "offered": int(st[kn.I_OFFERED]),
                         "delivered": int(served), "dropped": int(st[kn.I_DROPPED]),
                         "bytes": int(st[kn.I_BYTES]),
                         "latency_us": {"mean": st[kn.I_SOJOURN] / served * 1e6
                                        if served else None, "p50": p50, "p99": p99},
                         "mean_batch": served / st[kn.I_BATCHES] if st[kn.I_BATCHES] else None})
        services.append({"name": f"s{i}", "nf": svc.nf, "policy": svc.policy,
                         "stateless": spec.stateless(i), "cost": spec.cost(i),
                         "cycles_per_packet": {str(fb): float(cycles[i, j])
                                               for j, (fb, _, _) in enumerate(classes)},
                         "offered": sum(x["offered"] for x in inst),
                         "delivered": sum(x["delivered"] for x in inst),
                         "dropped": sum(x["dropped"] for x in inst),
                         # the flows pinned now (a moved flow counts where it is)
                         "flows_pinned": sum(x["flows"] for x in inst), "flows_moved": 0,
                         "instances": inst})
    o, d = cls_stats[:, 0].sum(), cls_stats[:, 1].sum()
    hist = cls_hist.sum(axis=0)
    p50, p99 = _quantiles(hist, d)
    return {
        "chain": spec.name, "arch": "simulated", "duration_s": dur,
        "offered_packets": int(o), "delivered_packets": int(d), "loss_pct": loss(o, d),
        "delivered_mpps": d / dur / 1e6,
        "delivered_gbps": sum(r["delivered_gbps"] for r in cls_rows),
        "latency_us": {"mean": cls_lat.sum() / d * 1e6 if d else None, "p50": p50,
                       "p99": p99},
        "dropped": {"queue_full": int(cls_stats[:, 2].sum())},
        "classes": cls_rows, "services": services, "scaling": [],
    }

