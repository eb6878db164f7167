"""The paper's printed figures beside nfvperf's, and what the printed Sec. 2.2 would give instead.

``reproduce()`` is the main job of ``nfvperf demo``. For each figure of Baldi & Sapio that concerns
the packaged models (``data/paper/baldi_sapio_2018.yaml``) it computes the same quantity with the
``xeon-e5-2690v2`` profile, under the paper's binary prefixes and in SI, and judges it: reproduced
(rounded or truncated to the printed digits), inconsistent in the paper (with the reason and what the
printed value would imply in the model's terms), or not reproduced. It then compares the profile
with ``xeon-e5-2690v2-printed`` one setting at a time, so each convention's effect is visible.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from decimal import ROUND_DOWN, ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

from typing_extensions import TypedDict

from nfvperf import units
from nfvperf.eo.estimate import Estimate, estimate
from nfvperf.eo.model import NFModel, load_nf
from nfvperf.eo.platform import Platform, load_platform
from nfvperf.output import contract

FIGURES_FILE = Path(__file__).resolve().parent.parent / "data" / "paper" / "baldi_sapio_2018.yaml"
PRINTED_PROFILE = "xeon-e5-2690v2-printed"
#: The NF paths of Section 3, in the paper's order (for the profile comparison).
SECTION3 = (("l2fwd@paper", "main"), ("learnsw@paper", "main"),
            ("mpls@paper", "main"), ("bng@paper", "access"), ("bng@paper", "core"))

REPRODUCED = "reproduced"
TRUNCATED = "reproduced (truncated)"
DOUBTED = "inconsistent in the paper"
MISSED = "NOT reproduced"


@contract
@dataclass(frozen=True)
class FigureCheck:
    """One figure the paper prints beside the same quantity computed by nfvperf."""

    platform: str
    where: str
    """Where the paper prints it (section, figure)."""
    nf: str
    path: str
    packet_size: int
    cores: int
    quantity: str
    """What it is (cycles, DRAM accesses, Mpps, Gbps ...)."""
    printed: str
    """As printed, digits as the paper gives them."""
    ours: float | None
    """nfvperf's, under the paper's binary prefixes."""
    ours_si: float | None
    """nfvperf's in SI."""
    status: str
    """reproduced, reproduced (truncated), inconsistent in the paper, or NOT reproduced."""
    reason: str = ""
    """Why the paper is inconsistent there."""
    implied: str = ""
    """What the printed value would imply in the model's terms."""


@contract
@dataclass(frozen=True)
class SettingEffect:
    """What changing one profile setting to its printed value does to each Section 3 path."""

    setting: str
    """The profile field."""
    ours: Any
    """Its value in the reproducing profile."""
    printed: Any
    """Its value as Sec. 2.2 prints it."""
    delta_cycles: dict[str, float]
    """Cycles a packet it adds, by NF path."""
    delta_dram: dict[str, float]
    """DRAM accesses a packet it adds, by NF path."""
    cpu_rate_factor: float
    memory_rate_factor: float


@contract
class ProfileTotal(TypedDict):
    """A Section 3 path under the reproducing profile and under Sec. 2.2 as printed."""

    nf: str
    cycles: float
    dram: float
    cpu_mpps: float
    memory_mpps: float
    printed_cycles: float
    printed_dram: float
    printed_cpu_mpps: float
    printed_memory_mpps: float


@contract
class DemoReport(TypedDict):
    """What ``nfvperf demo --format json`` prints."""

    platform: str
    """The reproducing profile."""
    figures: list[FigureCheck]
    printed_profile: str
    """The profile that takes Sec. 2.2 literally."""
    setting_effects: list[SettingEffect]
    totals: list[ProfileTotal]


@dataclass(frozen=True)
class Reproduction:
    platform: str
    figures: list[FigureCheck]
    effects: list[SettingEffect]
    totals: list[ProfileTotal] = field(default_factory=list)

    def to_dict(self) -> DemoReport:
        return {"platform": self.platform, "figures": [asdict(f) for f in self.figures],
                "printed_profile": PRINTED_PROFILE,
                "setting_effects": [asdict(e) for e in self.effects], "totals": self.totals}


def reproduce() -> Reproduction:
    from nfvperf.io import load_yaml, read_text

    spec = load_yaml(read_text(FIGURES_FILE), str(FIGURES_FILE)).data
    name = spec["platform"]
    platforms: dict[str, tuple[Platform, Platform]] = {}
    models: dict[str, NFModel] = {}
    figures = []
    for fig in spec["figures"]:
        nf = models.setdefault(fig["nf"], load_nf(fig["nf"]))
        pname = fig.get("platform", name)
        if pname not in platforms:
            platforms[pname] = (load_platform(pname, prefixes=units.BINARY), load_platform(pname))
        figures.append(_check(fig, nf, *platforms[pname]))
    si = platforms[name][1]
    printed = load_platform(PRINTED_PROFILE)
    return Reproduction(name, figures, _effects(si, printed, models),
                        _totals(si, printed, models))


def _row(nf: NFModel, platform: Platform, path: str, frame: int = 64, cores: int = 1) -> Estimate:
    rows = estimate(nf, platform, frame_bytes=frame, cores=cores)
    return next(r for r in rows if r.path == path)


def _check(fig: dict[str, Any], nf: NFModel, paper: Platform, si: Platform) -> FigureCheck:
    path = fig.get("path", nf.paths[0].name)
    frame, cores, quantity = fig.get("packet_size", 64), fig.get("cores", 1), fig["quantity"]
    ours = _row(nf, paper, path, frame, cores).to_dict()[quantity]
    ours_si = _row(nf, si, path, frame, cores).to_dict()[quantity]
    printed = str(fig["printed"])
    status = _judge(ours, printed)
    reason = fig.get("note", "")
    implied = ""
    if status == MISSED and "doubt" in fig:
        status, reason = DOUBTED, fig["doubt"]
        implied = _implied(quantity, Decimal(printed), paper, frame, cores)
    return FigureCheck(paper.name, fig["where"], nf.name, path, frame, cores, quantity, printed, ours,
                       ours_si, status, reason, implied)


def _judge(ours: float | None, printed: str) -> str:
    if ours is None:
        return MISSED
    want = Decimal(printed)
    exp = want.as_tuple().exponent
    quantum = Decimal(1).scaleb(exp if isinstance(exp, int) else 0)
    value = Decimal(repr(ours))
    if value.quantize(quantum, rounding=ROUND_HALF_UP) == want:
        return REPRODUCED
    if value.quantize(quantum, rounding=ROUND_DOWN) == want:
        return TRUNCATED
    return MISSED


def _implied(quantity: str, printed: Decimal, p: Platform, frame: int, cores: int) -> str:
    """What a printed rate would mean in the model's own terms, under the paper's prefixes."""
    value = float(printed)
    pre = p.prefixes
    if quantity == "cpu_bound_mpps":
        return f"{cores * p.cpu.clock_hz / (value * pre.mega):.1f} cycles per packet"
    if quantity == "memory_bound_mpps":
        accesses = 1 / (value * pre.mega * p.memory.access_latency_s)
        return f"{accesses:.2f} DRAM accesses per packet"
    if quantity.endswith("_gbps"):
        return f"{value * pre.giga / units.wire_bits(frame) / pre.mega:.2f} Mpps"
    return ""


def _label(nf: str, path: str) -> str:
    return nf if path == "main" else f"{nf}/{path}"


def _effects(si: Platform, printed: Platform, models: dict[str, NFModel]) -> list[SettingEffect]:
    base = {(n, p): _row(models[n], si, p) for n, p in SECTION3}
    ours, theirs = _leaves(si.model_dump(by_alias=True)), _leaves(printed.model_dump(by_alias=True))
    effects = []
    for key in ours:
        if key[0] in ("name", "description", "source") or ours[key] == theirs.get(key):
            continue
        variant = _with(si, key, theirs[key])
        rows = {(n, p): _row(models[n], variant, p) for n, p in SECTION3}
        first = base[SECTION3[0]]
        mem_path = next(k for k in SECTION3 if math.isfinite(base[k].memory_bound_pps))
        effects.append(SettingEffect(
            ".".join(key), ours[key], theirs[key],
            {_label(*k): rows[k].cycles_per_packet - base[k].cycles_per_packet for k in SECTION3},
            {_label(*k): rows[k].dram_accesses_per_packet - base[k].dram_accesses_per_packet
             for k in SECTION3},
            rows[SECTION3[0]].cpu_bound_pps_per_core / first.cpu_bound_pps_per_core,
            rows[mem_path].memory_bound_pps / base[mem_path].memory_bound_pps,
        ))
    return effects


def _totals(si: Platform, printed: Platform, models: dict[str, NFModel]) -> list[ProfileTotal]:
    out = []
    for n, p in SECTION3:
        a, b = _row(models[n], si, p), _row(models[n], printed, p)
        out.append({"nf": _label(n, p), "cycles": a.cycles_per_packet,
                    "dram": a.dram_accesses_per_packet,
                    "cpu_mpps": a.cpu_bound_pps_per_core / 1e6,
                    "memory_mpps": a.memory_bound_pps / 1e6,
                    "printed_cycles": b.cycles_per_packet, "printed_dram": b.dram_accesses_per_packet,
                    "printed_cpu_mpps": b.cpu_bound_pps_per_core / 1e6,
                    "printed_memory_mpps": b.memory_bound_pps / 1e6})
    return out


def _leaves(data: dict[str, Any], prefix: tuple = ()) -> dict[tuple, Any]:
    out = {}
    for key, value in data.items():
        if isinstance(value, dict):
            out.update(_leaves(value, prefix + (key,)))
        else:
            out[prefix + (key,)] = value
    return out


def _with(platform: Platform, key: tuple, value: Any) -> Platform:
    data = platform.model_dump(by_alias=True)
    node = data
    for part in key[:-1]:
        node = node[part]
    node[key[-1]] = value
    variant = Platform.model_validate(data)
    variant._prefixes = platform.prefixes
    return variant


#: Frame sizes of the figure panels: RFC 2544's, and 78 B, PROX's smallest (Sec. 4.2).
PANEL_FRAMES = (64, 78, 128, 256, 512, 1024, 1280, 1518)


def figure_panels() -> list[tuple[str, list[Estimate], list[Estimate]]]:
    """The estimate lines of Figs. 10-13 in SI: the three L2 switches on one core, and the BNG's
    two directions on 6 cores of the 4-port testbed, generic and platform specific (half of the
    packets in the other socket's L3, Sec. 4.2)."""
    paper = load_platform("xeon-e5-2690v2")
    bng_bed = load_platform("xeon-e5-2690v2-bng")

    def sweep(nf: str, platform: Platform, path: str, **kw: Any) -> list[Estimate]:
        model = load_nf(nf)
        return [r for f in PANEL_FRAMES for r in estimate(model, platform, frame_bytes=f, **kw)
                if r.path == path]

    return [
        ("Fig. 10: basic forwarding, 1 core", sweep("l2fwd@paper", paper, "main"), []),
        ("Fig. 11: learning switch, 1 core", sweep("learnsw@paper", paper, "main"), []),
        ("Fig. 12: MPLS switch, 1 core", sweep("mpls@paper", paper, "main"), []),
        ("Fig. 13: BNG, both directions, 6 cores, 4 ports",
         sweep("bng@paper", bng_bed, "mix", cores=6),
         sweep("bng@paper", bng_bed, "mix", cores=6, remote_fraction=0.5)),
    ]
