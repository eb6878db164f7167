"""numba kernel of a chain of services, each with parallel instances, each a batched polling
queue (see ``sim.chain``). Continuous time in seconds; events are the external arrivals (sorted,
read in order) and, in a heap (``sim.chain_state``), the ends of batches (one per busy
instance), the turns of shared cores and the retries of instances whose core was stalled.
Events at one time are taken arrivals first, then in the order they were scheduled. (This file
runs past 400 lines: its event handlers compile as one numba unit, cached on this file's text.)

An instance that is idle starts a batch as soon as a packet reaches its queue; at the end of a
batch it takes the next one (up to β packets) if any wait: a polling NF that never sleeps, as
the batching model has it. A batch of n packets p costs (overhead[s, n] + Σ cost[s, class(p)]) /
speed.

Instances run on cores (``core[s, k]``); instances that share a core take turns in the order
they became ready: an instance keeps the core from batch to batch while it has packets, for up
to ``quantum`` seconds (the kernel's time slice; 0: one batch per turn), and an idle instance
leaves the core to the others at once (a polling NF that yields when it finds nothing).

With ``switch`` > 0 (seconds), a shared core behaves as polling NF processes that yield do on
Linux: the core goes round its instances in turn, every change of turn costs ``switch``, an
instance with packets runs batches for up to ``quantum`` and then yields, an idle one yields at
once; so a packet that reaches an idle instance waits for its turn to come round.

A stall of a core (the host taking it away, or the generator running on it) holds the core and
the packets of the instance that would run until it ends; the instance tries again then. One
that begins during a batch preempts it: the batch ends that much later, and its cycles a packet
are the clock's over the batch (as the data plane counts them), the time away included. The
generator woken from a nap on the core ends the preempted instance's turn with the batch: the
kernel picks the next process at a wake-up as at the end of a slice (Linux's EEVDF gives the
core to the eligible process that has had least of it, not back to the one that ran longest).

The generator (when given its wakes) receives a packet that leaves the chain while it runs, else
at its next wake: the latency it measures ends there. Its receive ring holds what comes back
meanwhile up to its size; the vSwitch drops the rest at the port. Each pass through the vSwitch
adds ``hop`` seconds to the latency (not to the timing of the queues: the vSwitch has a core of
its own and is far from busy at the loads a chain of NFs takes).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from nfvperf.chain.policies import POLICY_CODES
from nfvperf.limits import NF_AWARE_DECAY_MS
from nfvperf.sim.chain_state import (  # noqa: F401 - I_*: the counters, read through here
    END_OF_BATCH, H_N, I_BATCHED, I_BATCHES, I_BYTES, I_CYCLES, I_DISCARDED, I_DROPPED,
    I_FLOWS, I_OFFERED, I_SERVED, I_SOJOURN, I_STATS, RETRY, TURN, Counters, Gen, Inputs, Sim,
    Stalls, check_inputs, new_cores, new_heap, new_policy, new_queues, pop, push, received,
    scale)

#: numba's cache keys on this file's text, not on chain_state.py's, whose code run_chain
#: compiles in: its digest (sha256, 16 hex digits; tests/sim/test_chain_kernel.py checks it)
#: makes a change there change this file, and recompile the kernel
STATE_DIGEST = "f42466efa5abe76d"

POL_FLOW, POL_WEIGHTED, POL_RR, POL_NF_AWARE = (POLICY_CODES[p] for p in (
    "flow", "weighted", "round-robin", "nf-aware"))
# latency histograms: log-spaced bins from 10 ns, 20 a decade, 9 decades (to 10 s)
LAT_BINS = 180
LAT_LO = 1e-8
LAT_PER_DECADE = 20.0
# batches' cycles a packet, weighted by their packets (the data plane's loop histogram): from 1
# cycle, 200 a decade (bins 1.2 % wide), 7 decades
CYC_BINS = 1400
CYC_PER_DECADE = 200.0
DECAY_S = NF_AWARE_DECAY_MS * 1e-3   # nf-aware: loads weigh the last ~100 ms, as the vSwitch



@njit(cache=True)
def cycle_bin(x):
    """The bin of a batch's cycles a packet (log-spaced from 1, CYC_PER_DECADE a decade)."""
    if x <= 1.0:
        return 0
    return min(int(np.log10(x) * CYC_PER_DECADE), CYC_BINS - 1)


@njit(cache=True)
def lat_bin(x):
    if x <= LAT_LO:
        return 0
    b = int(np.log10(x / LAT_LO) * LAT_PER_DECADE)
    return min(b, LAT_BINS - 1)


@njit(cache=True)
def _hash(flow, s):
    x = np.uint64(flow) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(s) * np.uint64(0xBF58476D1CE4E5B9)
    x ^= x >> np.uint64(31)
    x *= np.uint64(0x94D049BB133111EB)
    x ^= x >> np.uint64(29)
    return (x >> np.uint64(11)) * (1.0 / 9007199254740992.0)   # uniform in [0, 1)


@njit(cache=True, _nrt=False)
def _pick(inp, pol, stats, s, p, t):
    """The instance of service ``s`` that packet ``p`` goes to, by the service's policy."""
    f = inp.flow[p]
    n = pol.n_inst[s]
    size, cls, weights = inp.size, inp.cls, pol.weights
    if inp.policy[s] == POL_RR:
        k = pol.rr[s] % n
        pol.rr[s] += 1
        return k
    if pol.pin[s, f] >= 0:
        k = pol.pin[s, f]
    elif inp.policy[s] == POL_NF_AWARE:
        # decay the loads, size the groups by the classes' shares of the cost driver
        inst_load, class_load = pol.inst_load, pol.class_load
        dec = np.exp(-(t - pol.load_t[s]) / DECAY_S)
        pol.load_t[s] = t
        class_load[s, 0] *= dec
        class_load[s, 1] *= dec
        for j in range(n):
            inst_load[s, j] *= dec
        large = 1 if size[cls[p]] >= inp.large_bytes[s] else 0
        has_l = class_load[s, 1] > 0 or large == 1
        has_s = class_load[s, 0] > 0 or large == 0
        if n < 2 or not has_l:
            n_large = n if has_l else 0
        elif not has_s:
            n_large = n
        else:
            tot = class_load[s, 0] + class_load[s, 1]
            n_large = round(n * class_load[s, 1] / tot) if tot > 0 else n // 2
            n_large = min(max(n_large, 1), n - 1)
        lo, hi = (0, n_large) if large == 1 else (n_large, n)
        if lo >= hi:
            lo, hi = 0, n
        # the least loaded of the group by load per weight; an instance of weight 0 takes
        # nothing unless the whole group weighs 0 (as nf_aware_pick in the vSwitch)
        k = lo
        while k < hi and weights[s, k] == 0:
            k += 1
        if k == hi:
            k = lo
        for j in range(k + 1, hi):
            if weights[s, j] != 0 and \
                    inst_load[s, j] * weights[s, k] < inst_load[s, k] * weights[s, j]:
                k = j
        pol.pin[s, f] = k
        stats[s, k, I_FLOWS] += 1
    else:
        # flow-affine by a hash of the flow, weighted: the share of [0, 1) an instance owns
        u = _hash(f, s)
        tot = 0.0
        for j in range(n):
            tot += weights[s, j]
        acc = 0.0
        k = n - 1
        for j in range(n):
            acc += weights[s, j] / tot
            if u < acc:
                k = j
                break
        pol.pin[s, f] = k
        stats[s, k, I_FLOWS] += 1
    if inp.policy[s] == POL_NF_AWARE:
        c = float(size[cls[p]]) if inp.cost_bytes[s] else 1.0
        pol.inst_load[s, k] += c
        pol.class_load[s, 1 if size[cls[p]] >= inp.large_bytes[s] else 0] += c
    return k


@njit(cache=True, _nrt=False)
def _enqueue(inp, q, cnt, s, k, p, t):
    """Packet ``p`` reaches the ring of instance (s, k): it waits there, or is dropped."""
    rec = inp.t_arr[p] >= inp.warmup
    c = inp.cls[p]
    if rec:
        cnt.stats[s, k, I_OFFERED] += 1
        cnt.stats[s, k, I_BYTES] += inp.size[c] - 4      # pkt_len, as the vSwitch: no FCS
    if q.n[s, k] == inp.capacity:           # tail drop, as a full ring
        if rec:
            cnt.stats[s, k, I_DROPPED] += 1
            cnt.cls[c, 2] += 1
        return
    q.ring[s, k, (q.head[s, k] + q.n[s, k]) % inp.capacity] = p
    q.n[s, k] += 1
    q.t_enq[p] = t


@njit(cache=True, _nrt=False)
def _start(m, s, k, t):
    """An idle instance with packets waiting takes up to beta of them on its core (free). A
    stall of the core that has begun holds the core and the packets until it ends: the
    instance tries again then; one that begins during the batch holds the batch."""
    inp, q, stl = m.inp, m.q, m.stl
    if q.busy[s, k] or q.n[s, k] == 0:
        return
    c = m.cores.of[s, k]
    m.cores.busy[c] = True
    if stl.off[c + 1] > stl.off[c]:
        while stl.ptr[c] < stl.off[c + 1] and stl.t[stl.ptr[c]] <= t:
            stl.until[c] = max(stl.until[c], stl.t[stl.ptr[c]]) + stl.d[stl.ptr[c]]
            stl.ptr[c] += 1
        if t < stl.until[c]:
            q.busy[s, k] = True      # waiting for the core, its packets still in its queue
            push(m.heap, stl.until[c], RETRY, s, k)
            return
    nb = min(q.n[s, k], inp.beta)
    tot = inp.overhead[s, nb]
    for j in range(nb):
        p = q.ring[s, k, q.head[s, k]]
        q.head[s, k] = (q.head[s, k] + 1) % inp.capacity
        q.batch[s, k, j] = p
        tot += inp.cost[s, inp.cls[p]]
    q.n[s, k] -= nb
    q.batch_n[s, k] = nb
    q.busy[s, k] = True
    end = t + tot / inp.speed[s, k]
    # a stall that begins while the batch runs preempts it: the batch ends that much later
    # (the time away, and what the NF refetches after it), and its cycles (the clock's, as the
    # data plane counts them) take it in
    while stl.ptr[c] < stl.off[c + 1] and stl.t[stl.ptr[c]] < end:
        end += stl.d[stl.ptr[c]] + inp.refill[s, nb] * stl.r[stl.ptr[c]]
        if stl.r[stl.ptr[c]] > 0:
            # a process woken on the core preempts the instance, and the kernel then picks
            # who runs as it does at any wake-up: the instance's turn ends with the batch
            m.cores.slice_t[c] = -np.inf
        stl.ptr[c] += 1
    if t >= inp.warmup:
        seen = (end - t) * inp.speed[s, k]
        m.cnt.stats[s, k, I_BATCHES] += 1
        m.cnt.stats[s, k, I_BATCHED] += nb
        m.cnt.stats[s, k, I_CYCLES] += seen
        m.cnt.cyc[s, k, cycle_bin(seen / nb)] += nb
    push(m.heap, end, END_OF_BATCH, s, k)


@njit(cache=True, _nrt=False)
def _wait_for_core(cores, s, k):
    """Instance (s, k) goes to the back of its core's queue (once: its width is the number of
    instances on the core, so it cannot overflow)."""
    if cores.in_rq[s, k]:
        return
    c = cores.of[s, k]
    i = (cores.rq_head[c] + cores.rq_n[c]) % cores.rq_s.shape[1]
    cores.rq_s[c, i] = s
    cores.rq_k[c, i] = k
    cores.rq_n[c] += 1
    cores.in_rq[s, k] = True


@njit(cache=True, _nrt=False)
def _try(m, s, k, t):
    """Run instance (s, k) now if it has packets, is idle and its core is free; else queue it
    for its core."""
    cores = m.cores
    if m.q.busy[s, k] or m.q.n[s, k] == 0 or cores.in_rq[s, k]:
        return
    c = cores.of[s, k]
    if not cores.busy[c] and cores.rq_n[c] == 0:
        _start(m, s, k, t)
    else:
        _wait_for_core(cores, s, k)


@njit(cache=True, _nrt=False)
def _unpark(m, c, j, t):
    """A packet reached instance j of a parked core (every instance idle, turns going round
    at `switch` each): its turn comes when the round reaches it. The instance whose turn is
    on has polled already and found nothing (as when turns go on: it yields), so it waits a
    whole round."""
    tr = m.turns
    if not tr.parked[c]:
        return
    tr.parked[c] = False
    switch = m.inp.switch
    steps = int((t - tr.park_t[c]) / switch)
    cur = (tr.park_pos[c] + steps) % tr.n[c]
    d = (j - cur) % tr.n[c] or tr.n[c]
    push(m.heap, tr.park_t[c] + (steps + d) * switch, TURN, c, j)


@njit(cache=True, _nrt=False)
def _wake(m, s, k, t):
    """Packets may have reached instance (s, k): it runs when its core lets it (at once if
    the core is free, when its turn comes if the core's instances take turns)."""
    c = m.cores.of[s, k]
    if m.turns.on[c]:
        if m.q.n[s, k] > 0:
            _unpark(m, c, m.turns.pos[s, k], t)
        return
    if not m.cores.busy[c]:
        m.cores.slice_t[c] = t
    _try(m, s, k, t)


@njit(cache=True, _nrt=False)
def _arrival(m, p, t):
    """Packet p enters the chain at its first service."""
    if t >= m.inp.warmup:
        m.cnt.cls[m.inp.cls[p], 0] += 1
    k = _pick(m.inp, m.pol, m.cnt.stats, 0, p, t)
    _enqueue(m.inp, m.q, m.cnt, 0, k, p, t)
    _wake(m, 0, k, t)


@njit(cache=True, _nrt=False)
def _turn(m, c, j, t):
    """A turn begins on a shared core: its instance runs if it has packets; else the turn
    passes on if any instance of the core has some, or the core parks."""
    tr = m.turns
    s, k = tr.inst_s[c, j], tr.inst_k[c, j]
    if m.q.n[s, k] > 0:
        m.cores.slice_t[c] = t
        _start(m, s, k, t)
        return
    for i in range(tr.n[c]):
        if m.q.n[tr.inst_s[c, i], tr.inst_k[c, i]] > 0:
            push(m.heap, t + m.inp.switch, TURN, c, (j + 1) % tr.n[c])
            return
    tr.parked[c] = True
    tr.park_t[c] = t
    tr.park_pos[c] = j


@njit(cache=True, _nrt=False)
def _retry(m, s, k, t):
    """A stall of the core is over: the instance that waited for it runs."""
    m.cores.busy[m.cores.of[s, k]] = False
    m.q.busy[s, k] = False
    _start(m, s, k, t)


@njit(cache=True, _nrt=False)
def _end_of_batch(m, s0, k0, t):
    """Instance (s0, k0) has served its batch: its packets go on to the next service (or
    leave the chain), and its core runs what comes next."""
    inp, q, cores, cnt = m.inp, m.q, m.cores, m.cnt
    S = inp.speed.shape[0]
    q.busy[s0, k0] = False
    c0 = cores.of[s0, k0]
    cores.busy[c0] = False
    for j in range(q.batch_n[s0, k0]):
        p = q.batch[s0, k0, j]
        rec = inp.t_arr[p] >= inp.warmup
        if rec:
            cnt.stats[s0, k0, I_SERVED] += 1
        if inp.keep[s0] < 1.0 and _hash(p, S + s0) >= inp.keep[s0]:
            if rec:             # the NF's verdict: dropped by design (it does not come back)
                cnt.stats[s0, k0, I_DISCARDED] += 1
                cnt.cls[inp.cls[p], 2] += 1
            continue
        if rec:
            st = t - q.t_enq[p]
            cnt.stats[s0, k0, I_SOJOURN] += st
            cnt.soj[s0, k0, lat_bin(st)] += 1
        if s0 + 1 == S:
            back = received(m.gen, t)
            if rec and back < 0:        # the generator's ring was full: lost at the port
                cnt.cls[inp.cls[p], 2] += 1
                cnt.cls[inp.cls[p], 3] += 1
            elif rec:
                lat = back - inp.stamp[p] + m.gen.hop * S
                cnt.cls[inp.cls[p], 1] += 1
                cnt.cls_lat[inp.cls[p]] += lat
                cnt.cls_hist[inp.cls[p], lat_bin(lat)] += 1
            continue
        k = _pick(inp, m.pol, cnt.stats, s0 + 1, p, t)
        _enqueue(inp, q, cnt, s0 + 1, k, p, t)
    q.batch_n[s0, k0] = 0
    # this instance goes to the back of its core's queue if it has more; the core takes
    # the instance at the front
    if m.turns.on[c0]:
        if q.n[s0, k0] > 0 and t - cores.slice_t[c0] < inp.quantum:
            _start(m, s0, k0, t)
        else:      # it yields: the next instance's turn (after a wake, the changes of
            # process were the generator's, to it and back)
            gap = 0.0 if cores.slice_t[c0] == -np.inf else inp.switch
            push(m.heap, t + gap, TURN, c0, (m.turns.pos[s0, k0] + 1) % m.turns.n[c0])
    elif q.n[s0, k0] > 0 and (cores.rq_n[c0] == 0 or t - cores.slice_t[c0] < inp.quantum):
        _start(m, s0, k0, t)     # its turn goes on
    elif q.n[s0, k0] > 0:
        _wait_for_core(cores, s0, k0)
    while not m.turns.on[c0] and not cores.busy[c0] and cores.rq_n[c0] > 0:
        cores.slice_t[c0] = t
        i = cores.rq_head[c0]
        s, k = cores.rq_s[c0, i], cores.rq_k[c0, i]
        cores.rq_head[c0] = (i + 1) % cores.rq_s.shape[1]
        cores.rq_n[c0] -= 1
        cores.in_rq[s, k] = False
        _start(m, s, k, t)
    if s0 + 1 < S:
        for k in range(m.pol.n_inst[s0 + 1]):
            _wake(m, s0 + 1, k, t)


@njit(cache=True)
def run_chain(t_arr, cls, flow, size, n_flows, n_inst, policy, weights, large_bytes,
              cost_bytes, cost, overhead, speed, core, quantum, switch, capacity, beta,
              warmup_s, sc_t, sc_s, sc_n, sc_w, stall_t, stall_d, stall_r, stall_off, gen_w,
              gen_b, hop, keep, refill, stamp, vs_t, vs_e, gen_room):
    """Simulate; returns (per-instance stats, per-instance sojourn histograms, per-class
    offered/delivered/lost/lost at the generator's receive ring, per-class latency sums and
    histograms, flows moved by each scale event, per-instance histograms of batches' cycles a
    packet weighted by packets). ``overhead[s, n]``: the cycles of a batch of n at service s
    besides its packets'. Packets that arrive before ``warmup_s`` are simulated but not
    counted.

    Scale event e at ``sc_t[e]`` gives service ``sc_s[e]`` its first ``sc_n[e]`` instances
    (weights ``sc_w[e]``): new flows may go to added instances, flows of removed ones are
    placed again (moved), and removed instances finish the packets they hold. Core c's stalls
    are ``stall_t/stall_d[stall_off[c]:stall_off[c + 1]]`` (``stall_r``: 1 where one that
    preempts a batch costs the refill beyond it); the generator wakes at ``gen_w``
    and runs ``gen_b`` seconds each time (empty: no generator); ``hop``: seconds a pass through
    the vSwitch adds to the latency (S + 1 passes); ``gen_room``: the packets its receive
    ring holds while it is away; ``keep[s]``: the share of its packets
    service s hands on (the NF drops the rest by design); ``refill[s, n]``: seconds a
    preemption of a batch of n of service s by a stall of ``stall_r`` 1 costs it beyond the
    time away; ``stamp``: each packet's send time, where its latency starts (``t_arr``: when
    it reaches the first NF's ring); the vSwitch core's stalls ``vs_t``-``vs_e`` hold the
    packets leaving the chain. Arrays are sized
    for the most instances a service ever has (``speed.shape[1]``). Raises ValueError for
    inputs the arrays cannot hold (``chain_state.check_inputs``)."""
    inp = Inputs(t_arr, cls, flow, size, policy, large_bytes, cost_bytes, cost, overhead,
                 speed, capacity, beta, warmup_s, quantum, switch, keep, refill, stamp)
    check_inputs(inp, n_flows, n_inst, weights, core, sc_t, sc_s, sc_n, sc_w, stall_t,
                 stall_d, stall_r, stall_off, gen_w, gen_b, vs_t, vs_e)
    S, K = speed.shape
    P, C = t_arr.shape[0], size.shape[0]
    cores, turns = new_cores(core, speed, switch)
    n_cores = turns.on.shape[0]
    cnt = Counters(np.zeros((S, K, I_STATS)), np.zeros((S, K, LAT_BINS)), np.zeros((C, 4)),
                   np.zeros(C), np.zeros((C, LAT_BINS)), np.zeros(sc_t.shape[0], dtype=np.int64),
                   np.zeros((S, K, CYC_BINS)))
    stl = Stalls(stall_t, stall_d, stall_r, stall_off, stall_off[:-1].copy(), np.zeros(n_cores))
    gen = Gen(gen_w, gen_b, np.array([0, 0, -1, 0], dtype=np.int64), hop, vs_t, vs_e,
              gen_room)
    # in the heap at once: an end of batch or retry per busy instance, a turn per core
    m = Sim(inp, new_queues(S, K, capacity, beta, P), new_policy(n_inst, weights, n_flows),
            cores, turns, stl, gen, new_heap(S * K + n_cores), cnt)
    h = m.heap
    nxt = e = 0
    while nxt < P or h.top[H_N] > 0:
        t_evt = min(t_arr[nxt] if nxt < P else np.inf, h.t[0] if h.top[H_N] > 0 else np.inf)
        while e < sc_t.shape[0] and sc_t[e] <= t_evt:
            scale(m.pol, cnt, e, sc_s, sc_n, sc_w)
            e += 1
        if nxt < P and (h.top[H_N] == 0 or t_arr[nxt] <= h.t[0]):
            _arrival(m, nxt, t_arr[nxt])
            nxt += 1
            continue
        t, kind, a, b = pop(h)
        if kind == END_OF_BATCH:
            _end_of_batch(m, a, b, t)
        elif kind == TURN:
            _turn(m, a, b, t)
        else:      # RETRY
            _retry(m, a, b, t)
    return cnt.stats, cnt.soj, cnt.cls, cnt.cls_lat, cnt.cls_hist, cnt.moved, cnt.cyc
