"""How the simulator runs a chain: what the chain file does not say because the data plane has
it built in (its rings and bursts), because the host decides it (turns on a shared core, stalls)
or because it is a what-if (measured costs, cores per instance). A YAML file of them::

    ring: 4096                 # packets an instance's queue holds (the data plane's NF ring)
    burst: 32                  # packets an instance takes at most a poll
    quantum_us: 0              # shared core: how long a busy instance may keep it
    switch_us: 0               # shared core: the cost of a change of turn (> 0: turns)
    stalls: {per_s: 10, durations_us: [3000]}    # of every shared core, or by core: {1: {...}}
    arrivals: poisson          # or paced (even gaps, flows in turn, as nfvp-gen)
    nf_cpu: 1                  # instances of services that name no cpu share this one
    hop_us: 0.1                # a pass through the vSwitch (latency only)
    generator: {cpu: 1, wake_us: 3, packet_us: 0.05, overshoot_us: [12, 15, 30]}
    preemption: {working_set_kb: [16, 640, 4096], lost_us: [25, 27, 38]}  # a wake, to a busy NF
    services:                  # by index in the chain
      0: {cycles_per_packet: 300, batch_overhead_cycles: 200}
      1: {model: my-ids.yaml, cores: 2, threads: 2, working_set_bytes: 614400}
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator

from nfvperf import limits
from nfvperf.files import FileModel
from nfvperf.hostmodel import GeneratorCosts, Preemption, Stalls


class Generator(GeneratorCosts):
    """nfvp-gen as the data plane runs it: paced, napping between bursts (at most
    ``limits.GEN_NAP_MAX_US``) on ``cpu``, which it takes from the NFs there while it runs; the
    latency it measures ends when it reads a packet back."""

    cpu: int = Field(ge=0, description="the core it runs on")
    switch_us: float = Field(0.0, ge=0, description="what a wake from a nap takes of its core "
                             "besides its CPU time (the changes of process to it and back): "
                             "time the NFs there lose, not a delay of its own schedule")

    def wake_cost_us(self, cold: float) -> float:
        """Its CPU time a wake when a share ``cold`` of its wakes find its caches cold (an NF
        kept the core busy while it napped): ``wake_us`` to ``busy_wake_us``, where measured."""
        if self.busy_wake_us is None:
            return self.wake_us
        return self.wake_us + min(max(cold, 0.0), 1.0) * (self.busy_wake_us - self.wake_us)


class ServiceCost(FileModel):
    """What a packet costs at one service, and how fast its instances run."""

    model: str | None = Field(None, description="EO model (packaged reference or file) that "
                              "prices a packet; default: the NF's own (nfvperf.nfs)")
    cycles_per_packet: float | dict[int, float] | None = Field(
        None, description="measured cost instead of the model: one figure, or by frame size "
                          "(interpolated)")
    cores: float = Field(1.0, gt=0, description="cores given to each instance")
    threads: int = Field(1, ge=1, description="threads an instance runs: it uses at most "
                                              "this many of its cores")
    batch_overhead_cycles: float = Field(200.0, ge=0, description="cost of a batch besides "
                                         "its packets (the NF's loop: dequeue, enqueue; "
                                         "validation measures 6-8 cycles a packet between "
                                         "the loop and the handler at batches of ~30)")
    packet_overhead_cycles: float = Field(0.0, ge=0, description="the NF loop's cost a "
                                          "packet besides its handler")
    working_set_bytes: float | None = Field(
        None, ge=0, description="the bytes of its tables its packets keep touching (default: "
        "from its EO model and the traffic's keys)")
    loop_cycles: dict[float, float] | None = Field(
        None, description="the NF loop's own cycles a packet at batches of n (measured: "
        "interpolated in 1/n, as a cost a batch spread over its packets), instead of "
        "batch_overhead + packet_overhead")

    def overhead(self, burst: int):
        """Cycles of a batch of n = 0..burst besides its packets' own."""
        import numpy as np

        n = np.arange(burst + 1, dtype=float)
        if not self.loop_cycles:
            return np.where(n > 0, self.batch_overhead_cycles + n * self.packet_overhead_cycles,
                            0.0)
        xs = sorted(self.loop_cycles, key=lambda x: 1 / x)
        per = np.interp(1 / np.maximum(n, 1), [1 / x for x in xs],
                        [self.loop_cycles[x] for x in xs])
        return n * np.maximum(per, 0.0)


class SimOptions(FileModel):
    """The simulator's own settings (see the module docstring); every field has a default."""

    ring: int = Field(limits.NF_RING_SIZE, ge=1, le=65536,
                      description="packets an instance's queue holds")
    burst: int = Field(limits.NF_MAX_BURST, ge=1, le=256,
                       description="packets an instance takes at most")
    quantum_us: float = Field(0, ge=0, description="instances that share a cpu: how long one "
                              "may keep it while it has packets (the kernel's time slice); "
                              "0: one batch per turn")
    switch_us: float = Field(0, ge=0, description="instances that share a cpu: the cost of "
                             "a change of turn (a yield and a context switch); > 0 makes them "
                             "poll in turn, as NF processes that yield do; 0: no cost")
    stalls: Stalls | dict[int, Stalls] | None = Field(
        None, description="stalls of the shared cores, or of each core by number")
    arrivals: Literal["poisson", "paced"] = Field("poisson", description="poisson, or paced "
                                                  "as nfvp-gen sends")
    warmup_s: float | None = Field(None, ge=0, description="simulated before counting "
                                   "(default: a tenth of the duration)")
    seed: int = Field(7, description="of the random arrivals and stalls")
    nf_cpu: int | None = Field(None, ge=0, description="the core that instances of services "
                               "naming no cpu share (as the data plane's NF core); default: "
                               "a core each")
    hop_us: float = Field(0, ge=0, description="latency of a pass through the vSwitch")
    vswitch_cpu: int | None = Field(None, ge=0, description="the vSwitch's core: its stalls "
                                    "(in `stalls` by core) hold the packets passing through, "
                                    "and its ports' rings drop what they cannot hold then")
    preemption: Preemption | None = Field(None, description="what a preemption costs a busy "
                                          "NF by its working set (measured: the host "
                                          "profile's); none: the time away alone")
    generator: Generator | None = Field(None, description="the generator beside the NFs "
                                        "(default: packets enter and leave the chain as they "
                                        "go, with no generator of their own)")
    services: dict[int, ServiceCost] = Field(default_factory=dict,
                                             description="by index in the chain")

    @model_validator(mode="after")
    def _ring_holds_a_burst(self) -> SimOptions:
        if self.ring < self.burst:
            raise ValueError(f"a ring of at least burst ({self.burst}) packets")
        return self

    def cost(self, i: int) -> ServiceCost:
        """Service ``i``'s costs: its own, or the defaults."""
        return self.services.get(i) or ServiceCost()


def load_options(path: str | Path) -> SimOptions:
    """Read a simulator options file; InputError names the file, line and field."""
    from nfvperf.files import load_file
    from nfvperf.io import relative_file

    options = load_file(path, SimOptions, "simulator options")[1]
    base = Path(path).resolve().parent          # model files named relative to this file
    return options.model_copy(update={"services": {
        i: c.model_copy(update={"model": relative_file(c.model, base)}) if c.model else c
        for i, c in options.services.items()}})
