"""Real traffic from the kernel: two network namespaces joined through the vSwitch by TAP ports,
the NAT NF between them. TCP, UDP (fragmented too), ICMP echo and an ICMP error from the
kernel's own stack cross it, translated.

Everything here happens inside two namespaces the test makes and deletes (addresses only there),
bounded in time."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from nfvperf.chain import ChainSpec
from nfvperf.dataplane import netns
from nfvperf.dataplane.attach import KernelPort, check_both_ways
from nfvperf.errors import InputError
from nfvperf.reference import output_type

pytestmark = [pytest.mark.dataplane]

SERVER = r"""
import hashlib, socket, sys
tcp = socket.socket(); tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
tcp.bind(("0.0.0.0", 5001)); tcp.listen(1); tcp.settimeout(20)
udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); udp.bind(("0.0.0.0", 5002))
udp.settimeout(20)
print("listening", flush=True)
conn, peer = tcp.accept(); conn.settimeout(20)
h, n = hashlib.sha256(), 0
while True:
    b = conn.recv(65536)
    if not b:
        break
    h.update(b); n += len(b)
conn.sendall(f"{h.hexdigest()} {n} {peer[0]}".encode()); conn.close()
for _ in range(int(sys.argv[1])):
    data, peer = udp.recvfrom(8192)
    udp.sendto(data + b" " + peer[0].encode(), peer)
"""

CLIENT = r"""
import hashlib, json, os, socket, struct, sys
blob = os.urandom(4 << 20)
s = socket.create_connection((sys.argv[1], 5001), timeout=20)
s.sendall(blob); s.shutdown(socket.SHUT_WR)
reply = b""
while True:
    b = s.recv(4096)
    if not b:
        break
    reply += b
digest, n, peer = reply.decode().split()
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.settimeout(5)
echoes = []
for i in range(int(sys.argv[2])):
    pad = b"x" * 3000 if i % 5 == 0 else b""   # larger than the MTU: sent in fragments
    u.sendto(f"datagram {i}".encode() + pad, (sys.argv[1], 5002))
    echoes.append(u.recvfrom(8192)[0].replace(b"x", b"").decode())
def csum(b):
    t = sum(struct.unpack(f"!{len(b) // 2}H", b))
    t = (t >> 16) + (t & 0xffff)
    return ~(t + (t >> 16)) & 0xffff
icmp = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP); icmp.settimeout(5)
pongs = []
for seq in range(1, 4):
    body = struct.pack("!BBHHH", 8, 0, 0, 0x4e46, seq) + b"nfvperf!"
    icmp.sendto(body[:2] + struct.pack("!H", csum(body)) + body[4:], (sys.argv[1], 0))
    while True:
        pkt, addr = icmp.recvfrom(2048)
        kind, _, _, ident, got = struct.unpack("!BBHHH", pkt[20:28])
        if kind == 0:
            pongs.append([addr[0], ident, got, csum(pkt[20:]) == 0])
            break
closed = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); closed.settimeout(5)
closed.connect((sys.argv[1], 5009)); closed.send(b"anyone there?")
try:
    closed.recv(100); refused = "answered"
except ConnectionRefusedError:     # the port unreachable came back, translated
    refused = "refused"
except socket.timeout:
    refused = "silence"
print(json.dumps({"sent": hashlib.sha256(blob).hexdigest(), "got": digest, "bytes": int(n),
                  "tcp_peer": peer, "echoes": echoes, "pongs": pongs, "closed": refused}))
"""


SNIFFER = r"""
import signal, socket, sys, dpkt
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3)); s.bind((sys.argv[1], 0))
f = open(sys.argv[2], "wb"); w = dpkt.pcap.Writer(f)
def stop(*_):
    f.close(); sys.exit(0)
signal.signal(signal.SIGTERM, stop)
print("sniffing", flush=True)
while True:
    frame, addr = s.recvfrom(65535)
    if addr[2] != socket.PACKET_OUTGOING:       # what came in here: the NAT's output
        w.writepkt(frame)
"""


def _sniff(ns: str, dev: str, path):
    p = subprocess.Popen(netns.in_ns(ns, sys.executable, "-c", SNIFFER, dev, str(path)),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "sniffing", p.stderr.read()
    return p


def _frames_are_right(path, *, src: str | None = None, dst: str | None = None) -> dict:
    """Each IPv4 frame the NAT sent out: its header checksum, its TCP, UDP or ICMP checksum
    (fragments: the IP header only), and the address it translated. Counts by kind."""
    import socket as sk

    import dpkt

    seen = {"tcp": 0, "udp": 0, "icmp": 0, "fragment": 0}
    with open(path, "rb") as f:
        for _, frame in dpkt.pcap.Reader(f):
            eth = dpkt.ethernet.Ethernet(frame)
            if eth.type != dpkt.ethernet.ETH_TYPE_IP:
                continue
            ip = eth.data
            raw = bytes(frame[14:14 + ip.hl * 4])
            assert dpkt.in_cksum(raw) == 0, "IPv4 header checksum"
            assert src is None or sk.inet_ntoa(ip.src) == src
            assert dst is None or sk.inet_ntoa(ip.dst) == dst
            if ip.mf or ip.offset:
                seen["fragment"] += 1
                continue
            l4 = bytes(frame[14 + ip.hl * 4:14 + ip.len])
            if ip.p == dpkt.ip.IP_PROTO_ICMP:
                assert dpkt.in_cksum(l4) == 0, "ICMP checksum"
                seen["icmp"] += 1
            elif ip.p in (dpkt.ip.IP_PROTO_TCP, dpkt.ip.IP_PROTO_UDP):
                if ip.p == dpkt.ip.IP_PROTO_UDP and l4[6:8] == b"\0\0":
                    continue                               # no UDP checksum
                pseudo = ip.src + ip.dst + bytes([0, ip.p]) + len(l4).to_bytes(2, "big")
                assert dpkt.in_cksum(pseudo + l4) == 0, "TCP/UDP checksum"
                seen["tcp" if ip.p == dpkt.ip.IP_PROTO_TCP else "udp"] += 1
    return seen


@pytest.fixture
def namespaces():
    why = netns.usable()
    if why:
        pytest.skip(why)
    with netns.pair() as p:
        yield p


def test_tcp_udp_and_ping_from_the_kernel_cross_the_nat(dataplane, namespaces, tmp_path):
    p = namespaces
    out_pcap, in_pcap = tmp_path / "outside.pcap", tmp_path / "inside.pcap"
    spec = ChainSpec.model_validate({"name": "nat", "services": [
        {"nf": "nat", "args": ["--public-ip", netns.PUBLIC]}]})
    datagrams = 20
    with netns.attached(spec, p) as counters:
        sniffers = [_sniff(p.outside, p.tap_outside, out_pcap), _sniff(p.inside, p.tap_inside,
                                                                      in_pcap)]
        server = subprocess.Popen(netns.in_ns(p.outside, sys.executable, "-c", SERVER,
                                              str(datagrams)),
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert server.stdout.readline().strip() == "listening"
            client = subprocess.run(netns.in_ns(p.inside, sys.executable, "-c", CLIENT,
                                                netns.OUTSIDE, str(datagrams)),
                                    capture_output=True, text=True, timeout=90)
            assert client.returncode == 0, client.stderr
            server.wait(30)
        finally:
            server.kill()
            for sniffer in sniffers:
                sniffer.terminate()
                sniffer.wait(10)
    r = json.loads(client.stdout)
    assert r["got"] == r["sent"] and r["bytes"] == 4 << 20      # every byte, intact
    assert r["tcp_peer"] == netns.PUBLIC                          # the server saw the NAT
    # every fifth datagram went out and came back in fragments, which followed their first
    assert r["echoes"] == [f"datagram {i} {netns.PUBLIC}" for i in range(datagrams)]
    # ICMP echo: the far host answered the NAT's address, the reply came back with our id
    assert r["pongs"] == [[netns.OUTSIDE, 0x4E46, seq, True] for seq in (1, 2, 3)]
    # a datagram to a closed port: the far host's port unreachable, about the NAT's address
    # and port, reached our socket as about ours (RFC 5508, 4.2)
    assert r["closed"] == "refused"
    # frame by frame, as captured where the NAT's output arrived: checksums and addresses
    going = _frames_are_right(out_pcap, src=netns.PUBLIC)
    coming = _frames_are_right(in_pcap, dst=netns.INSIDE)
    big = len(range(0, datagrams, 5))                  # sent and answered in 3 fragments each
    assert going["tcp"] > 1000 and going["udp"] >= datagrams - big and going["icmp"] == 3
    assert going["fragment"] >= 2 * big and coming["fragment"] >= 2 * big
    assert coming["tcp"] > 100 and coming["udp"] >= datagrams - big and coming["icmp"] >= 4
    nat = next(n for n in counters["nfs"] if n["service"] == 0)
    assert nat["tx"] > (4 << 20) // 1500                          # the segments went through it
    assert all(q["rx"] > 0 and q["tx"] > 0 for q in counters["ports"])


def test_kernel_ports_are_checked_before_anything_starts():
    with pytest.raises(InputError, match="^between: expected tap:NAME or af_packet:IFACE"):
        KernelPort.parse("eth0")
    with pytest.raises(InputError, match="^between: expected tap:NAME"):
        KernelPort.parse("tap:a-name-far-too-long")
    assert KernelPort.parse("af_packet:veth0").vdev(1) == "net_af_packet1,iface=veth0"
    two = ChainSpec.model_validate({"services": [{"nf": "nat", "instances": 2}]})
    with pytest.raises(InputError, match=r"^services\[0\]\.instances: expected one instance"):
        check_both_ways(two)
    check_both_ways(ChainSpec.model_validate({"services": [{"nf": "forward",
                                                            "instances": 2}]}))


def test_chain_attach_runs_from_the_command_line_and_reports(dataplane, cli):
    why = netns.usable()
    if why:
        pytest.skip(why)
    tag = f"{os.getpid() % 100000}"
    code, out, err = cli("chain", "attach", "examples/chains/nat-gateway.yaml", "--between",
                         f"tap:nva{tag},tap:nvb{tag}", "--duration", "0.3", "-q", "-f", "json")
    assert code == 0, err
    r = json.loads(out)
    output_type("nfvperf chain attach").validate_python(r)       # every field the reference lists
    assert [p["port"] for p in r["ports"]] == [f"tap:nva{tag}", f"tap:nvb{tag}"]
    assert [n["name"] for n in r["nfs"]] == ["s0-nat0"] and r["chain"] == "nat-gateway"
