"""Service times from samples and service-time files (Geissler et al. Sec. 5.1.1)."""

from __future__ import annotations

import numpy as np
import pytest

from nfvperf.batching import fit
from nfvperf.errors import InputError


def test_fit_uses_measured_means_where_seen_and_the_line_elsewhere():
    sizes = np.array([1] * 10 + [2] * 10 + [4] * 2)
    times = 100.0 + 10.0 * sizes + np.tile([-1.0, 1.0], 11)
    t = fit.fit(fit.Samples(sizes, times), beta=6, min_samples=5)
    assert t.slope_ns == pytest.approx(10, rel=1e-6) and t.intercept_ns == pytest.approx(100)
    assert t.measured.tolist() == [False, True, True, False, False, False, False]
    assert t.mean_ns[6] == pytest.approx(160)


def test_raw_timestamps_give_forward_differences(tmp_path):
    """The batch picked up at one t1 is served until the next t1 of the same chunk."""
    path = tmp_path / "raw.csv"
    path.write_text("rate_mbps,chunk,line,t1,vecsize\n"
                    "500,0,0,0,1\n500,0,1,3393,2\n500,0,2,10179,3\n"
                    "500,1,0,99999999,5\n500,1,1,100003392,6\n")
    s = fit.read_samples(path, beta=256, tsc_ghz=3.393)
    assert s.batch_size.tolist() == [1, 2, 5]
    assert s.service_time_ns.tolist() == pytest.approx([1000, 2000, 1000], rel=1e-9)


def test_raw_needs_the_tsc_rate(tmp_path):
    path = tmp_path / "raw.csv"
    path.write_text("t1,vecsize\n0,1\n10,2\n")
    with pytest.raises(InputError, match="^tsc_ghz: expected the TSC rate"):
        fit.read_samples(path, beta=4)


def test_vpp_samples_global_fit():
    """Fig. 5 (XC, β = 256): a line of ≈ 73 ns per packet over ≈ 1 µs."""
    from nfvperf.batching import vpp

    t = fit.fit(vpp.samples(), 256)
    assert 60 < t.slope_ns < 85 and 500 < t.intercept_ns < 1500
    assert t.measured[256]


def test_read_table_interpolates(tmp_path):
    path = tmp_path / "svc.csv"
    path.write_text("batch_size,mean_service_time_ns\n1,200\n3,400\n")
    t = fit.read_table(path, beta=4)
    assert t.mean_ns.tolist() == [100, 200, 300, 400, 500]
    assert t.measured.tolist() == [False, True, False, True, False]


@pytest.mark.parametrize("text, message", [
    ("size,time\n0,1\n", "expected the header batch_size,mean_service_time_ns"),
    ("batch_size,mean_service_time_ns\n2,10\n1,20\n", ":3: batch_size: expected batch sizes in "
     "increasing order (after 2), found 1"),
    ("batch_size,mean_service_time_ns\n0,10\n1,-2\n", ":3: mean_service_time_ns: expected a "
     'service time > 0 ns, found "-2"'),
    ("batch_size,mean_service_time_ns\n0,10\n1,nan\n", ":3: mean_service_time_ns: expected a "
     'service time > 0 ns, found "nan"'),
    ("batch_size,mean_service_time_ns\n0,10\n9,20\n", ":3: batch_size: expected a batch size in "
     "0..4 (β), found 9"),
    ("batch_size,mean_service_time_ns\n0,10\n", "expected at least two rows, found 1"),
    ("batch_size,mean_service_time_ns\n0,100\n1,10\n", "expected service times that stay > 0"),
])
def test_read_table_errors(tmp_path, text, message):
    path = tmp_path / "svc.csv"
    path.write_text(text)
    with pytest.raises(InputError) as err:
        fit.read_table(path, beta=4)
    assert message in err.value.message
