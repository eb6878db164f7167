"""A chain's headers (what the generator writes: address sweeps, encapsulation) and the share
of them each NF hands on."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nfvperf import nfs
from nfvperf.chain import ChainSpec
from nfvperf.chain.headers import Headers

ROOT = Path(__file__).resolve().parents[2]


def headers(**kw) -> Headers:
    return Headers.model_validate(kw)


def test_the_default_headers_ask_nothing_of_the_generator():
    assert Headers().gen_args() == ()


def test_sweeps_become_the_generators_options():
    h = headers(dst_ip={"base": "10.0.0.1", "step": 256, "count": 4096}, dst_mac_count=8,
                encap="qinq", vlan_count=100)
    assert h.gen_args() == ("--dst-ip-base", "10.0.0.1", "--dst-ip-step", "256",
                            "--dst-ip-count", "4096", "--dst-mac-count", "8", "--vlan-count",
                            "100", "--encap", "qinq")


def test_the_routers_table_in_python_is_the_one_its_c_code_builds():
    text = (ROOT / "dataplane/nfs/router/main.c").read_text()
    m = re.search(r"\.routes = (\d+), \.long_routes = (\d+)", text)
    assert m and (int(m[1]), int(m[2])) == (nfs.ROUTER_ROUTES, nfs.ROUTER_LONG_ROUTES)
    text = (ROOT / "dataplane/nfs/common/mac_table.h").read_text()
    assert re.search(r"\.entries = 2u << 20", text) and nfs.MAC_TABLE_ENTRIES == 2 << 20


@pytest.mark.parametrize("sweep, args, share", [
    ({}, (), 0.0),                                                   # 192.168.0.1: no route
    ({"base": "10.0.0.1", "step": 256, "count": 65536}, (), 1.0),    # every /24
    ({"base": "10.0.0.1", "step": 256, "count": 65536}, ("--routes", "16384"), 0.25),
    ({"base": "11.0.0.1", "step": 16, "count": 4096}, (), 1.0),      # every /28
    ({"base": "11.0.0.1", "step": 16, "count": 8192}, (), 0.5),      # beyond the /28s
    ({"base": "10.255.255.1", "step": 256, "count": 2}, (), 1.0),    # 11.0.0.1: a /28
    ({"base": "11.0.255.241", "step": 16, "count": 2}, (), 0.5),     # the last /28, beyond
])
def test_the_router_hands_on_what_it_has_a_route_for(sweep, args, share):
    assert nfs.get("router").passes(headers(dst_ip=sweep), args) == pytest.approx(share)


def test_the_router_drops_what_is_not_ipv4():
    h = headers(dst_ip={"base": "10.0.0.1"}, encap="mpls")
    assert nfs.get("router").passes(h) == 0.0


@given(st.integers(1, 1 << 22), st.integers(1, 1 << 22))
def test_a_switch_hands_on_the_destinations_its_table_holds(macs, fill):
    share = nfs.get("l2fwd").passes(headers(dst_mac_count=macs), ("--fill", str(fill)))
    assert share == pytest.approx(min(fill, macs) / macs)


def test_nfs_without_tables_hand_everything_on():
    for name in ("forward", "nat", "ids", "mpls"):
        assert nfs.get(name).passes(headers(dst_ip={"count": 7})) == 1.0


def test_the_nats_ports_in_python_are_the_ones_its_c_code_has():
    text = (ROOT / "dataplane/nfs/nat/main.c").read_text()
    m = re.search(r"\.entries = (\d+), \.port_min = (\d+)", text)
    assert m and (int(m[1]), int(m[2])) == (nfs.NAT_ENTRIES, nfs.NAT_PORT_MIN)


@pytest.mark.parametrize("count, flows, args, instances, share", [
    (65536, (32,), (), 1, 64512 / 65536),       # 65 536 connections, 64 512 ports
    (65536, (32,), (), 2, 1.0),                 # two instances, a pool each
    (65536, (32,), ("--port-min", "60000"), 1, 5536 / 65536),
    (65536, (32,), ("--entries", "1000"), 1, 1000 / 65536),
    (1000, (48,), (), 1, 64512 / 6000),         # lcm(48, 1000) = 6000 connections: all pass
    (4096, (16, 64), (), 1, 64512 / (80 * 4096)),   # two classes: every pair
    (1, (64,), (), 1, 1.0),
])
def test_the_nat_drops_the_connections_it_has_no_port_for(count, flows, args, instances, share):
    """The NAT opens a connection a flow and destination (each packet the sweep's next
    address), a public port each, never reused: beyond its ports (or --entries) the packets of
    every later connection are dropped (the share in the long run: a run that has not yet
    met every connection drops less)."""
    got = nfs.get("nat").passes(headers(dst_ip={"base": "10.0.0.1", "count": count}), args,
                                flows, instances)
    assert got == pytest.approx(min(share, 1.0))
    spec = ChainSpec.model_validate({
        "services": [{"nf": "nat", "instances": instances, "args": list(args)}],
        "headers": {"dst_ip": {"base": "10.0.0.1", "count": count}},
        "traffic": [{"frame_bytes": 64, "rate_pps": 1e4, "flows": f} for f in flows]})
    assert spec.passes(0) == pytest.approx(min(share, 1.0))


def test_bad_headers_are_refused_with_their_line(tmp_path, cli):
    path = tmp_path / "c.yaml"
    path.write_text("services: [{nf: router}]\nheaders:\n  dst_ip: {base: 10.0.0.300}\n")
    code, out, err = cli("chain", "simulate", str(path))
    assert (code, out) == (2, "")
    assert err.startswith(f"nfvperf: error: {path}:3: headers.dst_ip.base: expected an IPv4")
    path.write_text("services: [{nf: l2fwd, args: [--mac-base, '04:00:00:00:00:00']}]\n")
    code, out, err = cli("chain", "simulate", str(path))
    assert code == 2 and "services[0].args" in err and "--mac-base" in err


def test_a_chain_file_carries_its_headers():
    spec = ChainSpec.model_validate({"services": [{"nf": "router"}],
                                     "headers": {"dst_ip": {"base": "10.0.0.1", "count": 9}}})
    assert spec.headers.dst_ip.count == 9 and spec.passes(0) == 1.0


def test_chain_validate_refuses_what_it_cannot_run_before_anything_starts(tmp_path, cli):
    """An NF the data plane lacks, a profile without the dataplane section, a load out of
    range: one line each, exit 2 (nothing here needs the data plane)."""
    chain = tmp_path / "c.yaml"
    chain.write_text("services: [{nf: l2fwd@paper}]\n")
    code, out, err = cli("chain", "validate", str(chain), "-p", "xeon-e5-2690v2")
    assert (code, out) == (2, "") and "services[0].nf" in err and len(err.splitlines()) == 1
    chain.write_text("services: [{nf: nat}]\n")
    code, out, err = cli("chain", "validate", str(chain), "-p", "xeon-e5-2690v2",
                         "--load", "0.5")
    assert code == 2 and "run `nfvperf calibrate`" in err and len(err.splitlines()) == 1
    code, out, err = cli("chain", "validate", str(chain), "-p", "xeon-e5-2690v2", "--runs", "0")
    assert code == 2 and err.startswith("nfvperf: error: --runs: expected 1..20 runs")
