"""The NF catalogue: one name per network function, used everywhere (estimate, explain, the data
plane, validate, plan, chain files).

Each NF says what the data plane runs (its binary, ``nfvp-nf-<name>``), whether it keeps
per-flow state, what drives its cost (packets for header NFs, bytes for payload NFs) and its EO
model: ``NAME`` is the model of what nfvperf's own C code does, ``NAME@paper`` the model as Baldi
& Sapio print it (Sec. 3, Fig. 6-8), where the paper has one. Both are package data
(``nfvperf/data/nfs/``), so an installed nfvperf has every model.

The names of earlier releases (``l2_basic_forwarding``, ``l2_learning_switch``,
``mpls_switch``) are still read, with a one-line notice naming the new spelling.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from nfvperf.errors import InputError

MODELS_DIR = Path(__file__).resolve().parent / "data" / "nfs"
#: the variant suffix of a model as a paper prints it
PAPER = "paper"


class RenamedWarning(FutureWarning):
    """A name of an earlier release was used; the message names the new spelling."""


@dataclass(frozen=True)
class NF:
    """One network function of the catalogue."""

    name: str
    summary: str
    stateless: bool
    cost: Literal["packets", "bytes"]
    has_model: bool = True       # an EO model of the C code ships with nfvperf
    has_paper_model: bool = False
    generic_traffic: bool = False  # `dataplane run` feeds it its generic traffic
    #: options each instance needs of its own ({k}: the instance's index)
    instance_args: tuple[str, ...] = ()
    #: it picks each packet's output port from its table (--port-base + entry mod --ports):
    #: a chain run gives it the chain's port as its base, so what it forwards leaves there
    picks_port: bool = False

    @property
    def binary(self) -> str:
        """The data plane's executable."""
        return f"nfvp-nf-{self.name}"

    def passes(self, headers, args: tuple[str, ...] = (), flows: tuple[int, ...] = (1,),
               instances: int = 1) -> float:
        """The share of packets with these headers (``chain.headers.Headers``), sent as
        ``flows`` (each class's) to ``instances`` instances, that the NF hands on with these
        options: the rest it drops by design (no route, no MAC entry, no port left)."""
        rule = DROP_RULES.get(self.name)
        return 1.0 if rule is None else rule(headers, _options(args), flows, instances)

    def models(self) -> list[str]:
        """The references of its packaged EO models."""
        return ([self.name] if self.has_model else []) + \
            ([f"{self.name}@{PAPER}"] if self.has_paper_model else [])


CATALOGUE: dict[str, NF] = {nf.name: nf for nf in (
    NF("signature", "checks a payload signature, drops what fails", True, "packets",
       has_model=False, generic_traffic=True),
    NF("forward", "hands every packet on, its MAC addresses rewritten", True, "packets",
       generic_traffic=True),
    NF("mpls", "MPLS label swap (Baldi & Sapio Sec. 3.1.3)", True, "packets",
       has_paper_model=True, generic_traffic=True),
    NF("counter", "counts packets and bytes per flow", False, "packets", has_model=False,
       generic_traffic=True),
    NF("l2fwd", "L2 basic forwarding over a MAC table (Sec. 3.1.1)", True, "packets",
       has_paper_model=True, picks_port=True),
    NF("learnsw", "L2 learning switch (Sec. 3.1.2)", False, "packets", has_paper_model=True,
       picks_port=True),
    NF("router", "IPv4 router, LPM lookup", True, "packets", picks_port=True),
    NF("nat", "source NAT (NAPT)", False, "packets",
       instance_args=("--public-ip", "192.0.2.1{k}")),
    NF("bng", "broadband network gateway, after Intel DPPD (Sec. 3.2)", False, "packets",
       has_paper_model=True, picks_port=True),
    NF("ids", "Aho-Corasick IDS over every payload byte", False, "bytes"),
)}

def _options(args: tuple[str, ...]) -> dict[str, str]:
    """An NF's ``--name value`` options as a mapping (``--name=value`` too)."""
    out, key = {}, None
    for a in args:
        if key is not None:
            out[key], key = a, None
        elif a.startswith("--"):
            name, eq, value = a[2:].partition("=")
            if eq:
                out[name] = value
            else:
                key = name
    return out


def _int(opts: dict[str, str], name: str, default: int) -> int:
    try:
        return int(opts[name], 0) if name in opts else default
    except ValueError:
        raise InputError("an integer", opts[name], field=f"--{name}") from None


#: the router's tables (dataplane/nfs/router/main.c; a test reads its defaults there): /24
#: routes 10.(r >> 8).(r & 255).0 for r < --routes, /28 routes of 11.0.0.0/12 (r in the
#: address's bits 4-23) for r < --long-routes; anything else, and what is not IPv4, is dropped
ROUTER_ROUTES, ROUTER_LONG_ROUTES = 65536, 4096
#: the switches' MAC table (dataplane/nfs/common/mac_table.h): --fill (default --entries,
#: default 2 Mi) MACs from 02:00:00:00:00:00 up, the generator's first destination MAC
MAC_TABLE_ENTRIES = 2 << 20


def _router(headers, opts: dict[str, str], flows, instances) -> float:
    if headers.encap != "none":         # an MPLS, S-tag or GRE-over-MPLS frame: not IPv4
        return 0.0
    ip = headers.dst_ip.addresses()
    routes = _int(opts, "routes", ROUTER_ROUTES)
    long_routes = _int(opts, "long-routes", ROUTER_LONG_ROUTES)
    a = ip >> 24
    hit = ((a == 10) & (((ip >> 8) & 0xFFFF) < routes)) | \
        ((a == 11) & (((ip >> 4) & 0xFFFFF) < long_routes))
    return float(hit.mean())


def _l2fwd(headers, opts: dict[str, str], flows, instances) -> float:
    if "mac-base" in opts:
        raise InputError("the MAC table's default base (a chain's destination MACs start at "
                         "02:00:00:00:00:00)", opts["mac-base"], field="--mac-base")
    fill = _int(opts, "fill", 0) or _int(opts, "entries", MAC_TABLE_ENTRIES)
    return min(fill, headers.dst_mac_count) / headers.dst_mac_count


#: the NAT's connections (dataplane/nfs/nat/main.c; a test reads its defaults there): at most
#: --entries, one public port each from --port-min up to 65535, never reused
NAT_ENTRIES, NAT_PORT_MIN = 65536, 1024


def _nat(headers, opts: dict[str, str], flows, instances) -> float:
    """A connection is a flow to one destination (packet i of a run goes to the sweep's
    i-th address): one class's flows in turn meet the addresses in lcm(flows, count) pairs,
    several classes' in every pair. Each instance opens as many as it has ports and entries;
    once they are gone, the packets of every later connection are dropped, for good (the
    share in the long run)."""
    count = headers.dst_ip.count
    pairs = math.lcm(flows[0], count) if len(flows) == 1 else sum(f * count for f in flows)
    each = min(_int(opts, "entries", NAT_ENTRIES), 65536 - _int(opts, "port-min", NAT_PORT_MIN))
    return min(1.0, max(each, 0) * instances / pairs)


#: NFs that drop packets by design, and the share they hand on
DROP_RULES = {"router": _router, "l2fwd": _l2fwd, "nat": _nat}

#: names of earlier releases -> the reference that replaces them
RENAMED = {"l2_basic_forwarding": "l2fwd@paper", "l2_learning_switch": "learnsw@paper",
           "mpls_switch": "mpls@paper"}


def names() -> tuple[str, ...]:
    """Every NF's name, in the catalogue's order."""
    return tuple(CATALOGUE)


def get(name: str, *, field: str = "nf") -> NF:
    """The NF of that name; :class:`InputError` naming ``field`` otherwise."""
    nf = CATALOGUE.get(name)
    if nf is None:
        raise InputError("an NF of the catalogue (" + ", ".join(CATALOGUE) + ")", name,
                         field=field)
    return nf


def packaged_models() -> list[str]:
    """References of every packaged EO model (``NAME`` and ``NAME@paper``), sorted."""
    return sorted(ref for nf in CATALOGUE.values() for ref in nf.models())


def renamed(ref: str) -> str:
    """``ref`` with an earlier release's name replaced by the current one (and a notice)."""
    new = RENAMED.get(ref)
    if new is None:
        return ref
    warnings.warn(f"{ref} is now called {new}; the old name goes in the next release",
                  RenamedWarning, stacklevel=3)
    return new


def model_file(ref: str) -> Path | None:
    """The packaged file of a model reference (``l2fwd``, ``bng@paper``, an earlier name), or
    None when ``ref`` names no packaged model."""
    name, _, variant = renamed(ref).partition("@")
    nf = CATALOGUE.get(name)
    if nf is None or f"{name}@{variant}".rstrip("@") not in nf.models():
        return None
    return MODELS_DIR / (f"{variant}/{name}.yaml" if variant else f"{name}.yaml")
