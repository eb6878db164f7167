"""Chains of services with parallel NF instances: one description (``ChainSpec``) that both back
ends take, the simulator (``nfvperf.sim.simulate_chain``) and the data plane
(``nfvperf.dataplane.run_chain``), and one record of what a run gave (``ChainResult``)."""

from nfvperf.chain.policies import POLICIES, POLICY_CODES, integer_weights
from nfvperf.chain.result import (DROP_PLACES, ChainResult, ClassResult, InstanceResult, Latency,
                                  ScaleResult, ServiceResult, loss)
from nfvperf.chain.spec import (ChainSpec, ScaleEvent, ServiceSpec, Targets, TrafficClass,
                                instance_name, load_chain)

__all__ = ["DROP_PLACES", "POLICIES", "POLICY_CODES", "ChainResult", "ChainSpec", "ClassResult",
           "InstanceResult", "Latency", "ScaleEvent", "ScaleResult", "ServiceResult",
           "ServiceSpec", "Targets", "TrafficClass", "instance_name", "integer_weights",
           "load_chain", "loss"]
