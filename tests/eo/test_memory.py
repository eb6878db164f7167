"""The stall term: where a table's lines are (reuse distance on the measured load latency), how
many of a burst's accesses overlap (the measured overlap), and what the paper's mode keeps."""

from __future__ import annotations

import math

import pytest

from nfvperf.eo.estimate import estimate
from nfvperf.eo.memory import Hierarchy, Structure, reuse_distance_bytes
from nfvperf.eo.model import load_nf, parse_nf
from nfvperf.eo.platform import load_platform
from nfvperf.errors import InputError

MB = 1 << 20
#: a made-up host: 4 cycles in L1 .. 240 in DRAM; 16 loads' latency covered at 32 in flight
CURVES = """
memory:
  load_latency:
    - {bytes: 4096, cycles: 4}
    - {bytes: 65536, cycles: 12}
    - {bytes: 1048576, cycles: 20}
    - {bytes: 16777216, cycles: 60}
    - {bytes: 268435456, cycles: 240}
  overlap:
    - {in_flight: 1, cycles: 240}
    - {in_flight: 8, cycles: 40}
    - {in_flight: 32, cycles: 15}
"""


@pytest.fixture
def stall_profile(tmp_path):
    path = tmp_path / "stalls.yaml"
    path.write_text("name: stalls\nbase: xeon-e5-2690v2\n" + CURVES
                    + "conventions:\n  memory_stalls: cycles\n")
    return path


def one_lookup(access: str, keys: str = "2M") -> str:
    return f"""
name: lookup
description: one hash lookup
operations:
  - "ht_lookup(1, 12, 2M, 0, keys={keys}, access={access})"
"""


def lat(nbytes: float) -> float:
    """The curve above, log-linear, written out independently of the module."""
    pts = [(4096, 4), (65536, 12), (1 << 20, 20), (16 << 20, 60), (256 << 20, 240)]
    for (b0, c0), (b1, c1) in zip(pts, pts[1:]):
        if b0 <= nbytes <= b1:
            return c0 + (c1 - c0) * math.log2(nbytes / b0) / math.log2(b1 / b0)
    raise AssertionError(nbytes)


def test_the_papers_profiles_keep_memory_in_a_bound_of_its_own():
    for name in ("xeon-e5-2690v2", "xeon-e5-2690v2-printed"):
        est = estimate(load_nf("l2fwd@paper"), load_platform(name))[0]
        assert all(line.stall is None for line in est.lines)
        assert est.cycles_per_packet == pytest.approx(
            sum(line.cost.cycles for line in est.lines) + est.overhead_cycles)


def test_a_serial_lookup_waits_for_its_bucket_then_its_slot(stall_profile):
    # 2M keys of 12 B: 2^21/8 buckets (16 MB) and 2M slots of a line (24 MB of entries).
    # Between two uses of a bucket line the NF reads every bucket and as many slot lines at
    # the slots' lower reuse: 16 + 16 MB; between two uses of a slot line, all 40 MB.
    est = estimate(parse_nf(one_lookup("serial")), load_platform(stall_profile))[0]
    stall = est.lines[0].stall
    assert stall.cycles == pytest.approx((lat(32 * MB) - 4) + (lat(40 * MB) - 4), rel=1e-6)
    assert est.cycles_per_packet == pytest.approx(est.lines[0].cost.cycles + stall.cycles
                                                  + est.overhead_cycles)


def test_a_bulk_lookup_reads_both_buckets_and_overlaps_over_the_burst(stall_profile):
    p = load_platform(stall_profile)
    est = estimate(parse_nf(one_lookup("bulk")), p, burst=32)[0]
    # two bucket lines a key: the buckets' reuse doubles, so they see a third of the slots
    buckets, slots = lat(24 * MB) - 4, lat(40 * MB) - 4
    assert est.lines[0].stall.cycles == pytest.approx((2 * buckets + slots) / (240 / 15))
    # a burst of one packet has nothing to overlap with
    one = estimate(parse_nf(one_lookup("bulk")), p, burst=1)[0]
    assert one.lines[0].stall.cycles == pytest.approx(2 * buckets + slots)
    assert one.cycles_per_packet > est.cycles_per_packet


def test_a_table_the_traffic_touches_in_one_place_stays_in_l1(stall_profile):
    est = estimate(parse_nf(one_lookup("serial", keys="1")), load_platform(stall_profile))[0]
    assert est.lines[0].stall.cycles == 0


def test_a_hot_small_table_stays_cached_beside_a_cold_large_one():
    hot, cold = Structure(0, "hot", 16, 1.0), Structure(1, "cold", 1 << 20, 1.0)
    # between two uses of a hot line only 16 of the cold lines go by, and the reverse
    assert reuse_distance_bytes(hot, [hot, cold], 64) == 64 * (16 + 16)
    assert reuse_distance_bytes(cold, [hot, cold], 64) == 64 * (16 + (1 << 20))


def test_overlap_is_one_alone_and_at_most_what_the_core_sustained():
    h = Hierarchy([(4096, 4), (1 << 28, 240)], [(1, 240), (8, 40), (32, 15)])
    assert h.overlap(1) == 1 and h.overlap(0.5) == 1
    assert h.overlap(8) == pytest.approx(6)
    assert h.overlap(1000) == pytest.approx(16)
    assert h.latency(1) == 4 and h.latency(1 << 40) == 240 and h.nearest == 4


def test_the_memory_bound_counts_accesses_at_the_most_in_flight(stall_profile):
    p = load_platform(stall_profile)
    est = estimate(parse_nf(one_lookup("serial")), p)[0]
    assert est.memory_bound_pps == pytest.approx(p.cpu.clock_hz / (est.dram_accesses_per_packet
                                                                   * 15))


def test_options_are_read_in_both_notations_and_written_back():
    m = parse_nf("""
name: t
description: t
access: serial
params: {hosts: {default: 10}}
operations:
  - "ht_lookup(1, 12, 2M, 0, keys=hosts, access=bulk)"
  - {op: array_access, es: 16, max: 1K, keys: hosts / 2}
  - "lpm_lookup(3, 4)"
""")
    a, b, c = m.paths[0].operations
    assert a.text == "ht_lookup(1, 12, 2M, 0, access=bulk, keys=hosts)"
    assert (m.access_of(a), m.access_of(b), m.access_of(c)) == ("bulk", "serial", "serial")
    assert b.evaluate({"hosts": 10.0}, 64)["keys"] == 5
    assert "keys" not in c.evaluate({}, 64)


@pytest.mark.parametrize("op, expected", [
    ('"parse(6, keys=1)"', "only the table EOs take"),
    ('"ht_lookup(1, 12, 2M, 0, acces=bulk)"', "an option of ht_lookup (access, keys)"),
    ('"ht_lookup(1, 12, 2M, 0, access=sometimes)"', "access=bulk|serial"),
    ('"ht_lookup(1, 12, 2M, 0, keys=nobody)"', "a known variable"),
    ('"ht_lookup(1, 12, 2M, 0, keys=0)"', "a number of keys ≥ 1"),
    ('{op: array_access, es: 16, max: 1K, access: never}', "access=bulk|serial"),
])
def test_bad_options_are_named(op, expected):
    with pytest.raises(InputError) as exc:
        parse_nf(f"name: t\ndescription: t\noperations:\n  - {op}\n", "m.yaml")
    assert expected in str(exc.value) and "m.yaml" in str(exc.value)


def test_a_profile_that_counts_stalls_in_cycles_needs_its_curves(tmp_path):
    path = tmp_path / "p.yaml"
    path.write_text("name: p\nbase: xeon-e5-2690v2\nconventions:\n  memory_stalls: cycles\n")
    with pytest.raises(InputError, match="memory.load_latency and memory.overlap"):
        load_platform(path)
    path.write_text("name: p\nbase: xeon-e5-2690v2\n" + CURVES.replace("in_flight: 1,",
                                                                      "in_flight: 2,"))
    with pytest.raises(InputError, match="in_flight: 1"):
        load_platform(path)


def test_explain_shows_each_lines_stall(stall_profile, cli, run_json, tmp_path):
    model = tmp_path / "m.yaml"
    model.write_text(one_lookup("serial"))
    code, out, err = cli("explain", str(model), "--platform", str(stall_profile))
    assert code == 0, err
    assert "stall" in out.split("─")[0]        # a column of its own
    rows = run_json("explain", str(model), "--platform", str(stall_profile))
    lookup = next(r for r in rows if r["operation"].startswith("ht_lookup"))
    assert lookup["stall_cycles"] > 0
    assert "(buckets, 32 MB)" in lookup["formula"] and "[serial]" in lookup["formula"]
    paper = estimate(parse_nf(one_lookup("serial")), load_platform("xeon-e5-2690v2"))[0]
    assert lookup["cycles"] == pytest.approx(lookup["stall_cycles"]
                                             + paper.lines[0].cost.cycles)


def test_a_serial_loop_overlaps_what_calibration_saw_the_core_overlap(stall_profile, tmp_path):
    text = stall_profile.read_text().replace("  overlap:", "  serial_overlap: 2\n  overlap:")
    path = tmp_path / "serial2.yaml"
    path.write_text(text)
    one = estimate(parse_nf(one_lookup("serial")), load_platform(stall_profile))[0]
    two = estimate(parse_nf(one_lookup("serial")), load_platform(path))[0]
    assert two.lines[0].stall.cycles == pytest.approx(one.lines[0].stall.cycles / 2)


def test_neighbours_lengthen_only_what_is_beyond_the_private_caches(stall_profile):
    from nfvperf.eo.memory import Neighbour, Sharing

    p = load_platform(stall_profile)
    hog = Neighbour(64 * MB, 1e9)
    # 8K keys: 16 K bucket lines (1 MB: two a key) and 8 K slot lines (512 KB); between two
    # uses of a bucket line the NF reads 1.5 MB, of a slot line 1 MB: beyond L1 + L2 (288 KB)
    nf = parse_nf(one_lookup("serial", keys="8K"))
    alone = estimate(nf, p, sharing=Sharing((), 1e6, p.cache_l1_l2_bytes))[0]
    beside = estimate(nf, p, sharing=Sharing((hog,), 1e6, p.cache_l1_l2_bytes))[0]
    assert alone.lines[0].stall.cycles == pytest.approx(lat(1.5 * MB) - 4 + lat(1 * MB) - 4)
    # a bucket line waits 16 ms between uses at 1 Mpps, a slot line 8 ms: the neighbour reads
    # all of its 64 MB in either
    assert beside.lines[0].stall.cycles == pytest.approx(
        lat(65.5 * MB) - 4 + lat(65 * MB) - 4, rel=1e-6)
    # a table that stays in this core's L2 is not theirs to evict
    small = parse_nf(one_lookup("serial", keys="256"))
    assert estimate(small, p, sharing=Sharing((hog,), 1e6, p.cache_l1_l2_bytes))[0] \
        .cycles_per_packet == estimate(small, p)[0].cycles_per_packet
    # a slow neighbour reads fewer lines between two uses than one that is fast
    slow = estimate(nf, p, sharing=Sharing((Neighbour(64 * MB, 1e6),), 1e6,
                                           p.cache_l1_l2_bytes))[0]
    assert alone.cycles_per_packet < slow.cycles_per_packet < beside.cycles_per_packet


def test_estimate_beside_a_neighbour_from_the_command_line(stall_profile, run_json, cli):
    args = ["estimate", "l2fwd", "--platform", str(stall_profile), "--param", "entries=65536",
            "--param", "destinations=65536"]
    alone = run_json(*args)[0]
    beside = run_json(*args, "--neighbour", "64MiB@1e9", "--rate-mpps", "1")[0]
    slow = run_json(*args, "--neighbour", "64MiB@1e6", "--rate-mpps", "1")[0]
    assert alone["cycles_per_packet"] < slow["cycles_per_packet"] < beside["cycles_per_packet"]
    for bad in ("64MiB", "64MiB@0", "lots@1e6"):
        code, out, err = cli(*args, "--neighbour", bad)
        assert code == 2 and out == "" and err.count("\n") == 1 and "--neighbour" in err
    code, _, err = cli("estimate", "l2fwd", "--neighbour", "64MiB@1e6")
    assert code == 2 and "memory_stalls" in err


def test_a_chains_traffic_caps_the_keys_every_table_sees(stall_profile):
    p, nf = load_platform(stall_profile), parse_nf(one_lookup("serial"))    # keys=2M
    assert estimate(nf, p, traffic_keys=1)[0].lines[0].stall.cycles == 0
    assert estimate(nf, p, traffic_keys=10**9)[0].cycles_per_packet == \
        estimate(nf, p)[0].cycles_per_packet
    # the chain simulator prices a service's tables at its traffic's keys
    from nfvperf.chain import ChainSpec
    from nfvperf.sim.costs import service_cycles
    from nfvperf.sim.options import SimOptions

    spec = ChainSpec.model_validate({"name": "c", "services": [
        {"nf": "nat", "params": {"entries": 65536}}],
        "traffic": [{"frame_bytes": 64, "rate_mpps": 1, "flows": 4}]})
    few = service_cycles(spec, p, SimOptions(), [64], keys=4)[0, 0]
    many = service_cycles(spec, p, SimOptions(), [64], keys=65536)[0, 0]
    assert few < many
