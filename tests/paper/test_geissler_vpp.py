"""The model on the authors' VPP cross-connect samples (Geissler et al. 2021, Sec. 5.1, Fig. 6,
Table 3): β = 256, L = 4096, 64 B, global service-time fit, Poisson interarrival times."""

from __future__ import annotations

import pytest

from nfvperf.batching import vpp

pytestmark = [pytest.mark.paper, pytest.mark.slow]


@pytest.fixture(scope="module")
def checks():
    return vpp.validate()


#: the validation's targets, stated here rather than read from the code under test
BATCH_ABS, BATCH_REL, BATCH_SHARE, LOSS_PP = 2.0, 0.10, 0.85, 1.5


def test_mean_batch_size_at_85_percent_of_rates(checks):
    """Fig. 6 (global fit, Poisson): mean batch size within max(2 packets, 10 %) of the samples'
    at ≥ 85 % of the 20 rates. Measured here: 18 of 20 (7.5 and 8 Gbps miss: the samples' batch
    sizes there are 70.7 and 74.0, barely rising, while the model goes from 59 to 94)."""
    assert len(checks) == 20
    ok = [abs(c.model_mean_batch - c.measured_mean_batch)
          <= max(BATCH_ABS, BATCH_REL * c.measured_mean_batch) for c in checks]
    assert sum(ok) / len(checks) >= BATCH_SHARE, [
        (c.rate_mbps, c.measured_mean_batch, c.model_mean_batch) for c in checks]


def test_loss_within_one_and_a_half_points_everywhere(checks):
    """Loss vs 1 - served/offered of the samples, within 1.5 percentage points at every rate
    (both fractions)."""
    bad = [(c.rate_mbps, c.measured_loss, c.model_loss) for c in checks
           if 100 * abs(c.model_loss - c.measured_loss) > LOSS_PP]
    assert not bad


def test_saturation_differs_from_table_3():
    """Table 3 (20.17 % loss at 10 Gbps) implies the server passes 11.88 Mpps; the samples'
    mean service time of a full batch (19.18 µs) gives 13.35 Mpps. The model follows the
    samples (10.3 % predicted at 10 Gbps vs 10.8 % measured there), not the table."""
    sat = vpp.saturation_mpps()
    assert sat["table3_mpps"] == pytest.approx(11.88, abs=0.01)
    assert sat["samples_mpps"] == pytest.approx(13.35, abs=0.02)


def test_low_rates_lose_nothing(checks):
    """Rates below 8 Gbps: no loss measured (Table 3 omits them as 0) nor predicted."""
    for c in checks:
        if c.rate_mbps < 8000:
            assert c.model_loss < 1e-6 and c.measured_loss < 0.01
