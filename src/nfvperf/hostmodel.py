"""The data plane's own costs on a host: what a packet costs and waits besides its NFs. A section
of the platform profile (``dataplane:``), measured by ``nfvperf calibrate`` on the data plane
itself, read by the chain simulator to predict what the data plane will report::

    dataplane:
      cpus: {vswitch: 0, nfs: 1, generator: 1}   # where it was measured
      vswitch:                                     # cycles = batch + packet x n, per stage
        rx: {batch_cycles: 90, packet_cycles: 25}      # receive, classify, hand to the NF
        nf: {batch_cycles: 60, packet_cycles: 20}      # take back, hand on to the next
        flush: {batch_cycles: 40, packet_cycles: 8}    # send on the port
        idle_loop_cycles: 70
      nf_loop:                  # forward's loop, cycles a packet (median) at mean batches of
        batches: [1.0, 4.3, 23.9]
        loop_cycles: [443, 291, 82]
        handler_cycles: [259, 259, 47]
      turn_us: 1.5              # a change of turn between NF processes that yield
      slice_us: 4000            # the kernel's time slice between busy processes
      stalls: {0: {per_s: 40, durations_us: [...]}, 1: {...}}   # the host taking a CPU away
      generator:                # nfvp-gen: it naps between bursts, beside the NFs
        wake_us: 3.1            # its CPU time a wake, besides the packets
        busy_wake_us: 9.5       # the same beside an NF that kept the core busy meanwhile
        busy_overshoot_us: [...]  # its naps' overshoot there (samples)
        packet_us: 0.05         # its CPU time a packet sent and received
        overshoot_us: [...]     # a nap's length beyond the one asked for (samples)
      preemption:               # a wake of the generator, to an NF busy beside it
        working_set_kb: [16, 512, 4096]   # the NF's tables it keeps touching
        lost_us: [12, 26, 35]             # the core's time the NF loses a wake (median)
        spread_us: [[10, 14], [24, 29], [31, 38]]   # least and most of the probes
      floor_us: {mean: 45, p50: 44, p90: 51, p99: 330}  # the minimal chain, end to end
      spread: {turn_us: [1.4, 1.6], ...}                # min and max over the runs

Every value is a measurement of this host (`calibrate.dataplane` says how); none is fitted to a
chain's result. ``floor_us`` is the latency of the smallest chain (one ``forward`` NF, light
load): Geissler et al.'s fixed delay offset (Sec. 5.3), kept for the record and as a check of the
model, which predicts it from the parts above.
"""

from __future__ import annotations

from pydantic import Field, model_validator

from nfvperf.files import FileModel

#: samples of a measured distribution kept in a profile (or a run's report) at most
KEEP_SAMPLES = 400


def quantiles(xs: list[float], keep: int = KEEP_SAMPLES) -> list[float]:
    """At most ``keep`` samples that stand for ``xs``: evenly spaced quantiles of them."""
    xs = sorted(xs)
    if len(xs) > keep:
        xs = [xs[(2 * i + 1) * len(xs) // (2 * keep)] for i in range(keep)]
    return xs or [0.0]


class StageCost(FileModel):
    """Cycles of one stage of a loop that moved ``n`` packets: ``batch + packet × n``."""

    batch_cycles: float = Field(ge=0)
    packet_cycles: float = Field(ge=0)

    def cycles(self, n: float) -> float:
        return self.batch_cycles + self.packet_cycles * n


class VswitchCosts(FileModel):
    """The vSwitch's poll loop, stage by stage (least squares over the loops that moved
    packets)."""

    rx: StageCost = Field(description="receive from the ports, classify, hand to the first NF")
    nf: StageCost = Field(description="take packets back from NFs, hand them on")
    flush: StageCost = Field(description="send what is bound for the ports")
    idle_loop_cycles: float = Field(ge=0, description="a loop that moved nothing")

    def hop_cycles(self, n: float = 1.0) -> float:
        """Cycles a packet spends in one pass through the vSwitch at batches of ``n``: its
        share of a hand-over stage and of a flush."""
        n = max(n, 1.0)
        return (self.nf.cycles(n) + self.flush.cycles(n)) / n


class NfLoop(FileModel):
    """The smallest NF's loop (``forward``), measured at a few loads: the median cycles a
    packet of its whole loop and of its handler, at the mean batch of each load. Besides what
    an NF's own EO model prices, a packet costs the loop's cycles less forward's model's: the
    rings, and at small batches the packets' lines reaching a core the generator shares."""

    batches: list[float] = Field(min_length=1)
    loop_cycles: list[float] = Field(min_length=1)
    handler_cycles: list[float] = Field(min_length=1)

    def beyond(self, model_cycles: float) -> dict[float, float]:
        """Cycles a packet at each batch beyond ``model_cycles`` (forward's EO estimate)."""
        return {b: max(c - model_cycles, 0.0) for b, c in zip(self.batches, self.loop_cycles)}


class Stalls(FileModel):
    """Times the host takes a CPU away (a VM's vCPU descheduled, interrupts): measured."""

    per_s: float = Field(ge=0, description="stalls a second")
    durations_us: list[float] = Field(min_length=1, description="their lengths, as measured")


class GeneratorCosts(FileModel):
    """nfvp-gen beside the NFs: it wakes, sends what is due, reads what came back, naps."""

    wake_us: float = Field(ge=0, description="its CPU time a wake, besides the packets")
    busy_wake_us: float | None = Field(None, ge=0, description="its CPU time a wake beside an "
                                       "NF that kept the core busy while it napped (its own "
                                       "caches to refill): measured with the preemption "
                                       "probes")
    packet_us: float = Field(ge=0, description="its CPU time a packet sent and received")
    overshoot_us: list[float] = Field(min_length=1, description="how much longer than asked "
                                      "a nap lasted (samples: the timer, the wake-up, the "
                                      "turn to come back; the wake's CPU time in the kernel "
                                      "is inside it)")
    busy_overshoot_us: list[float] | None = Field(None, min_length=1, description="the same "
                                                  "beside an NF that kept the core busy: "
                                                  "measured with the preemption probes")


class Preemption(FileModel):
    """What a wake of the generator costs an NF that is busy on its core, by the NF's working
    set: the core's time the NF loses a wake (the generator's run, the two changes of process,
    the caches of both refilled), measured with the smallest NF made to walk a table of each
    size (``forward --chase-bytes``), saturated beside the generator against alone."""

    working_set_kb: list[float] = Field(min_length=1, description="the walked tables' sizes")
    lost_us: list[float] = Field(min_length=1, description="the core's time the NF loses a "
                                 "wake of the generator, at each size (the median of the "
                                 "probes)")
    spread_us: list[list[float]] | None = Field(None, description="the least and most of the "
                                                "probes at each size")

    @model_validator(mode="after")
    def _pairs(self) -> Preemption:
        if len(self.working_set_kb) != len(self.lost_us):
            raise ValueError("as many lost_us as working_set_kb")
        if self.spread_us is not None and (
                len(self.spread_us) != len(self.lost_us)
                or any(len(s) != 2 or not s[0] <= v <= s[1]
                       for s, v in zip(self.spread_us, self.lost_us))):
            raise ValueError("a [least, most] around each lost_us in spread_us")
        if self.working_set_kb != sorted(self.working_set_kb) or \
                min(self.working_set_kb) <= 0:
            raise ValueError("working_set_kb > 0, in increasing order")
        return self

    def lost_at(self, working_set_bytes):
        """µs lost a wake at a working set, or at each of an array of them (interpolated in
        its logarithm, held at the ends)."""
        import numpy as np

        kb = np.maximum(np.asarray(working_set_bytes, dtype=float) / 1024, 1e-3)
        lost = np.interp(np.log(kb), np.log(self.working_set_kb), self.lost_us)
        return float(lost) if lost.ndim == 0 else lost

    def beyond_us(self, refetched_bytes, run_us: float):
        """µs a preempted NF loses beyond a run of ``run_us`` (the wake as a model already
        has it) when it refetches ``refetched_bytes`` (an array): what was measured at that
        size less the run, none below none; under the smallest size measured, in proportion
        to the bytes (nothing refetched costs nothing)."""
        import numpy as np

        b = np.asarray(refetched_bytes, dtype=float)
        smallest = self.working_set_kb[0] * 1024
        return np.maximum(self.lost_at(np.maximum(b, smallest)) - run_us, 0.0) * \
            np.minimum(b / smallest, 1.0)


class Latency(FileModel):
    mean: float
    p50: float
    p90: float
    p99: float


class Cpus(FileModel):
    vswitch: int = Field(ge=0)
    nfs: int = Field(ge=0)
    generator: int = Field(ge=0)


class DataplaneHost(FileModel):
    """The data plane's own costs on this host (see the module docstring)."""

    cpus: Cpus
    vswitch: VswitchCosts
    nf_loop: NfLoop
    turn_us: float = Field(gt=0, description="a change of turn between processes that yield")
    slice_us: float = Field(gt=0, description="how long the kernel lets one of two busy "
                            "processes run")
    stalls: dict[int, Stalls] = Field(default_factory=dict, description="by CPU")
    generator: GeneratorCosts
    preemption: Preemption | None = Field(None, description="a generator's wake, to a busy "
                                          "NF, by its working set")
    floor_us: Latency | None = Field(None, description="the minimal chain's latency, measured")
    spread: dict[str, list[float]] = Field(default_factory=dict,
                                           description="min and max of values over runs")
