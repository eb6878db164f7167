"""The validation NFs (l2fwd, router) on crafted packets, built and checked with dpkt (an
independent packet library), and `nfvperf validate dataplane --quick` end to end."""

from __future__ import annotations

import json
import socket

import dpkt
import pytest

from nfvperf.dataplane import pcap
from nfvperf.dataplane.replay import replay
from nfvperf.reference import output_type

pytestmark = [pytest.mark.dataplane]

SRC = bytes.fromhex("0200000000aa")


def ipv4(dst: str, ttl: int = 64, dst_mac: bytes = bytes.fromhex("020000000001")) -> bytes:
    udp = dpkt.udp.UDP(sport=1024, dport=9, data=bytes(18))
    ip = dpkt.ip.IP(src=socket.inet_aton("10.9.9.9"), dst=socket.inet_aton(dst), ttl=ttl,
                    p=dpkt.ip.IP_PROTO_UDP, data=udp)
    ip.len = len(ip)
    return bytes(dpkt.ethernet.Ethernet(dst=dst_mac, src=SRC, type=dpkt.ethernet.ETH_TYPE_IP,
                                        data=ip))


def test_router_routes_decrements_ttl_and_keeps_the_checksum_right(dataplane, tmp_path):
    sent = [ipv4(f"10.0.{i}.7") for i in range(10)]         # /24 routes 10.0.i.0/24
    sent += [ipv4("11.0.1.37")]                             # /28 route 11.0.1.32/28
    dropped = [ipv4("12.0.0.1"), ipv4("10.0.3.1", ttl=1)]   # no route; TTL would expire
    pin, pout = tmp_path / "in.pcap", tmp_path / "out.pcap"
    pcap.write(pin, sent + dropped)
    r = replay(pin, pout, nf="router")
    assert r["frames_out"] == 11 and r["dropped"] == {"nf": 2}
    for i, frame in enumerate(pcap.read(pout)):
        eth = dpkt.ethernet.Ethernet(frame)
        ip = eth.data
        before = dpkt.ethernet.Ethernet(sent[i]).data
        assert ip.ttl == 63 and ip.dst == before.dst
        claimed = ip.sum
        ip.sum = 0
        assert dpkt.ip.IP(bytes(ip)).sum == claimed            # dpkt recomputes it
        hop = i if i < 10 else 65536 + (1 << 4 | 2)             # route index -> next-hop MAC
        assert eth.dst == bytes([2, 0, 0, 0, (hop >> 8) & 255, hop & 255])
        assert eth.src == bytes.fromhex("02000000ee01")


def test_router_takes_its_routes_from_a_file_with_a_default(dataplane, tmp_path):
    routes = tmp_path / "routes.txt"
    routes.write_text("# prefix       port  next hop\n10.9.0.0/16      0  02:00:00:00:00:aa\n"
                      "10.9.7.0/24      0  02:00:00:00:00:cc   # the longer prefix wins\n\n"
                      "default          0  02:00:00:00:00:bb\n")
    sent = [ipv4("10.9.1.1"), ipv4("10.9.7.5"), ipv4("172.16.0.1")]
    pin, pout = tmp_path / "in.pcap", tmp_path / "out.pcap"
    pcap.write(pin, sent + [ipv4("10.9.1.1", ttl=1)])
    r = replay(pin, pout, nf="router", nf_args=("--route-file", str(routes)))
    assert r["frames_out"] == 3 and r["dropped"] == {"nf": 1}
    assert [dpkt.ethernet.Ethernet(f).dst.hex() for f in pcap.read(pout)] == [
        "0200000000aa", "0200000000cc", "0200000000bb"]
    bad = tmp_path / "bad.txt"
    bad.write_text("10.9.0.0/16 0 02:00:00:00:00:aa\n10.9.0.0/40 0 02:00:00:00:00:aa\n")
    with pytest.raises(Exception, match="line 2: a prefix A.B.C.D/LEN"):
        replay(pin, pout, nf="router", nf_args=("--route-file", str(bad)))


def test_l2fwd_forwards_known_destinations_and_drops_the_rest(dataplane, tmp_path):
    known = [ipv4("10.0.0.1", dst_mac=bytes([2, 0, 0, 0, 0, i])) for i in range(16)]
    unknown = [ipv4("10.0.0.1", dst_mac=bytes([2, 0, 0, 0, 1, i])) for i in range(4)]
    pin, pout = tmp_path / "in.pcap", tmp_path / "out.pcap"
    pcap.write(pin, known + unknown)
    r = replay(pin, pout, nf="l2fwd", nf_args=("--entries", "1024", "--fill", "16"))
    assert r["frames_out"] == 16 and r["dropped"] == {"nf": 4}
    assert sorted(pcap.read(pout)) == sorted(known)


def test_validate_quick_end_to_end(dataplane, cli, tmp_path):
    report = tmp_path / "report.html"
    code, out, err = cli("validate", "dataplane", "--quick", "--nf", "router", "--nf", "mpls",
                         "--packet-sizes", "64", "--report", str(report), "--format", "json")
    assert code == 0, err
    rows = json.loads(out)
    output_type("nfvperf validate dataplane").validate_python(rows)
    assert {(r["nf"], r["traffic"]) for r in rows} == {("router", "/24 routes"),
                                                     ("router", "/28 routes"),
                                                     ("mpls", "one label")}
    for r in rows:
        assert r["measured_cycles"] > r["measured_handler_cycles"] > 0
        assert ("gap" in r) and (r["gap"] == "") == (abs(r["error_pct"]) <= 25)
        assert r["dropped_by_nf"] == 0 and r["delivered"] > 0   # every destination routed
        assert r["error_pct"] == pytest.approx(
            100 * (r["estimated_cycles"] - r["measured_cycles"]) / r["measured_cycles"])
        # the burst kept: read window by window, the core checked against calibration
        assert r["window_cycles"] and all(w > 0 for w in r["window_cycles"])
        assert len(r["core_ratio"]) == 1 and r["core_ratio"][0] > 0
        assert 0 <= r["disturbed_runs"] <= r["placement_moves"]
    text = report.read_text()
    assert text.count("data:image/png;base64,") == 2 and "router" in text


def test_learning_switch_floods_unknown_destinations(dataplane, tmp_path):
    """Where l2fwd drops a destination it does not know, the learning switch floods it (out of
    the chain's port) and learns the source."""
    frames = [ipv4("10.0.0.1", dst_mac=bytes([2, 0, 0, 9, 9, i])) for i in range(12)]
    pin, pout = tmp_path / "in.pcap", tmp_path / "out.pcap"
    pcap.write(pin, frames)
    r = replay(pin, pout, nf="learnsw", nf_args=("--entries", "1024", "--fill", "16"))
    assert r["frames_out"] == 12 and r["dropped"] == {}
    assert pcap.read(pout) == frames
