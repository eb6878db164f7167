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
    with pytest.raises(InputError, match=r'm.yaml:2: base: expected an existing file, found "/'):
        load_platform(missing)


# --- property-based: any profile text gives a Platform or an InputError ---------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_SECTIONS = {"cpu": ["clock", "sockets", "cores_per_socket", "register", "model", "x"],
             "cache": ["line", "l1", "l2", "l1_load_cycles", "l3_access_cycles"],
             "memory": ["data_rate", "cas_latency", "latency_cas_multiplier"],
             "nic": ["ports", "link", "ddio"],
             "conventions": ["parse_cache_level", "ct_insertion_formula"]}
_VALUES = st.one_of(st.integers(-2, 10**10), st.floats(allow_nan=True), st.booleans(), st.none(),
                    st.sampled_from(["3.6 GHz", "10 Gbps", "32 KB", "1333 MT/s", "l1", "printed",
                                     "-1 GHz", "1e999 Hz", "GHz", "", "xeon-e5-2690v2"]),
                    st.text(max_size=8), st.lists(st.integers(), max_size=2))


@settings(max_examples=300)
@given(st.dictionaries(st.sampled_from(list(_SECTIONS) + ["base", "name", "other"]),
                       st.one_of(_VALUES, st.dictionaries(
                           st.sampled_from(sorted({k for v in _SECTIONS.values() for k in v})),
                           _VALUES, max_size=4)), max_size=5))
def test_random_profiles_load_or_fail_cleanly(tmp_path_factory, doc):
    import json

    path = tmp_path_factory.mktemp("p") / "p.yaml"
    path.write_text(json.dumps(doc))
    try:
        load_platform(path)
    except InputError as exc:
        assert "\n" not in exc.message and exc.message.startswith(str(path).rsplit("/", 1)[0])


def test_a_profile_whose_base_names_no_possible_file_is_refused_in_one_line(tmp_path):
    """A base with a NUL byte in its name (hypothesis found it) is an input error that names
    the file, not a ValueError from the OS layer."""
    path = tmp_path / "p.yaml"
    path.write_text('{"base": "\\u0000", "name": "p", "cpu": 0}')
    with pytest.raises(InputError) as exc:
        load_platform(path)
    assert "\n" not in exc.value.message and "NUL" in exc.value.message
    assert exc.value.message.startswith(str(tmp_path))
