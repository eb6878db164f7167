"""The data plane's run configuration and result merging (no DPDK needed)."""

from __future__ import annotations

import pytest

from nfvperf.dataplane.run import RunConfig, merge
from nfvperf.dataplane.session import chain_mac
from nfvperf.errors import InputError


def test_rate_from_gbps_counts_20_bytes_per_frame():
    """10 Gbps of 64 B frames is 14.88 Mpps on the wire (DESIGN.md: units)."""
    assert RunConfig(rate_gbps=10, packet_size=64).rate_pps == pytest.approx(14.880952e6)
    assert RunConfig(rate_mpps=2.5).rate_pps == 2.5e6


def test_chains_cover_every_nf_and_wrap():
    assert RunConfig(nfs=4, chain_length=2).chains == [[0, 1], [2, 3]]
    assert RunConfig(nfs=5, chain_length=2).chains == [[0, 1], [2, 3], [4, 0]]
    assert RunConfig(nfs=3, chain_length=1).chains == [[0], [1], [2]]
    macs = {chain_mac(c) for c in range(70000)}
    assert len(macs) == 70000


@pytest.mark.parametrize("kw, field", [
    ({"arch": "ring"}, "arch"),
    ({"nfs": 0}, "nfs"),
    ({"nfs": 1, "chain_length": 2}, "chain_length"),
    ({"rate_mpps": 0}, "rate_mpps"),
    ({"rate_mpps": -1}, "rate_mpps"),
    ({"rate_mpps": None}, "rate_mpps"),
    ({"rate_gbps": 1}, "rate_mpps"),
    ({"packet_size": 63}, "packet_size"),
    ({"packet_size": 1519}, "packet_size"),
    ({"flows": 65537}, "flows"),
    ({"nf": "nat"}, "nf"),
    ({"duration_s": 0}, "duration_s"),
    ({"nf_cpu": 4096}, "nf_cpu"),
    ({"wake_batch": 0}, "wake_batch"),
    ({"wake_timeout_us": 0}, "wake_timeout_us"),
    ({"wake_rate_max": -1}, "wake_rate_max"),
])
def test_bad_configuration_names_the_parameter(kw, field):
    """The library speaks of its parameters; only the command line speaks of options."""
    cfg = {"rate_mpps": 1.0, **kw}
    with pytest.raises(InputError, match=f"^{field}: expected"):
        RunConfig(**cfg).validate()


def _reports(received=91, tx_dropped=3, ring_full=5, nf=1, in_flight=1):
    gen = {"sent": 100, "tx_dropped": tx_dropped, "received": received, "duration_s": 2.0,
           "latency_ns": {"mean": 2000.0, "p50": 1500.0, "p90": 3000.0, "p99": 9000.0,
                          "p999": 9900.0, "max": 12000.0}}
    vs = {"dropped": {"port_tx": 2, "ring_full": ring_full, "nf": nf, "no_chain": 0,
                      "nf_absent": 0, "nf_dead": 0, "in_flight_at_stop": in_flight},
          "pool": {"size": 1024, "free": 1024}, "rx_batch_hist": [5, 2] + [0] * 30 + [1],
          "nf_batch_hist": [0] * 32 + [4], "loops": 10,
          "per_nf": [{"name": "nf0", "rx": 10, "wakeups": 4},
                     {"name": "nf1", "rx": 9, "wakeups": 0}]}
    return vs, gen


def test_merge_checks_conservation_and_converts_units():
    cfg = RunConfig(rate_mpps=1.0, packet_size=64)
    vs, gen = _reports()
    r = merge(cfg, vs, gen, [0.5, None])
    assert r["offered_packets"] == 103 and r["delivered_packets"] == 91
    assert r["conservation"] == {"offered": 103, "accounted": 103, "balanced": True}
    assert r["delivered_mpps"] == pytest.approx(45.5e-6)
    assert r["delivered_gbps"] == pytest.approx(45.5 * 84 * 8 / 1e9)
    assert r["latency_us"]["p99"] == pytest.approx(9.0)
    assert r["dropped"]["port_rx"] == 3 and r["pool"]["all_returned"]
    assert r["vswitch"]["rx_batch_mean"] == pytest.approx((2 * 1 + 32) / 3)
    assert [n["cpu_share"] for n in r["per_nf"]] == [0.5, None]
    assert [n["batch_per_wakeup"] for n in r["per_nf"]] == [2.5, None]
    assert r["per_nf"][0]["wakeups_per_packet"] == pytest.approx(0.4)
    vs, gen = _reports(received=90)
    assert not merge(cfg, vs, gen, [None, None])["conservation"]["balanced"]


def test_cli_rejects_bad_configuration_before_starting_anything(cli):
    code, out, err = cli("dataplane", "run", "--arch", "bogus", "--rate-mpps", "1")
    assert code == 2 and out == ""
    assert err.strip().splitlines() == [
        'nfvperf: error: --arch: expected double-buffer, semaphore, shared-ring, fdir or '
        'isolated, found "bogus"']
    code, _, err = cli("dataplane", "run", "--nfs", "0", "--rate-mpps", "1")
    assert code == 2 and "--nfs: expected 1..8192 NFs" in err
    # the generator's own limits, refused before any process starts (the generator took at
    # most 65 536 flows and 1518 B frames where Python let 2^24 and 9216 B through)
    for args, message in ((("--flows", "100000"), "--flows: expected 1..65536 flows"),
                          (("--packet-size", "9000"), "--packet-size: expected a frame size "
                                                      "of 64..1518 B"),
                          (("--duration", "0"), "--duration: expected 0 < seconds")):
        code, out, err = cli("dataplane", "run", "--rate-mpps", "1", *args)
        assert (code, out) == (2, "") and err.startswith(f"nfvperf: error: {message}")


def test_doctor_reports_every_check(cli):
    import json

    from nfvperf.reference import output_type

    code, out, _ = cli("doctor", "--format", "json")
    checks = json.loads(out)
    output_type("nfvperf doctor").validate_python(checks)   # every field the reference lists
    assert {c["check"] for c in checks} >= {"build tools and DPDK", "hugepages",
                                             "data plane built"}
    assert code == (0 if all(c["ok"] for c in checks) else 1)
    assert all(c["fix"] for c in checks if not c["ok"])
