"""Reading MoonGen's latency histograms (``batching.histograms``): the packaged VPP file, the
statistics a validation takes of a histogram, and one line on every kind of bad file."""

from __future__ import annotations

import csv

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nfvperf.batching.histograms import Histogram, read_histograms
from nfvperf.batching.vpp import HISTOGRAMS
from nfvperf.errors import InputError

HEADER = "scenario,beta,pktsize,queuesize,rate_mbps,latency_us,count\n"


def test_packaged_histograms_hold_every_rate_and_packet():
    """17 rates, 500-8500 Mbps (data/vpp/README.md), the counts as in the file."""
    config, hists = read_histograms(HISTOGRAMS)
    assert (config.scenario, config.beta, config.frame_bytes, config.queue) == \
        ("xc", 256, 64, 4096)
    assert sorted(hists) == [float(r) for r in range(500, 9000, 500)]
    with open(HISTOGRAMS) as f:
        rows = list(csv.DictReader(f))
    for rate, h in hists.items():
        mine = [r for r in rows if float(r["rate_mbps"]) == rate]
        assert h.packets == sum(int(r["count"]) for r in mine)
        assert np.all(np.diff(h.values) > 0)
    # the lowest rate's median, read off the file by hand: 4.541 µs
    assert hists[500.0].quantile(0.5) == pytest.approx(4.541)


def test_repeated_latencies_are_merged_and_sorted(tmp_path):
    p = tmp_path / "h.csv"
    p.write_text(HEADER + "xc,4,64,16,100,3.0,2\nxc,4,64,16,100,1.0,1\nxc,4,64,16,100,3.0,1\n"
                 "xc,4,64,16,200,2.0,5\n")
    _, hists = read_histograms(p)
    h = hists[100.0]
    assert h.values.tolist() == [1.0, 3.0] and h.weights.tolist() == [1, 3]
    assert h.mean() == pytest.approx((1 + 9) / 4)
    assert h.mean(below=2.0) == 1.0 and h.beyond(2.0) == 3
    assert h.quantile(0.25) == 1.0 and h.quantile(0.26) == 3.0
    assert h.cdf(np.array([0.5, 1.0, 2.9, 3.0])).tolist() == [0, 0.25, 0.25, 1.0]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(0.1, 1e4), st.integers(0, 50)), min_size=1, max_size=40),
       st.floats(0.0, 1.0))
def test_quantile_and_cdf_agree(bins, q):
    """The CDF at the q-quantile holds at least q of the packets, just below it less."""
    merged: dict[float, int] = {}
    for x, n in bins:
        merged[round(x, 3)] = merged.get(round(x, 3), 0) + n
    lat = np.array(sorted(merged))
    counts = np.array([merged[x] for x in lat])
    counts[-1] += 1                     # at least one packet
    h = Histogram(1.0, lat, counts)
    x = h.quantile(q)
    assert h.cdf(np.array([x]))[0] >= q - 1e-9
    below = lat[lat < x]
    if below.size:
        assert h.cdf(below[-1:])[0] < q + 1e-9
    assert lat[0] * (1 - 1e-12) <= h.mean() <= lat[-1] * (1 + 1e-12)


@pytest.mark.parametrize("body, message", [
    ("a,b\n1,2\n", "columns scenario,beta,pktsize,queuesize,rate_mbps,latency_us,count, "
                   'found "a,b"'),
    (HEADER, "expected at least one histogram row"),
    (HEADER + "xc,256,64,4096,500,x,3\n", ':2: latency_us: expected a number in column '
                                         'latency_us, found "x"'),
    (HEADER + "xc,256,64,4096,500,4.1,3\nxc,256,64,4096,500,0,3\n",
     ':3: latency_us: expected a latency > 0 µs, found "0"'),
    (HEADER + "xc,256,64,4096,500,4.1,-1\n", ':2: count: expected a whole count ≥ 0, found "-1"'),
    (HEADER + "xc,256,64,4096,500,4.1,1.5\n", ':2: count: expected a whole count ≥ 0'),
    (HEADER + "xc,256,64,4096,500,4.1,3\nxc,512,64,4096,500,4.2,3\n",
     ':3: beta: expected one beta in the file (256, as in row 2), found "512"'),
    (HEADER + "xc,256,64,4096,500,4.1,3\nmix,256,64,4096,500,4.2,3\n",
     ':3: scenario: expected one scenario in the file'),
    (HEADER + "xc,256,64,128,500,4.1,3\n", ":2: queuesize: expected a queuesize ≥ beta (256)"),
    (HEADER + "xc,256,64,4096,500,4.1,0\n", ":2: count: expected at least one packet at 500 "
                                            "Mbps"),
    (HEADER + "xc,256,64,4096,-5,4.1,2\n", ':2: rate_mbps: expected a rate > 0 Mbps'),
])
def test_bad_files_say_where_and_what(tmp_path, body, message):
    p = tmp_path / "h.csv"
    p.write_text(body)
    with pytest.raises(InputError) as info:
        read_histograms(p)
    text = str(info.value)
    assert text.startswith(str(p)) and message in text and "\n" not in text


def test_a_missing_file_is_one_line(tmp_path):
    with pytest.raises(InputError, match="h.csv"):
        read_histograms(tmp_path / "h.csv")
