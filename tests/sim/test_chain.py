"""The chain simulator (sim.chain): a service with parallel instances, each a batched polling
queue, checked against queueing theory and against what the policies promise."""

from __future__ import annotations

import numpy as np
import pytest

from nfvperf.chain import ChainSpec
from nfvperf.eo.platform import load_platform
from nfvperf.sim.chain import simulate_chain
from nfvperf.sim.costs import service_cycles
from nfvperf.sim.options import SimOptions

PLATFORM = load_platform("xeon-e5-2690v2")
CLOCK = PLATFORM.cpu.clock_hz
#: a packet of 1 µs, no batch overhead
MICRO = {"cycles_per_packet": CLOCK * 1e-6, "batch_overhead_cycles": 0}


def spec(services: list[dict], traffic: list[dict], **kw) -> ChainSpec:
    return ChainSpec.model_validate({"services": services, "traffic": traffic, **kw})


def fwd(**kw) -> dict:
    """A stateless NF (priced by the options: MICRO)."""
    return {"nf": "forward", **kw}


def sim(chain: ChainSpec, *, duration_s: float, cost: dict | None = None, **options) -> dict:
    """Simulate with every service at ``cost`` (default MICRO) and the given options."""
    opts = SimOptions.model_validate({
        "services": {i: cost or MICRO for i in range(len(chain.services))}, **options})
    return simulate_chain(chain, PLATFORM, opts, duration_s=duration_s).to_dict()


def test_paced_traffic_below_capacity_never_waits():
    r = sim(spec([fwd()], [{"frame_bytes": 64, "rate_pps": 1e5, "flows": 1}]),
            arrivals="paced", duration_s=0.2)
    assert r["loss_pct"] == 0
    assert r["latency_us"]["mean"] == pytest.approx(1.0, rel=1e-6)


def test_one_at_a_time_poisson_queue_is_m_d_1():
    """With bursts of 1, Poisson arrivals and a fixed service time D, an instance is an M/D/1
    queue: mean sojourn D (1 + ρ / (2 (1 - ρ))) (Pollaczek-Khinchine); ρ = 0.5: 1.5 D."""
    r = sim(spec([fwd()], [{"frame_bytes": 64, "rate_pps": 5e5, "flows": 1}]),
            burst=1, ring=65536, duration_s=2.0, seed=3)
    assert r["loss_pct"] == 0
    assert r["latency_us"]["mean"] == pytest.approx(1.5, rel=0.02)


def test_overload_loses_what_the_instance_cannot_serve_and_counts_it():
    """2 Mpps into an instance that serves 1 Mpps (packets of 1 µs, one at a time): about half
    is lost, and offered = delivered + dropped."""
    r = sim(spec([fwd()], [{"frame_bytes": 64, "rate_pps": 2e6, "flows": 4}]), burst=1,
            duration_s=0.5)
    (c,) = r["classes"]
    (inst,) = r["services"][0]["instances"]
    assert c["loss_pct"] == pytest.approx(50, abs=1)
    assert inst["offered"] == inst["delivered"] + inst["dropped"] == c["offered"]
    assert inst["in_flight"] == 0 and r["dropped"]["ring_full"] == inst["ring_full"]


def test_a_second_core_does_not_help_a_single_threaded_nf_a_second_instance_does():
    """Hajji et al.: scaling up a single-threaded NF is useless, scaling out is not."""
    traffic = [{"frame_bytes": 64, "rate_pps": 1.6e6, "flows": 256}]
    one = sim(spec([fwd()], traffic), duration_s=0.3)
    up = sim(spec([fwd()], traffic), cost={**MICRO, "cores": 2}, duration_s=0.3)
    out = sim(spec([fwd(instances=2)], traffic), duration_s=0.3)
    assert one["loss_pct"] > 30 and up["loss_pct"] == one["loss_pct"]
    assert out["loss_pct"] < 1


def test_round_robin_splits_packets_weights_split_flows():
    t = [{"frame_bytes": 64, "rate_pps": 2e5, "flows": 4000}]
    rr = sim(spec([fwd(instances=2, policy="round-robin")], t), duration_s=0.2)
    a, b = rr["services"][0]["instances"]
    assert abs(a["offered"] - b["offered"]) <= 1
    w = sim(spec([fwd(instances=2, policy="weighted", weights=[3, 1])], t), duration_s=0.2)
    a, b = w["services"][0]["instances"]
    assert a["flows"] / (a["flows"] + b["flows"]) == pytest.approx(0.75, abs=0.03)


def test_nf_aware_keeps_large_and_small_flows_apart_by_the_cost_driver():
    """NAT (cost by packets): the small-frame class carries most packets, the large-frame one
    gets its own instance. The IDS's cost follows bytes, priced by its EO model (dfa_scan)."""
    chain = spec(
        [{"nf": "nat", "instances": 2, "policy": "nf-aware"},
         {"nf": "ids", "instances": 2, "policy": "nf-aware"}],
        [{"frame_bytes": 1518, "rate_pps": 2e4, "flows": 8},
         {"frame_bytes": 64, "rate_pps": 2e5, "flows": 64}])
    r = simulate_chain(chain, PLATFORM, duration_s=0.3).to_dict()
    nat, ids = r["services"]
    small, large = sorted(nat["instances"], key=lambda i: i["bytes"] / i["offered"])
    # one instance sees only small frames, the other every large one (and the small flows
    # that came before the first large frame: they stay where they were placed)
    # bytes as the vSwitch counts them (pkt_len: the frame less its FCS)
    assert small["bytes"] == (64 - 4) * small["offered"]
    assert large["bytes"] >= (1518 - 4) * r["classes"][0]["offered"]
    nat_cost, ids_cost = service_cycles(chain, PLATFORM, SimOptions(), [64, 1518])
    assert ids_cost[1] > 10 * ids_cost[0] and nat_cost[1] == pytest.approx(nat_cost[0], rel=0.2)
    # an IDS instance's cycles a packet (the median, packets weigh) follow the frames it was
    # given: the large ones' where most of its packets are large
    big, little = sorted(ids["instances"], key=lambda i: -i["bytes"] / i["offered"])
    share_large = (big["bytes"] / big["offered"] - 60) / (1514 - 60)
    if share_large > 0.5:
        assert big["cycles_per_packet"] > 5 * little["cycles_per_packet"]
    else:
        assert big["cycles_per_packet"] >= little["cycles_per_packet"]


def test_instances_that_share_a_core_share_its_capacity():
    """Two instances on one cpu take turns: together they serve what one core serves (1 Mpps
    of 1.6 offered: 37.5 % lost); on cores of their own each is at 80 %."""
    t = [{"frame_bytes": 64, "rate_pps": 1.6e6, "flows": 256}]
    shared = sim(spec([fwd(instances=2, cpu=0)], t), burst=1, duration_s=0.3)
    own = sim(spec([fwd(instances=2)], t), burst=1, duration_s=0.3)
    assert shared["loss_pct"] == pytest.approx(37.5, abs=2)
    assert own["loss_pct"] < 1


def test_a_rate_on_the_command_line_scales_the_chain_files_own_traffic(cli, tmp_path):
    """--rate-mpps and --rate-gbps set the total of a chain file's classes, their mix of frame
    sizes and flows kept (the rate was ignored for a file with traffic)."""
    import json

    path = tmp_path / "chain.yaml"
    path.write_text("services:\n  - {nf: forward}\n"
                    "traffic:\n  - {frame_bytes: 64, rate_pps: 30000, flows: 4}\n"
                    "  - {frame_bytes: 1518, rate_pps: 10000, flows: 2}\n")
    code, out, err = cli("chain", "simulate", str(path), "--duration", "0.2", "--rate-mpps",
                         "0.2", "-f", "json")
    assert code == 0, err
    r = json.loads(out)
    offered = [c["offered"] for c in r["classes"]]
    assert sum(offered) == pytest.approx(0.2e6 * 0.2, rel=0.02)
    assert offered[0] == pytest.approx(3 * offered[1], rel=0.02)
    # 1 Gbps on the wire: 3 frames of 84 B for one of 1538 B
    code, out, err = cli("chain", "simulate", str(path), "--duration", "0.2", "--rate-gbps",
                         "1", "-f", "json")
    pps = 1e9 / ((3 * 84 + 1538) * 8 / 4)
    assert sum(c["offered"] for c in json.loads(out)["classes"]) == \
        pytest.approx(pps * 0.2, rel=0.02)


def test_chain_simulate_cli_prices_each_service_by_its_model_or_the_options(cli, tmp_path):
    """`nfvperf chain simulate`: per class, service and instance, each instance's cycles a
    packet from its NF's EO model, or from the simulator's options file (--sim)."""
    import json

    path = tmp_path / "chain.yaml"
    path.write_text("services:\n  - {nf: nat, instances: 2, policy: flow}\n"
                    "  - {nf: ids}\n"
                    "traffic:\n  - {frame_bytes: 512, rate_pps: 50000, flows: 32}\n")
    code, out, err = cli("chain", "simulate", str(path), "--duration", "0.2", "-f", "json")
    assert code == 0, err
    r = json.loads(out)
    assert r["backend"] == "simulator" and r["arch"] is None
    nat, ids = r["services"]
    assert [len(nat["instances"]), len(ids["instances"])] == [2, 1]
    assert sum(i["flows"] for i in nat["instances"]) == 32
    assert ids["instances"][0]["cycles_per_packet"] > nat["instances"][0]["cycles_per_packet"]
    assert r["classes"][0]["delivered"] == r["delivered_packets"] > 0
    opts = tmp_path / "sim.yaml"
    opts.write_text("burst: 8\nservices:\n  1: {cycles_per_packet: 900, "
                    "batch_overhead_cycles: 0}\n")
    code, out, err = cli("chain", "simulate", str(path), "--sim", str(opts), "--duration",
                         "0.2", "-f", "json")
    assert code == 0, err
    ids = json.loads(out)["services"][1]["instances"][0]
    assert ids["cycles_per_packet"] == pytest.approx(900, rel=0.01) and ids["mean_batch"] <= 8


def test_a_chain_file_with_simulator_fields_is_told_where_they_went(cli, tmp_path):
    path = tmp_path / "chain.yaml"
    path.write_text("services:\n  - {nf: nat, cycles_per_packet: 300}\n")
    code, out, err = cli("chain", "simulate", str(path))
    assert (code, out) == (2, "")
    assert err.startswith(f"nfvperf: error: {path}:2: services[0]: expected no "
                          "'cycles_per_packet' here: it is a simulator option now")


def test_polling_in_turn_on_a_shared_core_costs_latency_per_process():
    """switch_us > 0: instances on one cpu poll in turn, as NF processes that yield do; a
    packet that reaches an idle instance waits for its turn, so latency grows with the number
    of processes on the core, even when it is lightly loaded."""
    t = [{"frame_bytes": 64, "rate_pps": 2e4, "flows": 64}]

    def mean_latency(n: int, switch: float) -> float:
        s = spec([fwd(instances=n, cpu=0)], t)
        return sim(s, switch_us=switch, duration_s=0.5)["latency_us"]["mean"]

    free = mean_latency(2, 0)
    assert free == pytest.approx(1.0, rel=0.05)               # no waiting at 2 % load
    # a packet comes at a uniform point of the round and waits for its instance's next
    # turn: n × switch / 2 on average, a little more as rounds that serve packets run longer
    # (the instance that has just polled waits a whole round: without that, 3.8 and 12.8 µs)
    for n in (2, 4):
        assert mean_latency(n, 10) == pytest.approx(free + n * 10 / 2, rel=0.2)


def test_scale_events_add_and_remove_instances_while_packets_flow():
    """A third instance joins (its flows stay where they are pinned: it gets none), then the
    service shrinks to its first instance: the flows of the two removed ones are placed again
    (moved) on it, and nothing is lost on the way."""
    s = spec([fwd(instances=2)], [{"frame_bytes": 64, "rate_pps": 2e5, "flows": 64}],
             scale=[{"at_s": 0.1, "service": 0, "instances": 3},
                    {"at_s": 0.2, "service": 0, "instances": 1}])
    r = sim(s, duration_s=0.3, arrivals="paced")
    added, removed = r["scaling"]
    svc = r["services"][0]
    first, second, third = svc["instances"]
    assert added["moved"] == 0 and third["offered"] == 0 and removed["moved"] > 0
    # pinned now, as the data plane counts them: all 64 on the first (its own and the moved
    # ones, each once); the removed instances pin nothing
    assert first["flows"] == svc["flows_pinned"] == 64
    assert second["flows"] is None and third["flows"] is None
    assert [i["in_service_at_end"] for i in svc["instances"]] == [True, False, False]
    assert svc["flows_moved"] == removed["moved"] and r["loss_pct"] == 0


def test_core_stalls_overflow_rings_and_more_instances_hold_more():
    """Stalls of a shared core (a VM's vCPU taken away): 10 a second of 3 ms, 500 kpps into
    rings of 512: each stall overflows one instance's ring by 1500 - 512 packets (about 2 %
    lost); two instances have two rings, 1024 packets between them (about 1 %)."""
    t = [{"frame_bytes": 64, "rate_pps": 5e5, "flows": 512}]
    stalls = {"per_s": 10, "durations_us": [3000]}

    def loss(n: int) -> float:
        s = spec([fwd(instances=n, cpu=0)], t)
        return sim(s, cost={**MICRO, "cycles_per_packet": CLOCK * 0.5e-6}, stalls=stalls,
                   duration_s=2.0, arrivals="paced", ring=512)["loss_pct"]

    one, two = loss(1), loss(2)
    assert one == pytest.approx(100 * 10 * (1500 - 512) / 5e5, rel=0.3)
    assert two == pytest.approx(100 * 10 * (1500 - 1024) / 5e5, rel=0.4)


def test_nf_aware_gives_a_zero_weight_instance_nothing_as_the_vswitch_does():
    """An instance of weight 0 takes no flow under nf-aware (the vSwitch's nf_aware_pick skips
    it; the simulator once gave it its share)."""
    chain = spec([fwd(instances=3, policy="nf-aware", weights=[1, 0, 1])],
                 [{"frame_bytes": 1518, "rate_pps": 2e4, "flows": 30},
                  {"frame_bytes": 64, "rate_pps": 2e5, "flows": 200}])
    a, zero, c = sim(chain, duration_s=0.2)["services"][0]["instances"]
    assert zero["offered"] == 0 and zero["flows"] == 0
    assert a["flows"] + c["flows"] == 230


def test_an_nf_without_a_model_needs_its_cost_from_the_options(cli, tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("services:\n  - {nf: counter}\n")
    code, out, err = cli("chain", "simulate", str(path))
    assert (code, out) == (2, "")
    assert err.startswith("nfvperf: error: services[0].nf: expected an NF with an EO model, "
                          "or a model or cycles_per_packet for service 0 in the simulator's")
    opts = tmp_path / "o.yaml"
    opts.write_text("services: {0: {cycles_per_packet: 100}}\n")
    code, out, err = cli("chain", "simulate", str(path), "--sim", str(opts), "--duration", "0.1")
    assert code == 0, err


def test_an_options_file_names_model_files_relative_to_itself(tmp_path):
    from nfvperf.sim.options import load_options

    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "x.yaml").write_text("name: x\ndescription: d\noperations: ['parse(6)']\n")
    (tmp_path / "o.yaml").write_text("services: {0: {model: m/x.yaml}, 1: {cores: 2}}\n")
    opts = load_options(tmp_path / "o.yaml")
    assert opts.services[0].model == str(tmp_path / "m" / "x.yaml")
    assert opts.services[1].model is None and opts.services[1].cores == 2


def test_an_options_file_whose_ring_cannot_hold_a_burst_is_refused_where_it_says_so(tmp_path):
    from nfvperf.errors import InputError
    from nfvperf.sim.options import load_options

    (tmp_path / "o.yaml").write_text("ring: 8\nburst: 32\n")
    with pytest.raises(InputError, match=r"o\.yaml:1: expected a ring of at least burst \(32\)"):
        load_options(tmp_path / "o.yaml")


def test_latency_quantiles_are_read_inside_their_bin():
    """The simulator's latency histogram has 20 bins a decade (12 % wide): a quantile is read
    where it falls inside its bin (packets spread evenly over the bin's logarithm), not at the
    bin's middle: 100 packets in one bin put p50 at its middle and p90 nine tenths in; half
    in the next bin puts p50 at the first's top."""
    from nfvperf.sim.chain import _latency
    from nfvperf.sim.chain_kernel import LAT_BINS, LAT_LO, LAT_PER_DECADE

    def at(x: float) -> float:
        return LAT_LO * 10 ** (x / LAT_PER_DECADE) * 1e6

    h = np.zeros(LAT_BINS)
    h[100] = 100
    lat = _latency(h, 100, 100 * at(100.5) * 1e-6)
    assert (lat.p50, lat.p90, lat.p99) == pytest.approx((at(100.5), at(100.9), at(100.99)))
    assert lat.mean == pytest.approx(at(100.5))
    h[101] = 100
    assert _latency(h, 200, 1.0).p50 == pytest.approx(at(101))
