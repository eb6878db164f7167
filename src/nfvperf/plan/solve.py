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
    what binds when no plan meets the targets."""
    from ortools.sat.python import cp_model

    from nfvperf.eo.platform import load_platform

    platforms = {h.name: load_platform(h.platform) for h in spec.hosts}
    cores = {h.name: h.cores or platforms[h.name].cores for h in spec.hosts}
    caps: dict[tuple[int, int, str], Capacity] = {}
    jobs = [(c, s, h.name) for c, ch in enumerate(spec.chains) for s in range(len(ch.services))
            for h in spec.hosts]
    for i, (c, s, h) in enumerate(jobs):
        if progress:
            progress(f"capacity of {spec.chains[c].name}/{spec.chains[c].services[s].nf} on {h}",
                     i, len(jobs))
        caps[c, s, h] = capacity(spec, spec.chains[c], s, platforms[h])
    _check_reachable(spec, caps, cores)

    m = cp_model.CpModel()
    n = {k: m.NewIntVar(0, cores[k[2]] * next(h.count for h in spec.hosts if h.name == k[2]),
                        f"n{k}") for k in caps}
    used = {h.name: m.NewIntVar(0, h.count, f"hosts_{h.name}") for h in spec.hosts}
    for c, ch in enumerate(spec.chains):
        demand = math.ceil(sum(t.pps for t in ch.traffic) / SCALE_PPS)
        for s in range(len(ch.services)):
            m.Add(sum(n[c, s, h.name] * int(caps[c, s, h.name].max_pps // SCALE_PPS)
                      for h in spec.hosts) >= demand)
    for h in spec.hosts:
        m.Add(sum(v for k, v in n.items() if k[2] == h.name) <= cores[h.name] * used[h.name])
    m.Minimize(int(spec.cost_core * 1000) * sum(n.values())
               + int(spec.cost_host * 1000) * sum(used.values()))
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = time_limit_s
    status = solver.Solve(m)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        raise Infeasible(("no assignment of instances to the hosts meets every service's "
                          "demand (CP-SAT: " + solver.StatusName(status) + ")",))
    if progress:
        progress("done", len(jobs), len(jobs))
    return _result(spec, caps, {k: solver.Value(v) for k, v in n.items()},
                   {k: solver.Value(v) for k, v in used.items()}, cores,
                   status == cp_model.OPTIMAL)


def _check_reachable(spec: PlanSpec, caps, cores) -> None:
    """Name what binds before solving: a service no instance can serve within the targets, or
    more cores needed than all the hosts have."""
    reasons = []
    for c, ch in enumerate(spec.chains):
        for s, svc in enumerate(ch.services):
            best = max(caps[c, s, h.name].max_pps for h in spec.hosts)
            if best < 1:
                cap = caps[c, s, spec.hosts[0].name]
                reasons.append(
                    f"chain {ch.name}, {cap.nf}: no load meets the targets (loss ≤ "
                    f"{ch.targets.loss:g}" + (f", p99 ≤ {cap.budget_us:g} µs, its share of the "
                                              f"chain's {ch.targets.latency_p99_us:g} µs"
                                              if cap.budget_us else "") + ")")
    total_cores = sum(cores[h.name] * h.count for h in spec.hosts)
    need = sum(math.ceil(sum(t.pps for t in ch.traffic)
                         / max(max(caps[c, s, h.name].max_pps for h in spec.hosts), 1))
               for c, ch in enumerate(spec.chains) for s in range(len(ch.services)))
    if not reasons and need > total_cores:
        reasons.append(f"cores: the chains need at least {need} instances of one core each, "
                       f"the hosts have {total_cores}")
    if reasons:
        raise Infeasible(tuple(reasons))


def _result(spec, caps, n, used, cores, optimal: bool) -> dict:
    chains = []
    for c, ch in enumerate(spec.chains):
        demand = sum(t.pps for t in ch.traffic)
        services, p99_sum = [], 0.0
        for s, svc in enumerate(ch.services):
            placed = [(h.name, n[c, s, h.name]) for h in spec.hosts if n[c, s, h.name] > 0]
            total_cap = sum(k * caps[c, s, h].max_pps for h, k in placed)
            per_host = []
            worst_loss, worst_p99 = 0.0, 0.0
            for h, k in placed:
                cap = caps[c, s, h]
                rate = demand * cap.max_pps / total_cap          # weighted split, per instance
                r = queue_at(spec, cap.cycles_per_packet, cap.clock_hz, rate).solve()
                p99 = r.percentiles_us(r.sojourn)["99"]
                worst_loss, worst_p99 = max(worst_loss, r.loss_probability), max(worst_p99, p99)
                per_host.append({"host": h, "instances": k, "pps_per_instance": rate,
                                 "utilisation": rate / cap.cpu_pps,
                                 "cycles_per_packet": cap.cycles_per_packet,
                                 "max_pps_per_instance": cap.max_pps, "weight": cap.max_pps,
                                 "loss": r.loss_probability, "latency_p99_us": p99})
            p99_sum += worst_p99
            services.append({"nf": caps[c, s, spec.hosts[0].name].nf, "model": svc.nf,
                             "instances": sum(k for _, k in placed),
                             "cores": sum(k for _, k in placed), "placement": per_host,
                             "loss": worst_loss, "latency_p99_us": worst_p99})
        chains.append({"name": ch.name, "demand_mpps": demand / 1e6, "services": services,
                       "latency_p99_us": p99_sum,
                       "latency_target_us": ch.targets.latency_p99_us,
                       "loss_target": ch.targets.loss})
    binding = [f"cores of {h.name}: {sum(v for k, v in n.items() if k[2] == h.name)} of "
               f"{cores[h.name] * used[h.name]} in {used[h.name]} host(s)"
               for h in spec.hosts if used[h.name] and
               sum(v for k, v in n.items() if k[2] == h.name) == cores[h.name] * used[h.name]]
    for c, ch in enumerate(spec.chains):
        demand = sum(t.pps for t in ch.traffic)
        for s, svc in enumerate(ch.services):
            for h in spec.hosts:
                k, cap = n[c, s, h.name], caps[c, s, h.name]
                if k:
                    binding.append(
                        f"{ch.name}/{cap.nf} on {h.name}: an instance may carry "
                        f"{cap.max_pps / 1e6:.3g} Mpps ({100 * cap.max_pps / cap.cpu_pps:.0f} % "
                        f"of its core) within loss ≤ {ch.targets.loss:g}"
                        + (f" and p99 ≤ {cap.budget_us:g} µs" if cap.budget_us else "")
                        + f"; {demand / 1e6:.3g} Mpps need {k}")
    return {"plan": spec.name, "optimal": optimal,
            "cores": sum(n.values()), "hosts": {h: k for h, k in used.items() if k},
            "cost": spec.cost_core * sum(n.values()) + spec.cost_host * sum(used.values()),
            "chains": chains, "binding": binding}


def explain(exc: Infeasible) -> InputError:
    return InputError("a plan the hosts can carry within the targets",
                      "; ".join(exc.reasons), field="plan")
