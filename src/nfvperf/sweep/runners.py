"""One point of a sweep: its arguments in, a flat row of results out. Each runner is a plain
function of picklable arguments, so Dask workers can run it anywhere."""

from __future__ import annotations

import time
from typing import Any

#: the arguments each kind of run takes (fixed or swept), and the ones it requires
ARGS = {
    "batching": ({"queue", "beta", "frame_bytes", "rate_mbps", "service", "arrivals"},
                 {"queue", "beta", "rate_mbps"}),
    "estimate": ({"model", "platform", "frame_bytes", "cores"}, {"model"}),
    "plan": ({"plan", "scale", "time_limit_s"}, {"plan"}),
}


def check(spec) -> tuple[tuple, str, object] | None:
    """(where in the file, expected, found) for the first argument a run does not take or
    needs and lacks, or None."""
    allowed, required = ARGS[spec.run]
    for where, keys in (("fixed", spec.fixed), ("grid", spec.grid)):
        for k in keys:
            if k not in allowed:
                return (where, k), f"an argument of {spec.run} ({', '.join(sorted(allowed))})", k
    missing = sorted(required - set(spec.fixed) - set(spec.grid))
    if missing:
        return ("grid",), f"values for {', '.join(missing)} (in fixed or grid)", None
    return None


def batching(queue: int, beta: int, rate_mbps: float, frame_bytes: int = 64,
             service: str = "vpp", arrivals: str = "poisson") -> dict[str, Any]:
    from nfvperf.batching import vpp
    from nfvperf.batching.arrivals import interarrival, packet_rate_pps
    from nfvperf.batching.fit import read_table
    from nfvperf.batching.model import BatchQueue

    dt = 10e-9
    svc = vpp.extended_service(int(beta), dt) if service == "vpp" else \
        read_table(service, int(beta)).pmfs(dt)
    a = interarrival(arrivals, packet_rate_pps(rate_bps=rate_mbps * 1e6,
                                               frame_bytes=int(frame_bytes)), dt)
    r = BatchQueue(int(queue), int(beta), a, svc, dt).solve().to_dict()
    return {k: r[k] for k in ("load", "mean_batch_size", "loss_probability",
                              "throughput_mpps", "mean_waiting_time_us",
                              "mean_sojourn_time_us")} | \
        {"p99_sojourn_time_us": r["sojourn_time_us_percentiles"]["99"]}


def estimate(model: str, platform: str = "xeon-e5-2690v2", frame_bytes: int = 64,
             cores: int = 1) -> dict[str, Any]:
    from nfvperf.eo.estimate import estimate as run
    from nfvperf.eo.model import load_nf
    from nfvperf.eo.platform import load_platform

    e = run(load_nf(model), load_platform(platform), frame_bytes=int(frame_bytes),
            cores=int(cores))[-1]
    return {"cycles_per_packet": e.cycles_per_packet,
            "dram_accesses_per_packet": e.dram_accesses_per_packet,
            "throughput_mpps": e.throughput_pps / 1e6, "bottleneck": e.bottleneck}


def plan(plan: str, scale: float = 1.0, time_limit_s: float = 10.0) -> dict[str, Any]:
    """A plan with its chains' traffic multiplied by ``scale`` (traffic growth)."""
    from nfvperf.plan.program import NoPlanInTime
    from nfvperf.plan.solve import Infeasible
    from nfvperf.plan.solve import plan as solve
    from nfvperf.plan.spec import load_plan

    spec = load_plan(plan)
    chains = [c.model_copy(update={"traffic": [
        t.model_copy(update={k: v * scale for k, v in (("rate_gbps", t.rate_gbps),
                                                        ("rate_mpps", t.rate_mpps),
                                                        ("rate_pps", t.rate_pps))
                             if v is not None}) for t in c.traffic]}) for c in spec.chains]
    try:
        r = solve(spec.model_copy(update={"chains": chains}), time_limit_s=time_limit_s)
    except Infeasible as exc:       # feasible unknown (None) when only the time ran out
        return {"feasible": None if isinstance(exc, NoPlanInTime) else False, "cores": None,
                "hosts": None, "cost": None, "optimal": None, "why": "; ".join(exc.reasons)}
    return {"feasible": True, "cores": r["cores"], "hosts": sum(r["hosts"].values()),
            "cost": r["cost"], "optimal": r["optimal"], "why": ""}


def run_point(kind: str, args: dict[str, Any]) -> dict[str, Any]:
    """Run one point; the row has its arguments, its results and the seconds it took."""
    t0 = time.perf_counter()
    out = {"batching": batching, "estimate": estimate, "plan": plan}[kind](**args)
    return {**args, **out, "seconds": time.perf_counter() - t0}
