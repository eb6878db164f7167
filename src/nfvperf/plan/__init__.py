"""The planner: how many instances of each NF, on which hosts, to meet the targets at least
cost (after Hajji et al. and Baldi & Sapio's orchestration use of the estimate)::

    from nfvperf.plan import load_plan, plan
    result = plan(load_plan("examples/plans/bng-10g.yaml"))   # raises Infeasible, with why

Modules: ``spec`` (plan files), ``capacity`` (what an instance may carry), ``program`` (the
CP-SAT program), ``solve`` (plan and explain), ``validate`` (a plan on this data plane).
"""

from nfvperf.plan.program import Infeasible, NoPlanInTime
from nfvperf.plan.solve import plan
from nfvperf.plan.spec import PlanSpec, load_plan

__all__ = ["Infeasible", "NoPlanInTime", "PlanSpec", "load_plan", "plan"]
