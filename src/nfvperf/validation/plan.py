"""`nfvperf plan --validate`: run a single-host plan on this machine's data plane, scaled to
what it has (one core for all NFs: the plan's traffic divided by the cores it planned), and put
the planner's predictions for that scaled run (the batching model of each instance, priced on
this host's profile) beside what the data plane measured. The run goes through `chain
validate`'s path (``validation.chain``): the chain simulator, run as the data plane runs here,
predicts the scaled run too, and both predictions stand beside the measurement."""

from __future__ import annotations

from typing import Any

from nfvperf.chain import TrafficClass
from nfvperf.errors import InputError
from nfvperf.plan.capacity import cost_per_packet, queue_at
from nfvperf.plan.spec import PlanSpec

FLOWS_PER_CLASS = 64


def validate_plan(spec: PlanSpec, result: dict, platform_ref: str, *, duration_s: float = 2.0,
                  progress=None) -> list[dict[str, Any]]:
    from nfvperf import limits, nfs
    from nfvperf.eo.platform import load_platform
    from nfvperf.validation.chain import validate_chain

    if sum(result["hosts"].values()) != 1:
        raise InputError("a plan on one host (validation runs it on this machine)",
                         f"{sum(result['hosts'].values())} hosts", field="hosts")
    platform = load_platform(platform_ref)
    rows = []
    for c, (ch, planned) in enumerate(zip(spec.chains, result["chains"])):
        cores = sum(s["instances"] for s in planned["services"])
        scale = 1.0 / cores                 # this machine: one core for every NF instance
        classes = [TrafficClass(frame_bytes=min(t.frame_bytes, limits.MAX_FRAME),
                                rate_pps=t.pps * scale, flows=t.flows or FLOWS_PER_CLASS)
                   for t in ch.traffic]
        # the plan's split: an instance's weight is the traffic the plan gives it
        run = ch.model_copy(update={"traffic": classes, "services": [
            svc.model_copy(update={
                "instances": s["instances"], "policy": "weighted",
                "weights": [p["pps_per_instance"] for p in s["placement"]
                            for _ in range(p["instances"])],
                "args": svc.args or list(nfs.get(svc.nf, field=f"chains.{ch.name}")
                                         .instance_args)})
            for svc, s in zip(ch.services, planned["services"])]})
        if progress:
            progress(f"running {ch.name} on the data plane", c, len(spec.chains))
        (point,) = validate_chain(run, platform, runs=1, duration_s=duration_s)["points"]
        e2e = point["end_to_end"]
        demand = sum(x.pps for x in classes)
        scaled = ch.model_copy(update={"traffic": [t.model_copy(update={
            "rate_mpps": t.pps * scale / 1e6, "rate_gbps": None}) for t in ch.traffic]})
        for s, (svc, got) in enumerate(zip(planned["services"], point["services"])):
            _, cycles, _ = cost_per_packet(scaled, s, platform)
            # the busiest instance, as the plan splits the traffic, scaled
            busiest = scale * max(p["pps_per_instance"] for p in svc["placement"])
            r = queue_at(spec, cycles, platform.cpu.clock_hz, busiest).solve()
            inst = got["instances"]
            lat = [i["latency_p99_us"]["measured"] for i in inst
                   if i["latency_p99_us"]["measured"] is not None]
            offered = sum(i["delivered_mpps"]["measured"] or 0 for i in inst)
            rows.append({
                "chain": ch.name, "nf": svc["nf"], "instances": svc["instances"],
                "offered_mpps": demand / 1e6,
                "predicted_loss": r.loss_probability,
                # the planner's loss is an instance's: the worst instance's, measured
                "measured_loss": max((i["loss_pct"]["measured"] or 0) for i in inst) / 100
                if offered else None,
                "predicted_p99_us": r.percentiles_us(r.sojourn)["99"],
                "measured_p99_us": max(lat) if lat else None,
                "predicted_cycles_per_packet": cycles,
                "measured_cycles_per_packet": max(
                    (i["cycles_per_packet"]["measured"] or 0) for i in inst),
                # the chain, end to end: measured, and predicted by the chain simulator
                "chain_measured_loss_pct": e2e["loss_pct"]["measured"],
                "chain_measured_p99_us": e2e["latency_p99_us"]["measured"],
                "chain_predicted_loss_pct": e2e["loss_pct"]["predicted"],
                "chain_predicted_p99_us": e2e["latency_p99_us"]["predicted"],
            })
    return rows
