"""The simulator run as the data plane runs a chain on a host (``sim.host``): the generator's
wakes, the NF core shared with it, the profile's dataplane section."""

from __future__ import annotations

import numpy as np
import pytest

from nfvperf import limits
from nfvperf.chain import ChainSpec
from nfvperf.eo.platform import load_platform
from nfvperf.eo.estimate import estimate
from nfvperf.eo.model import load_nf
from nfvperf.errors import InputError
from nfvperf.hostmodel import DataplaneHost
from nfvperf.sim.chain import generator_wakes, simulate_chain
from nfvperf.sim.host import host_options
from nfvperf.sim.options import Generator, SimOptions

#: a host's dataplane section, as `nfvperf calibrate` writes it (figures of this order)
SECTION = {
    "cpus": {"vswitch": 0, "nfs": 1, "generator": 1},
    "vswitch": {"rx": {"batch_cycles": 90, "packet_cycles": 25},
                "nf": {"batch_cycles": 60, "packet_cycles": 20},
                "flush": {"batch_cycles": 40, "packet_cycles": 8}, "idle_loop_cycles": 70},
    "nf_loop": {"batches": [1.0, 4.0, 24.0], "loop_cycles": [440, 290, 120],
                "handler_cycles": [260, 260, 47]},
    "turn_us": 1.5, "slice_us": 4000,
    "stalls": {1: {"per_s": 10, "durations_us": [30.0, 60.0]}},
    "generator": {"wake_us": 3.0, "packet_us": 0.05, "overshoot_us": [10.0, 12.0, 14.0]},
}


def host_platform(**over):
    base = load_platform("xeon-e5-2690v2")
    return base.model_copy(update={"dataplane": DataplaneHost.model_validate(
        {**SECTION, **over})})


def chain(nf: str = "forward", rate: float = 1e5, n: int = 1) -> ChainSpec:
    return ChainSpec.model_validate({
        "name": "c", "services": [{"nf": nf, "instances": n}] * 1,
        "traffic": [{"frame_bytes": 64, "rate_pps": rate, "flows": 4}]})


def test_a_profile_without_the_dataplane_section_is_refused_with_what_to_run():
    with pytest.raises(InputError, match="run `nfvperf calibrate`"):
        host_options(load_platform("xeon-e5-2690v2"), 1)


def test_host_options_carry_the_section():
    o = host_options(host_platform(), 2)
    assert (o.nf_cpu, o.generator.cpu, o.arrivals) == (1, 1, "paced")
    assert (o.switch_us, o.quantum_us) == (1.5, 4000)
    # a wake beside the NFs: the generator's CPU time and two changes of turn; on a core of
    # its own, its CPU time
    wake = host_platform().dataplane.generator.wake_us
    assert (o.generator.wake_us, o.generator.switch_us) == (wake, pytest.approx(2 * 1.5))
    own = host_options(host_platform(), 2, gen_cpu=0).generator
    assert (own.wake_us, own.switch_us) == (wake, 0)
    forward = estimate(load_nf("forward"), host_platform(), frame_bytes=64)[-1]
    assert o.cost(1).loop_cycles == pytest.approx({1.0: 440 - forward.cycles_per_packet,
                                                   4.0: 290 - forward.cycles_per_packet,
                                                   24.0: 120 - forward.cycles_per_packet})
    # a batch of n costs n times the loop's cycles a packet at n, interpolated in 1/n (1/2 is
    # 2/3 of the way from 1/4 to 1)
    over = o.cost(1).overhead(32)
    assert over[0] == 0 and over[1] == pytest.approx(440 - forward.cycles_per_packet)
    assert over[2] / 2 == pytest.approx(290 + 150 / 3 - forward.cycles_per_packet)
    # a pass: a hand-over and a flush of one packet, and half an idle loop, at the clock
    clock = host_platform().cpu.clock_hz
    assert o.hop_us == pytest.approx((60 + 20 + 40 + 8 + 35) / clock * 1e6)


def test_the_users_own_options_win_over_the_hosts():
    mine = SimOptions.model_validate({"ring": 64, "services": {0: {"cycles_per_packet": 10}}})
    o = host_options(host_platform(), 1, base=mine)
    assert o.ring == 64 and o.cost(0).cycles_per_packet == 10
    assert o.cost(0).loop_cycles                         # the host's loop beside them


def test_the_generator_sends_at_its_wakes_and_naps_as_nfvp_gen_does():
    """At 100 kpps a full burst is due every 320 µs: each nap is the longest (20 µs) and
    lasts an overshoot more; every packet leaves at the first wake at or after it is due, or
    as it falls due while the generator runs."""
    gen = Generator(cpu=1, wake_us=2.0, packet_us=0.1, overshoot_us=[10.0])
    due = (np.arange(10_000) + 0.5) / 1e5
    wakes, runs, naps, send = generator_wakes(due, gen, 0.1, np.random.default_rng(1))
    assert np.all(naps == 1)                  # every wake is from a nap
    gaps = np.diff(wakes)
    assert np.all(send >= due) and np.all(np.diff(send) >= 0)
    at = np.searchsorted(wakes, send, side="right") - 1      # the wake it left after
    at_wake = np.isclose(send, wakes[at], rtol=0, atol=1e-12)
    in_run = np.isclose(send, due, rtol=0, atol=1e-12) & (send <= wakes[at] + runs[at] + 1e-12)
    assert np.all(at_wake | in_run | (np.arange(send.size) >= np.searchsorted(send, send[-1])))
    # its packets' time, the nap and its overshoot: the wake's CPU time (2 µs, on the core)
    # is the kernel's, inside the nap as measured
    assert gaps == pytest.approx(runs[:-1] - 2e-6 + (limits.GEN_NAP_MAX_US + 10.0) * 1e-6)
    # the changes of process to it and back hold its core longer, not its schedule
    switched = generator_wakes(due, gen.model_copy(update={"switch_us": 5.0}), 0.1,
                               np.random.default_rng(1))
    assert switched[0] == pytest.approx(wakes) and switched[3] == pytest.approx(send)
    assert switched[1] == pytest.approx(runs + 5e-6)
    # what it sent at a wake: all that was due then (so none waits a whole cycle)
    assert np.max(send - due) <= np.max(gaps) + 1e-12


def test_the_generator_naps_as_nfvp_gen_does_once_it_has_sent_what_fell_due():
    """nfvp-gen (dataplane/gen/tx.c) sends on what falls due while it runs and naps when a
    turn of its loop finds nothing to do, until 32 more packets are due, at most 20 µs. At
    1.44 Mpps 32 packets take 22 µs: every nap asks the most, and it wakes every run + 20 µs
    + overshoot (measured on this host: naps asked 20 µs at 0.45-1.44 Mpps, 17 µs at 1.8)."""
    gen = Generator(cpu=1, wake_us=8.0, packet_us=0.05, overshoot_us=[10.0])
    rate = 1.44e6
    due = (np.arange(int(rate * 0.02)) + 0.5) / rate
    wakes, runs, naps, send = generator_wakes(due, gen, 0.02, np.random.default_rng(1))
    assert np.all(naps[:-1] == 1)
    gaps = np.diff(wakes)
    assert gaps == pytest.approx(runs[:-1] - 8e-6 + (limits.GEN_NAP_MAX_US + 10.0) * 1e-6)
    # more than a burst a wake: what fell due over the cycle, sent at the wake or as it fell
    # due while the generator ran
    assert due.size / wakes.size == pytest.approx(rate * gaps.mean(), rel=0.05)
    assert due.size / wakes.size > limits.NF_MAX_BURST
    assert np.all(send >= due - 1e-12)


def test_the_generator_adds_its_cycle_to_the_latency_of_the_smallest_chain():
    """The generator reads a packet back at its next wake: one forward NF at 100 kpps is
    predicted at about one wake cycle (a nap of 20 µs, its overshoot, its run), not the NF's
    fraction of a µs; packets are conserved."""
    p = host_platform()
    spec = chain()
    bare = simulate_chain(spec, p, duration_s=0.2)
    r = simulate_chain(spec, p, host_options(p, 1), duration_s=0.2)
    cycle = limits.GEN_NAP_MAX_US + 12.0 + 3.0
    assert bare.latency_us.mean < 2
    assert cycle / 3 < r.latency_us.mean < 2 * cycle
    assert r.offered_packets == r.delivered_packets + r.dropped["ring_full"] + \
        r.dropped["nf"] + r.dropped["port_tx"] + r.in_flight
    assert r.dropped["port_tx"] == 0


def test_what_comes_back_while_the_generator_naps_too_long_is_lost_at_its_port():
    """The generator reads what comes back into a ring of the port's size: naps of 20 µs
    plus 10 µs at 1 Mpps leave 30 packets there; naps that overshoot by 10 ms leave ~10 000
    (the NF's ring made large enough to pass them all on), of which all beyond the ring's
    room are dropped at the port (``port_tx``, as the vSwitch counts them); every packet is
    accounted for."""
    gen = {"wake_us": 3.0, "packet_us": 0.05}
    short = host_platform(stalls={}, generator={**gen, "overshoot_us": [10.0]})
    long = host_platform(stalls={}, generator={**gen, "overshoot_us": [10_000.0]})
    spec = chain(rate=1e6)
    a = simulate_chain(spec, short, host_options(short, 1), duration_s=0.1)
    options = host_options(long, 1).model_copy(update={"ring": 1 << 15})
    b = simulate_chain(spec, long, options, duration_s=0.2)
    assert a.dropped["port_tx"] == 0
    naps = b.offered_packets / 10_020.0
    lost = b.dropped["port_tx"]
    room = limits.ring_room(limits.PORT_RING_SIZE)
    assert lost == pytest.approx(naps * (10_020 - room), rel=0.25)
    assert b.offered_packets == b.delivered_packets + b.dropped["ring_full"] + \
        b.dropped["nf"] + lost + b.in_flight


def test_a_router_drops_what_it_has_no_route_for_and_the_prediction_says_where():
    """The generator's default destination (192.168.0.1) has no route: the router drops it
    all, by its verdict (the `nf` place); half the /24s routed: half."""
    p = host_platform()
    none = ChainSpec.model_validate({"services": [{"nf": "router"}],
                                     "traffic": [{"frame_bytes": 64, "rate_pps": 5e4}]})
    r = simulate_chain(none, p, duration_s=0.1)
    assert r.delivered_packets == 0 and r.dropped["nf"] == r.offered_packets - r.in_flight
    half = none.model_copy(update={"services": [none.services[0].model_copy(
        update={"args": ("--routes", "32768")})], "headers": none.headers.model_copy(
        update={"dst_ip": none.headers.dst_ip.model_copy(
            update={"base": "10.0.0.1", "step": 256, "count": 65536})})})
    assert half.passes(0) == pytest.approx(0.5)
    r = simulate_chain(half, p, duration_s=0.1)
    assert r.loss_pct == pytest.approx(50, abs=2)


def test_the_capacity_stops_where_the_generator_takes_the_whole_core():
    """The NF core's capacity as the model has it: the core's time left by the generator's
    wakes and the stalls over a packet's time, and no more than the rate at which the
    generator, waking once a burst (3 µs of CPU and its shortest nap) to send it and read it
    back, would take the whole core by itself."""
    from nfvperf.validation.chain import capacity_pps, generator_pps

    p = host_platform()
    o = host_options(p, 1)
    poll = generator_pps(o.generator, o.burst)
    assert poll == pytest.approx(32 / ((3.0 + limits.GEN_NAP_MIN_US + 2 * 0.05 * 32) * 1e-6))
    assert capacity_pps(chain("forward"), p, o) == pytest.approx(poll)   # a light NF
    heavy = ChainSpec.model_validate({"services": [{"nf": "ids"}], "traffic": [
        {"frame_bytes": 1518, "rate_pps": 1e4, "flows": 4}]})
    assert capacity_pps(heavy, p, o) < poll                              # its own cost


def test_a_load_the_generator_cannot_send_is_refused_before_anything_starts():
    from nfvperf.validation.chain import check_offer

    o = host_options(host_platform(), 1)      # 0.05 µs a packet sent and received: 10 Mpps
    check_offer(9.9e6, o)
    with pytest.raises(InputError, match=r"load: expected a load the generator can send "
                                         r"\(at most 10.00 Mpps"):
        check_offer(10.1e6, o)


def test_the_vswitch_cores_stalls_lose_what_its_port_ring_cannot_hold():
    """10 stalls a second of 8 ms at 1 Mpps: each holds 8 000 packets at the port, whose ring
    holds one less than its size; the rest are lost there (``port_rx``) and every packet is
    accounted for."""
    from nfvperf.hostmodel import Stalls

    p = host_platform()
    o = SimOptions(stalls={0: Stalls(per_s=10, durations_us=[8000.0])}, vswitch_cpu=0)
    r = simulate_chain(chain(rate=1e6), p, o, duration_s=1.0)
    lost = r.dropped["port_rx"]
    room = limits.ring_room(limits.PORT_RING_SIZE)
    assert 0.5 * 10 * (8000 - room) < lost < 2 * 10 * (8000 - room)
    assert r.offered_packets == r.delivered_packets + lost + r.dropped["ring_full"] + \
        r.dropped["nf"] + r.in_flight
    assert r.classes[0].offered == r.offered_packets
    # without the vSwitch's core, no such place
    assert simulate_chain(chain(rate=1e6), p, duration_s=0.1).dropped["port_rx"] is None


def test_the_loops_cost_a_packet_is_counted_once():
    """100 cycles a packet measured and 50 of the loop's a packet, no batch cost: a packet
    costs 150 cycles (the median over batches, as the data plane reports it)."""
    o = SimOptions.model_validate({"services": {0: {
        "cycles_per_packet": 100, "packet_overhead_cycles": 50, "batch_overhead_cycles": 0}}})
    r = simulate_chain(chain(rate=1e4), host_platform(), o, duration_s=0.1)
    assert r.services[0].instances[0].cycles_per_packet == pytest.approx(150, rel=0.01)


def test_a_preemption_costs_a_busy_nf_what_was_measured_for_its_working_set():
    """Measured: a wake costs a busy NF 20 µs at 16 KiB, 40 µs at 1 MiB (interpolated in the
    logarithm). The IDS (600 KiB automaton) beside the generator pays that less the wake's run
    the model has on its own (3 µs of CPU and two turns of 1.5) for a batch whose packets
    touch all of it: on the generator's core only, and not at all without the measurement.
    A batch that touches less refetches less: none for none, in proportion below 16 KiB."""
    from pydantic import ValidationError

    from nfvperf.hostmodel import Preemption
    from nfvperf.sim.costs import refill_s, service_estimates

    pre = {"working_set_kb": [16.0, 1024.0], "lost_us": [20.0, 40.0]}
    p = host_platform(preemption=pre)
    assert p.dataplane.preemption.lost_at(128 * 1024) == pytest.approx(30.0)
    assert p.dataplane.preemption.lost_at(1) == 20 and p.dataplane.preemption.lost_at(1e9) == 40
    with pytest.raises(ValidationError, match="as many lost_us"):
        Preemption(working_set_kb=[16.0, 64.0], lost_us=[1.0])
    ids = ChainSpec.model_validate({"services": [{"nf": "ids"}], "traffic": [
        {"frame_bytes": 1518, "rate_pps": 1e4, "flows": 4}]})
    o = host_options(p, 1)
    est = service_estimates(ids, p, o, [1518])
    full = (p.dataplane.preemption.lost_at(1200 * 512) - (3.0 + 2 * 1.5)) * 1e-6
    got = refill_s(ids, p, o, 4, np.array([[1]]), est)
    assert got.shape == (1, o.burst + 1) and got[0, 0] == 0
    # a 1 518 B packet takes 1 472 lines of the automaton (92 KiB): 7 of them, all of it
    assert got[0, 7:] == pytest.approx(full)
    assert got[0, 1] == pytest.approx((p.dataplane.preemption.lost_at(1472 * 64)
                                       - 6.0) * 1e-6)
    assert not refill_s(ids, p, o, 4, np.array([[0]]), est).any()
    assert not refill_s(ids, host_platform(), host_options(host_platform(), 1), 4,
                        np.array([[1]]), est).any()
    # the router touches a line of its first table a packet: 64 B of 16 KiB's 14 µs beyond
    router = chain("router")
    est = service_estimates(router, p, o, [64])
    got = refill_s(router, p, o, 10**5, np.array([[1]]), est)
    assert got[0, 32] == pytest.approx(32 * 64 / 16384 * 14e-6)


def test_an_ids_beside_the_generator_saturates_sooner_where_its_wakes_cost_it_more():
    """The IDS at 1518 B on the Xeon (about 13 µs a packet): beside a generator that wakes
    about every 35 µs and takes 6 µs of the core, it carries 55 kpps; when each wake that
    preempts it costs it 25 µs in all, it saturates there: it loses packets, its batches fill
    and its cycles a packet (the clock's over its batches, the wakes in them) rise, as on
    the data plane. (Rings of 512: the backlog that a full ring drains after the run, with no
    generator to preempt it, stays a small share of the run's packets.)"""
    spec = ChainSpec.model_validate({"services": [{"nf": "ids"}], "traffic": [
        {"frame_bytes": 1518, "rate_pps": 5.5e4, "flows": 4}]})
    runs = {}
    for lost in (None, 25.0):
        p = host_platform(preemption=None if lost is None else
                          {"working_set_kb": [16.0], "lost_us": [lost]})
        o = host_options(p, 1).model_copy(update={"ring": 512})
        runs[lost] = simulate_chain(spec, p, o, duration_s=0.2)
    base, slow = (runs[k].services[0].instances[0] for k in (None, 25.0))
    assert runs[None].loss_pct < 1 and runs[25.0].loss_pct > 20
    assert slow.mean_batch > base.mean_batch
    assert slow.cycles_per_packet > 2 * base.cycles_per_packet


def test_a_generator_that_polls_on_costs_no_refill_and_the_chain_still_carries():
    """Where the next burst falls due sooner than its shortest nap (32 packets in under 2 µs)
    the generator polls on, sending packets as they fall due: those runs take no wake's CPU
    time and are no wakes from a nap, so they cost a preempted NF no refill (``naps`` 0,
    carried to the kernel's ``stall_r``). Charged at each, 3.4 µs a preemption (an NF of 100
    cycles a packet touching 1 KiB, of 16 KiB's 54 µs beyond the run) held its batches for
    ever and the chain was predicted to deliver nothing; it carries most of what it carries
    without the measurement."""
    from nfvperf.sim.stalls import host_stalls, kernel_stalls

    fast = {**SECTION["generator"], "packet_us": 0.005}
    rate = 1.5 * limits.NF_MAX_BURST / (limits.GEN_NAP_MIN_US * 1e-6)
    gen = host_options(host_platform(generator=fast), 1).generator
    due = (np.arange(int(rate * 0.002)) + 0.5) / rate
    wakes, runs, naps, _ = generator_wakes(due, gen, 0.002, np.random.default_rng(1))
    assert 0 < naps.sum() < naps.size                       # it naps, and it polls on
    o = host_options(host_platform(generator=fast), 1)
    core = np.array([[1]])
    host = host_stalls(chain(), o, core, 0.002, np.random.default_rng(2))
    t, d, r, off = kernel_stalls(core, host, o.generator, wakes, runs, naps)
    on_gen = slice(off[1], off[2])
    assert r[on_gen].sum() == naps.sum() and r[off[0]:off[1]].sum() == 0

    pre = {"working_set_kb": [16.0], "lost_us": [60.0]}
    base = SimOptions.model_validate({"services": {0: {"cycles_per_packet": 100,
                                                       "working_set_bytes": 1024}}})
    got = {}
    for name, p in (("with", host_platform(preemption=pre, generator=fast)),
                    ("without", host_platform(generator=fast))):
        got[name] = simulate_chain(chain(rate=rate), p, host_options(p, 1, base=base),
                                   duration_s=0.01).delivered_mpps
    assert got["without"] > 0.2 * rate / 1e6
    assert got["with"] > 0.5 * got["without"]


def test_the_generator_wakes_slower_beside_nfs_that_keep_its_core_busy():
    """Measured beside a busy NF, a wake costs the generator 13 µs of CPU against 3 µs beside
    an idle one (its caches refilled) and its naps overshoot by 20 µs against 10. The share of
    its wakes that find it so is the share of the core the NFs' own cycles take at the offered
    rate (mean-field): a forward NF at 100 kpps hardly changes its cycle; an IDS of 1518 B
    frames at 55 kpps takes over 70 % of the core and most of its wakes are slow ones, fewer a
    second, each holding the core longer; the IDS's refill is what was measured beyond the
    slow run."""
    from nfvperf.sim.costs import nf_share, refill_s, service_cycles, service_estimates

    gen = Generator(cpu=1, wake_us=3.0, busy_wake_us=13.0, packet_us=0.05,
                    overshoot_us=[10.0])
    assert [gen.wake_cost_us(x) for x in (0, 0.5, 1, 2)] == [3.0, 8.0, 13.0, 13.0]
    assert gen.model_copy(update={"busy_wake_us": None}).wake_cost_us(1) == 3.0

    p = host_platform(generator={**SECTION["generator"], "busy_wake_us": 13.0,
                                 "busy_overshoot_us": [20.0, 22.0, 24.0]},
                      preemption={"working_set_kb": [16.0], "lost_us": [25.0]})
    o = host_options(p, 1)
    on = np.array([[True]])
    shares = {}
    for nf, size, rate in (("forward", 64, 1e5), ("ids", 1518, 5.5e4)):
        spec = ChainSpec.model_validate({"services": [{"nf": nf}], "traffic": [
            {"frame_bytes": size, "rate_pps": rate, "flows": 4}]})
        classes = spec.classes(None)
        est = service_estimates(spec, p, o, [size])
        cycles = service_cycles(spec, p, o, [size], est)
        shares[nf] = nf_share(spec, classes, cycles, p.cpu.clock_hz, on)
        assert shares[nf] == pytest.approx(min(rate * cycles[0, 0] / p.cpu.clock_hz, 1))
        assert nf_share(spec, classes, cycles, p.cpu.clock_hz, ~on) == 0
    assert shares["forward"] < 0.05 and shares["ids"] > 0.7
    ids = ChainSpec.model_validate({"services": [{"nf": "ids"}], "traffic": [
        {"frame_bytes": 1518, "rate_pps": 1e4, "flows": 4}]})
    got = refill_s(ids, p, o, 4, np.array([[1]]), service_estimates(ids, p, o, [1518]))
    assert got[0, 32] == pytest.approx((25.0 - 13.0 - 2 * 1.5) * 1e-6)

    due = (np.arange(5_000) + 0.5) / 5.5e4
    idle, busy = (generator_wakes(due, o.generator, 0.09, np.random.default_rng(1), cold)
                  for cold in (0.0, 1.0))
    assert np.diff(busy[0]).mean() == pytest.approx(np.diff(idle[0]).mean() + 10e-6, rel=0.02)
    assert np.median(busy[1]) == pytest.approx(np.median(idle[1]) + 10e-6, rel=0.05)
    # a router with no route for the traffic drops all of it: the NF after it sees nothing
    none = ChainSpec.model_validate({"services": [{"nf": "router"}, {"nf": "forward"}],
                                     "traffic": [{"frame_bytes": 64, "rate_pps": 1e5}]})
    assert none.passes(0) == 0
    both = np.array([[True], [True]])
    cyc = np.array([[1000.0], [1000.0]])
    assert nf_share(none, none.classes(None), cyc, 1e9, both) == pytest.approx(0.1)


def test_a_stall_of_the_generators_core_holds_its_sends_not_its_packets_latency():
    """The host stops the generator with the NF on their shared core: it wakes when the core
    is back and sends, and stamps, what fell due meanwhile then. 200 stalls a second of 1 ms
    (a fifth of the time) at light load: only the few packets in flight when one begins wait
    it out, so the mean latency rises by far less than the 100 µs a packet would wait on
    average (a fifth of them, half a stall each) were they stamped when due."""
    from nfvperf.sim.stalls import merged

    # stalls that overlap take the core one after the other, as the kernel takes them
    gone, back = merged(np.array([1.0, 1.5, 3.0]), np.array([1.0, 0.2, 0.5]))
    assert gone.tolist() == [1.0, 3.0] and back == pytest.approx([2.2, 3.5])
    gen = host_options(host_platform(), 1).generator
    due = (np.arange(2000) + 0.5) / 1e6                 # 1 Mpps for 2 ms
    away = (np.array([0.5e-3]), np.array([1.5e-3]))
    wakes, _, _, send = generator_wakes(due, gen, 2e-3, np.random.default_rng(1), away=away)
    assert not np.any((wakes >= 0.5e-3) & (wakes < 1.5e-3))
    held = (due >= 0.5e-3) & (due < 1.5e-3)
    assert np.all(send[held] >= 1.5e-3) and np.all(send >= due)

    p = host_platform()
    calm = simulate_chain(chain(rate=1e5), p, host_options(p, 1), duration_s=0.5)
    stalled = host_platform(stalls={1: {"per_s": 200, "durations_us": [1000.0]}})
    r = simulate_chain(chain(rate=1e5), stalled, host_options(stalled, 1), duration_s=0.5)
    assert r.loss_pct == 0 and r.delivered_mpps == pytest.approx(0.1, rel=0.02)
    assert r.latency_us.mean - calm.latency_us.mean < 25
