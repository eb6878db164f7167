from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nfvperf import parse_nf
from nfvperf.eo.estimate import estimate
from nfvperf.eo.model import load_nf
from nfvperf.nfs import packaged_models
from nfvperf.eo.operations import CATALOGUE
from nfvperf.errors import InputError


def test_packaged_models_load_and_cite_their_source():
    assert packaged_models() == ["bng", "bng@paper", "forward", "ids", "l2fwd", "l2fwd@paper", "learnsw",
                                 "learnsw@paper", "mpls", "mpls@paper", "nat", "router"]
    for name in packaged_models():
        nf = load_nf(name)
        assert nf.name == name
        assert nf.source and ("Baldi & Sapio" in nf.source or "nfvperf" in nf.source)
        assert nf.description


def test_earlier_names_load_the_paper_models_with_a_notice():
    from nfvperf.nfs import RenamedWarning

    with pytest.warns(RenamedWarning, match="l2fwd@paper"):
        assert load_nf("l2_basic_forwarding").name == "l2fwd@paper"


def test_bng_is_labelled_a_reconstruction_with_its_paths():
    nf = load_nf("bng@paper")
    assert [p.name for p in nf.paths] == ["access", "core"]
    assert "RECONSTRUCTED" in nf.description and "Rejected" in nf.description


def test_notation_and_mapping_load_to_the_same_model(si_platform):
    notation = parse_nf("""
name: a
description: d
operations:
  - "I/O_mem(30, ps)"
  - "ht_lookup(1, 12, 2M, 0)"
  - "mem_I/O(30, ps)"
""")
    mapping = parse_nf("""
name: a
description: d
operations:
  - {op: io_mem, hdr: 30 B, data: ps}
  - {op: ht_lookup, N: 1, HE: 12, max: 2097152, p: 0}
  - {op: mem_io, hdr: 30, data: ps}
""")
    a, b = estimate(notation, si_platform)[0], estimate(mapping, si_platform)[0]
    assert a.cycles_per_packet == b.cycles_per_packet == 36 + 125 + 40 + 2
    assert [line.values for line in a.lines] == [line.values for line in b.lines]
    assert notation.paths[0].operations[0].line == 5   # the text opens with a newline


def test_params_have_defaults_and_overrides(si_platform):
    nf = parse_nf("""
name: a
description: d
params:
  entries: {default: 2M, doc: table size}
  hit: {default: 0.1}
operations:
  - "ht_lookup(1, 12, entries, hit)"
""")
    assert estimate(nf, si_platform)[0].cycles_per_packet == 138 + 2
    small = estimate(nf, si_platform, params={"entries": 1000})[0]
    assert small.dram_accesses_per_packet == 0        # 12 kB fits in L1 + L2
    with pytest.raises(InputError, match="a parameter of model a"):
        estimate(nf, si_platform, params={"nope": 1})


def test_weights_split_the_mix(si_platform):
    nf = parse_nf("""
name: hitmiss
description: d
paths:
  hit: {weight: 3, operations: ["parse(8)"]}
  miss: {weight: 1, operations: ["parse(8)", "checksum(20)"]}
""")
    rows = {r.path: r for r in estimate(nf, si_platform)}
    assert rows["hit"].cycles_per_packet == 7
    assert rows["miss"].cycles_per_packet == 7 + 78
    assert rows["mix"].cycles_per_packet == pytest.approx((3 * 7 + 85) / 4)
    assert rows["mix"].dram_accesses_per_packet == pytest.approx(0.25)


def test_weights_may_follow_the_params(si_platform):
    """A hit rate is part of the traffic: a path's weight may be an expression over the
    params, so `--param hit=…` moves the mix without editing the model."""
    nf = parse_nf("""
name: hitmiss
description: d
params: {hit: {default: 0.75}}
paths:
  hit: {weight: hit, operations: ["parse(8)"]}
  miss: {weight: 1 - hit, operations: ["parse(8)", "checksum(20)"]}
""")
    mix = {h: estimate(nf, si_platform, params={"hit": h})[-1].cycles_per_packet
           for h in (0.0, 0.75, 1.0)}
    assert mix == {0.0: 85, 0.75: pytest.approx((3 * 7 + 85) / 4), 1.0: 7}
    with pytest.raises(InputError, match="paths.miss.weight: expected a weight ≥ 0"):
        estimate(nf, si_platform, params={"hit": 2.0})


def test_every_eo_in_both_notations(si_platform):
    """Each EO of the catalogue loads from a string and from a mapping with its own names."""
    values = {"bytes": "8", "count": "1", "entries": "1K", "probability": "0"}
    for spec in CATALOGUE:
        args = [values[p.kind] for p in spec.params]
        text = f"{spec.name}({', '.join(args)})"
        mapping = {"op": spec.name, **{p.name: values[p.kind] for p in spec.params}}
        for op in (repr(text), repr(mapping).replace("'", '"')):
            nf = parse_nf(f"name: x\ndescription: d\noperations:\n  - {op}\n")
            assert estimate(nf, si_platform)[0].cycles_per_packet > 0


# --- property-based: whatever the text, a model or an InputError -------------------------------

_eo_names = st.sampled_from([s.name for s in CATALOGUE] + ["foo", "io_mem", "PARSE", ""])
_arg = st.one_of(st.integers(-5, 5_000_000).map(str), st.sampled_from(
    ["ps", "ps-4", "2M", "64K", "0.5", "1.0", "-1", "x", "frame/0", "max(0, ps-56)", "(", "1e999",
     "ps*ps*ps", ""]), st.text(max_size=6))
_op_string = st.builds(lambda n, a: f"{n}({', '.join(a)})", _eo_names, st.lists(_arg, max_size=5))
_op_mapping = st.builds(lambda n, kv: {"op": n, **kv}, _eo_names,
                        st.dictionaries(st.sampled_from(["hdr", "data", "b", "N", "HE", "max", "p",
                                                         "es", "zz"]),
                                        st.one_of(_arg, st.integers(-3, 10), st.floats(),
                                                  st.booleans(), st.none()), max_size=5))
_value = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=8)),
                      lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.text(max_size=5), inner, max_size=3), max_leaves=6)


def _check(text: str) -> None:
    try:
        nf = parse_nf(text, "fuzz.yaml")
    except InputError as exc:
        assert exc.message.startswith("fuzz.yaml")
        assert "\n" not in exc.message
        return
    assert nf.paths and all(p.operations for p in nf.paths)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(_op_string, _op_mapping), min_size=0, max_size=6),
       st.sampled_from(["operations", "paths"]))
def test_random_operations_load_or_fail_cleanly(ops, key):
    import json

    body = json.dumps(ops) if key == "operations" else json.dumps({"a": {"operations": ops}})
    _check(f"name: fuzz\ndescription: d\n{key}: {body}\n")


@settings(max_examples=300)
@given(st.dictionaries(st.sampled_from(["name", "description", "source", "params", "operations",
                                        "paths", "other"]), _value, max_size=6))
def test_random_documents_load_or_fail_cleanly(doc):
    import json

    _check(json.dumps(doc))


@settings(max_examples=300)
@given(st.text(max_size=200))
def test_random_text_loads_or_fails_cleanly(text):
    _check(text)
