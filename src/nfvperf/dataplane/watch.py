"""What the machine was while a run's traffic went through: checks at the traffic's edges and
the NF's cycles a packet window by window. On a virtual machine the hypervisor moves the vCPUs,
and other tenants come and go, within a second: a run whose windows disagree measured more than
one machine, and no single estimate can match it.

The checks: within ``checked_at_traffic_edges(check)``, every ``Session`` calls ``check()``
right before its generator starts and right after it stops (``calibrate.placement`` measures the
CPUs' placement there). The windows: ``Session.wait_traffic(sample_s=WINDOW_S)`` takes the
vSwitch's report every window, and ``window_medians`` reads the NF's cycles from them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar

#: what checked_at_traffic_edges asks every session to call at its traffic's edges
_EDGE_CHECK: ContextVar[Callable[[], None] | None] = ContextVar("traffic_edge_check",
                                                               default=None)


@contextmanager
def checked_at_traffic_edges(check: Callable[[], None]) -> Iterator[None]:
    """Within the block, every session calls ``check()`` right before it sends traffic and
    right after the traffic ends, its processes stopped meanwhile (``Session.paused``) so that
    the check has the CPUs to itself: a measurement of the machine as the traffic met it (the
    CPUs' placement, see ``calibrate.placement``)."""
    token = _EDGE_CHECK.set(check)
    try:
        yield
    finally:
        _EDGE_CHECK.reset(token)


def at_traffic_edge(paused: Callable[[], AbstractContextManager]) -> None:
    """At an edge of a session's traffic: the check of the enclosing
    ``checked_at_traffic_edges`` block, within ``paused()``; outside one, nothing."""
    check = _EDGE_CHECK.get()
    if check is not None:
        with paused():
            check()


#: the reports' spacing during traffic (seconds): ten windows in a one-second run
WINDOW_S = 0.1
#: a window with fewer packets than this says nothing of the NF's speed (the traffic's ramp)
MIN_WINDOW_PACKETS = 1000


def hist_median(pairs: Sequence[Sequence[float]]) -> float | None:
    """The median (nearest rank, packets weigh) of [middle, packets] bins; None when empty."""
    total = sum(n for _, n in pairs)
    if total <= 0:
        return None
    seen = 0.0
    for mid, n in sorted(pairs):
        seen += n
        if seen >= total / 2:
            return float(mid)


def between(before: Sequence[Sequence[float]],
            after: Sequence[Sequence[float]]) -> list[tuple[float, float]]:
    """The packets of two reports' cumulative [middle, packets] bins that came in between."""
    old = {m: n for m, n in before}
    return [(m, n - old.get(m, 0)) for m, n in after]


def window_medians(samples: Sequence[dict], nf: int = 0,
                   min_packets: int = MIN_WINDOW_PACKETS) -> list[float]:
    """The median cycles a packet of NF ``nf``'s busy loops in each window between two of the
    vSwitch's reports ``samples`` (its ``per_nf[nf].loop_cycles_hist``, counted since the
    start), for the windows with at least ``min_packets``."""
    out = []
    for a, b in zip(samples, samples[1:]):
        delta = between(a["per_nf"][nf]["loop_cycles_hist"], b["per_nf"][nf]["loop_cycles_hist"])
        if sum(n for _, n in delta) >= min_packets:
            out.append(hist_median(delta))
    return out


def steady(windows: Sequence[float], tolerance: float) -> bool:
    """Whether no two windows differ by more than the factor ``1 + tolerance``: a run steadier
    than the tolerance it is judged by. The first window is not judged: it holds the traffic's
    start (cold caches, an NF's first keys learned). Fewer than two windows besides: nothing
    to say otherwise."""
    rest = windows[1:]
    return len(rest) < 2 or max(rest) <= (1 + tolerance) * min(rest)
