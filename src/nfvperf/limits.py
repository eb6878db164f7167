"""Limits, frame bounds and names of the C data plane, as Python sees them.

The one copy is ``dataplane/include/nfvp_limits.h``; this module mirrors it so that an installed
package (which has no C headers) knows them too, and ``tests/test_limits.py`` parses the header
and fails when the two differ. Every value a user gives is checked against these before any
process starts.
"""

from __future__ import annotations

#: processes and chains of one vSwitch
MAX_NFS = 8192
MAX_CHAINS = 8192
MAX_CHAIN_LEN = 16
MAX_PORTS = 4
#: packets an NF takes from its ring at most, and the default NF ring size (what arrives while
#: the NF is away from a shared core must fit)
NF_MAX_BURST = 32
NF_RING_SIZE = 4096
#: the ring ports' rings (an rte_ring of this size holds one packet less; the generator's
#: receive ring holds what comes back while it is away from the NFs' core)
PORT_RING_SIZE = 4096
#: frames the generator builds and the mbufs carry (FCS included); the largest any model takes
MIN_FRAME = 64
MAX_FRAME = 1518
MAX_JUMBO_FRAME = 9216
#: flows in all (flow f's source address GEN_SRC_NET.0.(f >> 8).(f & 255)), and flow classes
#: sent together
GEN_SRC_NET = 10
MAX_FLOWS = 65536
MAX_CLASSES = 4
#: the generator's EAL lcore id on any CPU (the mbuf pool's cache is per lcore id; the
#: vSwitch's id is its CPU's)
GEN_LCORE = 127
#: the generator's naps with --idle sleep: at most, and none shorter than (microseconds)
GEN_NAP_MAX_US = 20
GEN_NAP_MIN_US = 2
#: a stall: a busy loop's clock jumping by more than this (µs: the host took the CPU away);
#: the vSwitch keeps the first STALLS_KEPT of its own, calibration times them the same way
STALL_GAP_US = 20
STALLS_KEPT = 4096
#: the generator's address sweeps: --dst-*-count, --dst-ip-step (a MAC's low 24 bits), and
#: --src-mac-count, --vlan-count (QinQ tag pairs: 4094 x 4094)
GEN_MAX_SWEEP = 16777216
GEN_MAX_VLANS = 16760836
#: blocking NFs: wake a sleeping NF when WAKE_BATCH packets wait, or the oldest has waited
#: WAKE_TIMEOUT_US; both stretch (up to WAKE_STRETCH_MAX times) while the NFs are woken more than
#: WAKE_RATE_MAX times a second in all, measured over WAKE_WINDOW_US
WAKE_BATCH = 32
WAKE_TIMEOUT_US = 100
WAKE_RATE_MAX = 20000
#: the most each may be set to
WAKE_BATCH_MOST = 65536
WAKE_TIMEOUT_US_MOST = 10000000
WAKE_RATE_MOST = 100000000
WAKE_WINDOW_US = 10000
WAKE_STRETCH_MAX = 4096
#: services: chain steps served by parallel instances of one NF
MAX_SERVICES = 64
MAX_INSTANCES = 16
FLOW_ENTRIES = 65536
WEIGHT_MAX = 1000
NF_AWARE_DECAY_MS = 100
#: exchange architectures (Cerrato et al., Sec. IV) and distribution policies, in C's order
ARCH_NAMES = ("double-buffer", "semaphore", "shared-ring", "fdir", "isolated")
POLICY_NAMES = ("flow", "weighted", "round-robin", "nf-aware")
#: why an NF drops a packet (per_nf's drops_by_reason), in C's order
DROP_REASON_NAMES = ("not_ipv4", "protocol", "truncated", "fragment", "no_route", "ttl",
                     "no_mapping", "table_full", "unknown_dst", "policy", "other")


def ring_room(size: int) -> int:
    """The packets an rte_ring of ``size`` slots holds: one less (a port's ring, say)."""
    return size - 1
