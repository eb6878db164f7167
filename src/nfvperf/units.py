"""Quantities with units: sizes, clocks, bit and transfer rates, Ethernet framing.

The product is SI throughout (1 Mpps = 10^6 packet/s, 1 Gbps = 10^9 bit/s). Byte sizes follow the
JEDEC habit of memory and caches: ``32 KB`` = ``32 KiB`` = 32 768 B. The paper of Baldi & Sapio
prints rates under binary prefixes (G = 2^30, M = 2^20); :data:`BINARY` reproduces that reading
and only ``--paper-units`` selects it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from nfvperf import limits
from nfvperf.errors import InputError

#: Preamble (7 B), start-of-frame delimiter (1 B) and inter-frame gap (12 B) around each frame.
WIRE_OVERHEAD_BYTES = 20
#: Ethernet header (14 B) and frame check sequence (4 B): frame size minus this is the payload.
ETH_HEADER_FCS_BYTES = 18
#: The smallest Ethernet frame (RFC 2544 counts the FCS in it).
MIN_FRAME_BYTES = limits.MIN_FRAME
#: The largest frame a model takes (a common jumbo-frame limit; the data plane's is
#: limits.MAX_FRAME).
MAX_FRAME_BYTES = limits.MAX_JUMBO_FRAME
#: RFC 2544 Section 9.1 frame sizes for Ethernet.
RFC2544_FRAME_BYTES = (64, 128, 256, 512, 1024, 1280, 1518)


@dataclass(frozen=True)
class Prefixes:
    """What the decimal prefixes k, M, G mean when reading inputs and printing rates."""

    name: str
    kilo: float
    mega: float
    giga: float


SI = Prefixes("si", 1e3, 1e6, 1e9)
BINARY = Prefixes("binary", 2.0**10, 2.0**20, 2.0**30)

_BYTE_UNITS = {"b": 1, "kb": 2**10, "kib": 2**10, "mb": 2**20, "mib": 2**20, "gb": 2**30,
               "gib": 2**30}
# unit suffix -> (base unit, power of the prefix: 0 none, 1 kilo, 2 mega, 3 giga)
_RATE_UNITS = {
    "hz": {"hz": 0, "khz": 1, "mhz": 2, "ghz": 3},
    "bps": {"bps": 0, "kbps": 1, "mbps": 2, "gbps": 3, "bit/s": 0, "gbit/s": 3, "mbit/s": 2},
    "transfers": {"t/s": 0, "mt/s": 2, "gt/s": 3},
}
_QUANTITY = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([A-Za-z/]*)\s*$")


def parse_bytes(value: object, *, field: str = "size") -> float:
    """Read a byte size: a number of bytes, or a string such as ``64 B``, ``32 KB``, ``25 MiB``."""
    number, unit = _split(value, field, "a size in bytes such as 64 B or 32 KB")
    factor = _BYTE_UNITS.get(unit.lower() or "b")
    if factor is None:
        raise InputError(f"a byte unit ({', '.join(['B', 'KB', 'KiB', 'MB', 'MiB'])})", value,
                         field=field)
    return number * factor


def parse_rate(value: object, kind: str, *, prefixes: Prefixes = SI, field: str = "rate") -> float:
    """Read a clock (``kind="hz"``), bit rate (``"bps"``) or transfer rate (``"transfers"``).

    A bare number is taken in the base unit (Hz, bit/s, transfers/s). With ``prefixes=BINARY``
    ``3.6 GHz`` reads as 3.6 * 2^30 Hz, the convention of the paper's printed figures.
    """
    units = _RATE_UNITS[kind]
    example = {"hz": "3.6 GHz", "bps": "10 Gbps", "transfers": "1333 MT/s"}[kind]
    number, unit = _split(value, field, f"a rate such as {example}")
    power = units.get(unit.lower()) if unit else 0
    if power is None:
        raise InputError(f"a rate such as {example}", value, field=field)
    return number * (1.0, prefixes.kilo, prefixes.mega, prefixes.giga)[power]


_TIME_UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}


def parse_seconds(value: object, *, field: str = "time") -> float:
    """Read a duration: a number of seconds, or a string such as ``85 ns`` or ``1.2 us``."""
    text = value.replace("µs", "us") if isinstance(value, str) else value
    number, unit = _split(text, field, "a time such as 85 ns")
    factor = _TIME_UNITS.get(unit.lower() or "s")
    if factor is None:
        raise InputError("a time unit (s, ms, us, ns)", value, field=field)
    return number * factor


def _split(value: object, field: str, expected: str) -> tuple[float, str]:
    if isinstance(value, bool):
        raise InputError(expected, value, field=field)
    if isinstance(value, (int, float)):
        number, unit = float(value), ""
    elif isinstance(value, str) and (m := _QUANTITY.match(value)):
        number, unit = float(m.group(1)), m.group(2)
    else:
        raise InputError(expected, value, field=field)
    if not math.isfinite(number) or number < 0:
        raise InputError(expected, value, field=field)
    return number, unit


def check_frame_bytes(frame_bytes: int, *, field: str = "frame_bytes") -> int:
    """Validate an Ethernet frame size (FCS included, as RFC 2544 counts it)."""
    if isinstance(frame_bytes, bool) or not isinstance(frame_bytes, int) or not (
        MIN_FRAME_BYTES <= frame_bytes <= MAX_FRAME_BYTES
    ):
        raise InputError(
            f"a frame size in bytes from {MIN_FRAME_BYTES} to {MAX_FRAME_BYTES}",
            frame_bytes, field=field,
        )
    return frame_bytes


def payload_bytes(frame_bytes: int) -> int:
    """The Ethernet payload ``ps`` of a frame: the frame minus header and FCS."""
    return frame_bytes - ETH_HEADER_FCS_BYTES


def wire_bits(frame_bytes: float) -> float:
    """Bits a frame occupies on the wire, preamble and inter-frame gap included."""
    return (frame_bytes + WIRE_OVERHEAD_BYTES) * 8.0


def line_rate_pps(link_bps: float, frame_bytes: float) -> float:
    """Frames per second that fill a link of ``link_bps`` (10 Gbps at 64 B: 14.88 Mpps)."""
    return link_bps / wire_bits(frame_bytes)
