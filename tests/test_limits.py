"""The C header of shared limits and names against its Python mirror: one fact, one value."""

from __future__ import annotations

import re
from pathlib import Path

from nfvperf import limits

HEADER = Path(__file__).resolve().parents[1] / "dataplane" / "include" / "nfvp_limits.h"


def parse_header(text: str) -> dict[str, object]:
    """``#define NFVP_X value`` lines: integers, or comma-separated string lists."""
    out: dict[str, object] = {}
    for name, value in re.findall(r"^#define NFVP_(\w+)\s+(.+?)\s*(?:/\*.*)?$", text, re.M):
        if value.startswith('"'):
            out[name] = tuple(re.findall(r'"([^"]*)"', value))
        elif re.fullmatch(r"\d+", value):
            out[name] = int(value)
    return out


def enum_members(text: str, enum: str) -> list[str]:
    body = re.search(r"enum %s \{(.*?)\};" % enum, text, re.S).group(1)
    return [m.split("=")[0].strip() for m in body.split(",") if m.strip()]


def test_every_header_fact_has_its_python_twin_with_the_same_value():
    facts = parse_header(HEADER.read_text())
    assert {"MAX_FLOWS", "MAX_FRAME", "POLICY_NAMES", "ARCH_NAMES"} <= set(facts)
    for name, value in facts.items():
        assert getattr(limits, name) == value, name
    public = {n for n in vars(limits) if n.isupper()}
    assert public == set(facts), "limits.py holds a fact the header lacks"


def test_name_lists_follow_the_enums_order():
    text = HEADER.read_text()
    archs = enum_members(text, "nfvp_arch")[:-1]
    policies = enum_members(text, "nfvp_policy")[:-1]
    assert [a.removeprefix("NFVP_ARCH_").lower().replace("_", "-") for a in archs] == \
        list(limits.ARCH_NAMES)
    assert len(policies) == len(limits.POLICY_NAMES)
    assert policies[limits.POLICY_NAMES.index("round-robin")] == "NFVP_POL_RR"
    reasons = enum_members(text, "nfvp_drop_reason")[:-1]
    assert [r.removeprefix("NFVP_DROP_").lower() for r in reasons] == \
        list(limits.DROP_REASON_NAMES)


def test_parser_reads_defines_and_lists():
    facts = parse_header('#define NFVP_A 3 /* x */\n#define NFVP_B "p", "q"\n#define X 4\n')
    assert facts == {"A": 3, "B": ("p", "q")}


def test_the_data_plane_and_the_package_have_one_version():
    import nfvperf

    meson = (HEADER.parents[1] / "meson.build").read_text()
    assert re.search(r"version: '([^']+)'", meson).group(1) == nfvperf.__version__
