"""Driver of the C data plane (``dataplane/`` in the repository): build it, check the host, run it.

The data plane is the system of Cerrato, Annarumma & Risso (EWSDN 2014): a vSwitch (a DPDK
primary process) moves packets through chains of NF processes in one of five exchange
architectures; a traffic generator (a DPDK secondary process) sends stamped packets in and
measures what comes back. This package starts those processes, programs the chains over the
vSwitch's control socket, collects their JSON reports and merges them into one result.
"""

from nfvperf.dataplane.build import ARCHS, NFS, binaries, build, doctor
from nfvperf.dataplane.run import RunConfig, run
from nfvperf.dataplane.session import Session

__all__ = ["ARCHS", "NFS", "RunConfig", "Session", "binaries", "build", "doctor", "run"]
