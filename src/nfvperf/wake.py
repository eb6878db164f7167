"""How the vSwitch wakes blocking NFs (the ``semaphore`` and ``isolated`` architectures): one
set of knobs that the command line, chain files and the Python API share, with the vSwitch's
defaults (``dataplane/include/nfvp_limits.h``, mirrored in ``nfvperf.limits``).

A sleeping NF is posted when ``batch`` packets wait for it, or when the oldest has waited the
aging timeout: ``timeout_us`` at least, and longer while the NFs waiting, each posted once a
timeout, would take more than ``budget_pct`` % of the vSwitch's time at the cost of a post the
vSwitch measures as it runs (0: the timeout as given). A woken NF drains its ring and looks
once more after a turn of its core before it sleeps again.
"""

from __future__ import annotations

from pydantic import Field

from nfvperf import limits
from nfvperf.files import FileModel


class Wake(FileModel):
    """The wake-up policy for blocking NFs; every field has the vSwitch's default."""

    batch: int = Field(limits.WAKE_BATCH, ge=1, le=65536,
                       description="post a sleeping NF when this many packets wait for it")
    timeout_us: int = Field(limits.WAKE_TIMEOUT_US, ge=1, le=10_000_000,
                            description="the shortest aging timeout: the oldest waiting packet "
                            "wakes its NF after this long (µs) at the latest, unless the budget "
                            "stretches it")
    budget_pct: int = Field(limits.WAKE_BUDGET_PCT, ge=0, le=100,
                            description="the share of the vSwitch's time (%) that wake-ups by "
                            "age may take; the timeout grows to keep them within it (0: never)")

    def vswitch_args(self) -> list[str]:
        """The vSwitch's command-line options for this policy."""
        return ["--wake-batch", str(self.batch), "--wake-timeout-us", str(self.timeout_us),
                "--wake-budget-pct", str(self.budget_pct)]


def per_wake(rx: int, wakeups: int) -> dict[str, float | None]:
    """An NF's wake-ups a packet and packets a wake-up (None where it had none)."""
    return {"wakeups_per_packet": wakeups / rx if rx else None,
            "batch_per_wakeup": rx / wakeups if wakeups else None}
