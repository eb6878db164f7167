"""How the vSwitch wakes blocking NFs (the ``semaphore`` and ``isolated`` architectures): one
set of knobs that the command line, chain files and the Python API share, with the vSwitch's
defaults (``dataplane/include/nfvp_limits.h``, mirrored in ``nfvperf.limits``).

A sleeping NF is posted when ``batch`` packets wait for it, or when the oldest has waited
``timeout_us``. A wake-up costs the NFs' core a context switch into a process whose lines are
cold, several µs, where a packet costs tens of ns; so while the NFs are woken more than
``rate_max`` times a second in all, the vSwitch stretches batch and timeout together (doubling
them each window of ``limits.WAKE_WINDOW_US`` over the rate, up to ``limits.WAKE_STRETCH_MAX``
times, and easing back under half of it): with many NFs each waits longer and takes more per
wake-up. A woken NF drains its ring and looks once more after a turn of its core before it
sleeps again.
"""

from __future__ import annotations

from pydantic import Field

from nfvperf import limits
from nfvperf.files import FileModel


class Wake(FileModel):
    """The wake-up policy for blocking NFs; every field has the vSwitch's default."""

    batch: int = Field(limits.WAKE_BATCH, ge=1, le=limits.WAKE_BATCH_MOST,
                       description="post a sleeping NF when this many packets wait for it")
    timeout_us: int = Field(limits.WAKE_TIMEOUT_US, ge=1, le=limits.WAKE_TIMEOUT_US_MOST,
                            description="the aging timeout: the oldest waiting packet wakes its "
                            "NF after this long (µs), unless the wake-up rate stretches it")
    rate_max: int = Field(limits.WAKE_RATE_MAX, ge=0, le=limits.WAKE_RATE_MOST,
                          description="wake-ups a second, all NFs together, beyond which batch "
                          "and timeout stretch (0: never)")

    @classmethod
    def checked(cls, **fields) -> Wake:
        """A policy from these fields, or InputError naming the bad one as ``wake_FIELD`` (as
        the run's parameters and the command line's --wake-* options spell it)."""
        from pydantic import ValidationError

        from nfvperf.errors import InputError
        from nfvperf.files import expected_of

        try:
            return cls(**fields)
        except ValidationError as exc:
            err = exc.errors(include_url=False)[0]
            raise InputError(expected_of(cls, err), err.get("input"),
                             field=f"wake_{err['loc'][0]}") from None

    def vswitch_args(self) -> list[str]:
        """The vSwitch's command-line options for this policy."""
        return ["--wake-batch", str(self.batch), "--wake-timeout-us", str(self.timeout_us),
                "--wake-rate-max", str(self.rate_max)]


def per_wake(rx: int, wakeups: int) -> dict[str, float | None]:
    """An NF's wake-ups a packet and packets a wake-up (None where it had none)."""
    return {"wakeups_per_packet": wakeups / rx if rx else None,
            "batch_per_wakeup": rx / wakeups if wakeups else None}
