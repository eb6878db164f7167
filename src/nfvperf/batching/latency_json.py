"""The JSON of ``nfvperf validate vpp`` (``latency.validate()``'s result): a contract written once
as types that the documentation's reference is generated from and that the tests validate every
run against. Latencies are µs; the quantiles are ``latency.QUANTILES``, the targets
``latency.TARGETS`` (a test checks these types name the same)."""

from __future__ import annotations

from typing_extensions import TypedDict

from nfvperf.output import contract


@contract
class Scenario(TypedDict):
    """The measured configuration (the VPP samples' README)."""

    scenario: str
    beta: int
    frame_bytes: int
    queue: int


@contract
class MethodUsed(TypedDict):
    """How the model was set up (``nfvperf validate vpp``'s options)."""

    arrivals: str
    service: str
    """The service time's distribution around each batch size's mean."""
    means: str
    """Each size's own mean (``table``) or the fitted line."""
    dt_ns: float
    link_gbps: float | None
    """The egress link the batch leaves on (null: none)."""


@contract
class Offset(TypedDict):
    """MoonGen's fixed delay, calibrated once on the loss-free rates (Geissler et al. Sec. 5.3)."""

    value_us: float
    spread_us: list[float]
    """[least, most] of the per-rate differences."""
    quartiles_us: list[float]
    rates_mbps: list[float]
    """The loss-free rates it was calibrated on."""
    per_rate_us: list[float]
    """Measured minus model at each of them."""


@contract
class Measured(TypedDict):
    mean_us: float
    mean_without_outliers_us: float | None
    """The mean of the packets under ``outlier_bound_us`` (null: none were)."""
    p50_us: float
    p90_us: float
    p99_us: float


@contract
class Predicted(TypedDict):
    """The model's sojourn plus the offset."""

    mean_us: float
    p50_us: float
    p90_us: float
    p99_us: float


@contract
class Errors(TypedDict):
    """Predicted minus measured."""

    mean_us: float
    p50_us: float
    p90_us: float
    mean_without_outliers_us: float | None
    p99_pct: float
    """Relative, % of the measured p99."""


@contract
class Within(TypedDict):
    """Each target met at this rate."""

    mean: bool
    mean_without_outliers: bool
    p50: bool
    p99: bool


@contract
class Cdf(TypedDict):
    """Both CDFs at the probabilities ``q`` (for Fig. 13's plots)."""

    q: list[float]
    measured_us: list[float]
    predicted_us: list[float]


@contract
class RateRow(TypedDict):
    """One offered rate: the histogram against the model + offset."""

    rate_mbps: float
    loss_free: bool
    """Neither the measurement nor the model loses 0.1 % here."""
    measured_loss: float | None
    samples_loss: float | None
    """1 - served/offered in the clock samples (reported, not judged by)."""
    model_loss: float
    model_mean_batch: float
    packets: int
    """In the histogram."""
    outliers: int
    """Packets beyond ``outlier_bound_us``."""
    measured: Measured
    predicted: Predicted
    error: Errors
    within: Within
    ks: float
    """Kolmogorov-Smirnov distance of the CDFs."""
    wasserstein_us: float
    """Area between the CDFs."""
    cdf: Cdf


@contract
class TargetScore(TypedDict):
    within: int
    """Loss-free rates within the target."""
    of: int
    target_share: float
    met: bool


@contract
class Summary(TypedDict):
    loss_free_rates: int
    mean: TargetScore
    mean_without_outliers: TargetScore
    p50: TargetScore
    p99: TargetScore


@contract
class VppValidation(TypedDict):
    """What ``nfvperf validate vpp --format json`` prints."""

    config: Scenario
    method: MethodUsed
    offset: Offset
    outlier_bound_us: float
    """The longest a packet can stay in the device (behind a full queue and the batch in
    service, each at its slowest) plus the offset: beyond it a packet is the generator's
    outlier, not VPP's queue."""
    rates: list[RateRow]
    summary: Summary
