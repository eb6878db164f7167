"""Where the chain simulator's cores are away: the host's stalls of each core (a virtual
machine's vCPU taken away, as ``nfvperf calibrate`` measured them), the vSwitch core's (what
its port ring cannot hold meanwhile is lost), and the generator's runs on its core, laid out
as the kernel (``sim.chain_kernel``) takes them."""

from __future__ import annotations

import numpy as np

from nfvperf import limits
from nfvperf.chain import ChainSpec
from nfvperf.sim.options import SimOptions


def stall_times(st, horizon: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A core's stalls: Poisson in time at the measured rate, lengths drawn from the measured
    ones; starts in order."""
    n = rng.poisson(st.per_s * horizon)
    return np.sort(rng.uniform(0, horizon, n)), rng.choice(np.asarray(st.durations_us) * 1e-6, n)


def vswitch_stalls(options: SimOptions, t, c, f, n_classes: int, horizon: float, warm: float,
                   rng: np.random.Generator):
    """The vSwitch core's stalls (``options.vswitch_cpu``'s in ``stalls``): a packet sent
    while it is away reaches the first NF when it is back; what the port's ring cannot hold
    meanwhile is lost there (counted by class, from the warm-up on). Returns the packets kept
    (arrival at the first NF, class, flow, send time), the losses by class, and the stalls
    (starts and ends, merged)."""
    none = np.zeros(0)
    stalls = options.stalls if isinstance(options.stalls, dict) else {}
    st = stalls.get(options.vswitch_cpu) if options.vswitch_cpu is not None else None
    if st is None:
        return t, c, f, t, np.zeros(n_classes, dtype=np.int64), none, none
    vs_t, vs_e = merged(*stall_times(st, horizon, rng))
    k = np.searchsorted(vs_t, t, side="right") - 1          # the stall each packet may be in
    inside = (k >= 0) & (t < vs_e[np.maximum(k, 0)])
    first = np.searchsorted(t, vs_t)                         # first packet of each stall
    rank = np.arange(t.size) - first[np.maximum(k, 0)]
    lost = inside & (rank >= limits.ring_room(limits.PORT_RING_SIZE))
    counted = lost & (t >= warm)
    drops = np.bincount(c[counted], minlength=n_classes).astype(np.int64)
    arrive = np.where(inside, vs_e[np.maximum(k, 0)], t)
    keep = ~lost
    return arrive[keep], c[keep], f[keep], t[keep], drops, vs_t, vs_e


def merged(starts: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Stalls (starts in order) as the spans of time they take the core, as the kernel takes
    them: one that begins while another lasts begins when it ends (the time lost is what was
    measured), and spans that touch are one."""
    t: list[float] = []
    e: list[float] = []
    for s0, d in zip(starts, lengths):
        if e and s0 <= e[-1]:
            e[-1] += d
        else:
            t.append(s0)
            e.append(s0 + d)
    return np.array(t), np.array(e)


def host_stalls(spec: ChainSpec, options: SimOptions, core: np.ndarray, horizon: float,
                rng: np.random.Generator) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """The host's stalls of each core the instances or the generator use but the vSwitch's
    (starts in order, lengths): Poisson in time at the options' rate, lengths drawn from the
    measured ones; a single ``stalls`` is every shared core's, as services name them with
    `cpu`."""
    n_cores = int(core.max()) + 1
    if isinstance(options.stalls, dict):
        host = {c: st for c, st in options.stalls.items() if c < n_cores}
    elif options.stalls is not None:
        shared = {s.cpu for s in spec.services if s.cpu is not None}
        if options.nf_cpu is not None:
            shared.add(options.nf_cpu)
        host = dict.fromkeys(shared, options.stalls)
    else:
        host = {}
    return {c: stall_times(st, horizon, rng) for c, st in sorted(host.items())
            if c != options.vswitch_cpu}


def kernel_stalls(core: np.ndarray, host: dict[int, tuple[np.ndarray, np.ndarray]], gen,
                  wakes: np.ndarray, runs: np.ndarray, naps: np.ndarray):
    """Each core's stalls, in time order, as the kernel takes them (times, lengths, whether
    one that preempts a batch costs its NF the refill, offsets by core): the ``host``'s (no
    refill: the time lost was measured as a busy loop sees it) and the generator's runs on
    its core (a refill where it woke from a nap)."""
    n_cores = int(core.max()) + 1
    by_core: dict[int, list[tuple[np.ndarray, np.ndarray, np.ndarray]]] = {}
    for c, (t, d) in host.items():
        by_core.setdefault(c, []).append((t, d, np.zeros(t.size)))
    if gen is not None and gen.cpu < n_cores and wakes.size:
        by_core.setdefault(gen.cpu, []).append((wakes, runs, naps))
    cols: list[list[np.ndarray]] = [[], [], []]
    off = [0]
    for c in range(n_cores):
        parts = by_core.get(c, [])
        t, d, r = (np.concatenate([p[i] for p in parts]) if parts else np.zeros(0)
                   for i in range(3))
        order = np.argsort(t, kind="stable")
        for col, x in zip(cols, (t, d, r)):
            col.append(x[order])
        off.append(off[-1] + t.size)
    return (*(np.concatenate(col) for col in cols), np.array(off, dtype=np.int64))
