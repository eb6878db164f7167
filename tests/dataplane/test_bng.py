"""The BNG NF (dataplane/nfs/bng) on crafted frames in both directions, built and checked with
dpkt: QinQ in, MPLS/GRE out with every checksum right (Baldi & Sapio, Sec. 3.2, Fig. 7), the
source learned on the way up and used on the way down, and what it must drop."""

from __future__ import annotations

import socket
import struct

import dpkt
import pytest
from dpkt.dpkt import in_cksum

from nfvperf.dataplane import pcap
from nfvperf.dataplane.replay import replay

pytestmark = [pytest.mark.dataplane]

BNG_MAC = bytes.fromhex("02000000b001")
ARGS = ("--subscribers", "64", "--routes", "256", "--long-routes", "16", "--core-entries", "1024",
        "--core-fill", "8")


def inner(src: str, dst: str, ttl: int = 64, payload: int = 30) -> dpkt.ip.IP:
    udp = dpkt.udp.UDP(sport=4000, dport=9, data=bytes(range(payload)))
    udp.ulen = len(udp)
    ip = dpkt.ip.IP(src=socket.inet_aton(src), dst=socket.inet_aton(dst), ttl=ttl,
                    p=dpkt.ip.IP_PROTO_UDP, data=udp)
    ip.len = len(ip)
    return ip


def access(k: int, ip: dpkt.ip.IP, src_mac: bytes) -> bytes:
    """A frame from subscriber k: QinQ with S-VID 1 + k // 4094, C-VID 1 + k % 4094."""
    tags = struct.pack("!HHHHH", 0x88A8, 1 + k // 4094, 0x8100, 1 + k % 4094, 0x0800)
    return BNG_MAC + src_mac + tags + bytes(ip)


def core(key: int, ip: dpkt.ip.IP, label: int = 77) -> bytes:
    """A frame from the core: MPLS / IPv4 / GRE with checksum and key / the inner packet."""
    gre = struct.pack("!HHHHI", 0xA000, 0x0800, 0, 0, key) + bytes(ip)
    gre = gre[:4] + struct.pack("!H", in_cksum(gre)) + gre[6:]
    outer = dpkt.ip.IP(src=socket.inet_aton("100.64.0.9"), dst=socket.inet_aton("198.51.100.2"),
                       p=47, ttl=64, data=gre)
    outer.len = len(outer)
    return BNG_MAC + bytes.fromhex("020000000077") + b"\x88\x47" \
        + struct.pack("!I", label << 12 | 1 << 8 | 64) + bytes(outer)


def checked_ipv4(raw: bytes) -> dpkt.ip.IP:
    """The IPv4 packet at the start of raw, its header checksum verified."""
    ip = dpkt.ip.IP(raw)
    assert in_cksum(raw[:ip.hl * 4]) == 0, "IPv4 header checksum"
    return ip


def test_bng_encapsulates_learns_and_decapsulates(dataplane, tmp_path):
    macs = [bytes([2, 0, 0, 0xaa, 0, k]) for k in range(5)]
    up = [inner(f"10.200.0.{k}", f"10.0.{k}.7") for k in range(5)]        # route k: 10.0.k.0/24
    sent = [access(k, up[k], macs[k]) for k in range(5)]
    # replies to the sources just learned, and one to a pre-filled entry (k = 2: 10.0.0.3)
    down = [inner("10.0.9.9", f"10.200.0.{k}") for k in range(5)] + [inner("10.0.9.9", "10.0.0.3")]
    sent += [core(k, down[k]) for k in range(5)] + [core(2, down[5])]
    dropped = [
        access(100, inner("10.200.0.1", "10.0.1.7"), macs[1]),   # unknown subscriber
        access(1, inner("10.200.0.1", "12.0.0.1"), macs[1]),     # no route
        access(1, inner("10.200.0.1", "10.0.1.7", ttl=1), macs[1]),  # TTL would expire
        core(3, inner("10.0.9.9", "10.200.0.99")),               # unknown in the core table
        BNG_MAC + macs[0] + b"\x08\x06" + bytes(46),             # ARP
    ]
    pin, pout = tmp_path / "in.pcap", tmp_path / "out.pcap"
    pcap.write(pin, sent + dropped)
    r = replay(pin, pout, nf="bng", nf_args=ARGS)
    assert r["frames_out"] == 11 and r["dropped"] == {"nf": 5}
    why = {k: v for k, v in r["per_nf"][0]["drops_by_reason"].items() if v}
    assert why == {"no_mapping": 2, "no_route": 1, "ttl": 1, "protocol": 1}
    out = pcap.read(pout)

    for k, frame in enumerate(out[:5]):                       # access -> core
        assert frame[:6] == bytes([2, 0, 0, 0, 0, k]) and frame[6:12] == BNG_MAC
        assert frame[12:14] == b"\x88\x47"
        (shim,) = struct.unpack("!I", frame[14:18])
        assert shim >> 12 == 1000 + k and shim & 0x100            # the route's label, bottom
        outer = checked_ipv4(frame[18:])
        assert outer.p == 47 and outer.dst == socket.inet_aton(f"100.64.0.{k}")
        assert outer.src == socket.inet_aton("198.51.100.2")
        gre = frame[38:18 + outer.len]
        flags, proto, _, _, key = struct.unpack("!HHHHI", gre[:12])
        assert (flags, proto, key) == (0xA000, 0x0800, k)
        assert in_cksum(gre) == 0, "GRE checksum over the GRE header and the inner packet"
        ip = checked_ipv4(gre[12:])
        assert ip.ttl == 63 and bytes(ip.data) == bytes(up[k].data)
        assert (ip.src, ip.dst) == (up[k].src, up[k].dst)

    for k, frame in enumerate(out[5:]):                       # core -> access
        kk = 2 if k == 5 else k
        learned = macs[k] if k < 5 else bytes.fromhex("0200cc000002")
        assert frame[:6] == learned and frame[6:12] == BNG_MAC
        assert struct.unpack("!HHHHH", frame[12:22]) == (0x88A8, 1, 0x8100, 1 + kk, 0x0800)
        ip = checked_ipv4(frame[22:])
        assert ip.ttl == 63 and ip.dst == down[k].dst and bytes(ip.data) == bytes(down[k].data)
        assert len(frame) == 22 + down[k].len


def test_bng_prefills_the_sources_the_access_side_would_learn(dataplane, tmp_path):
    """--core-ip-step 0: every pre-filled subscriber has the one source address --core-ip-base
    (as the access side learns them from the generator's one flow), so that a core frame to it
    finds subscriber k's entry; with the default step, entry k has base + k."""
    frames = [core(k, inner("10.0.9.9", "10.0.0.3")) for k in (0, 5)]
    pin, pout = tmp_path / "in.pcap", tmp_path / "out.pcap"
    pcap.write(pin, frames)
    one = ("--core-ip-base", "10.0.0.3", "--core-ip-step", "0")
    r = replay(pin, pout, nf="bng", nf_args=(*ARGS, *one))
    assert r["frames_out"] == 2
    for k, frame in zip((0, 5), pcap.read(pout)):
        assert frame[:6] == bytes.fromhex(f"0200cc0000{k:02x}")
        assert struct.unpack("!HHHHH", frame[12:22]) == (0x88A8, 1, 0x8100, 1 + k, 0x0800)
    r = replay(pin, pout, nf="bng", nf_args=(*ARGS, "--core-ip-base", "10.0.0.3"))
    assert r["frames_out"] == 1 and r["dropped"] == {"nf": 1}   # only entry 0 is 10.0.0.3


def test_bng_rejects_bad_options(dataplane):
    import subprocess

    from nfvperf.dataplane.build import binaries

    p = subprocess.run([str(binaries()["nf-bng"]), "--ctl", "/nonexistent", "--name", "x", "--",
                        "--routes", "70000"], capture_output=True, text=True, timeout=30, check=False)
    assert p.returncode == 2
    assert p.stderr.strip().splitlines() == ['bng: --routes: expected a count 0..65536, found '
                                             '"70000"']


@pytest.mark.parametrize("which", [0, 1], ids=["access", "core"])
def test_generator_sweeps_what_the_bng_tables_hold(dataplane, which):
    """nfvp-gen's --encap qinq/gre sweeps (tags, GRE keys, inner addresses) address exactly the
    BNG's tables: the BNG drops no frame, and they come back (the traffic of validate, at a
    rate a busy 2-CPU machine still carries; what it loses on the way is the rings', never
    the BNG's)."""
    from nfvperf.validation.dataplane import measure
    from nfvperf.validation.workloads import cases

    traffic = cases(quick=True)["bng"][which]
    m = measure("bng", traffic, 128, rate_pps=5e4, duration_s=0.5)
    assert m["rx"] > 0 and m["dropped_by_nf"] == 0
    assert m["delivered"] >= 0.5 * m["sent"]


@pytest.mark.parametrize("args, message", [
    (("--encap", "gre", "--frame-bytes", "64"),
     ("--frame-bytes: expected at least 96 with --encap gre (78 B of headers and the stamp), "
      "found 64")),
    (("--encap", "vxlan"), '--encap: expected none, mpls, qinq or gre, found "vxlan"'),
    (("--vlan-count", "5"), "--vlan-count: needs --encap qinq"),
])
def test_generator_rejects_encapsulations_it_cannot_make(dataplane, args, message):
    import subprocess

    from nfvperf.dataplane.build import binaries

    p = subprocess.run([str(binaries()["gen"]), "--", "--ctl", "/nonexistent", "--macs",
                        "02:00:00:00:00:01", *args], capture_output=True, text=True, timeout=30, check=False)
    assert p.returncode == 2
    assert p.stderr.strip().splitlines() == [f"nfvp-gen: {message}"]
