"""What one instance of a service can carry on a kind of host: its cost per packet from the
estimator (the NF's EO model on the host's profile, over the chain's traffic classes), and the
highest packet rate at which the batching model (Geissler et al.; queue ``ring``, batches of up
to ``burst``, a batch costing a fixed overhead plus its packets) keeps the loss and the
service's share of the latency target."""

from __future__ import annotations

from dataclasses import dataclass

from nfvperf.chain import ChainSpec
from nfvperf.plan.spec import PlanSpec

#: the model's time step: a full batch's service spans this many steps
STEPS_PER_BATCH = 100
#: to 2^-14 (6e-5) of a core's rate, from below: far finer than the model, and a quarter fewer
#: batching solves than 18 halvings (the planner's capacities are most of its time)
BISECTIONS = 14


@dataclass(frozen=True)
class Capacity:
    nf: str                  # the model's name
    cycles_per_packet: float
    clock_hz: float
    cpu_pps: float           # one core, flat out
    dram_per_packet: float   # DRAM accesses a packet (the estimator's; they share the host's)
    max_pps: float           # the most that meets the targets (0: none does)
    budget_us: float | None  # this service's share of the chain's p99 target


def cost_per_packet(chain: ChainSpec, service: int, platform,
                    remote: bool = False) -> tuple[str, float, float]:
    """The NF's name, its cycles and its DRAM accesses per packet on ``platform``, averaged
    over the chain's traffic classes by their packet rates; ``remote``: on a socket other than
    the NIC's, every packet read from the other socket (Sec. 4.2)."""
    from nfvperf.eo.estimate import estimate
    from nfvperf.eo.model import load_nf

    s = chain.services[service]
    model = load_nf(s.nf)
    rows = [(t.pps / chain.pps, estimate(model, platform, frame_bytes=t.frame_bytes,
                                         params=s.params,
                                         remote_fraction=1.0 if remote else 0.0)[-1])
            for t in chain.traffic]
    return (model.name, sum(w * e.cycles_per_packet for w, e in rows),
            sum(w * e.dram_accesses_per_packet for w, e in rows))


def queue_at(plan: PlanSpec, cycles: float, clock_hz: float, rate_pps: float):
    """The batching model of one instance at ``rate_pps`` (Poisson arrivals)."""
    from nfvperf.batching.arrivals import interarrival
    from nfvperf.batching.fit import SERVICE_KINDS
    from nfvperf.batching.model import BatchQueue

    full = (plan.batch_overhead_cycles + plan.burst * cycles) / clock_hz
    dt = full / STEPS_PER_BATCH
    service = tuple(SERVICE_KINDS["deterministic"](
        max(1.0, (plan.batch_overhead_cycles + b * cycles) / clock_hz / dt))
        for b in range(plan.burst + 1))
    return BatchQueue(plan.ring, plan.burst, interarrival("poisson", rate_pps, dt), service, dt)


def meets(result, loss: float, budget_us: float | None) -> bool:
    if result.loss_probability > loss:
        return False
    return budget_us is None or result.percentiles_us(result.sojourn)["99"] <= budget_us


def capacity(plan: PlanSpec, chain: ChainSpec, service: int, platform,
             remote: bool = False) -> Capacity:
    name, cycles, dram = cost_per_packet(chain, service, platform, remote)
    clock = platform.cpu.clock_hz
    cpu_pps = clock / cycles
    t = chain.targets
    budget = None if t.latency_p99_us is None else t.latency_p99_us / len(chain.services)
    lo, hi = 0.0, cpu_pps
    for _ in range(BISECTIONS):
        mid = (lo + hi) / 2
        if meets(queue_at(plan, cycles, clock, mid).solve(), t.loss, budget):
            lo = mid
        else:
            hi = mid
    return Capacity(name, cycles, clock, cpu_pps, dram, lo, budget)
