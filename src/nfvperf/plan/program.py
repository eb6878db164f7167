"""The plan as an integer program (OR-Tools CP-SAT): instances of each service on each host
and socket, which hosts are used, which hosts and sockets each chain spans.

Constraints, each a resource that ``without`` may lift to ask what it costs: ``cores`` (an
instance has a core of its socket: the NFs are single-threaded), ``memory`` (a host's DRAM
serves its instances' accesses, each instance counted at the most it may carry: the estimator's
memory bound, one access at a time, Sec. 3) and ``links`` (a host's NICs carry, each way, the
traffic of every chain it serves, all of it, as if the chain were on that host alone: safe
when a chain spans hosts). Every service carries its chain's demand (instances × what each may
carry within the targets, from ``capacity``).

Cost: cores, hosts, and for each chain its hosts beyond the first and its sockets beyond one a
host. Besides the placement the program states what a plan implies in aggregate — at least so
many instances per service (its demand over the best instance's capacity), hosts and sockets
enough for each chain's instances and for all of them — so that CP-SAT's bound reaches the
cost of the best plan rather than a fractional relaxation's (the 60-host example: proved
optimal in seconds, where without them the bound stayed 15 % below after 30 s). Identical hosts
are used in order, fullest first (symmetry)."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

#: what ``without`` may lift
RESOURCES = ("cores", "memory", "links")
SCALE_PPS = 1000          # CP-SAT wants integers: rates in kpps, costs in thousandths
SCALE_COST = 1000


class Infeasible(Exception):
    """No plan meets the targets; ``reasons``: what binds, one line each."""

    def __init__(self, reasons: tuple[str, ...]):
        super().__init__("; ".join(reasons))
        self.reasons = reasons


class NoPlanInTime(Infeasible):
    """CP-SAT found no plan in the time, nor proved there is none."""


@dataclass(frozen=True)
class Pool:
    """The hosts as the program sees them, per kind: cores for NFs, sockets, NIC capacity
    (bits a second each way) and memory (DRAM accesses a second)."""
    cores: dict[str, int]
    sockets: dict[str, int]
    nic_bps: dict[str, float]
    dram_per_s: dict[str, float]


@dataclass
class _Model:
    m: object                # cp_model.CpModel
    n: dict                  # (chain, service, kind, host, socket) -> instances there
    used: dict               # (kind, host) -> the host is used
    hops_host: object
    hops_socket: object
    cost: object             # the objective, in thousandths
    remote: object           # instances on a socket other than the NIC's


@dataclass(frozen=True)
class Solution:
    n: dict                  # (chain, service, kind, host, socket) -> instances there
    used: dict               # (kind, host) -> 0/1
    hops: dict               # hops_host, hops_socket
    cost: float
    optimal: bool            # no plan costs less (proved)
    bound: float             # no plan costs less than this (CP-SAT's proof so far)


def build(spec, caps, pool: Pool, without: frozenset[str] = frozenset(),
          implied: bool = True) -> _Model:
    """The program for ``spec`` with capacities ``caps[chain, service, kind, remote]``;
    ``implied``: with the aggregate constraints (the same plans, a tighter bound)."""
    from ortools.sat.python import cp_model

    unknown = set(without) - set(RESOURCES)
    if unknown:
        raise ValueError(f"resources are {RESOURCES}, not {sorted(unknown)}")
    all_cores = sum(pool.cores[h.name] * h.count for h in spec.hosts)
    # every host, and its sockets: (kind, index, socket, instances it may hold)
    boxes = [(h.name, i) for h in spec.hosts for i in range(h.count)]
    slots = [(kind, i, k,
              all_cores if "cores" in without else
              pool.cores[kind] // pool.sockets[kind] + (k < pool.cores[kind] % pool.sockets[kind]))
             for kind, i in boxes for k in range(pool.sockets[kind])]
    chains = range(len(spec.chains))
    m = cp_model.CpModel()
    n = {(c, s, kind, i, k): m.NewIntVar(0, cap_k, f"n{c}_{s}_{kind}_{i}_{k}")
         for c in chains for s in range(len(spec.chains[c].services))
         for kind, i, k, cap_k in slots}
    used = {(kind, i): m.NewBoolVar(f"used_{kind}_{i}") for kind, i in boxes}
    on_host = {(c, kind, i): m.NewBoolVar(f"y{c}_{kind}_{i}") for c in chains
               for kind, i in boxes}
    on_socket = {(c, kind, i, k): m.NewBoolVar(f"z{c}_{kind}_{i}_{k}") for c in chains
                 for kind, i, k, _ in slots}
    for kind, i, k, cap_k in slots:
        m.Add(sum(x for key, x in n.items() if key[2:] == (kind, i, k))
              <= cap_k * used[kind, i])
        for c, ch in enumerate(spec.chains):
            for s in range(len(ch.services)):
                m.Add(n[c, s, kind, i, k] <= cap_k * on_socket[c, kind, i, k])
            m.AddImplication(on_socket[c, kind, i, k], on_host[c, kind, i])
    for c in chains:
        for kind, i in boxes:
            m.AddImplication(on_host[c, kind, i], used[kind, i])
            m.AddBoolOr([on_socket[c, kind, i, k] for k in range(pool.sockets[kind])]
                        ).OnlyEnforceIf(on_host[c, kind, i])
    for h in spec.hosts:                  # identical hosts: use them in order, fullest first
        for i in range(h.count - 1):
            m.Add(used[h.name, i] >= used[h.name, i + 1])
            m.Add(sum(x for key, x in n.items() if key[2:4] == (h.name, i))
                  >= sum(x for key, x in n.items() if key[2:4] == (h.name, i + 1)))
    if "links" not in without:
        for kind, i in boxes:
            m.Add(sum(on_host[c, kind, i] * math.ceil(ch.wire_bps / 1e6)
                      for c, ch in enumerate(spec.chains)) <= int(pool.nic_bps[kind] / 1e6))
    if "memory" not in without:
        for kind, i in boxes:
            m.Add(sum(x * math.ceil(caps[key[0], key[1], kind, key[4] > 0].max_pps
                                    * caps[key[0], key[1], kind, key[4] > 0].dram_per_packet
                                    / SCALE_PPS)
                      for key, x in n.items() if key[2:4] == (kind, i))
                  <= int(pool.dram_per_s[kind] / SCALE_PPS))
    kpps = {(c, s, kind, k): int(caps[c, s, kind, k > 0].max_pps // SCALE_PPS)
            for c in chains for s in range(len(spec.chains[c].services))
            for kind, _, k, _ in slots}
    for c, ch in enumerate(spec.chains):
        for s in range(len(ch.services)):
            m.Add(sum(n[c, s, kind, i, k] * kpps[c, s, kind, k] for kind, i, k, _ in slots)
                  >= math.ceil(ch.pps / SCALE_PPS))
    if implied:
        _implied(m, spec, kpps, n, used, on_host, on_socket, boxes, slots)
    hops_host = sum(on_host.values()) - len(spec.chains)
    hops_socket = sum(on_socket.values()) - sum(on_host.values())
    cost = (int(spec.cost_core * SCALE_COST) * sum(n.values())
            + int(spec.cost_host * SCALE_COST) * sum(used.values())
            + int(spec.cost_hop_host * SCALE_COST) * hops_host
            + int(spec.cost_hop_socket * SCALE_COST) * hops_socket)
    m.Minimize(cost)
    return _Model(m, n, used, hops_host, hops_socket, cost,
                  sum(x for key, x in n.items() if key[4] > 0))


def _implied(m, spec, kpps, n, used, on_host, on_socket, boxes, slots) -> None:
    """What every plan meets anyway, stated so that CP-SAT's bound sees it: at least so many
    instances per service (its demand over the best instance's capacity); the hosts and sockets
    a chain spans hold its instances; the hosts used hold them all."""
    per_host = {kind: sum(cap for kd, i, _, cap in slots if (kd, i) == (kind, 0))
                for kind, _ in boxes}
    room = sum(cap_k for *_, cap_k in slots)
    per_chain = []
    for c, ch in enumerate(spec.chains):
        demand = math.ceil(ch.pps / SCALE_PPS)
        total, most = [], 0
        for s in range(len(ch.services)):
            best = max(kpps[c, s, kind, k] for kind, _, k, _ in slots)
            least = -(-demand // max(best, 1))
            n_s = m.NewIntVar(least, max(least, room), f"N{c}_{s}")
            m.Add(n_s == sum(n[c, s, kind, i, k] for kind, i, k, _ in slots))
            total.append(n_s)
            most += max(least, room)
        n_c = m.NewIntVar(0, most, f"N{c}")
        m.Add(n_c == sum(total))
        m.Add(sum(per_host[kind] * on_host[c, kind, i] for kind, i in boxes) >= n_c)
        m.Add(sum(cap_k * on_socket[c, kind, i, k] for kind, i, k, cap_k in slots) >= n_c)
        per_chain.append(n_c)
    m.Add(sum(per_host[kind] * used[kind, i] for kind, i in boxes) >= sum(per_chain))


def solve(model: _Model, time_limit_s: float, tie_break: bool = True) -> Solution:
    """The least cost first; then (``tie_break``), among plans of that cost, the fewest
    instances across the interconnect (a second solve from the first's plan, in the time left,
    at least a second). Raises Infeasible when CP-SAT proves there is no plan or finds none
    in the time."""
    from ortools.sat.python import cp_model

    t0 = time.perf_counter()
    first = _solver(time_limit_s)
    status = first.Solve(model.m)
    if status == cp_model.INFEASIBLE:
        why = ("no placement of the instances on the hosts meets every service's demand "
               "within the hosts' cores, memory and links")
        raise Infeasible((why,))
    if status != cp_model.OPTIMAL and status != cp_model.FEASIBLE:
        why = (f"no plan found in {time_limit_s:g} s (CP-SAT: {first.StatusName(status)}); "
               "a longer --time-limit may find one")
        raise NoPlanInTime((why,))
    best, cost = first, round(first.ObjectiveValue())
    if tie_break:
        model.m.Add(model.cost <= cost)
        model.m.Minimize(model.remote)
        for x in model.n.values():
            model.m.AddHint(x, first.Value(x))
        second = _solver(max(time_limit_s - (time.perf_counter() - t0), 1.0))
        if second.Solve(model.m) in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            best = second
    return Solution({key: best.Value(x) for key, x in model.n.items()},
                    {key: best.Value(x) for key, x in model.used.items()},
                    {"hops_host": best.Value(model.hops_host),
                     "hops_socket": best.Value(model.hops_socket)},
                    cost / SCALE_COST, status == cp_model.OPTIMAL,
                    first.BestObjectiveBound() / SCALE_COST)


def _solver(time_limit_s: float):
    from ortools.sat.python import cp_model

    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = time_limit_s
    solver.parameters.num_workers = 2
    return solver
