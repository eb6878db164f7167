"""Platform profiles: units, the `base` mechanism, and where errors point."""

from __future__ import annotations

import pytest

from nfvperf import units
from nfvperf.eo.platform import load_platform, packaged_platforms
from nfvperf.errors import InputError


def test_packaged_profiles():
    assert packaged_platforms() == ["xeon-e5-2690v2", "xeon-e5-2690v2-bng",
                                    "xeon-e5-2690v2-printed"]
    p = load_platform("xeon-e5-2690v2")
    assert (p.cpu.clock_hz, p.cores, p.cache_l1_l2_bytes) == (3.6e9, 20, 288 * 1024)
    assert p.memory.access_latency_s == pytest.approx(9.0e-9, rel=1e-3)
    assert p.source and "Sec. 2.2" in p.source


def test_printed_profile_is_its_base_with_the_printed_values():
    base, printed = load_platform("xeon-e5-2690v2"), load_platform("xeon-e5-2690v2-printed")
    assert printed.base == "xeon-e5-2690v2"
    assert printed.cpu.clock_hz == 3e9 and printed.cpu.sockets == base.cpu.sockets
    assert printed.memory.latency_cas_multiplier == 2
    assert printed.conventions.parse_cache_level == base.conventions.parse_cache_level
    assert printed.conventions.ct_insertion_formula == "printed"
    assert printed.instructions == base.instructions


def test_bng_testbed_has_four_ports():
    """Sec. 4.2: the BNG platform 'has been upgraded with one additional Intel 82599ES'."""
    assert load_platform("xeon-e5-2690v2-bng").nic.ports == 4


def test_binary_prefixes():
    p = load_platform("xeon-e5-2690v2", prefixes=units.BINARY)
    assert p.cpu.clock_hz == 3.6 * 2**30
    assert p.nic.link_bps == 10 * 2**30
    assert p.memory.data_rate_tps == 1333 * 2**20
    assert p.prefixes is units.BINARY


def test_base_relative_to_the_file_and_chained(write_yaml):
    write_yaml("name: a\nbase: xeon-e5-2690v2\ncpu: {clock: 2 GHz}\n", "a.yaml")
    b = write_yaml("name: b\nbase: a.yaml\nnic: {ports: 8}\n", "b.yaml")
    p = load_platform(b)
    assert (p.name, p.cpu.clock_hz, p.nic.ports, p.nic.link_bps) == ("b", 2e9, 8, 10e9)


def test_errors_point_into_the_file_that_holds_the_value(write_yaml):
    base = write_yaml("name: a\nbase: xeon-e5-2690v2\ncpu: {clock: fast}\n", "a.yaml")
    child = write_yaml("name: b\nbase: a.yaml\nnic: {ports: 8}\n", "b.yaml")
    with pytest.raises(InputError) as err:
        load_platform(child)
    assert err.value.message.startswith(f"{base.parent}/a.yaml:3: cpu.clock: expected a rate")
    bad_child = write_yaml("name: c\nbase: xeon-e5-2690v2\nnic: {ports: -1}\n", "c.yaml")
    with pytest.raises(InputError, match=r"c.yaml:3: nic.ports: expected a number ≥ 1, found -1"):
        load_platform(bad_child)


def test_base_cycles_and_missing_names_are_errors(write_yaml):
    write_yaml("name: x\nbase: y.yaml\n", "x.yaml")
    y = write_yaml("name: y\nbase: x.yaml\n", "y.yaml")
    with pytest.raises(InputError, match="does not lead back"):
        load_platform(y)
    nameless = write_yaml("base: xeon-e5-2690v2\n", "n.yaml")
    with pytest.raises(InputError, match="a name of its own"):
        load_platform(nameless)
    missing = write_yaml("name: m\nbase: nowhere.yaml\n", "m.yaml")
    with pytest.raises(InputError, match="expected an existing file"):
        load_platform(missing)
