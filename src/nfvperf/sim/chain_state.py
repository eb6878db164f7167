"""State of the chain kernel (``sim.chain_kernel``): the named tuples its helpers share, the
event heap, and the checks of what the kernel is given.

What a run reads and changes is grouped in a few named tuples (numba compiles them as tuples:
the tuples never change, the arrays in them do), all held by ``Sim``:

- ``Inputs``: what the run is given and never changes (arrivals, costs, speeds, sizes);
- ``Queues``: the instances' rings of packets and the batches they serve;
- ``Policy``: how packets are spread (flows' pinned instances, round-robin counters, nf-aware
  loads) and the instances and weights of each service now (scale events change them);
- ``Cores``: which core runs each instance, and who runs or waits on each core;
- ``Turns``: cores whose instances poll in turn (``switch`` > 0): their instances in order;
- ``Stalls``: the cores' stalls;
- ``Gen``: the generator's wakes: when it reads what came back;
- ``Heap``: the events to come;
- ``Counters``: what the run returns.

An event is a time, a kind and two fields: the end of a batch of instance ``(a, b)`` (service,
index), a turn of the instance at position ``b`` of core ``a``, or instance ``(a, b)``
trying again once its core's stall is over. Events are taken in time order, and events at one
time in the order they were scheduled (each gets a sequence number as it is pushed).

The helpers that only read and write these arrays (the heap's here, the event handlers of
``chain_kernel``) are compiled with ``_nrt=False``: no reference counts. With them, numba
counts a reference to every array of a tuple each time the tuple is passed (an atomic increment
and decrement each, a known numba cost), which made the kernel 6-9 times slower than with loose
arrays. Such a helper cannot allocate: numba refuses to compile one that does.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from nfvperf.chain.policies import POLICY_CODES

# per-instance counters
# (I_DROPPED: its ring was full; I_CYCLES: cycles of its batches; I_BATCHED: packets in
# them; I_DISCARDED: served, and dropped by the NF by design)
I_OFFERED, I_DROPPED, I_SERVED, I_BATCHES, I_SOJOURN, I_BYTES, I_FLOWS, I_CYCLES, I_BATCHED, \
    I_DISCARDED = range(10)
I_STATS = 10

#: kinds of events
END_OF_BATCH, TURN, RETRY = 0, 1, 2
N_POLICIES = len(POLICY_CODES)

#: the run's inputs, as ``run_chain`` takes them (``capacity``: packets a ring holds; ``beta``:
#: a batch's most; ``warmup``, ``quantum``, ``switch`` in seconds; ``keep[s]``: the share of
#: packets service s's NF hands on, the rest it drops by design; ``refill[s, n]``: seconds a
#: preemption of service s's batch of n costs it beyond the time away (its caches refilled);
#: ``stamp``: when each packet was sent, where its latency starts)
Inputs = namedtuple("Inputs", "t_arr cls flow size policy large_bytes cost_bytes cost overhead "
                              "speed capacity beta warmup quantum switch keep refill stamp")
#: rings of packets (``ring[s, k]``: ``n`` packets from ``head``), when each packet reached its
#: ring, the batch each instance serves, and whether it is busy (serving it, or holding it
#: while its core is stalled)
Queues = namedtuple("Queues", "ring head n t_enq batch batch_n busy")
#: the instances and weights of each service now; the instance each flow is pinned to (-1:
#: none yet), round-robin counters, nf-aware loads by instance and by class (small, large)
#: and when they were last decayed
Policy = namedtuple("Policy", "n_inst weights pin rr inst_load class_load load_t")
#: the core of each instance; per core: busy, its queue of instances that wait for it (rq_s,
#: rq_k: ``rq_n`` from ``rq_head``), and when its current turn began; in_rq: in a queue
Cores = namedtuple("Cores", "of busy rq_s rq_k rq_head rq_n in_rq slice_t")
#: on: the core's instances poll in turn; ``n`` instances (inst_s, inst_k) in order, each one's
#: position on its core; parked: every instance idle, turns going round unseen since park_t
#: from position park_pos
Turns = namedtuple("Turns", "on n inst_s inst_k pos parked park_t park_pos")
#: stalls of cores (the host, or the generator, taking the CPU away): start times and durations
#: in time order per core, core c's from ``off[c]`` to ``off[c + 1]``; ``r``: 1 where a stall
#: that preempts a batch costs its NF the refill beyond it (a wake of the generator from a
#: nap), else 0; per core the next stall and the end of the current one
Stalls = namedtuple("Stalls", "t d r off ptr until")
#: the generator's wakes (start times, in order) and how long it runs at each: it reads what
#: came back while it runs, else at its next wake (none: a packet is received as it leaves);
#: what comes back while it is away waits in its receive ring, which holds ``room`` packets
#: (beyond them the vSwitch drops them at its port); ``hop``: a pass through the vSwitch, s;
#: ``vs_t``, ``vs_e``: the vSwitch core's stalls (starts and ends, in order, apart), which
#: hold the packets passing through; ``ptr``: the wake and the stall of the last packet
#: received, the wake the ring is filling for and how many wait in it
Gen = namedtuple("Gen", "w b ptr hop vs_t vs_e room")
#: events: time, sequence number, kind and fields; top[H_N] events in it, top[H_SEQ] the next
#: sequence number
Heap = namedtuple("Heap", "t seq kind a b top")
H_N, H_SEQ = 0, 1
#: per-instance stats and sojourn histograms, per-class offered/delivered/lost/lost at the
#: generator's receive ring, latency sums and histograms, flows moved by each scale event,
#: per-instance histograms of cycles a packet
Counters = namedtuple("Counters", "stats soj cls cls_lat cls_hist moved cyc")
#: all of a run's state, as the event handlers take it
Sim = namedtuple("Sim", "inp q pol cores turns stl gen heap cnt")


@njit(cache=True)
def new_heap(size):
    i = np.zeros(size, dtype=np.int64)
    return Heap(np.zeros(size), i, i.copy(), i.copy(), i.copy(), np.zeros(2, dtype=np.int64))


@njit(cache=True, _nrt=False)
def _before(h, i, j):
    return h.t[i] < h.t[j] or (h.t[i] == h.t[j] and h.seq[i] < h.seq[j])


@njit(cache=True, _nrt=False)
def _move(h, i, j):
    """Entry i of the heap to j, and j to i."""
    h.t[i], h.t[j] = h.t[j], h.t[i]
    h.seq[i], h.seq[j] = h.seq[j], h.seq[i]
    h.kind[i], h.kind[j] = h.kind[j], h.kind[i]
    h.a[i], h.a[j] = h.a[j], h.a[i]
    h.b[i], h.b[j] = h.b[j], h.b[i]


@njit(cache=True, _nrt=False)
def push(h, t, kind, a, b):
    """Schedule an event of ``kind`` at ``t``, after those already scheduled at ``t``."""
    i = h.top[H_N]
    if i == h.t.shape[0]:
        raise ValueError("chain kernel: more events than the heap holds")
    h.t[i] = t
    h.seq[i] = h.top[H_SEQ]
    h.kind[i] = kind
    h.a[i] = a
    h.b[i] = b
    h.top[H_SEQ] += 1
    h.top[H_N] = i + 1
    while i > 0 and _before(h, i, (i - 1) // 2):
        _move(h, i, (i - 1) // 2)
        i = (i - 1) // 2


@njit(cache=True, _nrt=False)
def pop(h):
    """Take the first event (by time, then sequence): its time, kind, a and b."""
    n = h.top[H_N] - 1
    if n < 0:
        raise ValueError("chain kernel: no event to take")
    t, kind, a, b = h.t[0], h.kind[0], h.a[0], h.b[0]
    h.top[H_N] = n
    _move(h, 0, n)
    i = 0
    while True:
        l, r = 2 * i + 1, 2 * i + 2
        m = i
        if l < n and _before(h, l, m):
            m = l
        if r < n and _before(h, r, m):
            m = r
        if m == i:
            return t, kind, a, b
        _move(h, i, m)
        i = m


@njit(cache=True, _nrt=False)
def received(gen, t):
    """When the generator reads a packet that leaves the last NF at ``t``: after the vSwitch's
    last pass, at once if the generator is running then, else at its next wake; -1 where its
    receive ring is full until then (the vSwitch drops the packet at the port). Packets leave
    in time order, so the wake looked for never goes back."""
    t += gen.hop
    k = gen.ptr[1]
    while k < gen.vs_t.shape[0] and gen.vs_e[k] <= t:
        k += 1
    gen.ptr[1] = k
    if k < gen.vs_t.shape[0] and gen.vs_t[k] <= t:
        t = gen.vs_e[k]         # the vSwitch's core is away: the packet waits for it
    n = gen.w.shape[0]
    if n == 0:
        return t
    j = gen.ptr[0]
    while j < n and gen.w[j] + gen.b[j] < t:
        j += 1
    gen.ptr[0] = j
    if j == n or gen.w[j] <= t:
        return t
    if gen.ptr[2] != j:         # the ring was emptied at the last wake
        gen.ptr[2] = j
        gen.ptr[3] = 0
    if gen.ptr[3] >= gen.room:
        return -1.0
    gen.ptr[3] += 1
    return gen.w[j]


@njit(cache=True)
def scale(pol, cnt, e, sc_s, sc_n, sc_w):
    """Scale event e: service sc_s[e] has its first sc_n[e] instances, weighted sc_w[e]; the
    flows of removed instances are placed again (moved) when their next packet comes."""
    s = sc_s[e]
    pol.n_inst[s] = sc_n[e]
    for k in range(pol.weights.shape[1]):
        pol.weights[s, k] = sc_w[e, k]
    for f in range(pol.pin.shape[1]):
        if pol.pin[s, f] >= sc_n[e]:
            cnt.stats[s, pol.pin[s, f], I_FLOWS] -= 1
            pol.pin[s, f] = -1
            cnt.moved[e] += 1


@njit(cache=True)
def new_queues(S, K, capacity, beta, P):
    z = np.zeros((S, K), dtype=np.int64)
    return Queues(np.zeros((S, K, capacity), dtype=np.int64), z, z.copy(), np.zeros(P),
                  np.zeros((S, K, beta), dtype=np.int64), z.copy(),
                  np.zeros((S, K), dtype=np.bool_))


@njit(cache=True)
def new_policy(n_inst, weights, n_flows):
    S, K = weights.shape
    return Policy(n_inst.copy(), weights.copy(), -np.ones((S, n_flows), dtype=np.int64),
                  np.zeros(S, dtype=np.int64), np.zeros((S, K)), np.zeros((S, 2)), np.zeros(S))


@njit(cache=True)
def new_cores(core, speed, switch):
    """The cores, and their turns: the instances (those with a speed) of each core in order;
    with ``switch`` > 0 those of a core that has several take turns, parked at first."""
    S, K = core.shape
    n_cores = core.max() + 1
    c_n = np.zeros(n_cores, dtype=np.int64)
    for s in range(S):
        for k in range(K):
            if speed[s, k] > 0:
                c_n[core[s, k]] += 1
    # a core's queue holds each of its instances once at most (``in_rq``): it cannot overflow
    width = max(c_n.max(), 1)
    inst_s = np.zeros((n_cores, width), dtype=np.int64)
    inst_k = np.zeros((n_cores, width), dtype=np.int64)
    pos = np.zeros((S, K), dtype=np.int64)
    c_n[:] = 0
    for s in range(S):
        for k in range(K):
            if speed[s, k] <= 0:      # no such instance, ever
                continue
            c = core[s, k]
            pos[s, k] = c_n[c]
            inst_s[c, c_n[c]] = s
            inst_k[c, c_n[c]] = k
            c_n[c] += 1
    on = np.zeros(n_cores, dtype=np.bool_)
    for c in range(n_cores):
        on[c] = switch > 0 and c_n[c] > 1
    zc = np.zeros(n_cores, dtype=np.int64)
    rq = np.zeros((n_cores, width), dtype=np.int64)
    cores = Cores(core, np.zeros(n_cores, dtype=np.bool_), rq, rq.copy(), zc, zc.copy(),
                  np.zeros((S, K), dtype=np.bool_), np.zeros(n_cores))
    turns = Turns(on, c_n, inst_s, inst_k, pos, on.copy(), np.zeros(n_cores), zc.copy())
    return cores, turns


@njit(cache=True)
def check_inputs(inp, n_flows, n_inst, weights, core, sc_t, sc_s, sc_n, sc_w, stall_t,
                 stall_d, stall_r, stall_off, gen_w, gen_b, vs_t, vs_e):
    """Raise ValueError for what the kernel cannot run: sizes that do not agree, numbers out
    of range (an instance, class, flow or core the arrays have no room for)."""
    S, K = inp.speed.shape
    P = inp.t_arr.shape[0]
    C = inp.size.shape[0]
    if S < 1 or K < 1 or C < 1:
        raise ValueError("chain kernel: no service, instance or class")
    if inp.capacity < 1 or inp.beta < 1:
        raise ValueError("chain kernel: a ring and a burst of at least one packet")
    if n_inst.shape[0] != S or weights.shape != (S, K) or core.shape != (S, K) or \
            inp.cost.shape != (S, C) or inp.overhead.shape != (S, inp.beta + 1) or \
            inp.keep.shape[0] != S or inp.refill.shape != (S, inp.beta + 1) or \
            inp.policy.shape[0] != S or inp.large_bytes.shape[0] != S or \
            inp.cost_bytes.shape[0] != S:
        raise ValueError("chain kernel: per-service arrays of different sizes")
    if inp.cls.shape[0] != P or inp.flow.shape[0] != P or inp.stamp.shape[0] != P:
        raise ValueError("chain kernel: per-packet arrays of different sizes")
    if core.min() < 0:
        raise ValueError("chain kernel: a negative core number")
    if stall_off.shape[0] != core.max() + 2 or stall_t.shape[0] != stall_d.shape[0] or \
            stall_r.shape[0] != stall_t.shape[0] or \
            stall_off[0] != 0 or stall_off[-1] != stall_t.shape[0]:
        raise ValueError("chain kernel: stalls do not match the cores")
    for c in range(core.max() + 1):
        if stall_off[c + 1] < stall_off[c]:
            raise ValueError("chain kernel: stalls do not match the cores")
        for i in range(stall_off[c] + 1, stall_off[c + 1]):
            if stall_t[i] < stall_t[i - 1]:
                raise ValueError("chain kernel: stalls out of time order")
    if gen_b.shape[0] != gen_w.shape[0]:
        raise ValueError("chain kernel: generator wakes and runs of different sizes")
    if vs_e.shape[0] != vs_t.shape[0]:
        raise ValueError("chain kernel: vSwitch stalls' starts and ends of different sizes")
    for i in range(vs_t.shape[0]):
        if vs_e[i] < vs_t[i] or (i > 0 and vs_t[i] < vs_e[i - 1]):
            raise ValueError("chain kernel: vSwitch stalls out of order")
    for i in range(1, gen_w.shape[0]):
        if gen_w[i] < gen_w[i - 1]:
            raise ValueError("chain kernel: generator wakes out of time order")
    for s in range(S):
        if inp.policy[s] < 0 or inp.policy[s] >= N_POLICIES:
            raise ValueError("chain kernel: an unknown policy")
        _check_instances(inp.speed, s, n_inst[s])
    E = sc_t.shape[0]
    if sc_s.shape[0] != E or sc_n.shape[0] != E or sc_w.shape != (E, K):
        raise ValueError("chain kernel: per-scale-event arrays of different sizes")
    for e in range(E):
        if sc_s[e] < 0 or sc_s[e] >= S:
            raise ValueError("chain kernel: a scale event of no service")
        if e > 0 and sc_t[e] < sc_t[e - 1]:
            raise ValueError("chain kernel: scale events out of time order")
        _check_instances(inp.speed, sc_s[e], sc_n[e])
    for p in range(P):
        if inp.cls[p] < 0 or inp.cls[p] >= C or inp.flow[p] < 0 or inp.flow[p] >= n_flows:
            raise ValueError("chain kernel: a packet of no class or flow")
        if p > 0 and inp.t_arr[p] < inp.t_arr[p - 1]:
            raise ValueError("chain kernel: arrivals out of time order")


@njit(cache=True)
def _check_instances(speed, s, n):
    if n < 1 or n > speed.shape[1]:
        raise ValueError("chain kernel: more instances than the arrays hold, or none")
    for k in range(n):
        if not speed[s, k] > 0:
            raise ValueError("chain kernel: an instance with no speed")
