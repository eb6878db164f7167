"""The NAT NF (source NAPT) on crafted UDP and TCP frames, built and checked with dpkt (an
independent packet library): outbound frames leave with the public address and the predicted
public port (one per connection, in the order connections open, from --port-min), replies come
back to the inside address and port, checksums stay right, the rest is dropped."""

from __future__ import annotations

import socket
import subprocess

import dpkt
import pytest

from nfvperf.dataplane import pcap
from nfvperf.dataplane.build import binaries
from nfvperf.dataplane.replay import replay

pytestmark = [pytest.mark.dataplane]

DST = bytes.fromhex("020000000001")
SRC = bytes.fromhex("0200000000aa")
OPTS = b"\x01\x01\x01\x00"                  # 3 NOPs + end of options: IHL 6


def frame(proto: int, src: str, sport: int, dst: str, dport: int, data: bytes = bytes(24),
          opts: bytes = b"") -> bytes:
    """Ethernet / IPv4 / UDP or TCP, every checksum computed by dpkt."""
    if proto == dpkt.ip.IP_PROTO_UDP:
        l4 = dpkt.udp.UDP(sport=sport, dport=dport, data=data)
        l4.ulen = len(l4)
    else:
        l4 = dpkt.tcp.TCP(sport=sport, dport=dport, seq=7, flags=dpkt.tcp.TH_ACK, data=data)
    ip = dpkt.ip.IP(src=socket.inet_aton(src), dst=socket.inet_aton(dst), p=proto, opts=opts,
                    hl=5 + len(opts) // 4, data=l4)
    ip.len = len(ip)
    return bytes(dpkt.ethernet.Ethernet(dst=DST, src=SRC, type=dpkt.ethernet.ETH_TYPE_IP, data=ip))


def without_udp_checksum(f: bytes) -> bytes:
    """The frame with a UDP checksum of 0 (none)."""
    hl = (f[14] & 15) * 4
    return f[:14 + hl + 6] + b"\0\0" + f[14 + hl + 8:]


def assert_checksums_right(f: bytes) -> None:
    """dpkt recomputes both checksums (L4: pseudo-header included) from scratch."""
    ip = dpkt.ethernet.Ethernet(f).data
    claimed = ip.sum, ip.data.sum
    ip.sum = ip.data.sum = 0
    again = dpkt.ip.IP(bytes(ip))
    assert (again.sum, again.data.sum) == claimed


UDP, TCP = dpkt.ip.IP_PROTO_UDP, dpkt.ip.IP_PROTO_TCP
# (proto, inside address, inside port, remote address, remote port, IP options)
FLOWS = [
    (UDP, "10.0.0.1", 5000, "203.0.113.5", 53, b""),
    (TCP, "10.0.0.1", 5000, "203.0.113.5", 80, b""),    # same addresses and ports, TCP
    (UDP, "10.0.0.2", 5000, "203.0.113.5", 53, b""),    # another host, same port
    (TCP, "10.0.0.3", 40001, "203.0.113.6", 443, OPTS),  # IHL 6
    (UDP, "10.0.0.1", 5001, "203.0.113.6", 53, OPTS),
]


def test_nat_translates_outbound_flows_and_their_replies(dataplane, tmp_path):
    pub, port_min = "198.51.100.7", 40000
    order = [0, 1, 0, 2, 1, 3, 4, 3, 0, 4]      # flow f opens at its first packet: port_min + f
    sent, want = [], []
    for n, f in enumerate(order):
        p, ia, ip_, ra, rp, opts = FLOWS[f]
        data = bytes([n]) * (24 + n)
        sent.append(frame(p, ia, ip_, ra, rp, data, opts))
        want.append(frame(p, pub, port_min + f, ra, rp, data, opts))
    for f, (p, ia, ip_, ra, rp, opts) in enumerate(FLOWS):    # replies, after every flow opened
        data = b"reply" + bytes([f]) * 20
        sent.append(frame(p, ra, rp, pub, port_min + f, data, opts))
        want.append(frame(p, ra, rp, ia, ip_, data, opts))
    pin, pout = tmp_path / "in.pcap", tmp_path / "out.pcap"
    pcap.write(pin, sent)
    r = replay(pin, pout, nf="nat",
               nf_args=("--public-ip", pub, "--port-min", str(port_min), "--entries", "64"))
    out = pcap.read(pout)
    assert r["frames_out"] == len(sent) and r["dropped"] == {}
    for got, exp in zip(out, want, strict=True):
        assert got == exp            # address, port and both checksums; nothing else changed
        assert_checksums_right(got)


def test_nat_drops_what_it_cannot_translate(dataplane, tmp_path):
    pub = "192.0.2.1"                                          # the defaults: port-min 1024
    a = without_udp_checksum(frame(UDP, "10.0.0.1", 6000, "203.0.113.5", 53))
    b = frame(TCP, "10.0.0.2", 6000, "203.0.113.5", 80)
    c = frame(UDP, "10.0.0.3", 6000, "203.0.113.5", 53)       # a third connection: table full
    a_back = without_udp_checksum(frame(UDP, "203.0.113.5", 53, pub, 1024))
    arp = DST + SRC + b"\x08\x06" + bytes(46)
    icmp = bytearray(frame(UDP, "10.0.0.1", 6000, "203.0.113.5", 53))
    icmp[23] = dpkt.ip.IP_PROTO_ICMP
    fragment = bytearray(frame(UDP, "10.0.0.1", 6000, "203.0.113.5", 53))
    fragment[20:22] = (185).to_bytes(2, "big")                # offset 185 x 8 B: not the first
    dropped = [
        frame(UDP, "203.0.113.5", 53, pub, 1026),               # no connection has this port
        frame(UDP, "203.0.113.5", 80, pub, 1025),               # b's reply but for UDP
        frame(UDP, "203.0.113.9", 53, pub, 1024),               # its port, another remote
        arp, bytes(icmp), bytes(fragment), c,
    ]
    sent = [a, b, dropped[0], a, dropped[1], dropped[2], arp, bytes(icmp), bytes(fragment), c,
            b, a_back]
    pin, pout = tmp_path / "in.pcap", tmp_path / "out.pcap"
    pcap.write(pin, sent)
    r = replay(pin, pout, nf="nat", nf_args=("--entries", "2"))
    out = pcap.read(pout)
    assert r["dropped"] == {"nf": len(dropped)} and r["frames_out"] == 5
    a_out = without_udp_checksum(frame(UDP, pub, 1024, "203.0.113.5", 53))
    b_out = frame(TCP, pub, 1025, "203.0.113.5", 80)
    a_in = without_udp_checksum(frame(UDP, "203.0.113.5", 53, "10.0.0.1", 6000))
    assert out == [a_out, b_out, a_out, b_out, a_in]         # UDP checksum 0 stays 0
    for f in out:
        ip = dpkt.ethernet.Ethernet(f).data
        claimed = ip.sum
        ip.sum = 0
        assert dpkt.in_cksum(ip.pack_hdr() + bytes(ip.opts)) == claimed


@pytest.mark.parametrize("args, message", [
    (("--public-ip", "192.0.2"), 'nat: --public-ip: expected a.b.c.d, found "192.0.2"'),
    (("--entries", "0"), 'nat: --entries: expected a count 1..'),
    (("--port-min", "65536"), 'nat: --port-min: expected a port 1..65535, found "65536"'),
    (("--ports", "2"), "unrecognized option '--ports'"),
])
def test_nat_rejects_bad_options_in_one_line(dataplane, args, message):
    binary = binaries()["nf-nat"]
    p = subprocess.run([str(binary), "--ctl", "/nonexistent", "--name", "x", "--", *args],
                       check=False, capture_output=True, text=True, timeout=30)
    assert p.returncode == 2
    assert len(p.stderr.splitlines()) == 1 and message in p.stderr


def test_nat_drops_new_connections_when_public_ports_run_out(dataplane, tmp_path):
    first = frame(UDP, "10.0.0.1", 7000, "203.0.113.5", 53)
    second = frame(UDP, "10.0.0.1", 7001, "203.0.113.5", 53)    # no port left after 65535
    pin, pout = tmp_path / "in.pcap", tmp_path / "out.pcap"
    pcap.write(pin, [first, second, first, second])
    r = replay(pin, pout, nf="nat", nf_args=("--port-min", "65535"))
    assert r["dropped"] == {"nf": 2}
    assert pcap.read(pout) == [frame(UDP, "192.0.2.1", 65535, "203.0.113.5", 53)] * 2
