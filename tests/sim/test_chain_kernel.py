"""The chain simulator's kernel (sim.chain_kernel, sim.chain_state) on its own: events at one
time are taken in the order they were scheduled, and what its arrays cannot hold is refused
with an error rather than written out of bounds."""

from __future__ import annotations

import hashlib
import heapq
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nfvperf.chain import POLICY_CODES
from nfvperf.sim import chain_kernel as kn
from nfvperf.sim.chain_state import END_OF_BATCH, RETRY, TURN, new_heap, pop, push

RR = POLICY_CODES["round-robin"]


def test_events_at_one_time_are_taken_in_the_order_they_were_scheduled():
    # a heap ordered by time alone took three at one time as 0, 2, 1
    h = new_heap(8)
    for a, t in enumerate([1.0, 1.0, 1.0, 0.5, 2.0, 1.0]):
        push(h, t, END_OF_BATCH, a, 10 * a)
    got = [pop(h) for _ in range(6)]
    assert [(t, a) for t, _, a, _ in got] == [(0.5, 3), (1.0, 0), (1.0, 1), (1.0, 2),
                                              (1.0, 5), (2.0, 4)]
    assert all(kind == END_OF_BATCH and b == 10 * a for _, kind, a, b in got)


@given(st.lists(st.one_of(st.sampled_from([0.0, 1.0, 2.0]), st.none()), max_size=60))
@settings(max_examples=200, deadline=None)
def test_the_heap_takes_events_by_time_then_sequence(ops):
    """Pushes (a time) and pops (None) in any order: the heap gives what a model ordered by
    (time, order of pushing) gives, kinds and fields with them."""
    h = new_heap(64)
    model = []
    for i, op in enumerate(ops):
        if op is not None:
            kind = (END_OF_BATCH, TURN, RETRY)[i % 3]
            push(h, op, kind, i, -i)
            heapq.heappush(model, (op, i, kind))
        elif model:
            t, i0, kind = heapq.heappop(model)
            assert pop(h) == (t, kind, i0, -i0)
    assert h.top[0] == len(model)


def test_the_heap_refuses_an_event_it_has_no_room_for():
    h = new_heap(2)
    push(h, 0.0, TURN, 0, 0)
    push(h, 0.0, TURN, 0, 1)
    with pytest.raises(ValueError, match="more events than the heap holds"):
        push(h, 0.0, TURN, 0, 2)
    pop(h)
    pop(h)
    with pytest.raises(ValueError, match="no event to take"):
        pop(h)


def tie(**over) -> dict:
    """Three packets at time 0 to three round-robin instances (own cores, 1 µs a packet, one
    at a time), then one instance: their three batches end at one time, 1 µs."""
    speed = np.array([[1e9, 1e9, 1e9], [1e9, 0, 0]])
    args = dict(
        t_arr=np.zeros(3), cls=np.arange(3), flow=np.arange(3), size=np.full(3, 64),
        n_flows=3, n_inst=np.array([3, 1]), policy=np.array([RR, RR]), weights=np.ones((2, 3)),
        large_bytes=np.array([512, 512]), cost_bytes=np.zeros(2, dtype=bool),
        cost=np.full((2, 3), 1000.0), overhead=np.zeros((2, 2)), speed=speed,
        core=np.array([[0, 1, 2], [3, 0, 0]]), quantum=0.0, switch=0.0, capacity=8, beta=1,
        warmup_s=0.0, sc_t=np.zeros(0), sc_s=np.zeros(0, dtype=np.int64),
        sc_n=np.zeros(0, dtype=np.int64), sc_w=np.zeros((0, 3)), stall_t=np.zeros(0),
        stall_d=np.zeros(0), stall_r=np.zeros(0), stall_off=np.zeros(5, dtype=np.int64),
        gen_w=np.zeros(0),
        gen_b=np.zeros(0), hop=0.0, keep=np.ones(2), refill=np.zeros((2, 2)), stamp=np.zeros(3),
        vs_t=np.zeros(0), vs_e=np.zeros(0), gen_room=1023)
    return {**args, **over}


def test_batches_that_end_together_pass_on_their_packets_in_the_order_they_began():
    """Packet p (class p) goes through instance p of the first service, whose batches end
    together; the second service serves them one at a time in the order the batches were
    scheduled: classes 0, 1, 2 leave at 2, 3, 4 µs (by heap position: 2, 4, 3)."""
    stats, _, cls_stats, cls_lat, _, _, _ = kn.run_chain(*tie().values())
    assert list(cls_stats[:, 1]) == [1, 1, 1]
    assert cls_lat * 1e6 == pytest.approx([2, 3, 4])
    assert list(stats[0, :, kn.I_SERVED]) == [1, 1, 1]


@pytest.mark.parametrize("over, message", [
    ({"n_inst": np.array([4, 1])}, "more instances than the arrays hold"),
    ({"n_inst": np.array([3, 2])}, "an instance with no speed"),
    ({"flow": np.array([0, 1, 3])}, "a packet of no class or flow"),
    ({"cls": np.array([0, 1, -1])}, "a packet of no class or flow"),
    ({"t_arr": np.array([0.0, 2e-6, 1e-6])}, "arrivals out of time order"),
    ({"capacity": 0}, "a ring and a burst of at least one packet"),
    ({"beta": 0}, "a ring and a burst of at least one packet"),
    ({"core": np.array([[0, 1, -2], [3, 0, 0]])}, "a negative core number"),
    ({"stall_off": np.zeros(4, dtype=np.int64)}, "stalls do not match the cores"),
    ({"stall_off": np.array([0, 0, 0, 0, 1])}, "stalls do not match the cores"),
    ({"stall_t": np.array([2e-6, 1e-6]), "stall_d": np.ones(2) * 1e-6, "stall_r": np.ones(2),
      "stall_off": np.array([0, 2, 2, 2, 2])}, "stalls out of time order"),
    ({"stall_t": np.array([1e-6]), "stall_d": np.ones(1) * 1e-6, "stall_r": np.ones(2),
      "stall_off": np.array([0, 1, 1, 1, 1])}, "stalls do not match the cores"),
    ({"gen_w": np.array([2e-6, 1e-6]), "gen_b": np.zeros(2)},
     "generator wakes out of time order"),
    ({"gen_w": np.zeros(2), "gen_b": np.zeros(1)}, "generator wakes and runs"),
    ({"policy": np.array([RR, 7])}, "an unknown policy"),
    ({"cost": np.ones((2, 2))}, "per-service arrays of different sizes"),
    ({"refill": np.zeros((2, 3))}, "per-service arrays of different sizes"),
    ({"sc_t": np.array([1e-6]), "sc_s": np.array([1]), "sc_n": np.array([9]),
      "sc_w": np.ones((1, 3))}, "more instances than the arrays hold"),
    ({"sc_t": np.array([1e-6]), "sc_s": np.array([2]), "sc_n": np.array([1]),
      "sc_w": np.ones((1, 3))}, "a scale event of no service"),
])
def test_the_kernel_refuses_what_its_arrays_cannot_hold(over, message):
    with pytest.raises(ValueError, match=message):
        kn.run_chain(*tie(**over).values())


def test_the_kernel_carries_the_digest_of_the_state_it_compiles_in():
    """numba's cache keys on the text of chain_kernel.py alone: if chain_state.py changed and
    this file did not, run_chain would run the old code from the cache."""
    from nfvperf.sim import chain_state

    digest = hashlib.sha256(Path(chain_state.__file__).read_bytes()).hexdigest()[:16]
    assert kn.STATE_DIGEST == digest, \
        f"chain_state.py changed: set STATE_DIGEST = {digest!r} in chain_kernel.py"


def test_the_generator_reads_a_packet_back_at_its_next_wake_and_the_hops_add_up():
    """The packets of ``tie`` leave at 2, 3 and 4 µs; the vSwitch's last pass (1 µs) makes
    that 3, 4, 5 µs; the generator, which ran 0.5 µs at time 0, reads them at its wake at
    10 µs; the first pass and the middle one add 2 µs: 12 µs each."""
    gen = dict(gen_w=np.array([0.0, 10e-6]), gen_b=np.array([0.5e-6, 0.5e-6]), hop=1e-6)
    _, _, cls_stats, cls_lat, _, _, _ = kn.run_chain(*tie(**gen).values())
    assert list(cls_stats[:, 1]) == [1, 1, 1]
    assert cls_lat * 1e6 == pytest.approx([12, 12, 12])


def test_what_the_generator_s_ring_cannot_hold_while_it_is_away_is_lost_at_the_port():
    """The packets of ``tie`` come back at 3, 4 and 5 µs, while the generator is away until
    10 µs; a receive ring of two holds the first two (read at 10 µs), the third is dropped
    there; after the wake the ring is empty again: a ring of one, with a wake at 4.5 µs,
    keeps the first (read at 4.5) and the third (read at 10), and loses the second."""
    gen = dict(gen_w=np.array([0.0, 10e-6]), gen_b=np.array([0.5e-6, 0.5e-6]), hop=1e-6)
    _, _, cls_stats, cls_lat, _, _, _ = kn.run_chain(*tie(**gen, gen_room=2).values())
    assert cls_stats[:, 1].sum() == 2 and cls_stats[:, 2].sum() == 1
    assert cls_stats[:, 3].sum() == 1 and cls_stats[2, 3] == 1
    assert cls_stats[:, 0].sum() == 3                  # offered: delivered + lost
    gen = dict(gen_w=np.array([0.0, 4.5e-6, 10e-6]), gen_b=np.array([0.5e-6, 0.1e-6, 0.5e-6]),
               hop=1e-6)
    _, _, cls_stats, cls_lat, _, _, _ = kn.run_chain(*tie(**gen, gen_room=1).values())
    assert list(cls_stats[:, 1]) == [1, 0, 1] and list(cls_stats[:, 3]) == [0, 1, 0]
    assert cls_lat[0] * 1e6 == pytest.approx(4.5 + 2) and cls_lat[2] * 1e6 == \
        pytest.approx(10 + 2)


def test_packets_that_leave_while_the_generator_runs_are_read_at_once():
    """A generator that runs from 0 to 3.5 µs reads the packets leaving at 2 and 3 µs as they
    leave, the one at 4 µs at its next wake (6 µs)."""
    gen = dict(gen_w=np.array([0.0, 6e-6]), gen_b=np.array([3.5e-6, 1e-6]), hop=0.0)
    _, _, _, cls_lat, _, _, _ = kn.run_chain(*tie(**gen).values())
    assert cls_lat * 1e6 == pytest.approx([2, 3, 6])


def test_a_core_is_stalled_by_its_own_stalls_only():
    """A stall of core 3 (the second service's) from 0 to 10 µs holds its packets: they leave
    at 11, 12, 13 µs; a stall of core 0 would not touch them after the first service."""
    stalled = dict(stall_t=np.array([0.0]), stall_d=np.array([10e-6]), stall_r=np.ones(1),
                   stall_off=np.array([0, 0, 0, 0, 1]))
    _, _, _, cls_lat, _, _, _ = kn.run_chain(*tie(**stalled).values())
    assert sorted(cls_lat * 1e6) == pytest.approx([11, 12, 13])


def test_a_stall_that_begins_during_a_batch_preempts_it():
    """Core 3 (the second service's) serves the packets one at a time from 1 µs; it is taken
    away at 2.5 µs for 10 µs, while it serves the second (2 to 3 µs): the first leaves at
    2 µs, the second at 13, the third at 14, and the preempted batch's cycles a packet are the
    clock's over it (11 µs: 11000 cycles at 1 GHz), as the data plane's TSC counts them."""
    stalled = dict(stall_t=np.array([2.5e-6]), stall_d=np.array([10e-6]),
                   stall_r=np.ones(1), stall_off=np.array([0, 0, 0, 0, 1]))
    stats, _, _, cls_lat, _, _, cyc = kn.run_chain(*tie(**stalled).values())
    assert sorted(cls_lat * 1e6) == pytest.approx([2, 13, 14])
    assert stats[1, 0, kn.I_CYCLES] == pytest.approx(11000 + 2 * 1000)
    hot = np.nonzero(cyc[1, 0])[0]
    assert list(cyc[1, 0, hot]) == [2, 1]
    assert kn.cycle_bin(11000.0) == hot[1] and kn.cycle_bin(1000.0) == hot[0]
    # what the NF refetches after it (refill: 4 µs for a batch of one at the second service)
    # holds it longer
    refill = np.array([[0, 0], [0, 4e-6]])
    _, _, _, cls_lat, _, _, _ = kn.run_chain(*tie(**stalled, refill=refill).values())
    assert sorted(cls_lat * 1e6) == pytest.approx([2, 17, 18])
    # a stall that costs no refill (the generator polling on, the host) holds it no longer
    _, _, _, cls_lat, _, _, _ = kn.run_chain(*tie(**{**stalled, "stall_r": np.zeros(1)},
                                                  refill=refill).values())
    assert sorted(cls_lat * 1e6) == pytest.approx([2, 13, 14])


def test_an_nf_drops_by_design_the_share_it_does_not_keep():
    """The second service keeps none of its packets: all three are served there, none leave
    the chain, each is counted dropped (by the NF, not a full ring) at its class."""
    stats, _, cls_stats, _, _, _, _ = kn.run_chain(*tie(keep=np.array([1.0, 0.0])).values())
    assert list(cls_stats[:, 1]) == [0, 0, 0] and list(cls_stats[:, 2]) == [1, 1, 1]
    assert stats[1, 0, kn.I_SERVED] == stats[1, 0, kn.I_DISCARDED] == 3
    assert stats[1, 0, kn.I_DROPPED] == 0


def test_a_stall_of_the_vswitch_core_holds_the_packets_leaving_the_chain():
    """The vSwitch's core is away from 0 to 10 µs: the packets leaving at 2, 3, 4 µs pass
    through it at 10 µs (their latency counts from their stamps, 0)."""
    _, _, _, cls_lat, _, _, _ = kn.run_chain(*tie(vs_t=np.array([0.0]),
                                                  vs_e=np.array([10e-6])).values())
    assert cls_lat * 1e6 == pytest.approx([10, 10, 10])


def test_a_wake_of_the_generator_ends_the_preempted_instances_turn():
    """Two services take turns on one core (0.1 µs a change, slices longer than the run). Ten
    packets reach the first at once (1 µs each, one at a time): with no wake it keeps the core
    for all ten, and the second begins at 10.1 µs. The generator woken from a nap at 2.5 µs
    (1 µs) preempts its third: the kernel picks the next process after it, so the second has
    its turn from 4.1 µs; the host taking the core as long (no wake in the guest) does not."""
    n = 10
    base = tie(t_arr=np.zeros(n), cls=np.zeros(n, dtype=np.int64),
               flow=np.zeros(n, dtype=np.int64), n_flows=1,
               n_inst=np.array([1, 1]), speed=np.array([[1e9, 0, 0], [1e9, 0, 0]]),
               core=np.zeros((2, 3), dtype=np.int64), quantum=1.0, switch=0.1e-6,
               capacity=16, stamp=np.zeros(n), stall_off=np.array([0, 0]))
    first = {}
    for name, r in (("none", None), ("wake", 1.0), ("host", 0.0)):
        over = {} if r is None else dict(stall_t=np.array([2.5e-6]), stall_d=np.array([1e-6]),
                                         stall_r=np.array([r]), stall_off=np.array([0, 1]))
        _, _, _, cls_lat, _, _, _ = kn.run_chain(*{**base, **over}.values())
        first[name] = cls_lat[0] * 1e6
    # (the sums of the ten latencies) the host's stall holds each packet 1 µs longer, no
    # more; the wake lets the second service serve the first three before the first is done
    assert first["host"] == pytest.approx(first["none"] + n * 1.0)
    assert first["wake"] < first["none"] - 5
