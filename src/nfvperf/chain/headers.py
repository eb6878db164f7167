"""What the generator writes in a chain's packets besides their size and flow: the address sweeps
that table NFs look up (a router's routes, a switch's MAC table) and the encapsulation. Packet i
of a run gets the i-th address of each sweep (``dataplane/gen``, ``--dst-ip-*``)::

    headers:
      dst_ip: {base: 10.0.0.1, step: 256, count: 65536}   # 10.0.0.1, 10.0.1.1, ...
      dst_mac_count: 1         # destination MACs from the chain's own, counting up
      src_mac_count: 1
      encap: none              # none, mpls, qinq, gre
      vlan_count: 1            # qinq: tag pairs swept

An NF drops by design the packets its tables have no entry for; ``nfs.NF.passes`` says which
share of these headers each NF hands on, and the simulator drops the rest where the NF does.
"""

from __future__ import annotations

import ipaddress
from typing import Literal

from pydantic import Field, field_validator

from nfvperf import limits
from nfvperf.files import FileModel

#: the generator's destination address when a chain names none (NFVP_GEN_DST_IP)
DEFAULT_DST_IP = "192.168.0.1"
ENCAPS = ("none", "mpls", "qinq", "gre")


class IpSweep(FileModel):
    """Destination addresses base + (i mod count) × step."""

    base: str = Field(DEFAULT_DST_IP, description="an IPv4 address a.b.c.d")
    step: int = Field(1, ge=1, le=limits.GEN_MAX_SWEEP)
    count: int = Field(1, ge=1, le=limits.GEN_MAX_SWEEP)

    @field_validator("base")
    @classmethod
    def _ipv4(cls, v: str) -> str:
        try:
            ipaddress.IPv4Address(v)
        except ValueError:
            raise ValueError("an IPv4 address a.b.c.d") from None
        return v

    def addresses(self, most: int = 1 << 20):
        """The sweep's addresses as uint32 (at most ``most``, evenly spaced over the sweep:
        the shares they give are those of the whole)."""
        import numpy as np

        i = np.linspace(0, self.count - 1, min(self.count, most)).astype(np.uint64)
        base = int(ipaddress.IPv4Address(self.base))
        return ((base + i * self.step) & 0xFFFFFFFF).astype(np.uint32)


class Headers(FileModel):
    """What the generator writes in the headers (see the module docstring)."""

    dst_ip: IpSweep = Field(default_factory=IpSweep)
    dst_mac_count: int = Field(1, ge=1, le=limits.GEN_MAX_SWEEP)
    src_mac_count: int = Field(1, ge=1, le=limits.GEN_MAX_VLANS)
    encap: Literal[ENCAPS] = "none"
    vlan_count: int = Field(1, ge=1, le=limits.GEN_MAX_VLANS)

    def gen_args(self) -> tuple[str, ...]:
        """nfvp-gen's options for them (none for the defaults)."""
        out = []
        ip = self.dst_ip
        if ip != IpSweep():
            out += ["--dst-ip-base", ip.base, "--dst-ip-step", str(ip.step), "--dst-ip-count",
                    str(ip.count)]
        for flag, v in (("--dst-mac-count", self.dst_mac_count),
                        ("--src-mac-count", self.src_mac_count),
                        ("--vlan-count", self.vlan_count)):
            if v != 1:
                out += [flag, str(v)]
        if self.encap != "none":
            out += ["--encap", self.encap]
        return tuple(out)
