"""What each NF is validated on: the traffic the generator sends and the tables the NF holds
for it, and the model parameters that say the same (``nfvperf validate dataplane``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from nfvperf.limits import GEN_SRC_NET


@dataclass(frozen=True)
class Workload:
    """What an NF is validated on: the generator's options (the traffic), the NF's (its
    tables) and the model's (its params, and the path these packets take: None for the
    model's mix or only path)."""

    name: str
    gen: tuple[str, ...] = ()
    nf_args: tuple[str, ...] = ()
    params: dict[str, float] = field(default_factory=dict)
    mpls: bool = False
    path: str | None = None
    min_frame: int = 64


def _bng(subs: int) -> list[Workload]:
    """The BNG's two directions over `subs` subscribers: QinQ tag pairs swept over the
    subscriber table towards /24 routes; GRE keys and inner addresses swept over the core
    table (filled with as many customers). The access side learns each subscriber's source
    (the generator's one flow) into the core table; those entries are there from the start,
    so that the run measures the steady state its path describes, not a first pass of
    insertions (which at 1 M subscribers would be half of a run's packets)."""
    args = ("--subscribers", str(subs), "--core-entries", str(2 * subs), "--port-base", "1")
    params = {"subscribers": subs, "core_entries": 2 * subs}
    learned = ("--core-fill", str(subs), "--core-ip-base", f"{GEN_SRC_NET}.0.0.0",
               "--core-ip-step", "0")
    return [
        Workload(f"access, {subs} subscribers, /24 routes", path="access",
                gen=("--encap", "qinq", "--vlan-count", str(subs), "--dst-ip-base",
                     "10.0.0.1", "--dst-ip-step", "256", "--dst-ip-count", "65536"),
                nf_args=(*args, *learned), params={**params, "prefix_bytes": 3}),
        Workload(f"core, {subs} subscribers", path="core", min_frame=96,
                gen=("--encap", "gre", "--dst-ip-base", "10.0.0.1", "--dst-ip-count",
                     str(subs)),
                nf_args=(*args, "--core-fill", str(subs)), params=params),
    ]


def cases(quick: bool) -> dict[str, list[Workload]]:
    """The NFs validated and the traffic each needs: the paper's few vs many destinations
    (and destinations the table lacks: its hit rate), sources spread over the table, routes that
    end within the first DIR-24-8 table or need the second, one flow vs many, tables that fit
    the caches vs tables in DRAM; payload scanned byte by byte."""
    entries = 1 << 16 if quick else 1 << 21
    table = ("--entries", str(entries), "--port-base", "1")
    conns = 1 << 12 if quick else 1 << 16   # the generator's flows: at most 65536
    return {
        "l2fwd": [
            Workload("1 destination", nf_args=table,
                     params={"entries": entries, "destinations": 1}),
            Workload(f"{entries} destinations", gen=("--dst-mac-count", str(entries)),
                     nf_args=table, params={"entries": entries, "destinations": entries}),
            Workload(f"{2 * entries} destinations, half unknown (dropped)",
                     gen=("--dst-mac-count", str(2 * entries)), nf_args=table,
                     params={"entries": entries, "destinations": 2 * entries}),
        ],
        "learnsw": [
            Workload("1 destination", nf_args=table,
                     params={"entries": entries, "destinations": 1, "sources": 1}),
            Workload(f"{entries} destinations", gen=("--dst-mac-count", str(entries)),
                     nf_args=table,
                     params={"entries": entries, "destinations": entries, "sources": 1}),
            Workload(f"{entries} sources", gen=("--src-mac-count", str(entries)),
                     nf_args=table,
                     params={"entries": entries, "destinations": 1, "sources": entries}),
        ],
        "router": [
            Workload("/24 routes", gen=("--dst-ip-base", "10.0.0.1", "--dst-ip-step", "256",
                                       "--dst-ip-count", "65536"),
                     nf_args=("--port-base", "1"),
                     params={"prefix_bytes": 3, "destinations": 65536}),
            Workload("/28 routes", gen=("--dst-ip-base", "11.0.0.1", "--dst-ip-step", "16",
                                       "--dst-ip-count", "4096"),
                     nf_args=("--port-base", "1"),
                     params={"prefix_bytes": 4, "destinations": 4096}),
        ],
        "mpls": [Workload("one label", mpls=True)],
        "nat": [
            Workload("1 flow", nf_args=("--entries", str(conns)),
                     params={"entries": conns, "flows": 1}),
            Workload(f"{conns} flows", gen=("--flows", str(conns)),
                     nf_args=("--entries", str(conns)), params={"entries": conns, "flows": conns}),
        ],
        "ids": [Workload("100 random signatures, payload without matches")],
        # 64K subscribers: tables in L3; 1M: in DRAM (the paper's 16M does not fit 1 GB of
        # hugepages)
        "bng": _bng(1 << 16) + ([] if quick else _bng(1 << 20)),
    }
