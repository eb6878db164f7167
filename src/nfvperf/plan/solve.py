"""The plan as an integer program (OR-Tools CP-SAT): how many instances of each service on
each kind of host, and how many hosts of each kind, so that every service carries its chain's
traffic within the targets (per instance: ``capacity.max_pps``), the hosts' cores hold the
instances (one core each: the NFs are single-threaded), at the least cost (cores and hosts).
Traffic is split over a service's instances in proportion to what each can carry (flow-affine
weights: the vSwitch's `weighted` policy); chain latency is the sum of its services' p99s
(an upper bound: the p99 of a sum is at most the sum of the p99s)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from nfvperf.errors import InputError
from nfvperf.plan.capacity import Capacity, capacity, queue_at
from nfvperf.plan.spec import PlanSpec

SCALE_PPS = 1000          # CP-SAT wants integers: capacities in kpps


@dataclass(frozen=True)
class Infeasible(Exception):
    reasons: tuple[str, ...]


def plan(spec: PlanSpec, progress=None, time_limit_s: float = 30.0) -> dict:
    """Solve; returns the plan as a dict (the JSON of `nfvperf plan`). Raises Infeasible with
    what binds when no plan meets the targets.

    Hosts are placed one by one, socket by socket: an instance on a socket other than socket
    0 (the NIC's) reads every packet from the other socket (the estimator's remote I/O, Sec. 4.2)
    and carries less; a chain spread over m hosts pays ``cost_hop_host`` × (m - 1), over more
    sockets than hosts ``cost_hop_socket`` for each extra socket."""
    from ortools.sat.python import cp_model

    from nfvperf.eo.platform import load_platform

    platforms = {h.name: load_platform(h.platform) for h in spec.hosts}
    cores = {h.name: h.cores or platforms[h.name].cores for h in spec.hosts}
    sockets = {h.name: platforms[h.name].cpu.sockets for h in spec.hosts}
    caps: dict[tuple[int, int, str, bool], Capacity] = {}
    jobs = [(c, s, h.name, r) for c, ch in enumerate(spec.chains)
            for s in range(len(ch.services)) for h in spec.hosts
            for r in ((False, True) if sockets[h.name] > 1 else (False,))]
    for i, (c, s, h, r) in enumerate(jobs):
        if progress:
            progress(f"capacity of {spec.chains[c].name} service {s} on {h}", i, len(jobs))
        caps[c, s, h, r] = capacity(spec, spec.chains[c], s, platforms[h], remote=r)
    nic = {h.name: h.nic_bps(platforms[h.name]) for h in spec.hosts}
    _check_reachable(spec, caps, cores, nic)
    if progress:
        progress("placing (CP-SAT)", len(jobs), len(jobs))

    # every host, and its sockets: (kind, index, socket, cores on it)
    boxes = [(h.name, i) for h in spec.hosts for i in range(h.count)]
    slots = [(kind, i, k, cores[kind] // sockets[kind] + (k < cores[kind] % sockets[kind]))
             for kind, i in boxes for k in range(sockets[kind])]
    m = cp_model.CpModel()
    n = {(c, s, kind, i, k): m.NewIntVar(0, cap_k, f"n{c}_{s}_{kind}_{i}_{k}")
         for c, ch in enumerate(spec.chains) for s in range(len(ch.services))
         for kind, i, k, cap_k in slots}
    used = {(kind, i): m.NewBoolVar(f"used_{kind}_{i}") for kind, i in boxes}
    on_host = {(c, kind, i): m.NewBoolVar(f"y{c}_{kind}_{i}")
               for c in range(len(spec.chains)) for kind, i in boxes}
    on_socket = {(c, kind, i, k): m.NewBoolVar(f"z{c}_{kind}_{i}_{k}")
                 for c in range(len(spec.chains)) for kind, i, k, _ in slots}
    for kind, i, k, cap_k in slots:
        m.Add(sum(v for key, v in n.items() if key[2:] == (kind, i, k))
              <= cap_k * used[kind, i])
        for c, ch in enumerate(spec.chains):
            for s in range(len(ch.services)):
                m.Add(n[c, s, kind, i, k] <= cap_k * on_socket[c, kind, i, k])
            m.AddImplication(on_socket[c, kind, i, k], on_host[c, kind, i])
    for h in spec.hosts:                  # identical hosts: use them in order, fullest first
        for i in range(h.count - 1):
            m.Add(used[h.name, i] >= used[h.name, i + 1])
            m.Add(sum(v for key, v in n.items() if key[2:4] == (h.name, i))
                  >= sum(v for key, v in n.items() if key[2:4] == (h.name, i + 1)))
    # a host's NICs carry, each way, the traffic of every chain it serves (all of it, as if the
    # chain were on that host alone: a bound that is safe when a chain spans hosts)
    for kind, i in boxes:
        m.Add(sum(on_host[c, kind, i] * math.ceil(ch.wire_bps / 1e6)
                  for c, ch in enumerate(spec.chains)) <= int(nic[kind] / 1e6))
    for c, ch in enumerate(spec.chains):
        demand = math.ceil(ch.pps / SCALE_PPS)
        for s in range(len(ch.services)):
            m.Add(sum(n[c, s, kind, i, k] * int(caps[c, s, kind, k > 0].max_pps // SCALE_PPS)
                      for kind, i, k, _ in slots) >= demand)
    hops_host = sum(on_host.values()) - len(spec.chains)
    hops_socket = sum(on_socket.values()) - sum(on_host.values())
    m.Minimize(int(spec.cost_core * 1000) * sum(n.values())
               + int(spec.cost_host * 1000) * sum(used.values())
               + int(spec.cost_hop_host * 1000) * hops_host
               + int(spec.cost_hop_socket * 1000) * hops_socket
               # ties: an instance on the NIC's socket rather than across the interconnect
               + sum(v for key, v in n.items() if key[4] > 0))
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = time_limit_s
    solver.parameters.num_workers = 2
    status = solver.Solve(m)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        raise Infeasible(("no assignment of instances to the hosts meets every service's "
                          "demand (CP-SAT: " + solver.StatusName(status) + ")",))
    return _result(spec, caps, {key: solver.Value(v) for key, v in n.items()},
                   {key: solver.Value(v) for key, v in used.items()}, cores,
                   status == cp_model.OPTIMAL,
                   {"hops_host": solver.Value(hops_host),
                    "hops_socket": solver.Value(hops_socket)},
                   solver.BestObjectiveBound() / 1000)


def _check_reachable(spec: PlanSpec, caps, cores, nic) -> None:
    """Name what binds before solving: a service no instance can serve within the targets,
    more cores needed than all the hosts have, or a chain beyond any host's NICs."""
    reasons = []
    for c, ch in enumerate(spec.chains):
        for s, svc in enumerate(ch.services):
            best = max(caps[c, s, h.name, False].max_pps for h in spec.hosts)
            if best < 1:
                cap = caps[c, s, spec.hosts[0].name, False]
                reasons.append(
                    f"chain {ch.name}, {cap.nf}: no load meets the targets (loss ≤ "
                    f"{ch.targets.loss:g}" + (f", p99 ≤ {cap.budget_us:g} µs, its share of the "
                                              f"chain's {ch.targets.latency_p99_us:g} µs"
                                              if cap.budget_us else "") + ")")
    total_cores = sum(cores[h.name] * h.count for h in spec.hosts)
    need = sum(math.ceil(ch.pps
                         / max(max(caps[c, s, h.name, False].max_pps for h in spec.hosts), 1))
               for c, ch in enumerate(spec.chains) for s in range(len(ch.services)))
    if not reasons and need > total_cores:
        reasons.append(f"cores: the chains need at least {need} instances of one core each, "
                       f"the hosts have {total_cores}")
    if not reasons:
        best = max(nic.values())
        reasons = [f"links: chain {ch.name} carries {ch.wire_bps / 1e9:.3g} Gbps each way, "
                   f"the largest host's NICs {best / 1e9:.3g} Gbps"
                   for ch in spec.chains if ch.wire_bps > best]
    if reasons:
        raise Infeasible(tuple(reasons))


def _result(spec, caps, n, used, cores, optimal: bool, hops: dict, bound: float) -> dict:
    chains, binding = [], []
    for c, ch in enumerate(spec.chains):
        demand = ch.pps
        services, p99_sum = [], 0.0
        for s, svc in enumerate(ch.services):
            placed = [(key[2], key[3], key[4], k) for key, k in n.items()
                      if key[:2] == (c, s) and k > 0]
            total_cap = sum(k * caps[c, s, kind, sock > 0].max_pps
                            for kind, _, sock, k in placed)
            rows, worst_loss, worst_p99 = [], 0.0, 0.0
            for kind, i, sock, k in placed:
                cap = caps[c, s, kind, sock > 0]
                rate = demand * cap.max_pps / total_cap           # weighted split, per instance
                r = queue_at(spec, cap.cycles_per_packet, cap.clock_hz, rate).solve()
                p99 = r.percentiles_us(r.sojourn)["99"]
                worst_loss, worst_p99 = max(worst_loss, r.loss_probability), max(worst_p99, p99)
                rows.append({"host": f"{kind}-{i}", "kind": kind, "socket": sock,
                             "instances": k, "pps_per_instance": rate,
                             "utilisation": rate / cap.cpu_pps,
                             "cycles_per_packet": cap.cycles_per_packet,
                             "max_pps_per_instance": cap.max_pps, "weight": cap.max_pps,
                             "loss": r.loss_probability, "latency_p99_us": p99})
            p99_sum += worst_p99
            nf = caps[c, s, spec.hosts[0].name, False].nf
            services.append({"nf": nf, "model": svc.nf,
                             "instances": sum(r["instances"] for r in rows),
                             "cores": sum(r["instances"] for r in rows), "placement": rows,
                             "loss": worst_loss, "latency_p99_us": worst_p99})
            for kind in {r["kind"] for r in rows}:
                k_tot = sum(r["instances"] for r in rows if r["kind"] == kind)
                cap = caps[c, s, kind, False]
                binding.append(
                    f"{ch.name}/{nf} on {kind}: an instance may carry {cap.max_pps / 1e6:.3g} "
                    f"Mpps ({100 * cap.max_pps / cap.cpu_pps:.0f} % of its core) within loss ≤ "
                    f"{ch.targets.loss:g}" + (f" and p99 ≤ {cap.budget_us:g} µs"
                                              if cap.budget_us else "")
                    + f"; {demand / 1e6:.3g} Mpps need {k_tot} here")
        chains.append({"name": ch.name, "demand_mpps": demand / 1e6, "services": services,
                       "hosts": sorted({r["host"] for sv in services for r in sv["placement"]}),
                       "latency_p99_us": p99_sum,
                       "latency_target_us": ch.targets.latency_p99_us,
                       "loss_target": ch.targets.loss})
    per_kind = {}
    for (kind, _), u in used.items():
        per_kind[kind] = per_kind.get(kind, 0) + u
    for (kind, i), u in used.items():
        on = sum(v for key, v in n.items() if key[2:4] == (kind, i))
        if u and on == cores[kind]:
            binding.append(f"cores of {kind}-{i}: all {on} in use")
    total = sum(n.values())
    return {"plan": spec.name, "optimal": optimal, "cores": total,
            "hosts": {k: v for k, v in per_kind.items() if v},
            "cost": spec.cost_core * total + spec.cost_host * sum(used.values())
            + spec.cost_hop_host * hops["hops_host"]
            + spec.cost_hop_socket * hops["hops_socket"],
            # no plan costs less than this (CP-SAT's proof so far; = cost when optimal)
            "cost_lower_bound": bound,
            **hops, "chains": chains, "binding": binding}


def explain(exc: Infeasible) -> InputError:
    """One line: what binds, in full (a `found` would be cut at 60 characters)."""
    return InputError("hosts and targets that allow a plan; what binds: "
                      + "; ".join(exc.reasons), field="plan")
