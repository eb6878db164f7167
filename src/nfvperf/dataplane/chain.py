"""A chain (``nfvperf.chain.ChainSpec``) run once on the data plane: every instance a scale
event will need is started (idle until it joins its service), the traffic sent, the scale
events applied on time, and the three processes' reports read into a ``ChainResult``."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from nfvperf.chain import (DROP_PLACES, ChainResult, ChainSpec, ClassResult, InstanceResult,
                           Latency, ScaleResult, ServiceResult, TrafficClass, instance_name,
                           integer_weights, loss)
from nfvperf.dataplane.run import stalls_of


#: the port a chain's packets leave by (where the generator reads them)
OUT_PORT = 1


def run_chain(spec: ChainSpec, *, arch: str = "double-buffer",
              default: TrafficClass | None = None, duration_s: float = 1.0,
              vswitch_cpu: int = 0, nf_cpu: int = 1, gen_cpu: int = 1,
              progress: Callable[[str, int, int], None] | None = None) -> ChainResult:
    """Run the chain once; ``default``: the traffic when the chain has none. Every bad value
    is refused (``InputError``) before a process starts."""
    from nfvperf.dataplane.run import check_run
    from nfvperf.dataplane.session import Session, need_binaries, chain_mac

    spec.check(runnable=True)
    classes = spec.classes(default)
    check_run(arch=arch, duration_s=duration_s, cpus={
        "vswitch_cpu": vswitch_cpu, "nf_cpu": nf_cpu, "gen_cpu": gen_cpu,
        **{f"services[{i}].cpu": s.cpu for i, s in enumerate(spec.services) if s.cpu is not None}})
    if progress:
        progress("starting the NFs", 0, 1)
    need_binaries("vswitch", "gen", *{f"nf-{s.nf}" for s in spec.services})
    total = sum(spec.most_instances(i) for i in range(len(spec.services)))
    events: list[ScaleResult] = []
    with Session(arch, vswitch_cpu=vswitch_cpu, max_nfs=max(16, total), wake=spec.wake) as s:
        start_services(s, spec, nf_cpu, OUT_PORT)
        s.set_chain(0, [f"s{i}" for i in range(len(spec.services))], out_port=OUT_PORT)
        if spec.headers.dst_mac_count > 1:      # MACs beyond the chain's own: to it too
            s.default_chain(0)
        s.start_traffic(rate_pps=sum(c.pps for c in classes), frame_bytes=classes[0].frame_bytes,
                        macs=[chain_mac(0)], duration_s=duration_s, cpu=gen_cpu,
                        classes=[(c.frame_bytes, c.pps, c.run_flows) for c in classes],
                        extra=spec.headers.gen_args())
        t0 = time.monotonic()
        failed: list[BaseException] = []
        scaler = threading.Thread(target=_scale, args=(s, spec, t0, events, failed),
                                  daemon=True)
        scaler.start()
        gen = s.wait_traffic(progress)
        scaler.join()
        report = s.close()
    if failed:                  # a scale event the vSwitch refused: the run is not what was asked
        raise failed[0]
    return chain_result(spec, arch, gen, report, events)


def start_services(s, spec: ChainSpec, nf_cpu: int, out_port: int) -> None:
    """The chain's NF instances (as many as any scale event needs) and its services, named
    s0, s1, ... in the session; an NF that picks its packets' port starts at ``out_port``."""
    for i, svc in enumerate(spec.services):
        names = [instance_name(i, svc.nf, k) for k in range(spec.most_instances(i))]
        base = ("--port-base", str(out_port)) if svc.catalogued.picks_port and \
            "--port-base" not in svc.args else ()
        for k, name in enumerate(names):
            s.add_nfs(svc.nf, [name], cpu=nf_cpu if svc.cpu is None else svc.cpu,
                      args=base + tuple(a.replace("{k}", str(k)) for a in svc.args))
        s.add_service(f"s{i}", names[:svc.instances], policy=svc.policy,
                      stateless=svc.is_stateless, cost=svc.cost_driver,
                      large_bytes=svc.large_bytes,
                      weights=integer_weights(svc.weights, svc.instances))


def _scale(s, spec: ChainSpec, t0: float, events: list[ScaleResult],
           failed: list[BaseException]) -> None:
    try:
        for e in sorted(spec.scale, key=lambda e: e.at_s):
            time.sleep(max(0.0, t0 + e.at_s - time.monotonic()))
            nf = spec.services[e.service].nf
            names = [instance_name(e.service, nf, k) for k in range(e.instances)]
            moved = s.set_service(f"s{e.service}", names,
                                  weights=integer_weights(e.weights, e.instances))
            events.append(ScaleResult(at_s=round(time.monotonic() - t0, 3), service=e.service,
                                      instances=e.instances, moved=moved["moved"],
                                      flows=moved["flows"], hash_moved=moved["hash_moved"],
                                      mod_moved=moved["mod_moved"]))
    except Exception as exc:    # noqa: BLE001 - handed to the caller's thread, raised there
        failed.append(exc)


def _latency(d: dict | None, scale: float) -> Latency:
    d = d or {}
    return Latency(**{k: None if d.get(k) is None else d[k] * scale
                      for k in ("mean", "p50", "p90", "p99")})


def chain_result(spec: ChainSpec, arch: str, gen: dict, vs: dict,
                 events: list[ScaleResult]) -> ChainResult:
    """The generator's and the vSwitch's reports of a chain run as one record."""
    dur = gen["duration_s"]
    per_nf = {nf["name"]: nf for nf in vs["per_nf"]}
    offered = gen["sent"] + gen["tx_dropped"]
    classes = [ClassResult(
        frame_bytes=c["frame_bytes"], rate_pps=c["rate_pps"], flows=c["flows"],
        offered=c["sent"] + c["tx_dropped"], delivered=c["received"], dropped=None,
        in_flight=None, loss_pct=loss(c["sent"] + c["tx_dropped"], c["received"]),
        delivered_mpps=c["received"] / dur / 1e6,
        delivered_gbps=c["received_bytes"] * 8 / dur / 1e9,
        latency_us=_latency(c["latency_ns"], 1e-3)) for c in gen["classes"]]
    services = []
    for i, svc in enumerate(spec.services):
        v = next(x for x in vs["services"] if x["name"] == f"s{i}")
        instances = []
        for k in range(spec.most_instances(i)):
            name = instance_name(i, svc.nf, k)
            nf = per_nf.get(name, {})
            row = next((x for x in v["instances"] if x["name"] == name), None)
            ring_full = nf.get("ring_full", 0)
            given = nf.get("sent_by_vswitch", 0) + ring_full
            dropped = ring_full + nf.get("drop", 0)
            instances.append(InstanceResult(
                name=name, in_service_at_end=row is not None,
                flows=row["flows"] if row else None, offered=given,
                delivered=nf.get("tx", 0), dropped=dropped, ring_full=ring_full,
                in_flight=given - nf.get("tx", 0) - dropped,
                bytes=nf.get("bytes_sent_by_vswitch", 0),
                latency_us=_latency(nf.get("sojourn_us"), 1.0),
                # the median of its busy loops (the vSwitch writes -1 when there were none)
                cycles_per_packet=nf["loop_cycles_median"]
                if nf.get("loop_cycles_median", -1) > 0 else None,
                mean_batch=nf["rx"] / nf["busy_polls"] if nf.get("busy_polls") else None))
        services.append(ServiceResult(
            name=v["name"], nf=svc.nf, policy=v["policy"], stateless=v["stateless"],
            cost=v["cost"], offered=sum(x.offered for x in instances),
            delivered=sum(x.delivered for x in instances),
            dropped=sum(x.dropped for x in instances), flows_pinned=v["flows_pinned"],
            flows_moved=v["flows_moved"], instances=instances))
    dropped = {"port_rx": gen["tx_dropped"],
               **{k: vs["dropped"][k] for k in DROP_PLACES if k != "port_rx"}}
    return ChainResult(
        chain=spec.name, backend="dataplane", arch=arch, duration_s=dur,
        offered_packets=offered, delivered_packets=gen["received"],
        loss_pct=loss(offered, gen["received"]), delivered_mpps=gen["received"] / dur / 1e6,
        delivered_gbps=gen["received_bytes"] * 8 / dur / 1e9,
        latency_us=_latency(gen["latency_ns"], 1e-3), dropped=dropped,
        in_flight=vs["dropped"]["in_flight_at_stop"], classes=classes, services=services,
        scaling=events, latency_hist_us=[[lo / 1e3, hi / 1e3, n] for lo, hi, n in
                                         gen["latency_ns"].get("hist", [])] or None,
        vswitch_stalls=stalls_of(vs, gen))
