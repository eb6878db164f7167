"""A chain of services with parallel instances (``nfvperf.chain``), simulated: each instance is a
batched polling queue (the batching model's server: it takes up to β waiting packets, serves
them as one batch, and polls again), the vSwitch's distribution policies pick the instance of
every packet, and the traffic is made of flow classes (frame size, rate, flows).

A packet's cost at a service comes from the estimator (the NF's EO model on a platform profile,
at the class's frame size) or from a measurement (``cycles_per_packet`` in the simulator's
options, ``SimOptions``); a batch adds ``batch_overhead_cycles``. An instance given ``cores``
runs at the clock × min(cores, threads): a single-threaded NF gains nothing from a second core
(Hajji et al.), a second instance does. Instances run on a core of their own, or, where services
name a ``cpu`` (or the options an ``nf_cpu`` for the rest), share that core, batch by batch or
in turns. Chain latency is the sum of the waits and services along the chain, and, as the
options say, of the passes through the vSwitch and the generator's wait to read a packet back.

Given the data plane's own costs on a host (``sim.host.host_options``: the profile's
``dataplane`` section), the options make the simulator run a chain as the data plane does
here: the NFs' core shared in turns and with the generator, paced sends at the generator's
wakes, the host's stalls; it then predicts what the data plane reports.

The result is the record the data plane fills too (``nfvperf.chain.ChainResult``); what the
simulator does not model is None there: the port's drops without the vSwitch's core (its
receive ring) or without the generator (the generator's receive ring, which holds what comes
back while it naps), and the data plane's own failures (no chain, an NF absent or dead).
"""

from __future__ import annotations

import numpy as np

from nfvperf.chain import (DROP_PLACES, POLICY_CODES, ChainResult, ChainSpec, ClassResult,
                           InstanceResult, Latency, ScaleResult, ServiceResult, TrafficClass,
                           instance_name, integer_weights, loss)
from nfvperf.errors import InputError
from nfvperf import limits
from nfvperf.sim.costs import nf_share, refill_s, service_cycles, service_estimates
from nfvperf.sim.options import Generator, SimOptions
from nfvperf.sim.stalls import host_stalls, kernel_stalls, merged, vswitch_stalls


def arrivals(classes: list[TrafficClass], duration_s: float, how: str,
             rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Arrival times, class and flow of every packet, in time order. Poisson: exponential
    gaps, a random flow of the class; paced: even gaps, flows in turn (as nfvp-gen)."""
    ts, cs, fs = [], [], []
    first = 0
    for c, tc in enumerate(classes):
        rate, flows = tc.pps, tc.run_flows
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


def generator_wakes(due: np.ndarray, gen: Generator, horizon: float, rng: np.random.Generator,
                    cold: float = 0.0, away: tuple[np.ndarray, np.ndarray] | None = None
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """nfvp-gen's paced loop: at each wake it sends every packet then due (stamped then) and,
    while it runs, each that falls due (stamped as it does); it runs ``packet_us`` a packet
    sent and one received (as many come back as go out, at a steady load), then naps until
    the next full burst is due, at most ``GEN_NAP_MAX_US``, not at all under
    ``GEN_NAP_MIN_US`` (it polls on: its next "wake" is when the next packet falls due), each
    nap longer than asked by a measured overshoot (``busy_overshoot_us`` for a share ``cold``
    of its wakes, which follow a busy NF). A wake's own CPU time (``Generator.wake_cost_us``)
    is the kernel's, entering and leaving the sleep: inside the nap as measured, so it holds
    the core but does not delay the next wake. A wake that falls while the host has its core
    (``away``: the spans, ``stalls.merged``) is when the core is back, and what fell due
    meanwhile goes then. Returns the wakes, how long it holds its core at each (its
    packets' time; a wake from a nap adds its CPU time and ``switch_us``, the changes of
    process, neither of which its own schedule waits for), whether each came from a nap (one
    that preempts a busy NF costs it the refill beyond; polling on, the generator only takes
    its packets' time), and each packet's send time."""
    nap_max, nap_min = limits.GEN_NAP_MAX_US * 1e-6, limits.GEN_NAP_MIN_US * 1e-6
    burst = limits.NF_MAX_BURST
    over = np.asarray(gen.overshoot_us) * 1e-6
    busy_over = np.asarray(gen.busy_overshoot_us or gen.overshoot_us) * 1e-6
    wake_us = gen.wake_cost_us(cold)
    send = np.empty_like(due)
    wakes, runs, naps = [], [], []
    n, j, t = due.size, 0, 0.0

    def overshoots(m: int) -> np.ndarray:
        return np.where(rng.random(m) < cold, rng.choice(busy_over, m), rng.choice(over, m))

    draws = overshoots(max(16, int(horizon / nap_max) + 16))
    d = 0
    woke = True             # from a nap (a wake-up costs its CPU time), or polling on
    gone, back = away if away is not None else (np.zeros(0), np.zeros(0))
    g = 0
    while True:
        while g < gone.size and back[g] <= t:
            g += 1
        if g < gone.size and gone[g] <= t:
            t = back[g]
        if t >= horizon:
            break
        k = int(np.searchsorted(due, t, side="right"))
        send[j:k] = t
        run = 2 * gen.packet_us * (k - j) * 1e-6
        # its loop goes on sending what falls due while it runs, as it falls due; it naps
        # only once a turn of it finds nothing to send or receive
        while True:
            k2 = int(np.searchsorted(due, t + run, side="right"))
            if k2 == k:
                break
            send[k:k2] = due[k:k2]
            run += 2 * gen.packet_us * (k2 - k) * 1e-6
            k = k2
        wakes.append(t)
        runs.append(run + (wake_us + gen.switch_us) * woke * 1e-6)
        naps.append(woke)
        j = k
        after = t + run
        full = due[j + burst - 1] if j + burst - 1 < n else np.inf
        asked = min(nap_max, max(full - after, 0.0))
        if asked < nap_min:
            # no nap: it polls on, sending packets as they fall due; only its packets' time is
            # counted against the core (the kernel shares a core between a polling generator
            # and the NFs, and how it does is not modelled)
            nxt = max(after, due[j] if j < n else horizon)
            woke = False
        else:
            woke = True
            if d == draws.size:
                draws, d = overshoots(draws.size), 0
            nxt = after + asked + draws[d]
            d += 1
        t = nxt
    send[j:] = t
    return np.array(wakes), np.array(runs), np.array(naps, dtype=float), send


def simulate_chain(spec: ChainSpec, platform, options: SimOptions | None = None, *,
                   default: TrafficClass | None = None,
                   duration_s: float = 1.0) -> ChainResult:
    """Simulate ``duration_s`` seconds of the chain's traffic (``default`` when the chain has
    none) on ``platform``'s cores; ``options``: the simulator's own settings."""
    from nfvperf.sim import chain_kernel as kn

    options = options or SimOptions()
    spec.check()
    if not (0 < duration_s <= 60):
        raise InputError("0 < seconds ≤ 60", duration_s, field="duration_s")
    for i in options.services:
        if i >= len(spec.services):
            raise InputError(f"a service index 0..{len(spec.services) - 1}", i,
                             field="options.services")
    classes = spec.classes(default)
    sizes = [c.frame_bytes for c in classes]
    estimates = service_estimates(spec, platform, options, sizes, spec.keys(classes))
    cycles = service_cycles(spec, platform, options, sizes, estimates)
    S = len(spec.services)
    n_inst = np.array([s.instances for s in spec.services], dtype=np.int64)
    most = [spec.most_instances(i) for i in range(S)]
    K = max(most)
    weights = np.zeros((S, K))
    speed = np.zeros((S, K))
    core = np.zeros((S, K), dtype=np.int64)
    named = [s.cpu for s in spec.services if s.cpu is not None] + \
        [c for c in (options.nf_cpu, options.generator and options.generator.cpu)
         if c is not None]
    own = 1 + max(named, default=-1)
    for i, s in enumerate(spec.services):
        weights[i, :s.instances] = integer_weights(s.weights, s.instances)
        cost = options.cost(i)
        speed[i, :most[i]] = platform.cpu.clock_hz * min(cost.cores, cost.threads)
        for k in range(most[i]):         # a shared core (cpu, nf_cpu), or one of its own
            if s.cpu is not None or options.nf_cpu is not None:
                core[i, k] = s.cpu if s.cpu is not None else options.nf_cpu
            else:
                core[i, k] = own
                own += 1
    warm = duration_s * 0.1 if options.warmup_s is None else options.warmup_s
    rng = np.random.default_rng(options.seed)
    t, c, f = arrivals(classes, duration_s + warm, options.arrivals, rng)
    gen = options.generator
    host = host_stalls(spec, options, core, duration_s + warm,
                       np.random.default_rng(options.seed + 1))
    if gen is not None:
        # mean-field: a wake finds the generator's caches cold as often as the NFs on its
        # core are busy at the offered rate
        cold = nf_share(spec, classes, cycles, platform.cpu.clock_hz, core == gen.cpu)
        away = merged(*host[gen.cpu]) if gen.cpu in host else None
        wakes, runs, naps, t = generator_wakes(t, gen, duration_s + warm, rng, cold, away)
    else:
        wakes, runs, naps = np.zeros(0), np.zeros(0), np.zeros(0)
    stamp = t
    t, c, f, stamp, port_drops, vs_t, vs_e = vswitch_stalls(
        options, t, c, f, len(classes), duration_s + warm, warm,
        np.random.default_rng(options.seed + 2))
    events = sorted(spec.scale, key=lambda e: e.at_s)
    sc_w = np.zeros((len(events), K))
    for j, ev in enumerate(events):
        sc_w[j, :ev.instances] = integer_weights(ev.weights, ev.instances)
    stalls = kernel_stalls(core, host, gen, wakes, runs, naps)
    stats, soj, cls_stats, cls_lat, cls_hist, moved, cyc = kn.run_chain(
        t, c, f, np.array(sizes, dtype=np.int64), sum(x.run_flows for x in classes), n_inst,
        np.array([POLICY_CODES[s.policy] for s in spec.services], dtype=np.int64), weights,
        np.array([s.large_bytes for s in spec.services], dtype=np.int64),
        np.array([s.cost_driver == "bytes" for s in spec.services]), cycles,
        np.array([options.cost(i).overhead(options.burst) for i in range(S)]), speed, core,
        options.quantum_us * 1e-6, options.switch_us * 1e-6, options.ring, options.burst, warm,
        np.array([warm + ev.at_s for ev in events], dtype=float),
        np.array([ev.service for ev in events], dtype=np.int64),
        np.array([ev.instances for ev in events], dtype=np.int64), sc_w, *stalls,
        wakes, runs, options.hop_us * 1e-6,
        np.array([spec.passes(i) for i in range(S)]),
        refill_s(spec, platform, options, spec.keys(classes), core, estimates), stamp, vs_t, vs_e,
        limits.ring_room(limits.PORT_RING_SIZE))
    cls_stats[:, 0] += port_drops          # offered, and lost at the vSwitch's port
    cls_stats[:, 2] += port_drops
    scaling = [ScaleResult(at_s=ev.at_s, service=ev.service, instances=ev.instances,
                           moved=int(m), flows=None, hash_moved=None, mod_moved=None)
               for ev, m in zip(events, moved)]
    return _result(spec, classes, duration_s, stats, soj, cls_stats, cls_lat, cls_hist,
                   scaling, cyc, int(port_drops.sum()) if options.vswitch_cpu is not None
                   else None, int(cls_stats[:, 3].sum()) if len(wakes) else None)


def _latency(hist: np.ndarray, n: float, total_s: float) -> Latency:
    """Mean and quantiles in µs of a log-binned latency histogram of ``n`` packets."""
    from nfvperf.sim.chain_kernel import LAT_LO, LAT_PER_DECADE

    if n <= 0:
        return Latency()
    cum = np.cumsum(hist)

    def quantile(q: float) -> float:
        # the bin the q-th packet falls in, and how far into it (its packets spread evenly
        # over the bin's logarithm): bins are 12 % wide, their middles alone 6 % off
        b = min(int(np.searchsorted(cum, q * n)), hist.size - 1)
        before = cum[b - 1] if b else 0.0
        f = min(max((q * n - before) / hist[b], 0.0), 1.0) if hist[b] > 0 else 0.5
        return float(LAT_LO * 10 ** ((b + f) / LAT_PER_DECADE)) * 1e6

    return Latency(mean=float(total_s / n * 1e6), p50=quantile(0.5), p90=quantile(0.9),
                   p99=quantile(0.99))


def _median_cycles(hist: np.ndarray) -> float | None:
    """The median of a histogram of batches' cycles a packet weighted by packets (as the data
    plane's loop histogram), at its bin's middle."""
    from nfvperf.sim.chain_kernel import CYC_PER_DECADE

    n = hist.sum()
    if n <= 0:
        return None
    b = int(np.searchsorted(np.cumsum(hist), 0.5 * n))
    return float(10 ** ((b + 0.5) / CYC_PER_DECADE))


def _result(spec, classes, dur, stats, soj, cls_stats, cls_lat, cls_hist,
            scaling, cyc, port_rx, port_tx) -> ChainResult:
    from nfvperf.sim import chain_kernel as kn

    cls_rows = []
    for j, tc in enumerate(classes):
        o, d, x = (int(v) for v in cls_stats[j, :3])
        cls_rows.append(ClassResult(
            frame_bytes=tc.frame_bytes, rate_pps=tc.pps, flows=tc.run_flows, offered=o,
            delivered=d, dropped=x, in_flight=o - d - x, loss_pct=loss(o, d),
            delivered_mpps=d / dur / 1e6,
            delivered_gbps=d * tc.frame_bytes * 8 / dur / 1e9,      # FCS in, as gen
            latency_us=_latency(cls_hist[j], d, cls_lat[j])))
    services = []
    for i, svc in enumerate(spec.services):
        final = ([e.instances for e in scaling if e.service == i] or [svc.instances])[-1]
        inst = []
        for k in range(spec.most_instances(i)):
            st = stats[i, k]
            served, offered, full, discarded = (int(st[x]) for x in (
                kn.I_SERVED, kn.I_OFFERED, kn.I_DROPPED, kn.I_DISCARDED))
            batched = st[kn.I_BATCHED]
            inst.append(InstanceResult(
                name=instance_name(i, svc.nf, k), in_service_at_end=k < final,
                # as the data plane: a removed instance pins nothing
                flows=int(st[kn.I_FLOWS]) if k < final else None, offered=offered,
                delivered=served - discarded, dropped=full + discarded, ring_full=full,
                in_flight=offered - served - full, bytes=int(st[kn.I_BYTES]),
                latency_us=_latency(soj[i, k], served - discarded, st[kn.I_SOJOURN]),
                cycles_per_packet=_median_cycles(cyc[i, k]),
                mean_batch=float(batched / st[kn.I_BATCHES]) if st[kn.I_BATCHES] else None))
        services.append(ServiceResult(
            name=f"s{i}", nf=svc.nf, policy=svc.policy, stateless=svc.is_stateless,
            cost=svc.cost_driver, offered=sum(x.offered for x in inst),
            delivered=sum(x.delivered for x in inst), dropped=sum(x.dropped for x in inst),
            # the flows pinned now (a moved flow counts where it is)
            flows_pinned=sum(x.flows or 0 for x in inst),
            flows_moved=sum(e.moved for e in scaling if e.service == i), instances=inst))
    o, d, x = (int(v) for v in cls_stats[:, :3].sum(axis=0))
    dropped = dict.fromkeys(DROP_PLACES)
    dropped["nf"] = int(stats[:, :, kn.I_DISCARDED].sum())
    dropped["port_rx"], dropped["port_tx"] = port_rx, port_tx
    dropped["ring_full"] = x - dropped["nf"] - (port_rx or 0) - (port_tx or 0)
    return ChainResult(
        chain=spec.name, backend="simulator", arch=None, duration_s=dur, offered_packets=o,
        delivered_packets=d, loss_pct=loss(o, d), delivered_mpps=d / dur / 1e6,
        delivered_gbps=sum(r.delivered_gbps for r in cls_rows),
        latency_us=_latency(cls_hist.sum(axis=0), d, cls_lat.sum()), dropped=dropped,
        in_flight=o - d - x, classes=cls_rows, services=services, scaling=scaling,
        latency_hist_us=_hist(cls_hist.sum(axis=0)))


def _hist(hist: np.ndarray) -> list[list[float]]:
    """The kernel's log-binned histogram as [low µs, high µs, packets] of its non-empty bins."""
    from nfvperf.sim.chain_kernel import LAT_LO, LAT_PER_DECADE

    edges = LAT_LO * 10 ** (np.arange(hist.size + 1) / LAT_PER_DECADE) * 1e6
    return [[float(edges[i]), float(edges[i + 1]), float(hist[i])]
            for i in np.flatnonzero(hist)]
