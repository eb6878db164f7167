"""Planning: per-instance capacities (``capacity``), what no plan can get round named
before solving, the integer program solved (``program``), and the plan as the JSON of
`nfvperf plan`: instances per service, host and socket, their traffic, predicted loss and p99
(the batching model at each instance's share), per-host use of cores, memory and links, and
what binds.

The program splits each service's traffic over its instances (the weights of the vSwitch's
flow-affine `weighted` policy), the busiest as idle as it can be; chain latency is the sum of
its services' p99s (an upper bound: the p99 of a sum is at most the sum of the p99s), chain
loss a packet's at any service."""

from __future__ import annotations

import math

from nfvperf.plan.capacity import Capacity, capacity, queue_at
from nfvperf.plan.program import (
    RESOURCES,
    Infeasible,
    NoPlanInTime,
    Pool,
    Solution,
    build,
    link_bps,
    solve,
)
from nfvperf.plan.result import PlanResult
from nfvperf.plan.spec import PlanSpec

__all__ = ["Infeasible", "capacities", "plan"]

#: what each resource is called in what-binds lines, and its verb
_RESOURCE_WORDS = {"cores": ("the hosts' cores", "bind", "their"),
                   "memory": ("the hosts' memory (DRAM accesses)", "binds", "its"),
                   "links": ("the hosts' NICs", "bind", "their")}


def plan(spec: PlanSpec, progress=None, time_limit_s: float = 30.0,
         explain: bool = False) -> PlanResult:
    """Solve; returns the plan (the JSON of `nfvperf plan`: ``result.PlanResult``). Raises
    Infeasible with what binds when no plan meets the targets. ``explain``: also solve without
    each resource (cores, memory, links) in turn to say which ones the plan's cost comes from
    (each in a third of ``time_limit_s``).

    Hosts are placed one by one, socket by socket: an instance on a socket other than socket
    0 (the NIC's) reads every packet from the other socket (the estimator's remote I/O, Sec. 4.2)
    and makes more DRAM accesses; a chain spread over m hosts pays ``cost_hop_host`` × (m - 1),
    over more sockets than hosts ``cost_hop_socket`` for each extra socket."""
    caps, pool = capacities(spec, progress)
    _check_reachable(spec, caps, pool)
    if progress:
        progress("placing (CP-SAT)", len(caps), len(caps))
    try:
        found = solve(build(spec, caps, pool), time_limit_s)
    except NoPlanInTime:
        raise
    except Infeasible as exc:
        raise Infeasible(_lifted(spec, caps, pool, time_limit_s) or exc.reasons) from None
    result = _result(spec, caps, pool, found)
    if explain:
        if progress:
            progress("what binds (CP-SAT without each resource)", len(caps), len(caps))
        result["resources"] = _what_binds(spec, caps, pool, found, time_limit_s)
        result["binding"] += [r["says"] for r in result["resources"] if r["binds"]]
    return result


def capacities(spec: PlanSpec, progress=None) -> tuple[dict, Pool]:
    """What an instance of each service may carry on each kind of host, on the NIC's socket
    and on another (``caps[chain, service, kind, remote]``), and the hosts as the program sees
    them."""
    from nfvperf.eo.platform import load_platform

    platforms = {h.name: load_platform(h.platform) for h in spec.hosts}
    pool = Pool(cores={h.name: h.cores or platforms[h.name].cores for h in spec.hosts},
                sockets={h.name: platforms[h.name].cpu.sockets for h in spec.hosts},
                nic_bps={h.name: h.nic_bps(platforms[h.name]) for h in spec.hosts},
                # the estimator's memory bound (one DRAM access at a time, Sec. 3)
                dram_per_s={h.name: 1.0 / platforms[h.name].memory.access_latency_s
                            for h in spec.hosts})
    caps: dict[tuple[int, int, str, bool], Capacity] = {}
    jobs = [(c, s, h.name, r) for c, ch in enumerate(spec.chains)
            for s in range(len(ch.services)) for h in spec.hosts
            for r in ((False, True) if pool.sockets[h.name] > 1 else (False,))]
    # the same NF on the same kind of host with the same traffic mix and targets carries the
    # same, whatever the chain's rate: computed once
    done: dict[tuple, Capacity] = {}
    for i, (c, s, h, r) in enumerate(jobs):
        if progress:
            progress(f"capacity of {spec.chains[c].name} service {s} on {h}", i, len(jobs))
        ch, svc = spec.chains[c], spec.chains[c].services[s]
        same = (svc.nf, tuple(sorted(svc.params.items())), len(ch.services),
                tuple((t.frame_bytes, t.pps / ch.pps) for t in ch.traffic),
                ch.targets.loss, ch.targets.latency_p99_us, h, r)
        if same not in done:
            done[same] = capacity(spec, ch, s, platforms[h], remote=r)
        caps[c, s, h, r] = done[same]
    return caps, pool


def _without(spec, caps, pool, resource: str, time_limit_s: float) -> Solution | None:
    """The least cost with ``resource`` lifted, in a share of the time (None: no plan found)."""
    try:
        return solve(build(spec, caps, pool, frozenset({resource})),
                     time_limit_s / len(RESOURCES), tie_break=False)
    except Infeasible:
        return None


def _lifted(spec, caps, pool, time_limit_s) -> tuple[str, ...]:
    """An infeasible plan: the resources without which one exists (each alone)."""
    reasons = []
    for r in RESOURCES:
        if _without(spec, caps, pool, r, time_limit_s) is not None:
            words, verb, its = _RESOURCE_WORDS[r]
            reasons.append(f"{words} {verb}: without {its} limit a plan exists")
    return tuple(reasons)


def _what_binds(spec, caps, pool, found: Solution, time_limit_s) -> list[dict]:
    """Each resource lifted in turn: binds (a cheaper plan exists without it), does not (CP-SAT
    proves none cheaper) or not known in the time (``binds`` None)."""
    rows = []
    for r in RESOURCES:
        words, verb, its = _RESOURCE_WORDS[r]
        other = _without(spec, caps, pool, r, time_limit_s)
        if other is None:            # more freedom cannot leave no plan: out of time
            rows.append({"resource": r, "binds": None, "cost_without": None,
                         "says": f"{words}: no plan found without {its} limit in the time"})
            continue
        binds = (True if other.cost < found.cost - 1e-9
                 else False if other.bound >= found.cost - 1e-9 else None)
        says = (f"{words} {verb}: without {its} limit the plan would cost {other.cost:g} "
                f"({sum(other.n.values())} cores, {sum(other.used.values())} hosts) instead "
                f"of {found.cost:g}" if binds else
                f"{words}: no plan costs less without {its} limit" if binds is False
                else f"{words}: not known in the time whether a plan costs less without "
                     f"{its} limit")
        rows.append({"resource": r, "binds": binds, "cost_without": other.cost, "says": says})
    return rows


def _check_reachable(spec: PlanSpec, caps, pool: Pool) -> None:
    """Name what binds before solving: a service no instance can serve within the targets,
    more cores needed than all the hosts have, more DRAM accesses than all their memories
    serve, or more traffic than all their NICs carry."""
    reasons = []
    for c, ch in enumerate(spec.chains):
        for s, svc in enumerate(ch.services):
            best = max(caps[c, s, h.name, False].max_pps for h in spec.hosts)
            flow = ch.largest_flow_pps
            if best >= 1 and svc.stateful and flow > best:
                cap = caps[c, s, spec.hosts[0].name, False]
                reasons.append(
                    f"chain {ch.name}, {cap.nf}: a flow of {flow / 1e6:.4g} Mpps is more than "
                    f"an instance may carry ({best / 1e6:.4g} Mpps within the targets) and a "
                    f"stateful NF keeps a flow on one instance")
            if best < 1:
                cap = caps[c, s, spec.hosts[0].name, False]
                reasons.append(
                    f"chain {ch.name}, {cap.nf}: no load meets the targets (loss ≤ "
                    f"{ch.targets.loss:g}" + (f", p99 ≤ {cap.budget_us:g} µs, its share of the "
                                              f"chain's {ch.targets.latency_p99_us:g} µs"
                                              if cap.budget_us else "") + ")")
    total_cores = sum(pool.cores[h.name] * h.count for h in spec.hosts)
    need = sum(math.ceil(ch.pps
                         / max(max(caps[c, s, h.name, False].max_pps for h in spec.hosts), 1))
               for c, ch in enumerate(spec.chains) for s in range(len(ch.services)))
    if not reasons and need > total_cores:
        reasons.append(f"cores: the chains need at least {need} instances of one core each, "
                       f"the hosts have {total_cores}")
    accesses = sum(ch.pps * min(caps[c, s, h.name, False].dram_per_packet for h in spec.hosts)
                   for c, ch in enumerate(spec.chains) for s in range(len(ch.services)))
    memory = sum(pool.dram_per_s[h.name] * h.count for h in spec.hosts)
    if not reasons and accesses > memory:
        reasons.append(f"memory: the chains make {accesses / 1e6:.4g} M DRAM accesses a "
                       f"second, the hosts' memories serve {memory / 1e6:.4g} M (the "
                       f"estimator's memory bound)")
    wire = sum(ch.wire_bps for ch in spec.chains)
    links = sum(pool.nic_bps[h.name] * h.count for h in spec.hosts)
    if not reasons and wire > links:
        reasons.append(f"links: the chains carry {wire / 1e9:.4g} Gbps each way, all the "
                       f"hosts' NICs {links / 1e9:.4g} Gbps")
    if reasons:
        raise Infeasible(tuple(reasons))


def _result(spec, caps, pool: Pool, found: Solution) -> PlanResult:
    n, used, hops, carried = found.n, found.used, found.hops, found.pps
    chains, binding = [], []
    for c, ch in enumerate(spec.chains):
        demand = ch.pps
        services, p99_sum = [], 0.0
        for s, svc in enumerate(ch.services):
            placed = [(key[2], key[3], key[4], k) for key, k in n.items()
                      if key[:2] == (c, s) and k > 0]
            rows, worst_loss, worst_p99 = [], 0.0, 0.0
            for kind, i, sock, k in placed:
                cap = caps[c, s, kind, sock > 0]
                rate = carried[c, s, kind, i, sock] / k     # the slot's share, per instance
                r = queue_at(spec, cap.cycles_per_packet, cap.clock_hz, rate).solve()
                p99 = r.percentiles_us(r.sojourn)["99"]
                worst_loss, worst_p99 = max(worst_loss, r.loss_probability), max(worst_p99, p99)
                rows.append({"host": f"{kind}-{i}", "kind": kind, "socket": sock,
                             "instances": k, "pps_per_instance": rate,
                             "utilisation": rate / cap.cpu_pps,
                             "cycles_per_packet": cap.cycles_per_packet,
                             "dram_per_packet": cap.dram_per_packet,
                             "max_pps_per_instance": cap.max_pps,
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
                       # a packet lost at any service (each at its worst instance's loss)
                       "loss": abs(math.expm1(sum(math.log1p(-sv["loss"]) for sv in services))),
                       "latency_target_us": ch.targets.latency_p99_us,
                       "loss_target": ch.targets.loss})
    per_kind = {}
    for (kind, _), u in used.items():
        per_kind[kind] = per_kind.get(kind, 0) + u
    usage = []
    for (kind, i), u in used.items():
        if not u:
            continue
        on = sum(v for key, v in n.items() if key[2:4] == (kind, i))
        if on == pool.cores[kind]:
            binding.append(f"cores of {kind}-{i}: all {on} in use")
        accesses = sum(v * caps[key[0], key[1], kind, key[4] > 0].dram_per_packet
                       for key, v in carried.items() if key[2:4] == (kind, i))
        wire = link_bps(spec, carried, kind, i)
        usage.append({"host": f"{kind}-{i}", "kind": kind, "cores_used": on,
                      "cores": pool.cores[kind],
                      "memory_pct": 100 * accesses / pool.dram_per_s[kind],
                      "links_pct": 100 * wire / pool.nic_bps[kind]})
    total = sum(n.values())
    return {"plan": spec.name, "optimal": found.optimal, "cores": total,
            "hosts": {k: v for k, v in per_kind.items() if v},
            "cost": found.cost,
            # no plan costs less than this (CP-SAT's proof so far; = cost when optimal)
            "cost_lower_bound": found.bound,
            **hops, "chains": chains, "usage": usage, "binding": binding}
