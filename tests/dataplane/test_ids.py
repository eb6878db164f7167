"""The IDS NF (dataplane/nfs/ids): Aho-Corasick over the payload of crafted UDP and TCP
packets (built with dpkt), in its IPS mode (--drop) so that every match shows as a drop."""

from __future__ import annotations

import socket
import subprocess

import dpkt
import pytest

from nfvperf.dataplane import pcap
from nfvperf.dataplane.replay import replay

pytestmark = [pytest.mark.dataplane]

MAC = bytes.fromhex("020000000001") + bytes.fromhex("0200000000aa")


def frame(payload: bytes, proto: str = "udp", src: str = "10.0.0.1") -> bytes:
    l4 = dpkt.udp.UDP(sport=1, dport=2, data=payload) if proto == "udp" else \
        dpkt.tcp.TCP(sport=1, dport=2, data=payload, off=6, opts=b"he\x00\x00")
    ip = dpkt.ip.IP(src=socket.inet_aton(src), dst=socket.inet_aton("10.0.0.2"),
                    p=dpkt.ip.IP_PROTO_UDP if proto == "udp" else dpkt.ip.IP_PROTO_TCP,
                    data=l4)
    ip.len = len(ip)
    return MAC + b"\x08\x00" + bytes(ip)


def test_ids_finds_every_signature_in_payloads_and_nowhere_else(dataplane, tmp_path):
    """The classic set he/she/his/hers (Aho & Corasick's example): a match anywhere in the
    payload, overlapping or not, in UDP or TCP; none in headers (a TCP option and the source
    address spell "he"), and frames that are not IPv4 pass."""
    sigs = tmp_path / "sigs.txt"
    sigs.write_text("# the paper's example\nhe\nshe\nhis\nhers\n\n\\x00\\xffbin\n")
    matching = [frame(b"ushers"), frame(b"xxxxhisxxxx", "tcp"), frame(b"...she"),
                frame(b"z" * 900 + b"hers"), frame(b"\x00\xffbin!")]
    clean = [frame(b"hxexhsxixs"), frame(b"h" + b"e".upper(), "tcp"), frame(b""),
             frame(b"abc", src="104.101.0.1"),                  # "he" in the address only
             MAC + b"\x86\xdd" + b"she" * 20]                  # IPv6: not scanned
    pin, pout = tmp_path / "in.pcap", tmp_path / "out.pcap"
    pcap.write(pin, matching + clean)
    r = replay(pin, pout, nf="ids", nf_args=("--signatures", str(sigs), "--drop"))
    assert r["dropped"] == {"nf": len(matching)}
    assert pcap.read(pout) == clean


def test_ids_rejects_a_bad_signature_file(dataplane, tmp_path):
    from nfvperf.dataplane.build import binaries

    sigs = tmp_path / "sigs.txt"
    sigs.write_text("ok\n\\xZZ\n")
    p = subprocess.run([str(binaries()["nf-ids"]), "--ctl", str(tmp_path / "none"), "--name",
                        "x", "--", "--signatures", str(sigs)], capture_output=True, text=True,
                       timeout=30, check=False)
    assert p.returncode != 0
    assert f"ids: {sigs}:2: expected a signature" in p.stderr
