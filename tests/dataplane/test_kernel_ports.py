"""Real traffic from the kernel: two network namespaces joined through the vSwitch by TAP ports,
the NAT NF between them. TCP and UDP from the kernel's own stack cross it, translated.

Everything here happens inside two namespaces the test makes and deletes (addresses only there),
bounded in time."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import threading

import pytest

from nfvperf.chain import ChainSpec
from nfvperf.dataplane.attach import KernelPort, attach_chain, check_both_ways
from nfvperf.errors import InputError

pytestmark = [pytest.mark.dataplane]

INSIDE, OUTSIDE, PUBLIC, GATEWAY = "192.168.77.2", "203.0.113.2", "203.0.113.1", "192.168.77.1"

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
    data, peer = udp.recvfrom(2048)
    udp.sendto(data + b" " + peer[0].encode(), peer)
"""

CLIENT = r"""
import hashlib, json, os, socket, sys
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
    u.sendto(f"datagram {i}".encode(), (sys.argv[1], 5002))
    echoes.append(u.recvfrom(2048)[0].decode())
print(json.dumps({"sent": hashlib.sha256(blob).hexdigest(), "got": digest, "bytes": int(n),
                  "tcp_peer": peer, "echoes": echoes}))
"""


def ip(*args: str) -> str:
    return subprocess.run(["ip", *args], check=True, capture_output=True, text=True,
                          timeout=10).stdout


def mac_of(ns: str, dev: str) -> str:
    return json.loads(ip("-n", ns, "-j", "link", "show", "dev", dev))[0]["address"]


def in_ns(ns: str, *args: str) -> list[str]:
    return ["ip", "netns", "exec", ns, *args]


@pytest.fixture
def namespaces():
    if os.geteuid() != 0 or shutil.which("ip") is None:
        pytest.skip("network namespaces need root and iproute2")
    tag = f"{os.getpid() % 100000}"
    names = (f"nfvpin{tag}", f"nfvpout{tag}")
    for ns in names:
        ip("netns", "add", ns)
    try:
        yield names
    finally:
        for ns in names:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=10)


def _wire(ns: str, dev: str, addr: str, peer_ip: str, peer_mac: str, gateway: str | None):
    """The namespace's end: its address, up, and the far side's MAC for the address its
    packets go to (the bump in the wire does not answer ARP; the frames keep their MACs)."""
    ip("link", "set", dev, "netns", ns)
    subprocess.run(in_ns(ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1"),
                   check=True, timeout=10)
    ip("-n", ns, "link", "set", "lo", "up")
    ip("-n", ns, "addr", "add", f"{addr}/24", "dev", dev)
    ip("-n", ns, "link", "set", dev, "up")
    ip("-n", ns, "neigh", "replace", peer_ip, "lladdr", peer_mac, "dev", dev, "nud",
       "permanent")
    if gateway:
        ip("-n", ns, "route", "add", "default", "via", gateway)


def test_tcp_and_udp_from_the_kernel_cross_the_nat(dataplane, namespaces):
    ns_in, ns_out = namespaces
    tag = f"{os.getpid() % 100000}"
    ports = (KernelPort("tap", f"nvi{tag}"), KernelPort("tap", f"nvo{tag}"))
    spec = ChainSpec.model_validate({"name": "nat", "services": [
        {"nf": "nat", "args": ["--public-ip", PUBLIC]}]})
    ready, stop, out, failed = threading.Event(), threading.Event(), {}, []

    def run():
        try:
            out["r"] = attach_chain(spec, ports, duration_s=120, stop=stop, ready=ready.set)
        except BaseException as exc:  # noqa: BLE001 - raised in the test's thread
            failed.append(exc)
            ready.set()

    th = threading.Thread(target=run, daemon=True)
    th.start()
    try:
        assert ready.wait(60) and not failed, failed
        mac_in, mac_out = (json.loads(ip("-j", "link", "show", "dev", p.name))[0]["address"]
                           for p in ports)
        _wire(ns_in, ports[0].name, INSIDE, GATEWAY, mac_out, GATEWAY)
        _wire(ns_out, ports[1].name, OUTSIDE, PUBLIC, mac_in, None)
        datagrams = 20
        server = subprocess.Popen(in_ns(ns_out, sys.executable, "-c", SERVER, str(datagrams)),
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert server.stdout.readline().strip() == "listening"
            client = subprocess.run(in_ns(ns_in, sys.executable, "-c", CLIENT, OUTSIDE,
                                          str(datagrams)),
                                    capture_output=True, text=True, timeout=90)
            assert client.returncode == 0, client.stderr
            server.wait(30)
        finally:
            server.kill()
    finally:
        stop.set()
        th.join(60)
    assert not failed, failed
    r = json.loads(client.stdout)
    assert r["got"] == r["sent"] and r["bytes"] == 4 << 20      # every byte, intact
    assert r["tcp_peer"] == PUBLIC                                # the server saw the NAT
    assert r["echoes"] == [f"datagram {i} {PUBLIC}" for i in range(datagrams)]
    counters = out["r"]
    nat = next(n for n in counters["nfs"] if n["service"] == 0)
    assert nat["tx"] > 2 * (4 << 20) // 1500 // 2                # both ways, through the NAT
    assert all(p["rx"] > 0 and p["tx"] > 0 for p in counters["ports"])


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
    if os.geteuid() != 0:
        pytest.skip("TAP devices need root")
    tag = f"{os.getpid() % 100000}"
    code, out, err = cli("chain", "attach", "examples/chains/nat-gateway.yaml", "--between",
                         f"tap:nva{tag},tap:nvb{tag}", "--duration", "0.3", "-q", "-f", "json")
    assert code == 0, err
    r = json.loads(out)
    assert [p["port"] for p in r["ports"]] == [f"tap:nva{tag}", f"tap:nvb{tag}"]
    assert [n["name"] for n in r["nfs"]] == ["s0-nat0"] and r["chain"] == "nat-gateway"
