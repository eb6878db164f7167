"""The simulator's options for a chain run as the data plane runs it on a host: what the
profile's ``dataplane`` section (``nfvperf.hostmodel``, measured by ``nfvperf calibrate``) says
the data plane costs and waits besides the NFs, and where the data plane puts its processes.

- instances of services that name no ``cpu`` share the NF core (``nf_cpu``), as ``chain run``
  puts them, and take turns on it: a change of turn costs ``turn_us``, a busy one keeps the core
  up to ``slice_us``;
- the generator sends paced at its wakes on ``gen_cpu`` and runs there (``generator``): a wake
  takes the NF core for its CPU time and two changes of turn (to it and back); one that comes
  while an NF serves a batch preempts it; the latency it measures ends when it reads a packet
  back;
- the host takes the NF and generator cores away as measured (``stalls``); a wake of the
  generator (from a nap) that preempts an NF's batch costs the core, beyond the generator's
  run, what it was measured to cost a busy NF that refetches as much as the batch touches of
  its working set (``preemption``, ``sim.costs.refill_s``);
- a packet costs, beyond its NF's EO model, what the smallest NF's loop costs beyond its own
  model at that batch (``nf_loop``: the rings, the lines of small batches on a shared core);
- each pass through the vSwitch adds its stages' cycles a packet and half an idle loop; the
  host's stalls of the vSwitch's core hold the packets passing through, and its ports' rings
  drop what they cannot hold meanwhile.
"""

from __future__ import annotations

from nfvperf.errors import InputError
from nfvperf.sim.options import Generator, ServiceCost, SimOptions


def host_options(platform, n_services: int, *, nf_cpu: int | None = None,
                 gen_cpu: int | None = None, base: SimOptions | None = None) -> SimOptions:
    """Options that run ``n_services`` services as the data plane does on ``platform``'s host
    (CPUs default to those it was calibrated with). ``base``: the user's own options; the
    fields it sets win. InputError where the profile has no ``dataplane`` section."""
    dp = platform.dataplane
    if dp is None:
        raise InputError("a profile with a dataplane section (run `nfvperf calibrate` on this "
                         "host)", platform.name, field="platform")
    nf_cpu = dp.cpus.nfs if nf_cpu is None else nf_cpu
    gen_cpu = dp.cpus.generator if gen_cpu is None else gen_cpu
    clock = platform.cpu.clock_hz
    hop_us = (dp.vswitch.hop_cycles(1) + dp.vswitch.idle_loop_cycles / 2) / clock * 1e6
    stalls = {c: dp.stalls[c] for c in {nf_cpu, gen_cpu, dp.cpus.vswitch} if c in dp.stalls}
    from nfvperf.eo.estimate import estimate
    from nfvperf.eo.model import load_nf

    forward = estimate(load_nf("forward"), platform, frame_bytes=64)[-1].cycles_per_packet
    loop = ServiceCost(batch_overhead_cycles=0, loop_cycles=dp.nf_loop.beyond(forward))
    # a wake takes the core from the NFs for the generator's CPU time and two changes of
    # process (to it and back), where it shares their core
    generator = Generator(cpu=gen_cpu, switch_us=2 * dp.turn_us if gen_cpu == nf_cpu else 0.0,
                          **dp.generator.model_dump())
    fields = {
        "arrivals": "paced", "nf_cpu": nf_cpu, "hop_us": hop_us,
        "vswitch_cpu": dp.cpus.vswitch,
        "switch_us": dp.turn_us, "quantum_us": dp.slice_us, "stalls": stalls or None,
        "generator": generator, "preemption": dp.preemption,
        "services": {i: loop for i in range(n_services)},
    }
    if base is not None:
        mine = {k: getattr(base, k) for k in base.model_fields_set}
        if "services" in mine:      # a service's own costs, over the loop's
            mine["services"] = {**fields["services"], **{
                i: loop.model_copy(update={k: getattr(c, k) for k in c.model_fields_set})
                for i, c in base.services.items()}}
        fields.update(mine)
    return SimOptions.model_validate(fields)
