"""Services: a chain step served by parallel NF instances, with the vSwitch's distribution
policies (after Hajji et al.): flows stay whole on stateful NFs while instances come and
go, consistent hashing moves about 1/n of the flows where hash mod n moves most, weights split
the flows, round-robin is refused for stateful NFs."""

from __future__ import annotations

import collections
import struct
import time

import pytest

from nfvperf.dataplane import pcap
from nfvperf.dataplane.session import Session, chain_mac
from nfvperf.errors import RuntimeFailure

pytestmark = [pytest.mark.dataplane]


def capture_session(tmp_path):
    """A session whose port 0 writes what leaves it to a pcap file (the generator's ring ports
    are 1 and 2)."""
    empty, out = tmp_path / "empty.pcap", tmp_path / "out.pcap"
    pcap.write(empty, [])
    return Session("double-buffer", vdevs=(f"net_pcap0,rx_pcap={empty},tx_pcap={out}",),
                   ring_ports=2), out


def public_ips_by_flow(frames: list[bytes]) -> dict[int, list[bytes]]:
    """For each generator flow (its id is in the stamp at the frame's end), the NAT public
    addresses its frames left with, in order, repeats folded."""
    seen: dict[int, list[bytes]] = collections.defaultdict(list)
    for f in frames:
        flow = struct.unpack_from("<H", f, len(f) - 2)[0]
        ip = f[26:30]
        if not seen[flow] or seen[flow][-1] != ip:
            seen[flow].append(ip)
    return seen


@pytest.mark.parametrize("policy, weights", [("flow", None), ("weighted", [3, 1]),
                                             ("nf-aware", None)])
def test_flows_stay_on_their_nat_instance_while_instances_come_and_go(dataplane, tmp_path,
                                                                      policy, weights):
    """Three NATs with their own public address behind one service (flow, weighted or
    nf-aware): an instance is added, then one removed, while 256 flows run. Every flow leaves
    with one address, except those of the removed instance, which move once; and consistent
    hashing would have remapped about a third of the flows on each change, hash mod n about
    two thirds."""
    s, out = capture_session(tmp_path)
    with s:
        for i in range(3):
            s.add_nfs("nat", [f"nat{i}"], args=("--public-ip", f"192.0.2.{i + 1}"))
        s.add_service("nat", ["nat0", "nat1"], policy=policy, weights=weights)
        s.set_chain(0, ["nat"], out_port=0)
        s.start_traffic(rate_pps=1e5, frame_bytes=128, macs=[chain_mac(0)], duration_s=1.5,
                        flows=256)
        time.sleep(0.5)
        added = s.set_service("nat", ["nat0", "nat1", "nat2"],
                              weights=None if weights is None else [*weights, 1])
        time.sleep(0.5)
        removed = s.set_service("nat", ["nat1", "nat2"],
                                weights=None if weights is None else [1, 1])
        gen = s.wait_traffic()
        report = s.close()
    frames = pcap.read(out)
    # a busy machine's rings may drop some; every flow is there all the same
    assert gen["sent"] > 100_000 and len(frames) > 0.5 * gen["sent"]
    ips = public_ips_by_flow(frames)
    assert len(ips) == 256
    moved = [f for f, seq in ips.items() if len(seq) > 1]
    assert all(len(seq) <= 2 for seq in ips.values())
    assert all(ips[f][0] == bytes([192, 0, 2, 1]) for f in moved)   # only nat0's flows moved
    assert added["moved"] == 0 and removed["moved"] == len(moved) > 0
    svc = report["services"][0]
    assert svc["flows_moved"] == len(moved) and svc["scalings"] == 2
    assert [i["name"] for i in svc["instances"]] == ["nat1", "nat2"]
    for change in (added, removed):
        assert change["flows"] == 256
        assert change["mod_moved"] / 256 > 0.55             # ~2/3: hash mod n
        if policy == "flow":
            assert 0.2 < change["hash_moved"] / 256 < 0.45  # ~1/3: consistent hashing


def test_weights_split_the_flows(dataplane):
    """`weighted` with weights 3 and 1: the Maglev table gives the instances 3/4 and 1/4 of
    the hash space, so of 2048 flows about 1536 and 512."""
    with Session("double-buffer") as s:
        s.add_nfs("forward", ["a", "b"])
        s.add_service("fw", ["a", "b"], policy="weighted", weights=[3, 1])
        s.set_chain(0, ["fw"])
        s.start_traffic(rate_pps=2e5, frame_bytes=64, macs=[chain_mac(0)], duration_s=0.3,
                        flows=2048)
        s.wait_traffic()
        report = s.close()
    a, b = report["services"][0]["instances"]
    assert a["flows"] + b["flows"] == 2048
    assert a["flows"] / 2048 == pytest.approx(0.75, abs=0.05)
    assert a["packets"] / (a["packets"] + b["packets"]) == pytest.approx(0.75, abs=0.05)


def test_round_robin_spreads_packets_of_stateless_nfs_only(dataplane):
    with Session("double-buffer") as s:
        s.add_nfs("forward", ["a", "b"])
        with pytest.raises(RuntimeFailure, match="round-robin splits flows, expected a "
                                                 "stateless NF"):
            s.add_service("fw", ["a", "b"], policy="round-robin")
        s.add_service("fw", ["a", "b"], policy="round-robin", stateless=True)
        s.set_chain(0, ["fw"])
        s.start_traffic(rate_pps=1e5, frame_bytes=64, macs=[chain_mac(0)], duration_s=0.3)
        s.wait_traffic()
        report = s.close()
    a, b = report["services"][0]["instances"]
    assert abs(a["packets"] - b["packets"]) <= 1 and a["packets"] > 10_000   # one flow, split


@pytest.mark.parametrize("cmd, message", [
    ("service add x spread stateful packets 512 a",
     "error service policy: expected flow, weighted, round-robin or nf-aware"),
    ("service add x flow stateful packets 512 zz",
     "error service nf: expected the name of an attached NF"),
    ("service add x weighted stateful packets 512 a:0",
     "error service weight: expected weights that sum to more than 0"),
    ("service add x weighted stateful packets 512 a:2000",
     "error service weight: expected 0..1000"),
    ("service add x flow stateful watts 512 a", "error service cost: expected packets or bytes"),
    ("service set nope a", 'error service: no service "nope"'),
])
def test_bad_service_commands_are_refused(dataplane, cmd, message):
    with Session("double-buffer") as s:
        s.add_nfs("forward", ["a"])
        with pytest.raises(RuntimeFailure, match=message):
            s.control.call(cmd)
        s.close()


def test_generator_sends_flow_classes_together(dataplane):
    """nfvp-gen --class: large and small frames at their own rates, interleaved, each class
    with its own flows, counts and latencies (the traffic set-ups of Hajji et al.)."""
    with Session("double-buffer") as s:
        s.add_nfs("forward", ["a"])
        s.set_chain(0, ["a"])
        s.start_traffic(rate_pps=0, frame_bytes=64, macs=[chain_mac(0)], duration_s=0.5,
                        classes=[(1518, 2e4, 4), (64, 2e5, 16)])
        gen = s.wait_traffic()
        s.close()
    large, small = gen["classes"]
    assert (large["frame_bytes"], large["flows"], large["first_flow"]) == (1518, 4, 0)
    assert (small["frame_bytes"], small["flows"], small["first_flow"]) == (64, 16, 4)
    assert large["sent"] == pytest.approx(1e4, rel=0.02)
    assert small["sent"] == pytest.approx(1e5, rel=0.02)
    assert large["sent"] + small["sent"] == gen["sent"]
    assert large["received_bytes"] == large["received"] * 1518
    assert small["latency_ns"]["count"] == small["received"] > 0


def test_chain_spec_runs_from_the_cli_with_nf_aware_split_and_scaling(dataplane, cli, tmp_path):
    """`nfvperf chain run`: NAT -> IDS, two instances each, nf-aware; the NAT
    service puts the large-frame flows on one instance and the small ones on the other; a
    third IDS joins mid-run. JSON keys per class, service and instance, and the scaling."""
    import json

    spec = tmp_path / "chain.yaml"
    spec.write_text("""\
name: nat-ids
services:
  - {nf: nat, instances: 2, policy: nf-aware, args: [--public-ip, "192.0.2.1{k}"]}
  - {nf: ids, instances: 2, policy: nf-aware}
traffic:
  - {frame_bytes: 1518, rate_pps: 10000, flows: 4}
  - {frame_bytes: 64, rate_pps: 100000, flows: 32}
scale:
  - {at_s: 0.3, service: 1, instances: 3}
""")
    code, out, err = cli("chain", "run", str(spec), "--duration", "0.8", "-f", "json")
    assert code == 0, err
    r = json.loads(out)
    assert {"chain", "offered_packets", "delivered_packets", "loss_pct", "latency_us",
            "classes", "services", "scaling"} <= set(r)
    large, small = r["classes"]
    assert (large["frame_bytes"], small["frame_bytes"]) == (1518, 64)
    assert large["delivered"] > 0 and small["delivered"] > 0
    nat, ids = r["services"]
    assert (nat["nf"], nat["policy"], ids["nf"]) == ("nat", "nf-aware", "ids")
    for inst in nat["instances"] + ids["instances"]:
        assert {"name", "flows", "offered", "delivered", "dropped", "ring_full", "bytes",
                "latency_us"} <= set(inst)
        assert inst["delivered"] <= inst["offered"] and inst["dropped"] >= inst["ring_full"] >= 0
    # the NAT's cost follows packets: the 4 large flows get one instance, the 32 small the other
    by_flows = sorted(nat["instances"], key=lambda i: i["flows"])
    assert [i["flows"] for i in by_flows] == [4, 32]
    assert by_flows[0]["bytes"] / by_flows[0]["offered"] == pytest.approx(1514, abs=1)
    assert len(ids["instances"]) == 3 and ids["instances"][2]["in_service_at_end"]
    (event,) = r["scaling"]
    assert event["service"] == 1 and event["instances"] == 3 and event["moved"] == 0
    # every packet the vSwitch took in was offered to the NAT service
    reached = r["offered_packets"] - r["dropped"]["port_rx"]
    assert reached - r["in_flight"] <= nat["offered"] <= reached
