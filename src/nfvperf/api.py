"""Library calls behind the CLI verbs: what a script would call to get the same results."""

from __future__ import annotations

from typing import Any

from typing_extensions import TypedDict

from nfvperf import limits, units
from nfvperf.eo.estimate import Estimate, estimate
from nfvperf.eo.model import load_nf
from nfvperf.eo.platform import load_platform
from nfvperf.output import contract


def estimate_rows(models: list[str], *, platform: str, frame_sizes: list[int], cores: int = 1,
                  remote_fraction: float = 0.0, paper_units: bool = False,
                  params: dict[str, float] | None = None,
                  burst: float = limits.NF_MAX_BURST,
                  neighbours: list[tuple[float, float]] | None = None,
                  rate_pps: float | None = None) -> list[Estimate]:
    """Estimates of every path of every model at every frame size (``nfvperf estimate``).

    ``neighbours``: (bytes, lines loaded a second) of processes on cores that share this one's
    last-level cache, at the NF's packet rate ``rate_pps`` (None: the NF saturated, its CPU
    bound alone); read where the profile counts memory stalls in cycles."""
    from nfvperf.eo.memory import Neighbour, Sharing
    from nfvperf.errors import InputError

    for size in frame_sizes:
        units.check_frame_bytes(size, field="packet_size")
    plat = load_platform(platform, prefixes=units.BINARY if paper_units else units.SI)
    if neighbours and plat.conventions.memory_stalls != "cycles":
        raise InputError("a profile with conventions.memory_stalls: cycles for --neighbour",
                         plat.conventions.memory_stalls, field="conventions.memory_stalls")
    if rate_pps is not None and not rate_pps > 0:
        raise InputError("a packet rate > 0", rate_pps, field="--rate-mpps")
    sharing = Sharing(tuple(Neighbour(b, r) for b, r in neighbours), rate_pps,
                      plat.cache_l1_l2_bytes) if neighbours else None
    nfs = [load_nf(ref) for ref in models]
    rows: list[Estimate] = []
    for nf in nfs:
        for size in frame_sizes:
            rows += estimate(nf, plat, frame_bytes=size, cores=cores,
                             remote_fraction=remote_fraction, params=params, burst=burst,
                             sharing=sharing)
    return rows


@contract
class ModelEntry(TypedDict):
    """A packaged NF model, as ``nfvperf list models`` lists it."""

    name: str
    """What estimate, explain, chain files and the data plane call it."""
    paths: list[str]
    operations: int
    """EO lines over all its paths."""
    source: str | None
    """Where the model comes from (a paper's section, nfvperf's C code)."""
    description: str
    """Its description's first sentence."""


@contract
class PlatformEntry(TypedDict):
    """A packaged platform profile, as ``nfvperf list platforms`` lists it."""

    name: str
    cpu: str
    clock_ghz: float
    cores: int
    nic_ports: int
    link_gbps: float
    """A port's rate."""
    source: str | None
    description: str


@contract
class EOEntry(TypedDict):
    """An elementary operation of the catalogue, as ``nfvperf list eos`` lists it."""

    name: str
    params: list[str]
    dual: str | None
    """The EO that does the same the other way (I/O_mem and mem_I/O)."""
    aliases: list[str]
    """Other names a model may write it by."""
    description: str


def catalogue(what: str) -> list[ModelEntry] | list[PlatformEntry] | list[EOEntry]:
    """The packaged models (``models``), profiles (``platforms``) or EOs (``eos``)."""
    if what == "models":
        from nfvperf.nfs import packaged_models

        out = []
        for name in packaged_models():
            nf = load_nf(name)
            out.append({"name": name, "paths": [p.name for p in nf.paths],
                        "operations": sum(len(p.operations) for p in nf.paths),
                        "source": nf.source, "description": _first_sentence(nf.description)})
        return out
    if what == "platforms":
        from nfvperf.eo.platform import packaged_platforms

        out = []
        for name in packaged_platforms():
            p = load_platform(name)
            out.append({"name": name, "cpu": p.cpu.model, "clock_ghz": p.cpu.clock_hz / 1e9,
                        "cores": p.cores, "nic_ports": p.nic.ports,
                        "link_gbps": p.nic.link_bps / 1e9, "source": p.source,
                        "description": _first_sentence(p.description)})
        return out
    from nfvperf.eo.operations import CATALOGUE

    return [{"name": s.name, "params": [p.name for p in s.params], "dual": s.dual,
             "aliases": list(s.aliases), "description": s.doc} for s in CATALOGUE]


def json_schema(what: str) -> dict[str, Any]:
    """The JSON Schema of model, platform, chain, simulator options (``sim``) or plan files."""
    if what == "model":
        from nfvperf.eo.model import NFModelFile as cls
    elif what == "chain":
        from nfvperf.chain import ChainSpec as cls
    elif what == "sim":
        from nfvperf.sim.options import SimOptions as cls
    elif what == "plan":
        from nfvperf.plan.spec import PlanSpec as cls
    else:
        from nfvperf.eo.platform import Platform as cls
    schema = cls.model_json_schema(by_alias=True, mode="validation")
    if what == "platform":
        schema = _with_partial_variant(schema)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return schema


def _with_partial_variant(schema: dict[str, Any]) -> dict[str, Any]:
    """A profile with a ``base`` may leave out any field but its name: accept either the full
    schema or a copy of it in which only ``name`` and ``base`` are required."""
    import copy
    import json

    defs = schema.pop("$defs", {})
    full = schema
    partial = json.loads(json.dumps(copy.deepcopy(full)).replace('"#/$defs/', '"#/$defs/Partial'))
    partial_defs = {f"Partial{k}": json.loads(json.dumps(v).replace('"#/$defs/', '"#/$defs/Partial'))
                    for k, v in defs.items()}
    for node in (partial, *partial_defs.values()):
        node.pop("required", None)
    partial["required"] = ["name", "base"]
    return {"title": full.get("title", "Platform"), "description": full.get("description", ""),
            "anyOf": [full, partial], "$defs": {**defs, **partial_defs}}


def _first_sentence(text: str) -> str:
    head = text.split(". ")[0].strip()
    return head if head.endswith(".") else head + "."


def batch_queue(*, service_times: str, beta: int, queue: int, rate_mbps: float | None = None,
                packet_size: int | None = None, rate_mpps: float | None = None,
                arrivals: str = "poisson", dt_ns: float = 10.0, service_rate: float | None = None,
                service_distribution: str = "poisson"):
    """The model's inputs from the options of ``nfvperf batching`` and ``nfvperf simulate``."""
    import math

    from nfvperf.batching.arrivals import interarrival, packet_rate_pps
    from nfvperf.batching.fit import read_table
    from nfvperf.batching.model import BatchQueue
    from nfvperf.errors import InputError

    if not (isinstance(dt_ns, (int, float)) and math.isfinite(dt_ns) and dt_ns > 0):
        raise InputError("a time step > 0 ns", dt_ns, field="dt_ns")
    BatchQueue.check_sizes(queue, beta)         # before the service times are read for β
    if (rate_mpps is None) == (rate_mbps is None):
        raise InputError("a bit rate (with a frame size) or a packet rate", "both" if rate_mpps
                         is not None else "neither", field="rate_mbps")
    given, field = (rate_mbps, "rate_mbps") if rate_mbps is not None else (rate_mpps,
                                                                           "rate_mpps")
    if not (math.isfinite(given) and given >= 0):
        raise InputError("a finite rate ≥ 0", given, field=field)
    if rate_mbps is not None:
        rate = packet_rate_pps(rate_bps=rate_mbps * 1e6, frame_bytes=packet_size or 64)
    else:
        rate = packet_rate_pps(rate_pps=rate_mpps * 1e6)
    dt = dt_ns * 1e-9
    table = read_table(service_times, beta, rate_mbps=service_rate)
    return BatchQueue(queue, beta, interarrival(arrivals, rate, dt),
                      table.pmfs(dt, service_distribution), dt)


def replay_gaps(path, dt_s: float):
    """Interarrival gaps (in steps of ``dt_s``) from a file of arrival timestamps in ns."""
    import numpy as np

    from nfvperf.errors import InputError
    from nfvperf.io import read_text

    values = []
    for n, line in enumerate(read_text(path).splitlines(), start=1):
        text = line.split("#", 1)[0].strip().split(",")[0]
        if not text:
            continue
        try:
            values.append(float(text))
        except ValueError:
            if not values:       # a header line
                continue
            raise InputError("a timestamp in ns", text, file=str(path), line=n) from None
    t = np.asarray(values)
    if t.size < 3 or not np.all(np.isfinite(t)) or np.any(np.diff(t) < 0):
        raise InputError("three or more finite timestamps in increasing order", "other values",
                         file=str(path))
    slots = np.floor(t * 1e-9 / dt_s).astype(np.int64)
    return np.diff(slots)
