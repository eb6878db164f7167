"""The plan as an integer program (OR-Tools CP-SAT): instances of each service on each host
and socket, the traffic they carry (the split of each service's traffic over its instances:
the weights of the vSwitch's `weighted` policy), which hosts are used, which hosts and sockets
each chain spans.

Every service carries its chain's demand, each instance at most what it may carry within the
targets (``capacity``). Resources, each of which ``without`` may lift to ask what it costs:
``cores`` (an instance has a core of its socket: the NFs are single-threaded), ``memory`` (a
host's DRAM serves the accesses of the packets its instances carry: the estimator's memory
bound, one access at a time, Sec. 3) and ``links`` (a host's NICs carry, each way, what its
instances receive: see ``_links``).

Cost: cores, hosts, and for each chain its hosts beyond the first and its sockets beyond one a
host. Besides the placement the program states what a plan implies in aggregate — at least so
many instances per service (its demand over the best instance's capacity), hosts and sockets
enough for each chain's instances and for all of them — so that CP-SAT's bound reaches the
cost of the best plan rather than a fractional relaxation's (the 60-host example: proved
optimal in 5-8 s, where without them the bound stays 7 % below after 30 s). Identical hosts
are used in order, fullest first (symmetry)."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from nfvperf.errors import NfvperfError

#: what ``without`` may lift
RESOURCES = ("cores", "memory", "links")
# CP-SAT wants integers: a chain's traffic in STEPS equal steps (a multiple of its flows when
# it names them, so that a flow is a whole number of steps); what an instance may carry rounded
# down to a step (by less than 10^-5 of the chain's traffic; exact for whole flows: rounded
# up, an instance at its most was loaded past its loss target, 1.005e-5 for 1e-5); DRAM
# accesses and link bits of a step rounded up; costs in thousandths. No constraint is switched
# by a literal over a large domain: with link loads as variables of 10^10 bits a second enforced
# by "alone on this host", CP-SAT (9.15, 8 workers) now and then claimed a plan optimal that
# was not (2 runs in 40 on a small plan); the loads as plain sums never did (0 in 900).
STEPS = 100_000
SCALE_COST = 1000


class Infeasible(NfvperfError):
    """No plan meets the targets; ``reasons``: what binds, one line each (exit code 2: the
    hosts and targets given allow none)."""

    exit_code = 2

    def __init__(self, reasons: tuple[str, ...]):
        super().__init__(self._message(reasons))
        self.reasons = reasons

    @staticmethod
    def _message(reasons: tuple[str, ...]) -> str:
        return "plan: expected hosts and targets that allow a plan; what binds: " + \
            "; ".join(reasons)


class NoPlanInTime(Infeasible):
    """CP-SAT found no plan in the time, nor proved there is none: no fault of the input
    (exit code 1)."""

    exit_code = 1

    @staticmethod
    def _message(reasons: tuple[str, ...]) -> str:
        return "plan: " + "; ".join(reasons)


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
    x: dict                  # ... -> packets a second they carry together
    used: dict               # (kind, host) -> the host is used
    hops_host: object
    hops_socket: object
    cost: object             # the objective, in thousandths
    remote: object           # instances on a socket other than the NIC's
    most: dict               # (chain, service, kind, socket) -> what an instance may carry
    step: dict               # chain -> packets a second in a step of its traffic


@dataclass(frozen=True)
class Solution:
    n: dict                  # (chain, service, kind, host, socket) -> instances there
    pps: dict                # ... -> packets a second they carry together
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
    services = [(c, s) for c, ch in enumerate(spec.chains) for s in range(len(ch.services))]
    demand = {c: steps(ch) for c, ch in enumerate(spec.chains)}
    step = {c: ch.pps / demand[c] for c, ch in enumerate(spec.chains)}   # packets a second
    most = {(c, s, kind, k): math.floor(
                whole_flows(caps[c, s, kind, k > 0].max_pps, spec.chains[c],
                            spec.chains[c].services[s].stateful) / step[c] + 1e-6)
            for c, s in services for kind, _, k, _ in slots}
    carry = {key: min(v, demand[key[0]]) for key, v in most.items()}   # small numbers
    chains = range(len(spec.chains))
    m = cp_model.CpModel()
    n = {(c, s, kind, i, k): m.NewIntVar(0, cap_k, f"n{c}_{s}_{kind}_{i}_{k}")
         for c, s in services for kind, i, k, cap_k in slots}
    x = {(c, s, kind, i, k): m.NewIntVar(0, demand[c], f"x{c}_{s}_{kind}_{i}_{k}")
         for c, s in services for kind, i, k, _ in slots}
    used = {(kind, i): m.NewBoolVar(f"used_{kind}_{i}") for kind, i in boxes}
    on_host = {(c, kind, i): m.NewBoolVar(f"y{c}_{kind}_{i}") for c in chains
               for kind, i in boxes}
    on_socket = {(c, kind, i, k): m.NewBoolVar(f"z{c}_{kind}_{i}_{k}") for c in chains
                 for kind, i, k, _ in slots}
    # every service carries its chain's demand; the instances in a slot share its part
    # equally, each within what it may carry (an instance given nothing is never worth its
    # cost; said so here, it made CP-SAT 1.5-5 times slower on the 60-host example)
    for c, s in services:
        m.Add(sum(x[c, s, kind, i, k] for kind, i, k, _ in slots) == demand[c])
        for kind, i, k, _ in slots:
            m.Add(x[c, s, kind, i, k] <= n[c, s, kind, i, k] * carry[c, s, kind, k])
    for kind, i, k, cap_k in slots:
        m.Add(sum(n[c, s, kind, i, k] for c, s in services) <= cap_k * used[kind, i])
        for c, s in services:
            m.Add(n[c, s, kind, i, k] <= cap_k * on_socket[c, kind, i, k])
        for c in chains:
            m.AddImplication(on_socket[c, kind, i, k], on_host[c, kind, i])
    for c in chains:
        for kind, i in boxes:
            m.AddImplication(on_host[c, kind, i], used[kind, i])
            m.AddBoolOr([on_socket[c, kind, i, k] for k in range(pool.sockets[kind])]
                        ).OnlyEnforceIf(on_host[c, kind, i])
    for h in spec.hosts:                  # identical hosts: use them in order, fullest first
        for i in range(h.count - 1):
            m.Add(used[h.name, i] >= used[h.name, i + 1])
            m.Add(sum(v for key, v in n.items() if key[2:4] == (h.name, i))
                  >= sum(v for key, v in n.items() if key[2:4] == (h.name, i + 1)))
    if "memory" not in without:
        for kind, i in boxes:
            m.Add(sum(v * math.ceil(caps[key[0], key[1], kind, key[4] > 0].dram_per_packet
                                    * step[key[0]])
                      for key, v in x.items() if key[2:4] == (kind, i))
                  <= int(pool.dram_per_s[kind]))
    if "links" not in without:
        _links(m, spec, x, demand, step, on_host, boxes, pool)
    if implied:
        _implied(m, spec, demand, carry, n, used, on_host, on_socket, boxes, slots)
    hops_host = sum(on_host.values()) - len(spec.chains)
    hops_socket = sum(on_socket.values()) - sum(on_host.values())
    cost = (round(spec.cost_core * SCALE_COST) * sum(n.values())
            + round(spec.cost_host * SCALE_COST) * sum(used.values())
            + round(spec.cost_hop_host * SCALE_COST) * hops_host
            + round(spec.cost_hop_socket * SCALE_COST) * hops_socket)
    m.Minimize(cost)
    return _Model(m, n, x, used, hops_host, hops_socket, cost,
                  sum(v for key, v in n.items() if key[4] > 0), most, step)


def steps(chain) -> int:
    """The steps a chain's traffic is counted in: STEPS, or the next multiple of its flows
    when it has one class with ``flows`` (a flow: a whole number of steps)."""
    flows = chain.traffic[0].flows if len(chain.traffic) == 1 else None
    return flows * -(-STEPS // flows) if flows else STEPS


def whole_flows(max_pps: float, chain, stateful: bool) -> float:
    """What an instance may be given when a stateful NF keeps each flow on one instance
    (``chain``'s traffic classes with ``flows``): with one class of equal flows, as many whole
    flows as fit; with several, ``max_pps`` less the largest flow (first fit places every flow
    when no instance is given more). ``max_pps`` when the NF is stateless or flows are many."""
    largest = chain.largest_flow_pps
    if not stateful or largest == 0:
        return max_pps
    if len(chain.traffic) == 1:
        return math.floor(max_pps / largest) * largest
    return max(max_pps - largest, 0.0)


def _links(m, spec, x, demand, step, on_host, boxes, pool) -> None:
    """A host's NICs carry, each way, what its instances receive: a chain on that host alone
    enters and leaves it once (its whole traffic); a chain spread over hosts may enter a host
    once for each of its services there (the vSwitch spreads each service's flows on its own,
    so a packet may come back), with the part of the traffic those instances carry (as
    ``link_bps`` counts them). On a host a chain is alone on, its services carry the whole
    traffic each: the sum over them less (services - 1) × the whole is the whole; elsewhere
    the term is 0 (bits a second, a step's rounded up)."""
    loads = {box: [] for box in boxes}
    for c, ch in enumerate(spec.chains):
        bits = math.ceil(ch.wire_bps / ch.pps * step[c])
        whole = bits * demand[c]
        alone = m.NewBoolVar(f"alone{c}")
        spans = sum(on_host[c, kind, i] for kind, i in boxes)
        m.Add(spans == 1).OnlyEnforceIf(alone)
        m.Add(spans >= 2).OnlyEnforceIf(alone.Not())
        for kind, i in boxes:
            here = sum(v for key, v in x.items() if key[0] == c and key[2:4] == (kind, i))
            only_here = m.NewBoolVar(f"alone{c}_{kind}_{i}")     # alone, on this host
            m.AddImplication(only_here, alone)
            m.AddImplication(only_here, on_host[c, kind, i])
            m.AddBoolOr([alone.Not(), on_host[c, kind, i].Not(), only_here])
            loads[kind, i].append(bits * here - (len(ch.services) - 1) * whole * only_here)
    for (kind, i), chain_loads in loads.items():
        m.Add(sum(chain_loads) <= int(pool.nic_bps[kind]))


def link_bps(spec, x: dict, kind: str, i: int) -> float:
    """What the program counts on a host's NICs each way (bits a second) for a plan's traffic
    ``x`` (packets a second per chain, service, host and socket)."""
    total = 0.0
    for c, ch in enumerate(spec.chains):
        here = sum(v for key, v in x.items() if key[0] == c and key[2:4] == (kind, i))
        if not here:
            continue
        hosts = {key[2:4] for key, v in x.items() if key[0] == c and v}
        total += ch.wire_bps if len(hosts) == 1 else here * ch.wire_bps / ch.pps
    return total


def _implied(m, spec, demand, carry, n, used, on_host, on_socket, boxes, slots) -> None:
    """What every plan meets anyway, stated so that CP-SAT's bound sees it: at least so many
    instances per service (its demand over the best instance's capacity); the hosts and sockets
    a chain spans hold its instances; the hosts used hold them all."""
    per_host = {kind: sum(cap for kd, i, _, cap in slots if (kd, i) == (kind, 0))
                for kind, _ in boxes}
    room = sum(cap_k for *_, cap_k in slots)
    per_chain = []
    for c, ch in enumerate(spec.chains):
        total = []
        for s in range(len(ch.services)):
            best = max(carry[c, s, kind, k] for kind, _, k, _ in slots)
            least = -(-demand[c] // max(best, 1))
            total.append(m.NewIntVar(least, max(least, room), f"N{c}_{s}"))
            m.Add(total[-1] == sum(n[c, s, kind, i, k] for kind, i, k, _ in slots))
        n_c = m.NewIntVar(0, room * len(ch.services), f"N{c}")
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
        _hint(model, first)
        second = _solver(max(time_limit_s - (time.perf_counter() - t0), 1.0))
        if second.Solve(model.m) in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            best = second
        best = _balance(model, best)
    return Solution({key: best.Value(v) if best.Value(model.x[key]) else 0
                     for key, v in model.n.items()},
                    {key: best.Value(v) * model.step[key[0]] for key, v in model.x.items()},
                    {key: best.Value(v) for key, v in model.used.items()},
                    {"hops_host": best.Value(model.hops_host),
                     "hops_socket": best.Value(model.hops_socket)},
                    cost / SCALE_COST, status == cp_model.OPTIMAL,
                    first.BestObjectiveBound() / SCALE_COST)


def _hint(model: _Model, solver) -> None:
    model.m.ClearHints()
    for v in [*model.n.values(), *model.x.values()]:
        model.m.AddHint(v, solver.Value(v))


def _balance(model: _Model, solved):
    """The instances as placed, each service's traffic split so that its busiest instance is
    as idle as it can be (its share of what it may carry, ``t``, in thousandths: ``x ≤
    t·n·most`` for every slot of the service), the sum over services least — each service
    balanced as far as memory and links let it. Returns the solver that found the split, or
    ``solved`` when none was found (in 1 s)."""
    from ortools.sat.python import cp_model

    m = model.m
    busiest = {}
    for key, n in model.n.items():
        k = solved.Value(n)
        m.Add(n == k)
        if k:
            t = busiest.setdefault(key[:2], m.NewIntVar(0, 1000, f"busiest{key[0]}_{key[1]}"))
            m.Add(1000 * model.x[key] <= k * model.most[key[0], key[1], key[2], key[4]] * t)
    m.Minimize(sum(busiest.values()))
    _hint(model, solved)
    third = _solver(1.0)
    return third if third.Solve(m) in (cp_model.OPTIMAL, cp_model.FEASIBLE) else solved


def _solver(time_limit_s: float):
    from ortools.sat.python import cp_model

    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = time_limit_s
    solver.parameters.num_workers = 8
    return solver
