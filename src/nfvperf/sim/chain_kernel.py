"""numba kernel of a chain of services, each with parallel instances, each a batched polling
queue (see ``sim.chain``). Continuous time in seconds; events are the external arrivals (sorted,
read in order) and the ends of batches (a small heap: one per busy instance).

An instance that is idle starts a batch as soon as a packet reaches its queue; at the end of a
batch it takes the next one (up to β packets) if any wait: a polling NF that never sleeps, as
the batching model has it. A batch of packets p costs (overhead + Σ cost[s, class(p)]) / speed.

Instances run on cores (``core[s, k]``); instances that share a core take turns in the order
they became ready: an instance keeps the core from batch to batch while it has packets, for up
to ``quantum`` seconds (the kernel's time slice; 0: one batch per turn), and an idle instance
leaves the core to the others at once (a polling NF that yields when it finds nothing).

With ``switch`` > 0 (seconds), a shared core behaves as polling NF processes that yield do on
Linux: the core goes round its instances in turn, every change of turn costs ``switch``, an
instance with packets runs batches for up to ``quantum`` and then yields, an idle one yields at
once; so a packet that reaches an idle instance waits for its turn to come round.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from nfvperf.chain.policies import POLICY_CODES
from nfvperf.limits import NF_AWARE_DECAY_MS

#: stalls of cores (the host taking the CPU away): start times, durations, which cores have
#: them, and per core the next stall and the end of the current one; retry[0]: the heap code
Stalls = namedtuple("Stalls", "t d on ptr until retry")

POL_FLOW, POL_WEIGHTED, POL_RR, POL_NF_AWARE = (POLICY_CODES[p] for p in (
    "flow", "weighted", "round-robin", "nf-aware"))
# latency histograms: log-spaced bins from 10 ns, 20 a decade, 9 decades (to 10 s)
LAT_BINS = 180
LAT_LO = 1e-8
LAT_PER_DECADE = 20.0
DECAY_S = NF_AWARE_DECAY_MS * 1e-3   # nf-aware: loads weigh the last ~100 ms, as the vSwitch

# per-instance counters
# (I_CYCLES: cycles of its batches; I_BATCHED: packets in them)
I_OFFERED, I_DROPPED, I_SERVED, I_BATCHES, I_SOJOURN, I_BYTES, I_FLOWS, I_CYCLES, I_BATCHED = \
    range(9)
I_STATS = 9


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


@njit(cache=True)
def _pick(s, pid, t, cls, flow, size, n_inst, policy, weights, large_bytes, cost_bytes,
          pin, rr, inst_load, class_load, load_t, stats):
    f = flow[pid]
    n = n_inst[s]
    if policy[s] == POL_RR:
        k = rr[s] % n
        rr[s] += 1
        return k
    if pin[s, f] >= 0:
        k = pin[s, f]
    elif policy[s] == POL_NF_AWARE:
        # decay the loads, size the groups by the classes' shares of the cost driver
        dec = np.exp(-(t - load_t[s]) / DECAY_S)
        load_t[s] = t
        class_load[s, 0] *= dec
        class_load[s, 1] *= dec
        for j in range(n):
            inst_load[s, j] *= dec
        large = 1 if size[cls[pid]] >= large_bytes[s] else 0
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
        pin[s, f] = k
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
        pin[s, f] = k
        stats[s, k, I_FLOWS] += 1
    if policy[s] == POL_NF_AWARE:
        c = float(size[cls[pid]]) if cost_bytes[s] else 1.0
        inst_load[s, k] += c
        class_load[s, 1 if size[cls[pid]] >= large_bytes[s] else 0] += c
    return k


@njit(cache=True)
def _push(h_t, h_i, h_n, t, idx):
    i = h_n
    h_t[i] = t
    h_i[i] = idx
    while i > 0 and h_t[(i - 1) // 2] > h_t[i]:
        pp = (i - 1) // 2
        h_t[i], h_t[pp] = h_t[pp], h_t[i]
        h_i[i], h_i[pp] = h_i[pp], h_i[i]
        i = pp
    return h_n + 1


@njit(cache=True)
def _pop(h_t, h_i, h_n):
    h_n -= 1
    h_t[0] = h_t[h_n]
    h_i[0] = h_i[h_n]
    i = 0
    while True:
        l, r = 2 * i + 1, 2 * i + 2
        m = i
        if l < h_n and h_t[l] < h_t[m]:
            m = l
        if r < h_n and h_t[r] < h_t[m]:
            m = r
        if m == i:
            return h_n
        h_t[i], h_t[m] = h_t[m], h_t[i]
        h_i[i], h_i[m] = h_i[m], h_i[i]
        i = m


@njit(cache=True)
def _ready(s, k, K, core, core_busy, rq, rq_head, rq_n, in_rq):
    """Queue an instance with packets for its core; True if the core is free to run it now."""
    c = core[s, k]
    if not core_busy[c] and rq_n[c] == 0:
        return True
    if not in_rq[s, k]:
        rq[c, (rq_head[c] + rq_n[c]) % rq.shape[1]] = s * K + k
        rq_n[c] += 1
        in_rq[s, k] = True
    return False


@njit(cache=True)
def _start(s, k, t, K, q, q_head, q_n, batch, batch_n, busy, cls, cost, overhead, speed,
           capacity, beta, stats, warmup_s, h_t, h_i, h_n, core, core_busy, stl):
    """An idle instance with packets waiting takes up to beta of them on its core (free);
    returns the heap size. A stall of the core (``stl``) that has begun holds the core and
    the packets until it ends: the instance tries again then."""
    if busy[s, k] or q_n[s, k] == 0:
        return h_n
    c = core[s, k]
    core_busy[c] = True
    if stl.on[c]:
        while stl.ptr[c] < stl.t.shape[0] and stl.t[stl.ptr[c]] <= t:
            stl.until[c] = max(stl.until[c], stl.t[stl.ptr[c]]) + stl.d[stl.ptr[c]]
            stl.ptr[c] += 1
        if t < stl.until[c]:
            busy[s, k] = True      # waiting for the core, its packets still in its queue
            return _push(h_t, h_i, h_n, stl.until[c], stl.retry[0] + s * K + k)
    tot = overhead[s]
    nb = min(q_n[s, k], beta)
    for j in range(nb):
        p = q[s, k, q_head[s, k]]
        q_head[s, k] = (q_head[s, k] + 1) % capacity
        batch[s, k, j] = p
        tot += cost[s, cls[p]]
    q_n[s, k] -= nb
    batch_n[s, k] = nb
    busy[s, k] = True
    if t >= warmup_s:
        stats[s, k, I_BATCHES] += 1
        stats[s, k, I_BATCHED] += nb
        stats[s, k, I_CYCLES] += tot
    return _push(h_t, h_i, h_n, t + tot / speed[s, k], s * K + k)


@njit(cache=True)
def _enqueue(s, k, p, t, t_arr, cls, size, q, q_head, q_n, t_enq, capacity, stats,
             cls_stats, warmup_s):
    rec = t_arr[p] >= warmup_s
    if rec:
        stats[s, k, I_OFFERED] += 1
        stats[s, k, I_BYTES] += size[cls[p]] - 4      # pkt_len, as the vSwitch: no FCS
    if q_n[s, k] == capacity:           # tail drop, as a full ring
        if rec:
            stats[s, k, I_DROPPED] += 1
            cls_stats[cls[p], 2] += 1
        return
    q[s, k, (q_head[s, k] + q_n[s, k]) % capacity] = p
    q_n[s, k] += 1
    t_enq[p] = t


@njit(cache=True)
def _try(s, k, t, K, q, q_head, q_n, batch, batch_n, busy, cls, cost, overhead, speed,
         capacity, beta, stats, warmup_s, h_t, h_i, h_n, core, core_busy, rq, rq_head, rq_n,
         in_rq, stl):
    """Run instance (s, k) now if it has packets, is idle and its core is free; else queue it
    for its core."""
    if busy[s, k] or q_n[s, k] == 0 or in_rq[s, k]:
        return h_n
    if _ready(s, k, K, core, core_busy, rq, rq_head, rq_n, in_rq):
        return _start(s, k, t, K, q, q_head, q_n, batch, batch_n, busy, cls, cost, overhead,
                      speed, capacity, beta, stats, warmup_s, h_t, h_i, h_n, core, core_busy,
                      stl)
    return h_n


@njit(cache=True)
def _any_waiting(c, cinst, c_n, q_n, K):
    for j in range(c_n[c]):
        x = cinst[c, j]
        if q_n[x // K, x % K] > 0:
            return True
    return False


@njit(cache=True)
def _unpark(c, j, t, switch, c_n, parked, park_t, park_pos, h_t, h_i, h_n, n_inst_all):
    """A packet reached instance j of a parked core (every instance idle, turns going round
    at `switch` each): its turn comes when the round reaches it. The instance whose turn is
    on has polled already and found nothing (as when turns go on: it yields), so it waits a
    whole round."""
    if not parked[c]:
        return h_n
    parked[c] = False
    steps = int((t - park_t[c]) / switch)
    cur = (park_pos[c] + steps) % c_n[c]
    d = (j - cur) % c_n[c] or c_n[c]
    start = park_t[c] + (steps + d) * switch
    return _push(h_t, h_i, h_n, start, n_inst_all + c * 65536 + j)


@njit(cache=True)
def run_chain(t_arr, cls, flow, size, n_flows, n_inst, policy, weights, large_bytes,
              cost_bytes, cost, overhead, speed, core, quantum, switch, capacity, beta,
              warmup_s, sc_t, sc_s, sc_n, sc_w, stall_t, stall_d, stall_on):
    """Simulate; returns (per-instance stats, per-instance sojourn histograms, per-class
    offered/delivered/lost, per-class latency sums and histograms, flows moved by each scale
    event). Packets that arrive before ``warmup_s`` are simulated but not counted.

    Scale event e at ``sc_t[e]`` gives service ``sc_s[e]`` its first ``sc_n[e]`` instances
    (weights ``sc_w[e]``): new flows may go to added instances, flows of removed ones are
    placed again (moved), and removed instances finish the packets they hold. Arrays are sized
    for the most instances a service ever has (``speed.shape[1]``)."""
    S = n_inst.shape[0]
    K = speed.shape[1]
    n_inst = n_inst.copy()
    weights = weights.copy()
    moved = np.zeros(sc_t.shape[0], dtype=np.int64)
    e = 0
    P = t_arr.shape[0]
    C = size.shape[0]
    pin = -np.ones((S, n_flows), dtype=np.int64)
    rr = np.zeros(S, dtype=np.int64)
    inst_load = np.zeros((S, K))
    class_load = np.zeros((S, 2))
    load_t = np.zeros(S)
    stats = np.zeros((S, K, I_STATS))
    soj_hist = np.zeros((S, K, LAT_BINS))
    cls_stats = np.zeros((C, 3))           # offered, delivered, lost
    cls_lat = np.zeros(C)
    cls_hist = np.zeros((C, LAT_BINS))
    q = np.zeros((S, K, capacity), dtype=np.int64)
    q_head = np.zeros((S, K), dtype=np.int64)
    q_n = np.zeros((S, K), dtype=np.int64)
    t_enq = np.zeros(P)
    batch = np.zeros((S, K, beta), dtype=np.int64)
    batch_n = np.zeros((S, K), dtype=np.int64)
    busy = np.zeros((S, K), dtype=np.bool_)
    h_n = 0
    n_cores = core.max() + 1
    core_busy = np.zeros(n_cores, dtype=np.bool_)
    rq = np.zeros((n_cores, S * K), dtype=np.int64)
    rq_head = np.zeros(n_cores, dtype=np.int64)
    rq_n = np.zeros(n_cores, dtype=np.int64)
    in_rq = np.zeros((S, K), dtype=np.bool_)
    slice_t = np.zeros(n_cores)                 # when the core's current turn began
    # turns (switch > 0): the instances of each shared core, in order
    c_n = np.zeros(n_cores, dtype=np.int64)
    cinst = np.zeros((n_cores, S * K), dtype=np.int64)
    pos = np.zeros((S, K), dtype=np.int64)
    for ss in range(S):
        for kk in range(K):
            if speed[ss, kk] <= 0:      # no such instance, ever
                continue
            c = core[ss, kk]
            pos[ss, kk] = c_n[c]
            cinst[c, c_n[c]] = ss * K + kk
            c_n[c] += 1
    turns = np.zeros(n_cores, dtype=np.bool_)
    for c in range(n_cores):
        turns[c] = switch > 0 and c_n[c] > 1
    parked = turns.copy()                       # every instance idle: turns go round unseen
    park_t = np.zeros(n_cores)
    park_pos = np.zeros(n_cores, dtype=np.int64)
    TURN = S * K                                # heap entries from here on are turns
    RETRY = TURN + n_cores * 65536              # ... and from here, retries after a stall
    stl = Stalls(stall_t, stall_d, stall_on, np.zeros(n_cores, dtype=np.int64),
                 np.zeros(n_cores), np.array([RETRY], dtype=np.int64))
    h_t = np.zeros(2 * S * K + n_cores + 1)
    h_i = np.zeros(2 * S * K + n_cores + 1, dtype=np.int64)
    nxt = 0
    while nxt < P or h_n > 0:
        t_evt = min(t_arr[nxt] if nxt < P else np.inf, h_t[0] if h_n > 0 else np.inf)
        while e < sc_t.shape[0] and sc_t[e] <= t_evt:
            ss = sc_s[e]
            n_inst[ss] = sc_n[e]
            for kk in range(K):
                weights[ss, kk] = sc_w[e, kk]
            for f in range(n_flows):
                if pin[ss, f] >= sc_n[e]:       # its instance is gone: placed again later
                    stats[ss, pin[ss, f], I_FLOWS] -= 1
                    pin[ss, f] = -1
                    moved[e] += 1
            e += 1
        if nxt < P and (h_n == 0 or t_arr[nxt] <= h_t[0]):
            t = t_arr[nxt]
            p = nxt
            nxt += 1
            if t >= warmup_s:
                cls_stats[cls[p], 0] += 1
            k = _pick(0, p, t, cls, flow, size, n_inst, policy, weights, large_bytes,
                      cost_bytes, pin, rr, inst_load, class_load, load_t, stats)
            _enqueue(0, k, p, t, t_arr, cls, size, q, q_head, q_n, t_enq, capacity, stats,
                     cls_stats, warmup_s)
            if turns[core[0, k]]:
                h_n = _unpark(core[0, k], pos[0, k], t, switch, c_n, parked, park_t, park_pos,
                              h_t, h_i, h_n, TURN)
                continue
            if not core_busy[core[0, k]]:
                slice_t[core[0, k]] = t
            h_n = _try(0, k, t, K, q, q_head, q_n, batch, batch_n, busy, cls, cost, overhead,
                       speed, capacity, beta, stats, warmup_s, h_t, h_i, h_n, core, core_busy,
                       rq, rq_head, rq_n, in_rq, stl)
            continue
        t = h_t[0]
        idx = h_i[0]
        h_n = _pop(h_t, h_i, h_n)
        if idx >= RETRY:
            # a stall of the core is over: the instance that waited for it runs
            x = idx - RETRY
            core_busy[core[x // K, x % K]] = False
            busy[x // K, x % K] = False
            h_n = _start(x // K, x % K, t, K, q, q_head, q_n, batch, batch_n, busy, cls, cost,
                         overhead, speed, capacity, beta, stats, warmup_s, h_t, h_i, h_n, core,
                         core_busy, stl)
            continue
        if idx >= TURN:
            # a turn begins on a shared core: its instance runs if it has packets
            c = (idx - TURN) // 65536
            j = (idx - TURN) % 65536
            x = cinst[c, j]
            if q_n[x // K, x % K] > 0:
                slice_t[c] = t
                h_n = _start(x // K, x % K, t, K, q, q_head, q_n, batch, batch_n, busy, cls,
                             cost, overhead, speed, capacity, beta, stats, warmup_s, h_t, h_i,
                             h_n, core, core_busy, stl)
            elif _any_waiting(c, cinst, c_n, q_n, K):
                h_n = _push(h_t, h_i, h_n, t + switch, TURN + c * 65536 + (j + 1) % c_n[c])
            else:
                parked[c] = True
                park_t[c] = t
                park_pos[c] = j
            continue
        s0 = idx // K
        k0 = idx % K
        busy[s0, k0] = False
        core_busy[core[s0, k0]] = False
        for j in range(batch_n[s0, k0]):
            p = batch[s0, k0, j]
            rec = t_arr[p] >= warmup_s
            if rec:
                stats[s0, k0, I_SERVED] += 1
                st = t - t_enq[p]
                stats[s0, k0, I_SOJOURN] += st
                soj_hist[s0, k0, lat_bin(st)] += 1
            if s0 + 1 == S:
                if rec:
                    lat = t - t_arr[p]
                    cls_stats[cls[p], 1] += 1
                    cls_lat[cls[p]] += lat
                    cls_hist[cls[p], lat_bin(lat)] += 1
                continue
            k = _pick(s0 + 1, p, t, cls, flow, size, n_inst, policy, weights, large_bytes,
                      cost_bytes, pin, rr, inst_load, class_load, load_t, stats)
            _enqueue(s0 + 1, k, p, t, t_arr, cls, size, q, q_head, q_n, t_enq, capacity,
                     stats, cls_stats, warmup_s)
        batch_n[s0, k0] = 0
        # this instance goes to the back of its core's queue if it has more; the core takes
        # the instance at the front
        c0 = core[s0, k0]
        if turns[c0]:
            if q_n[s0, k0] > 0 and t - slice_t[c0] < quantum:
                h_n = _start(s0, k0, t, K, q, q_head, q_n, batch, batch_n, busy, cls, cost,
                             overhead, speed, capacity, beta, stats, warmup_s, h_t, h_i, h_n,
                             core, core_busy, stl)
            else:      # it yields: the next instance's turn
                h_n = _push(h_t, h_i, h_n, t + switch,
                            TURN + c0 * 65536 + (pos[s0, k0] + 1) % c_n[c0])
        elif q_n[s0, k0] > 0 and (rq_n[c0] == 0 or t - slice_t[c0] < quantum):
            # its turn goes on
            h_n = _start(s0, k0, t, K, q, q_head, q_n, batch, batch_n, busy, cls, cost,
                         overhead, speed, capacity, beta, stats, warmup_s, h_t, h_i, h_n,
                         core, core_busy, stl)
        elif q_n[s0, k0] > 0:
            rq[c0, (rq_head[c0] + rq_n[c0]) % rq.shape[1]] = idx
            rq_n[c0] += 1
            in_rq[s0, k0] = True
        while not turns[c0] and not core_busy[c0] and rq_n[c0] > 0:
            slice_t[c0] = t
            nx = rq[c0, rq_head[c0]]
            rq_head[c0] = (rq_head[c0] + 1) % rq.shape[1]
            rq_n[c0] -= 1
            in_rq[nx // K, nx % K] = False
            h_n = _start(nx // K, nx % K, t, K, q, q_head, q_n, batch, batch_n, busy, cls,
                         cost, overhead, speed, capacity, beta, stats, warmup_s, h_t, h_i, h_n,
                         core, core_busy, stl)
        if s0 + 1 < S:
            for kk in range(n_inst[s0 + 1]):
                if turns[core[s0 + 1, kk]]:
                    if q_n[s0 + 1, kk] > 0:
                        h_n = _unpark(core[s0 + 1, kk], pos[s0 + 1, kk], t, switch, c_n,
                                      parked, park_t, park_pos, h_t, h_i, h_n, TURN)
                    continue
                if not core_busy[core[s0 + 1, kk]]:
                    slice_t[core[s0 + 1, kk]] = t
                h_n = _try(s0 + 1, kk, t, K, q, q_head, q_n, batch, batch_n, busy, cls, cost,
                           overhead, speed, capacity, beta, stats, warmup_s, h_t, h_i, h_n,
                           core, core_busy, rq, rq_head, rq_n, in_rq, stl)
    return stats, soj_hist, cls_stats, cls_lat, cls_hist, moved
