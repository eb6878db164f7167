"""nfvperf: predict, measure and plan the performance of software network functions.

The public API is imported lazily, so that ``import nfvperf`` stays cheap::

    import nfvperf as nfv
    nf = nfv.load_nf("l2_basic_forwarding")
    platform = nfv.load_platform("xeon-e5-2690v2")
    [row] = nfv.estimate(nf, platform, frame_bytes=64, cores=1)
    row.cycles_per_packet, row.throughput_pps, row.to_dict()
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    "InputError": "nfvperf.errors",
    "NfvperfError": "nfvperf.errors",
    "load_nf": "nfvperf.eo.model",
    "parse_nf": "nfvperf.eo.model",
    "load_platform": "nfvperf.eo.platform",
    "estimate": "nfvperf.eo.estimate",
    "Estimate": "nfvperf.eo.estimate",
    "NFModel": "nfvperf.eo.model",
    "Platform": "nfvperf.eo.platform",
    "units": "nfvperf.units",
}

_MODULES = {"units"}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'nfvperf' has no attribute {name!r}")
    value = import_module(module)
    return value if name in _MODULES else getattr(value, name)


def __dir__() -> list[str]:
    return __all__
