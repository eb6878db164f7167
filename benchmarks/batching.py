"""Speed of the batching model and of its simulator, side by side in one run.

    python benchmarks/batching.py [--packets 1e7] [--simpy-packets 2e5]

1. One model solve at L = 4096, β = 256, 8 Gbps of 64 B frames, Poisson arrivals, service times
   from the VPP global fit (target ≤ 2 s), best of 3, and the same at 10 Gbps (overload).
2. The numba simulator on one core, in packets per second (target ≥ 20 M), against an equivalent
   SimPy model of the same queue (same inputs, same tail-drop FIFO), quoting the ratio.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from nfvperf.batching import vpp
from nfvperf.batching.arrivals import interarrival, packet_rate_pps
from nfvperf.batching.model import BatchQueue
from nfvperf.sim.batch_queue import simulate

DT = 10e-9


def make_queue(rate_bps: float) -> BatchQueue:
    service = vpp.fitting.fit(vpp.samples(), 256).pmfs(DT)
    a = interarrival("poisson", packet_rate_pps(rate_bps=rate_bps, frame_bytes=64), DT)
    return BatchQueue(4096, 256, a, service, DT)


def simpy_run(queue: BatchQueue, packets: int, seed: int) -> dict[str, float]:
    """The same system in SimPy: a generator process, a bounded FIFO, a polling server."""
    import collections

    import simpy

    rng = np.random.default_rng(seed)
    env = simpy.Environment()
    fifo: collections.deque = collections.deque()
    stats = {"arrived": 0, "lost": 0, "polls": 0, "picked": 0}
    gaps = queue.arrivals.sample(rng, packets)
    cdfs = [b.cdf() for b in queue.service]

    def source():
        for g in gaps:
            yield env.timeout(int(g))
            stats["arrived"] += 1
            if len(fifo) < queue.capacity:
                fifo.append(env.now)
            else:
                stats["lost"] += 1

    def server():
        while True:
            k = min(len(fifo), queue.max_batch)
            for _ in range(k):
                fifo.popleft()
            stats["polls"] += 1
            stats["picked"] += k
            yield env.timeout(int(np.searchsorted(cdfs[k], rng.random(), side="right")))

    env.process(source())
    env.process(server())
    env.run(until=int(gaps.sum()))
    return {"mean_batch_size": stats["picked"] / stats["polls"],
            "loss_probability": stats["lost"] / max(stats["arrived"], 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--packets", type=float, default=1e7)
    ap.add_argument("--simpy-packets", type=float, default=2e5)
    args = ap.parse_args()

    for rate in (8e9, 10e9):
        q = make_queue(rate)
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            r = q.solve()
            times.append(time.perf_counter() - t0)
        print(f"model solve, L=4096 β=256 {rate / 1e9:g} Gbps 64 B: best {min(times):.2f} s, "
              f"median {sorted(times)[1]:.2f} s (mean batch {r.mean_batch_size:.2f}, "
              f"loss {r.loss_probability:.4f}, residual {r.residual:.1e})")

    q = make_queue(8e9)
    simulate(q, packets=10_000, rng=np.random.default_rng(0))            # compile
    n = int(args.packets)
    t0 = time.perf_counter()
    s = simulate(q, packets=n, rng=np.random.default_rng(1)).to_dict()
    t_sim = time.perf_counter() - t0
    sim_rate = n * 1.05 / t_sim
    print(f"numba simulator: {n:,} packets (+5 % warm-up) in {t_sim:.2f} s = "
          f"{sim_rate / 1e6:.1f} M packets/s (mean batch {s['mean_batch_size']:.2f} ± "
          f"{s['mean_batch_size_ci99']:.2f})")
    m = int(args.simpy_packets)
    t0 = time.perf_counter()
    sp = simpy_run(q, m, 1)
    t_simpy = time.perf_counter() - t0
    simpy_rate = m / t_simpy
    print(f"SimPy, same queue: {m:,} packets in {t_simpy:.2f} s = {simpy_rate / 1e3:.0f} k "
          f"packets/s (mean batch {sp['mean_batch_size']:.2f})")
    print(f"ratio numba / SimPy: {sim_rate / simpy_rate:,.0f}x")


if __name__ == "__main__":
    main()
