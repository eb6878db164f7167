"""How a service spreads packets over its instances: the vSwitch's policies
(``dataplane/vswitch/service.c``), which the simulator mirrors.

``flow``: consistent hashing (Maglev), flows pinned; ``weighted``: the same with a weight per
instance; ``round-robin``: per packet, stateless NFs only; ``nf-aware``: large and small flows
apart, each group sized by its share of what drives the NF's cost (Hajji et al.).
"""

from __future__ import annotations

import math

from nfvperf import limits

POLICIES = limits.POLICY_NAMES
#: the code of each policy, as the C enum nfvp_policy and the simulator's kernel number them
POLICY_CODES = {p: i for i, p in enumerate(POLICIES)}


def weights_problem(weights: list[float] | None, n: int) -> tuple[str, object] | None:
    """(expected, found) when ``weights`` cannot weigh ``n`` instances, else None."""
    if weights is None:
        return None
    if len(weights) != n:
        return f"one weight per instance ({n})", len(weights)
    if any(not math.isfinite(w) or w < 0 for w in weights) or sum(weights) <= 0:
        return "weights ≥ 0 that sum to a positive value", weights
    return None


def integer_weights(weights: list[float] | None, n: int) -> list[int]:
    """Weights as the vSwitch takes them: integers 0..WEIGHT_MAX in the same proportions (a
    positive weight stays at least 1); no weights: 1 each."""
    if weights is None:
        return [1] * n
    top = max(weights)
    return [0 if w == 0 else max(1, round(w / top * limits.WEIGHT_MAX)) for w in weights[:n]]
