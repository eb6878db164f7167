"""The one chain description: what a chain file may say, what both back ends refuse alike, and
the policies' weights as the vSwitch takes them."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nfvperf import limits
from nfvperf.chain import ChainSpec, TrafficClass, integer_weights, load_chain
from nfvperf.errors import InputError


def chain(**kw) -> ChainSpec:
    return ChainSpec.model_validate({"services": [{"nf": "nat"}], **kw})


def test_a_service_takes_its_state_and_cost_driver_from_the_catalogue():
    c = ChainSpec.model_validate({"services": [{"nf": "ids"}, {"nf": "mpls"},
                                               {"nf": "bng@paper"}, {"nf": "nat",
                                                                     "stateless": True}]})
    assert [s.is_stateless for s in c.services] == [False, True, False, True]
    assert [s.cost_driver for s in c.services] == ["bytes", "packets", "packets", "packets"]


def test_plan_files_stateful_is_read_as_stateless():
    c = ChainSpec.model_validate({"services": [{"nf": "l2fwd", "stateful": True}]})
    assert c.services[0].stateful and not c.services[0].is_stateless


def test_predictions_take_eo_models_the_data_plane_does_not():
    c = chain(services=[{"nf": "bng@paper"}])
    assert c.problem() is None
    assert c.runnable_problem()[0] == ("services", 0, "nf")
    with pytest.raises(InputError, match=r"services\[0\]\.nf: expected signature, forward"):
        c.check(runnable=True)


def test_frames_the_data_plane_cannot_carry_are_refused_only_for_a_run():
    c = chain(traffic=[{"frame_bytes": 9000, "rate_mpps": 1}])
    assert c.problem() is None
    assert c.runnable_problem() == (("traffic", 0, "frame_bytes"),
                                    "a frame of 64..1518 B (the data plane's)", 9000)


def test_flows_past_the_generators_limit_are_refused_from_a_file_or_a_default():
    many = chain(traffic=[{"frame_bytes": 64, "rate_pps": 1, "flows": 40000}] * 2)
    assert many.problem() is None           # a plan's chain may carry more flows
    assert many.runnable_problem() == (("traffic",), "at most 65536 flows in all", 80000)
    with pytest.raises(InputError, match="^flows: expected at most 65536"):
        many.classes()
    with pytest.raises(InputError, match="^flows: expected at most 65536"):
        chain().classes(TrafficClass(frame_bytes=64, rate_pps=1, flows=limits.MAX_FLOWS + 1))
    with pytest.raises(InputError, match="^traffic: expected flow classes"):
        chain().classes(None)


@pytest.mark.parametrize("rates, pps", [({"rate_pps": 5}, 5), ({"rate_mpps": 2}, 2e6),
                                        ({"rate_gbps": 10}, 10e9 / (84 * 8))])
def test_a_traffic_class_has_exactly_one_rate(rates, pps):
    assert TrafficClass(frame_bytes=64, **rates).pps == pytest.approx(pps)
    with pytest.raises(ValueError, match="one of rate_pps, rate_mpps or rate_gbps"):
        TrafficClass(frame_bytes=64, rate_pps=1, rate_mpps=1)


def test_a_chain_file_names_model_files_relative_to_itself(tmp_path):
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "x.yaml").write_text("name: x\ndescription: d\noperations: ['parse(6)']\n")
    (tmp_path / "c.yaml").write_text("services: [{nf: m/x.yaml}]\n")
    spec = load_chain(tmp_path / "c.yaml")
    assert spec.services[0].nf == str(tmp_path / "m" / "x.yaml")


@given(st.lists(st.floats(0, 1e6), min_size=1, max_size=limits.MAX_INSTANCES)
       .filter(lambda w: sum(w) > 0))
@settings(max_examples=200)
def test_integer_weights_keep_proportions_and_every_positive_weight(weights):
    ints = integer_weights(weights, len(weights))
    assert max(ints) == limits.WEIGHT_MAX and all(0 <= w <= limits.WEIGHT_MAX for w in ints)
    assert all((w > 0) == (i > 0) for w, i in zip(weights, ints))
    top = max(weights)
    for w, i in zip(weights, ints):
        assert i == pytest.approx(w / top * limits.WEIGHT_MAX, abs=1.0) or i == 1


def test_a_chain_file_says_how_blocking_nfs_are_woken(tmp_path):
    """``wake`` takes the vSwitch's defaults (nfvp_limits.h) and becomes its options."""
    assert chain().wake.vswitch_args() == [
        "--wake-batch", str(limits.WAKE_BATCH), "--wake-timeout-us", str(limits.WAKE_TIMEOUT_US),
        "--wake-rate-max", str(limits.WAKE_RATE_MAX)]
    assert chain(wake={"batch": 8}).wake.vswitch_args()[:2] == ["--wake-batch", "8"]
    bad = tmp_path / "c.yaml"
    bad.write_text("services: [{nf: nat}]\nwake: {batch: 8, timeout_us: 0}\n")
    with pytest.raises(InputError, match=r"c\.yaml:2: wake\.timeout_us: expected a number ≥ 1"):
        load_chain(bad)
    bad.write_text("services: [{nf: nat}]\nwake: {sleep: 1}\n")
    with pytest.raises(InputError, match=r"wake\.sleep: expected one of the fields batch"):
        load_chain(bad)
