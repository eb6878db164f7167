"""Each Section 2.2 formula of Baldi & Sapio against its printed text.

Expected values are worked out by hand from the printed formulas with the constants of Sec. 2.2
(L3 access 31, L1/L2 line write 5, L3 write-back 9, register load 5 from L1 / 12 from L2, 64 B
lines, 8 B registers, L1+L2 = 288 KB).
"""

from __future__ import annotations

import math

import pytest

from nfvperf.eo import costs
from nfvperf.eo.costs import MappingContext


def cost(platform, op, remote=0.0, **args):
    return getattr(costs, op)(MappingContext(platform, remote), {k: float(v) for k, v in args.items()})


@pytest.mark.parametrize("hdr, cycles", [(30, 36), (64, 36), (65, 41), (70, 41), (128, 41), (129, 46)])
def test_io_mem_is_31_plus_5_per_header_line(printed_platform, hdr, cycles):
    """Sec. 2.2 item 1: 31 + 5·⌈hdr/64B⌉ cycles for I/O_mem, independent of data (DDIO)."""
    c = cost(printed_platform, "io_mem", hdr=hdr, data=1500)
    assert (c.cycles, c.dram_accesses) == (cycles, 0)


@pytest.mark.parametrize("hdr, cycles", [(30, 40), (42, 40), (70, 49), (128, 49), (129, 58)])
def test_mem_io_is_31_plus_9_per_header_line(printed_platform, hdr, cycles):
    """Sec. 2.2 item 1: the multiplier is 9 for mem_I/O."""
    c = cost(printed_platform, "mem_io", hdr=hdr, data=0)
    assert (c.cycles, c.dram_accesses) == (cycles, 0)


@pytest.mark.parametrize("hdr, data, local, remote, lines", [
    (30, 46, 36, 30 + 5 * 2, 2),     # 76 B -> 2 lines
    (42, 18, 36, 35, 1),             # 60 B -> 1 line: the remote read is cheaper (base 30 < 31)
    (70, 1448, 41, 30 + 5 * 24, 24),
])
def test_io_mem_remote_socket_section_4_2(si_platform, hdr, data, local, remote, lines):
    """Sec. 4.2: a packet in the other socket's L3 costs 30 + 5·⌈(hdr+data)/64B⌉ cycles and
    ⌈(hdr+data)/64B⌉ DRAM accesses; a fraction f of such packets gives the mean."""
    assert cost(si_platform, "io_mem", 0.0, hdr=hdr, data=data).cycles == local
    full = cost(si_platform, "io_mem", 1.0, hdr=hdr, data=data)
    assert (full.cycles, full.dram_accesses) == (remote, lines)
    half = cost(si_platform, "io_mem", 0.5, hdr=hdr, data=data)
    assert half.cycles == pytest.approx((local + remote) / 2)
    assert half.dram_accesses == pytest.approx(lines / 2)


def test_io_mem_without_ddio_reads_from_memory(si_platform):
    """Without DDIO the packet is not in the core's L3: priced as the remote read of Sec. 4.2."""
    from nfvperf.eo.costs import io_mem

    plat = si_platform.model_copy(update={"nic": si_platform.nic.model_copy(update={"ddio": False})})
    c = io_mem(MappingContext(plat), {"hdr": 30.0, "data": 46.0})
    assert (c.cycles, c.dram_accesses) == (40, 2)


@pytest.mark.parametrize("b, l1, l2", [(1, 5, 12), (6, 5, 12), (8, 5, 12), (9, 10, 24),
                                       (12, 10, 24), (16, 10, 24), (42, 30, 72), (70, 45, 108)])
def test_parse_is_5_or_12_per_register(si_platform, b, l1, l2):
    """Sec. 2.2 item 2: 5·⌈b/8B⌉ cycles from L1, 12·⌈b/8B⌉ from L2; deparse costs the same."""
    assert cost(si_platform, "parse", b=b).cycles == l1
    conv = si_platform.conventions.model_copy(update={"parse_cache_level": "l2"})
    at_l2 = si_platform.model_copy(update={"conventions": conv})
    assert cost(at_l2, "parse", b=b).cycles == l2


def test_parse_optional_line_fetch(si_platform):
    """Sec. 2.2 item 2: {+ ⌈b/64B⌉ L3 or DRAM accesses} when the data is not in L1/L2."""
    conv = si_platform.conventions.model_copy(update={"parse_line_fetch": True})
    plat = si_platform.model_copy(update={"conventions": conv})
    assert cost(plat, "parse", b=70).dram_accesses == 2
    assert cost(si_platform, "parse", b=70).dram_accesses == 0


@pytest.mark.parametrize("b, cycles", [(1, 1), (2, 1), (8, 1), (24, 1), (25, 2), (121, 5)])
def test_increase_is_ceil_0_33_b_over_8(si_platform, b, cycles):
    """Sec. 2.2 items 3-4: ⌈0.33·b/8B⌉ cycles for increase, decrease and sum
    (121 B: 0.33·121/8 = 4.99, so 5 cycles, where b/24 would give 6)."""
    assert cost(si_platform, "increase", b=b).cycles == cycles


@pytest.mark.parametrize("b, cycles, accesses", [(1, 15, 1), (2, 15, 1), (20, 78, 1), (50, 183, 1),
                                                 (54, 197, 1), (64, 232, 1), (68, 246, 2)])
def test_checksum_is_7_per_word_plus_8(printed_platform, b, cycles, accesses):
    """Sec. 2.2 item 5 (Fig. 3): 7·⌈b/2⌉ + 8 cycles + ⌈b/64B⌉ L3 or DRAM accesses."""
    c = cost(printed_platform, "checksum", b=b)
    assert (c.cycles, c.dram_accesses) == (cycles, accesses)


def test_inc_checksum_accesses_follow_the_convention(printed_platform, si_platform):
    """Item 5 gives checksum and inc_checksum one formula; the reproducing profile does not count
    inc_checksum's access (the old checksum was parsed already)."""
    assert cost(printed_platform, "inc_checksum", b=2).dram_accesses == 1
    c = cost(si_platform, "inc_checksum", b=2)
    assert (c.cycles, c.dram_accesses) == (15, 0)


@pytest.mark.parametrize("es, cycles, accesses", [(2, 2, 1), (8, 2, 1), (19, 4, 1), (64, 9, 1),
                                                  (65, 10, 2)])
def test_array_access_is_1_plus_registers(si_platform, es, cycles, accesses):
    """Sec. 2.2 item 6: 1 + ⌈es/8B⌉ cycles + ⌈es/64B⌉ DRAM accesses."""
    c = cost(si_platform, "array_access", es=es, max=1000)
    assert (c.cycles, c.dram_accesses) == (cycles, accesses)


@pytest.mark.parametrize("n, he, mx, p, cycles, accesses", [
    (1, 12, 2**21, 0, 4 + 106 + 10 + 5, 1),      # 125: basic forwarding
    (1, 14, 2**21, 0, 125, 1),
    (2, 14, 2**21, 0, 129, 1),
    (1, 23, 2**16, 0, 4 + 106 + 15 + 5, 1),      # 130
    (1, 7, 2**24, 0, 4 + 106 + 5 + 5, 1),        # 120
    (1, 12, 2**21, 0.1, math.ceil(125 * 1.1), math.ceil(1 * 1.1)),   # 138, 2
    (3, 70, 2**21, 0.5, math.ceil((12 + 106 + 45 + 15) * 1.5), math.ceil(2 * 1.5)),
])
def test_ht_lookup_in_memory(si_platform, n, he, mx, p, cycles, accesses):
    """Sec. 2.2 item 7: ⌈(4N + 106 + 5⌈HE/8B⌉ + 5⌈HE/32B⌉)(1+p)⌉ cycles and
    ⌈⌈HE/64B⌉(1+p)⌉ L3 or DRAM accesses."""
    c = cost(si_platform, "ht_lookup", N=n, HE=he, max=mx, p=p)
    assert (c.cycles, c.dram_accesses) == (cycles, accesses)


def test_ht_lookup_in_cache_when_table_fits_l1_l2(si_platform):
    """Sec. 2.2 item 7: with max·HE ≤ 32KB + 256KB = 288KB the entry is in L1/L2: no memory access
    and no cache store term."""
    fits = 288 * 1024 // 12
    c = cost(si_platform, "ht_lookup", N=1, HE=12, max=fits, p=0)
    assert (c.cycles, c.dram_accesses) == (4 + 106 + 10, 0)
    c = cost(si_platform, "ht_lookup", N=1, HE=12, max=fits + 1, p=0)
    assert (c.cycles, c.dram_accesses) == (125, 1)


def test_ct_insertion_printed_formula(printed_platform):
    """Sec. 2.2 item 9: ⌈(4N + 129 + 7⌈HE/8B⌉ + 5⌈HE/32B⌉)(1+p)⌉ cycles and
    2⌈⌈HE/64B⌉(1+p)⌉ L3 or DRAM accesses: ct_insertion(2,14,2M,0) is 156 + 2."""
    c = cost(printed_platform, "ct_insertion", N=2, HE=14, max=2**21, p=0)
    assert (c.cycles, c.dram_accesses) == (8 + 129 + 14 + 5, 2)
    c = cost(printed_platform, "ct_insertion", N=1, HE=70, max=2**21, p=0.5)
    assert (c.cycles, c.dram_accesses) == (math.ceil((4 + 129 + 63 + 15) * 1.5), 2 * 3)


def test_ct_insertion_priced_at_its_tables_load_where_inserts_were_measured_by_load(
        printed_platform):
    """A calibrated profile's inserts by load scale ct_insertion_cycles (measured in a table
    filled to half) to the load of the EO's table: its keys= over its max, else full."""
    from nfvperf.eo.platform import LoadPoint

    i = printed_platform.instructions
    curve = [LoadPoint(load=x / 10, cycles=c)
             for x, c in zip(range(1, 11), (100, 100, 100, 100, 100, 110, 120, 140, 200, 900))]
    p = printed_platform.model_copy(update={"instructions": i.model_copy(
        update={"ct_insertion_by_load": curve})})
    plain = cost(printed_platform, "ct_insertion", N=2, HE=14, max=2**21, p=0).cycles
    half = cost(p, "ct_insertion", N=2, HE=14, max=2**21, p=0, keys=2**20)
    assert half.cycles == plain and "load 0.5" in half.formula
    full = cost(p, "ct_insertion", N=2, HE=14, max=2**21, p=0).cycles     # no keys: every entry
    assert full == math.ceil(plain + 129 * 8)                               # 900 / 100 of 129
    nine_tenths = cost(p, "ct_insertion", N=2, HE=14, max=1000, p=0, keys=900).cycles
    assert plain < nine_tenths < full


def test_ct_insertion_priced_as_ht_lookup_by_convention(si_platform):
    """Convention C2 of the reproducing profile: ct_insertion(2,14,2M,0) costs 129 + 1."""
    c = cost(si_platform, "ct_insertion", N=2, HE=14, max=2**21, p=0)
    assert (c.cycles, c.dram_accesses) == (129, 1)


@pytest.mark.parametrize("b, cycles, accesses", [(1, 4, 1), (3, 4, 1), (3.5, 8, 2), (4, 8, 2)])
def test_lpm_lookup_dir_24_8(si_platform, b, cycles, accesses):
    """Sec. 2.2 item 8: array_access(es, 16M) if b ≤ 3, plus array_access(es, 255) otherwise."""
    c = cost(si_platform, "lpm_lookup", b=b, es=19)
    assert (c.cycles, c.dram_accesses) == (cycles, accesses)


def test_dram_latency_formula(si_platform, printed_platform):
    """Sec. 3.1.1: latency = (CAS latency × 2 + 3) / data rate as printed (21 transfers at CL9);
    the reproducing profile uses (CL + 3): 12 transfers of DDR3-1333, 9.0 ns."""
    assert printed_platform.memory.access_latency_s == pytest.approx(21 / 1333e6)
    assert si_platform.memory.access_latency_s == pytest.approx(12 / 1333e6)


def test_every_eo_of_table_1_has_a_cost():
    """Table 1: nine EO rows, thirteen names with the duals (then ours: dfa_scan)."""
    from nfvperf.eo.operations import CATALOGUE

    assert [s.name for s in CATALOGUE][:13] == [
        "I/O_mem", "mem_I/O", "parse", "deparse", "increase", "decrease", "sum", "checksum",
        "inc_checksum", "array_access", "ht_lookup", "lpm_lookup", "ct_insertion"]
    assert [s.name for s in CATALOGUE][13:] == ["dfa_scan"]
    for spec in CATALOGUE:
        assert callable(spec.cost)


def test_calibrated_host_options_for_the_io_and_incremental_checksum():
    """Options a calibrated profile may set (nfvperf calibrate): mem_I/O without its L3 access
    (the NF writes lines it holds), and inc_checksum at a measured cost per changed word."""
    from nfvperf.eo import costs
    from nfvperf.eo.platform import load_platform

    p = load_platform("xeon-e5-2690v2")
    ctx = costs.MappingContext(p)
    assert costs.mem_io(ctx, {"hdr": 30, "data": 46}).cycles == 31 + 9
    assert costs.inc_checksum(ctx, {"b": 2}).cycles == 7 * 1 + 8
    q = p.model_copy(update={
        "conventions": p.conventions.model_copy(update={"mem_io_l3_access": False}),
        "instructions": p.instructions.model_copy(update={"inc_checksum_cycles_per_word": 5.5}),
    })
    ctx = costs.MappingContext(q)
    assert costs.mem_io(ctx, {"hdr": 30, "data": 46}).cycles == 9
    assert costs.mem_io(ctx, {"hdr": 100, "data": 46}).cycles == 18
    assert costs.inc_checksum(ctx, {"b": 4}).cycles == 11
    assert costs.inc_checksum(ctx, {"b": 4}).dram_accesses == 0


def test_dfa_scan_costs_a_dependent_load_per_byte(si_platform):
    """dfa_scan (ours, for payload NFs such as the IDS): b x (index ADD + a load from where the
    table lives), or the profile's measured cycles per byte."""
    from nfvperf.eo.estimate import estimate
    from nfvperf.eo.model import parse_nf

    def cycles(states, platform=si_platform):
        nf = parse_nf(f'name: x\ndescription: d\noperations: ["dfa_scan(ps, {states})"]\n')
        return estimate(nf, platform, frame_bytes=1018)[0].lines[0].cost.cycles

    c = si_platform.cache
    assert cycles(16) == 1000 * (1 + c.l1_load_cycles)          # 8 KB: in L1
    assert cycles(256) == 1000 * (1 + c.l2_load_cycles)         # 128 KB: in L2
    assert cycles(4096) == 1000 * (1 + c.l3_access_cycles)      # 2 MB: beyond L1 + L2
    measured = si_platform.model_copy(update={"instructions": si_platform.instructions
                                              .model_copy(update={"dfa_step_cycles": 3.5})})
    assert cycles(1024, measured) == 3500
    # measured by the length of one packet's scan: short scans of consecutive packets overlap
    # in the core (their loads do not depend on one another), so a byte costs less
    from nfvperf.eo.platform import ScanPoint

    by_length = measured.model_copy(update={"instructions": measured.instructions.model_copy(
        update={"dfa_scan_by_length": [ScanPoint(bytes=16, cycles_per_byte=2.0),
                                       ScanPoint(bytes=256, cycles_per_byte=6.0)]})})
    assert cycles(1024, by_length) == 3500                      # never dearer than the walk
    by_length = by_length.model_copy(update={"instructions": by_length.instructions.model_copy(
        update={"dfa_step_cycles": 6.5})})
    assert cycles(1024, by_length) == 6000                      # beyond the longest: its cost

    def scan(b):
        nf = parse_nf(f'name: x\ndescription: d\noperations: ["dfa_scan({b}, 64)"]\n')
        return estimate(nf, by_length)[0].lines[0].cost.cycles

    assert scan(8) == 16                                        # below the shortest: its cost
    assert scan(64) == pytest.approx(64 * 4.0)                  # log-linear between the two
    assert scan(16) < scan(64) / 4 < scan(256) / 16
