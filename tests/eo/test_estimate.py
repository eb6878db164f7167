"""Bounds, cores, sockets and units of the estimate (Baldi & Sapio, Sec. 3 and 4.2)."""

from __future__ import annotations

import math

import pytest

from nfvperf import units
from nfvperf.eo.estimate import estimate
from nfvperf.eo.model import load_nf, parse_nf
from nfvperf.eo.platform import load_platform
from nfvperf.errors import InputError


def one(nf, platform, **kw):
    return estimate(load_nf(nf) if isinstance(nf, str) else nf, platform, **kw)[0]


def test_cpu_bound_scales_with_cores_memory_and_link_do_not(si_platform):
    r1 = one("l2fwd@paper", si_platform)
    r4 = one("l2fwd@paper", si_platform, cores=4)
    assert r4.cpu_bound_pps == pytest.approx(4 * r1.cpu_bound_pps)
    assert r4.memory_bound_pps == r1.memory_bound_pps
    assert r4.link_bound_pps == r1.link_bound_pps


def test_bottleneck_moves_from_cpu_to_link_to_memory(si_platform):
    """One core of basic forwarding is CPU-bound at 64 B (16.9 Mpps < 29.76 Mpps on two 10 Gbps
    ports); two cores are link-bound; at 1518 B the link binds even on one core."""
    assert one("l2fwd@paper", si_platform).bottleneck == "cpu"
    two = one("l2fwd@paper", si_platform, cores=2)
    assert two.bottleneck == "link"
    assert two.throughput_pps == pytest.approx(2 * 10e9 / (84 * 8))
    assert one("l2fwd@paper", si_platform, frame_bytes=1518).bottleneck == "link"
    access = one("bng@paper", si_platform, cores=6, frame_bytes=78)
    assert access.bottleneck == "memory"
    assert access.throughput_pps == pytest.approx(1333e6 / 12 / 6)


def test_link_bound_is_line_rate_with_20_bytes_per_frame(si_platform):
    """10 Gbps at 64 B is 14.88 Mpps per port (RFC 2544 framing)."""
    r = one("mpls@paper", si_platform)
    assert r.link_bound_pps_per_port == pytest.approx(14_880_952.38, rel=1e-9)
    assert r.to_dict()["link_bound_mpps"] == pytest.approx(29.7619, abs=1e-4)


def test_frame_size_changes_only_size_dependent_eos(si_platform):
    """DDIO: forwarding cost does not depend on packet size (Sec. 3.1.1); the BNG's GRE checksum
    does: +14 B from 64 to 78 B is 7 more words, 49 cycles."""
    sizes = [64, 128, 512, 1518]
    assert {one("l2fwd@paper", si_platform, frame_bytes=s).cycles_per_packet
            for s in sizes} == {213}
    access = [one("bng@paper", si_platform, frame_bytes=s).cycles_per_packet for s in (64, 78)]
    assert access[1] - access[0] == 49


def test_remote_fraction_section_4_2(si_platform):
    """Sec. 4.2: half the packets read from the other socket; I/O_mem costs
    30 + 5·⌈(hdr+data)/64⌉ cycles and ⌈(hdr+data)/64⌉ DRAM accesses for them."""
    rows = {r.path: r for r in estimate(load_nf("bng@paper"), si_platform, frame_bytes=1518,
                                        remote_fraction=0.5)}
    base = {r.path: r for r in estimate(load_nf("bng@paper"), si_platform, frame_bytes=1518)}
    # access: hdr + data = 42 + (1500 - 28) = 1514 B -> 24 lines
    assert rows["access"].cycles_per_packet - base["access"].cycles_per_packet == pytest.approx(
        0.5 * ((30 + 5 * 24) - 36))
    assert rows["access"].dram_accesses_per_packet - base["access"].dram_accesses_per_packet == \
        pytest.approx(12)
    assert rows["mix"].memory_bound_pps < base["mix"].memory_bound_pps


def test_remote_fraction_needs_two_sockets(write_yaml, si_platform):
    from nfvperf.eo.platform import PACKAGED_DIR

    src = (PACKAGED_DIR / "xeon-e5-2690v2.yaml").read_text().replace("sockets: 2", "sockets: 1")
    single = load_platform(write_yaml(src, "one-socket.yaml"))
    with pytest.raises(InputError, match="2 or more sockets"):
        one("bng@paper", single, remote_fraction=0.5)
    with pytest.raises(InputError, match="from 1 to 10"):
        one("bng@paper", single, cores=11)


def test_binary_prefixes_raise_cpu_rates_by_1_024(si_platform, paper_platform):
    """The paper's Mpps are 3.6·2^30/cycles/2^20: 2.4 % above SI; memory Mpps and Gbps agree."""
    si, paper = one("l2fwd@paper", si_platform), one("l2fwd@paper", paper_platform)
    assert paper.to_dict()["cpu_bound_mpps"] == pytest.approx(1.024 * si.to_dict()["cpu_bound_mpps"])
    assert paper.to_dict()["memory_bound_mpps"] == pytest.approx(si.to_dict()["memory_bound_mpps"])
    assert paper.to_dict()["cpu_bound_gbps"] == pytest.approx(si.to_dict()["cpu_bound_gbps"])
    assert paper.to_dict()["units"] == "binary" and si.to_dict()["units"] == "si"


def test_no_dram_means_no_memory_bound(si_platform):
    nf = parse_nf('name: a\ndescription: d\noperations: ["parse(6)"]\n')
    r = one(nf, si_platform)
    assert math.isinf(r.memory_bound_pps)
    assert r.to_dict()["memory_bound_mpps"] is None


def test_json_contract_keys(si_platform):
    d = one("bng@paper", si_platform).to_dict()
    for key in ("nf", "path", "platform", "packet_size", "cores", "cycles_per_packet",
                "dram_accesses_per_packet", "cpu_bound_mpps", "memory_bound_mpps",
                "link_bound_mpps", "throughput_mpps", "throughput_gbps", "bottleneck"):
        assert key in d
    assert d["throughput_mpps"] == min(d["cpu_bound_mpps"], d["memory_bound_mpps"],
                                       d["link_bound_mpps"])


@pytest.mark.parametrize("frame", [63, 9217, 64.5, True])
def test_frame_size_range(si_platform, frame):
    with pytest.raises(InputError, match="frame size"):
        one("bng@paper", si_platform, frame_bytes=frame)


def test_units_parse():
    assert units.parse_rate("3.6 GHz", "hz") == 3.6e9
    assert units.parse_rate("3.6 GHz", "hz", prefixes=units.BINARY) == 3.6 * 2**30
    assert units.parse_rate("1333 MT/s", "transfers") == 1333e6
    assert units.parse_rate("10 Gbps", "bps") == 10e9
    assert units.parse_bytes("32 KB") == units.parse_bytes("32 KiB") == 32768
    assert units.line_rate_pps(10e9, 64) == pytest.approx(14.880952e6)
    with pytest.raises(InputError):
        units.parse_rate("3.6 parsecs", "hz")
