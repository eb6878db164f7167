"""nfvperf: predict, measure and plan the performance of software network functions.

The public API is imported lazily, so that ``import nfvperf`` stays cheap::

    import nfvperf as nfv
    nf = nfv.load_nf("l2fwd@paper")                  # an NF's EO model (nfv.nfs: the catalogue)
    platform = nfv.load_platform("xeon-e5-2690v2")
    [row] = nfv.estimate(nf, platform, frame_bytes=64, cores=1)
    row.cycles_per_packet, row.throughput_pps, row.to_dict()

    chain = nfv.load_chain("nat-ids.yaml")           # one chain, two back ends, one record
    predicted = nfv.simulate_chain(chain, platform, duration_s=1.0)
    nfv.predict_chain(chain, platform)               # the batching model where it applies
    measured = nfv.run_chain(chain, duration_s=1.0)  # the DPDK data plane
    predicted.to_dict().keys() == measured.to_dict().keys()

Every failure the library raises on purpose is an ``NfvperfError``: ``InputError`` (bad input,
naming the file, line and field or the parameter), ``RuntimeFailure`` (the host), ``Infeasible``
(no plan meets the targets).
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__version__ = "0.2.0"       # the one copy: pyproject.toml reads it

_EXPORTS = {
    "InputError": "nfvperf.errors",
    "NfvperfError": "nfvperf.errors",
    "RuntimeFailure": "nfvperf.errors",
    "BatchQueue": "nfvperf.batching.model",
    "simulate": "nfvperf.sim.batch_queue",
    "ChainSpec": "nfvperf.chain",
    "ChainResult": "nfvperf.chain",
    "TrafficClass": "nfvperf.chain",
    "load_chain": "nfvperf.chain",
    "SimOptions": "nfvperf.sim.options",
    "simulate_chain": "nfvperf.sim.chain",
    "predict_chain": "nfvperf.sim.analytic",
    "run_chain": "nfvperf.dataplane.chain",
    "load_plan": "nfvperf.plan.spec",
    "plan": "nfvperf.plan",
    "Infeasible": "nfvperf.plan.program",
    "nfs": "nfvperf.nfs",
    "limits": "nfvperf.limits",
    "load_nf": "nfvperf.eo.model",
    "parse_nf": "nfvperf.eo.model",
    "load_platform": "nfvperf.eo.platform",
    "estimate": "nfvperf.eo.estimate",
    "Estimate": "nfvperf.eo.estimate",
    "NFModel": "nfvperf.eo.model",
    "Platform": "nfvperf.eo.platform",
    "units": "nfvperf.units",
}

_MODULES = {"units", "nfs", "limits", "plan"}    # nfv.plan.plan(spec): the planner

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'nfvperf' has no attribute {name!r}")
    value = import_module(module)
    return value if name in _MODULES else getattr(value, name)


def __dir__() -> list[str]:
    return __all__
