"""Classic pcap files (libpcap format), read and written here for replays through the data plane
and for checking what came out; no dependency for a 24-byte header and 16 bytes per record."""

from __future__ import annotations

import struct
from pathlib import Path

from nfvperf.errors import InputError

_MAGICS = {0xA1B2C3D4: "<", 0xD4C3B2A1: ">", 0xA1B23C4D: "<", 0x4D3CB2A1: ">"}


def read(path: Path) -> list[bytes]:
    """The frames of a pcap file (Ethernet link type), in order."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise InputError("a readable pcap file", exc.strerror or str(exc), file=str(path)) \
            from None
    if len(data) < 24 or struct.unpack("<I", data[:4])[0] not in _MAGICS:
        raise InputError("a pcap file (magic a1b2c3d4)", data[:4].hex() or "an empty file",
                         file=str(path))
    endian = _MAGICS[struct.unpack("<I", data[:4])[0]]
    if struct.unpack(endian + "I", data[20:24])[0] != 1:
        raise InputError("Ethernet frames (link type 1)", struct.unpack(endian + "I",
                                                                         data[20:24])[0],
                         file=str(path), field="link type")
    frames, off = [], 24
    while off + 16 <= len(data):
        incl = struct.unpack(endian + "IIII", data[off:off + 16])[2]
        if off + 16 + incl > len(data):
            raise InputError(f"{incl} bytes of record {len(frames) + 1}", "a truncated file",
                             file=str(path))
        frames.append(data[off + 16:off + 16 + incl])
        off += 16 + incl
    return frames


def write(path: Path, frames: list[bytes]) -> None:
    with Path(path).open("wb") as fh:
        fh.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, f in enumerate(frames):
            fh.write(struct.pack("<IIII", i // 1_000_000, i % 1_000_000, len(f), len(f)) + f)
