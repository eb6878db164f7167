"""An NF's working set from its EO lines (eo.footprint): the tables its packets keep touching,
over the keys the traffic looks up."""

from __future__ import annotations

import pytest

from nfvperf.eo.estimate import estimate
from nfvperf.eo.footprint import working_set_bytes
from nfvperf.eo.model import load_nf
from nfvperf.eo.platform import load_platform


def lines(nf: str):
    return estimate(load_nf(nf), load_platform("xeon-e5-2690v2"), frame_bytes=64)[0].lines


def test_the_ids_walks_its_whole_automaton_whatever_the_traffic():
    # 1 200 states of 256 transitions of 2 B
    assert working_set_bytes(lines("ids"), 1, 64) == working_set_bytes(lines("ids"), 10**6, 64) \
        == pytest.approx(1200 * 512)


def test_table_nfs_touch_a_few_lines_a_key_up_to_their_table():
    # the NAT: its key's two bucket lines and its slot's line (rte_hash), and the 24 B
    # entry's line, a key; its table holds 2 x 64 K entries: 2^17 / 8 buckets, 2^17 slots of
    # a line for a 16 B entry and as many 24 B entries, packed when every key is used
    assert working_set_bytes(lines("nat"), 64, 64) == 64 * 64 * (2 + 1 + 1)
    assert working_set_bytes(lines("nat"), 10**7, 64) == 2**17 * (64 // 8 + 16 + 24)
    # the router: a line of DIR-24-8's first table a destination
    assert working_set_bytes(lines("router"), 1000, 64) == 1000 * 64
    # ... but no more lines than the model says its destinations reach: 65 536 consecutive /24
    # prefixes share 4 096 lines, 16 a line
    assert working_set_bytes(lines("router"), 65536, 64) == 4096 * 64
    assert working_set_bytes(lines("forward"), 1000, 64) == 0


def test_a_packet_touches_a_line_a_byte_of_the_automaton_and_a_few_of_a_table():
    from nfvperf.eo.footprint import touched_bytes

    big = estimate(load_nf("ids"), load_platform("xeon-e5-2690v2"), frame_bytes=1518)[0]
    assert touched_bytes(big.lines, 64) == big.lines[[ln.operation.spec.name for ln in
                                                      big.lines].index("dfa_scan")
                                                     ].values["b"] * 64
    assert touched_bytes(lines("nat"), 64) == 128 + 64        # bucket + key line, entry line
    assert touched_bytes(lines("router"), 64) == 64
    assert touched_bytes(lines("forward"), 64) == 0
