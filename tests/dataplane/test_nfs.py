"""The NFs on crafted packets: replayed from a pcap file through the vSwitch (net_pcap port) and
captured back, then checked byte by byte here."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

from nfvperf.dataplane import pcap
from nfvperf.dataplane.replay import replay
from nfvperf.reference import output_type

pytestmark = [pytest.mark.dataplane]

DST = bytes.fromhex("020000000000")
SRC = bytes.fromhex("0200000000aa")


def mpls_frame(label: int, ttl: int) -> bytes:
    shim = struct.pack(">I", (label << 12) | (1 << 8) | ttl)
    return DST + SRC + b"\x88\x47" + shim + bytes(46)


def ipv4_frame(i: int) -> bytes:
    return DST + SRC + b"\x08\x00" + bytes([0x45]) + bytes(45) + i.to_bytes(2, "big")


def through(nf: str, frames: list[bytes], tmp_path: Path, args: tuple[str, ...] = ()) -> tuple:
    """Replay frames through one NF (nfvperf's replay: the ports wait for the chain)."""
    pin, pout = tmp_path / "in.pcap", tmp_path / "out.pcap"
    pcap.write(pin, frames)
    result = replay(pin, pout, nf=nf, nf_args=args)
    return pcap.read(pout), result


def test_forward_rewrites_both_macs_and_keeps_the_rest(dataplane, tmp_path):
    sent = [ipv4_frame(i) for i in range(50)]
    out, stats = through("forward", sent, tmp_path, ("--src-mac", "02:00:00:00:f0:0d",
                                                     "--dst-mac", "0a:0b:0c:0d:0e:0f"))
    assert stats["frames_out"] == 50 and len(out) == 50
    for a, b in zip(sent, out, strict=True):
        assert b[:6] == bytes.fromhex("0a0b0c0d0e0f") and b[6:12] == bytes.fromhex("02000000f00d")
        assert b[12:] == a[12:]


def test_mpls_swaps_the_label_decrements_ttl_and_drops_expiring(dataplane, tmp_path):
    # expiring frames among the others, in the same bursts: each dropped once, the rest kept
    # in order (a drop used to swap in a frame from the burst's end that went unprocessed)
    kept = [mpls_frame(100 + i, 64) for i in range(20)]
    sent = [f for i, k in enumerate(kept) for f in ([k, mpls_frame(7, 1)] if i % 4 == 0
                                                    else [k])]
    out, stats = through("mpls", sent, tmp_path, ("--delta", "1000"))
    assert len(out) == 20 and stats["dropped"] == {"nf": 5}
    for i, b in enumerate(out):
        shim = struct.unpack(">I", b[14:18])[0]
        assert shim >> 12 == 1100 + i          # label + delta
        assert shim & 0xFF == 63               # TTL - 1
        assert (shim >> 8) & 1 == 1            # bottom of stack kept
        assert b[18:] == kept[i][18:]


def test_signature_reads_and_changes_nothing(dataplane, tmp_path):
    sent = [ipv4_frame(i) for i in range(30)]
    out, _ = through("signature", sent, tmp_path)
    assert out == sent


def test_replay_cli_chains_every_destination_mac(dataplane, cli, tmp_path):
    other = bytes.fromhex("02000000bbbb")
    frames = [mpls_frame(10, 9)] * 7 + [other + f[6:] for f in [mpls_frame(20, 9)] * 5]
    pin, pout = tmp_path / "in.pcap", tmp_path / "out.pcap"
    pcap.write(pin, frames)
    code, out, err = cli("dataplane", "replay", str(pin), "--capture", str(pout), "--nf", "mpls",
                         "--chain-length", "2", "--nf-arg=--delta=3", "--format", "json")
    assert code == 0, err
    r = json.loads(out)
    output_type("nfvperf dataplane replay").validate_python(r)
    assert r["frames_in"] == 12 and r["frames_out"] == 12 and r["chains"] == 2
    labels = sorted(struct.unpack(">I", f[14:18])[0] >> 12 for f in pcap.read(pout))
    assert labels == [16] * 7 + [26] * 5          # two hops, +3 each


def test_replay_rejects_what_is_not_a_pcap(cli, tmp_path):
    bad = tmp_path / "x.pcap"
    bad.write_bytes(b"hello world, not a capture")
    code, _, err = cli("dataplane", "replay", str(bad), "--capture", str(tmp_path / "o.pcap"))
    assert code == 2 and err.startswith(f"nfvperf: error: {bad}: expected a pcap file")
