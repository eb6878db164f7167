"""The NFs on crafted packets: replayed from a pcap file through the vSwitch (net_pcap port) and
captured back, then checked byte by byte here."""

from __future__ import annotations

import struct
import time
from pathlib import Path

import pytest

from nfvperf.dataplane.run import Session

pytestmark = [pytest.mark.dataplane]

DST = bytes.fromhex("020000000000")
SRC = bytes.fromhex("0200000000aa")


def write_pcap(path: Path, frames: list[bytes]) -> None:
    with path.open("wb") as fh:
        fh.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, f in enumerate(frames):
            fh.write(struct.pack("<IIII", 1, i, len(f), len(f)) + f)


def read_pcap(path: Path) -> list[bytes]:
    data = path.read_bytes()
    magic = struct.unpack("<I", data[:4])[0]
    assert magic in (0xA1B2C3D4, 0xA1B23C4D)
    frames, off = [], 24
    while off + 16 <= len(data):
        incl = struct.unpack("<IIII", data[off:off + 16])[2]
        frames.append(data[off + 16:off + 16 + incl])
        off += 16 + incl
    return frames


def mpls_frame(label: int, ttl: int) -> bytes:
    shim = struct.pack(">I", (label << 12) | (1 << 8) | ttl)
    return DST + SRC + b"\x88\x47" + shim + bytes(46)


def ipv4_frame(i: int) -> bytes:
    return DST + SRC + b"\x08\x00" + bytes([0x45]) + bytes(45) + i.to_bytes(2, "big")


def through(nf: str, frames: list[bytes], tmp_path: Path, args: tuple[str, ...] = ()) -> tuple:
    """Replay frames through one NF: the vSwitch holds its ports until the chain exists."""
    pin, pout = tmp_path / "in.pcap", tmp_path / "out.pcap"
    write_pcap(pin, frames)
    with Session("double-buffer", vdevs=(f"net_pcap0,rx_pcap={pin},tx_pcap={pout}",),
                 ring_ports=0, rx_hold=True) as s:
        s.add_nfs(nf, ["x"], args=args)
        s.control.call("chain add 0 02:00:00:00:00:00 0 x")
        s.start_rx()
        deadline = time.monotonic() + 5
        while s.stats()["ports"][0]["rx"] < len(frames) and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.1)
        stats = s.close()
    return read_pcap(pout), stats


def test_forward_rewrites_both_macs_and_keeps_the_rest(dataplane, tmp_path):
    sent = [ipv4_frame(i) for i in range(50)]
    out, stats = through("forward", sent, tmp_path, ("--src-mac", "02:00:00:00:f0:0d",
                                                     "--dst-mac", "0a:0b:0c:0d:0e:0f"))
    assert stats["ports"][0]["tx"] == 50 and len(out) == 50
    for a, b in zip(sent, out):
        assert b[:6] == bytes.fromhex("0a0b0c0d0e0f") and b[6:12] == bytes.fromhex("02000000f00d")
        assert b[12:] == a[12:]


def test_mpls_swaps_the_label_decrements_ttl_and_drops_expiring(dataplane, tmp_path):
    sent = [mpls_frame(100 + i, 64) for i in range(20)] + [mpls_frame(7, 1)] * 5
    out, stats = through("mpls", sent, tmp_path, ("--delta", "1000"))
    assert len(out) == 20 and stats["dropped"]["nf"] == 5
    for i, b in enumerate(out):
        shim = struct.unpack(">I", b[14:18])[0]
        assert shim >> 12 == 1100 + i          # label + delta
        assert shim & 0xFF == 63               # TTL - 1
        assert (shim >> 8) & 1 == 1            # bottom of stack kept
        assert b[18:] == sent[i][18:]


def test_signature_reads_and_changes_nothing(dataplane, tmp_path):
    sent = [ipv4_frame(i) for i in range(30)]
    out, _ = through("signature", sent, tmp_path)
    assert out == sent
