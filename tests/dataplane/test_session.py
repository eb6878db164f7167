"""The data plane step by step: NFs that die, chains that change, NFs that arrive, isolation."""

from __future__ import annotations

import os
import re
import time

import pytest

from nfvperf import limits
from nfvperf.dataplane.session import Session, chain_mac

pytestmark = [pytest.mark.dataplane]


def _traffic(s: Session, chains: int, *, rate_pps=100_000, duration_s=0.5, **kw) -> dict:
    s.start_traffic(rate_pps=rate_pps, frame_bytes=64, macs=[chain_mac(c) for c in
                                                             range(chains)],
                    duration_s=duration_s, **kw)
    return s.wait_traffic()


def _balanced(gen: dict, vs: dict) -> bool:
    dropped = sum(vs["dropped"].values())
    return gen["sent"] == gen["received"] + dropped


@pytest.mark.parametrize("arch", ["double-buffer", "semaphore", "isolated"])
def test_killing_an_nf_mid_run_spares_the_vswitch_and_the_other_chain(dataplane, arch):
    """Robustness: its in-flight packets count as dropped, its mbufs go back."""
    with Session(arch) as s:
        s.add_nfs("signature", ["a0", "a1", "b0", "b1"])
        s.set_chain(0, ["a0", "a1"])
        s.set_chain(1, ["b0", "b1"])
        s.start_traffic(rate_pps=200_000, frame_bytes=64, macs=[chain_mac(0), chain_mac(1)],
                        duration_s=1.0)
        time.sleep(0.4)
        s.kill_nf("a1")
        gen = s.wait_traffic()
        assert s.status()["nfs"] == 3
        vs = s.close()
    nf = {n["name"]: n for n in vs["per_nf"]}
    assert not nf["a1"]["alive"] and nf["b1"]["alive"]
    assert vs["dropped"]["nf_absent"] > 0          # chain 0 lost its second hop
    # chain 1 kept going after the kill (rates are not asserted: the machine may be busy)
    assert nf["b1"]["tx"] > nf["a1"]["tx"] and gen["received"] > nf["a1"]["tx"]
    assert vs["pool"]["free"] == vs["pool"]["size"]
    assert _balanced(gen, vs), (gen, vs["dropped"])


def test_chains_change_and_nfs_attach_while_it_runs(dataplane):
    with Session("semaphore") as s:
        s.add_nfs("counter", ["x", "y"])
        s.set_chain(0, ["x"])
        first = _traffic(s, 1)
        after_first = {n["name"]: n["rx"] for n in s.stats()["per_nf"]}
        s.add_nfs("counter", ["z"])                 # a new tenant's NF arrives
        s.set_chain(0, ["z", "y"])                  # and the rule changes, no restart
        second = _traffic(s, 1)
        after_second = {n["name"]: n["rx"] for n in s.stats()["per_nf"]}
        s.del_chain(0)
        third = _traffic(s, 1, duration_s=0.2)
        vs = s.close()
    assert first["received"] > 0 and after_first["y"] == 0
    assert first["received"] <= after_first["x"] <= first["sent"]
    assert after_second["x"] == after_first["x"]    # the old chain's NF sees nothing new
    assert second["received"] > 0
    assert second["received"] <= after_second["y"] <= after_second["z"] <= second["sent"]
    assert third["received"] == 0 and third["sent"] > 0
    assert vs["dropped"]["no_chain"] == third["sent"]


def test_a_mac_that_moves_to_another_chain_follows_it(dataplane):
    """The vSwitch caches MAC -> chain: a MAC given to another chain at run time must reach it,
    not the chain the cache last saw."""
    with Session("double-buffer") as s:
        s.add_nfs("counter", ["x", "y"])
        s.set_chain(0, ["x"])
        first = _traffic(s, 1, duration_s=0.2)
        s.del_chain(0)
        s.set_chain(1, ["y"], mac=chain_mac(0))
        second = _traffic(s, 1, duration_s=0.2)
        vs = s.close()
    nf = {n["name"]: n["rx"] for n in vs["per_nf"]}
    assert first["received"] > 0 and second["received"] > 0
    assert nf["x"] == first["sent"] and nf["y"] == second["sent"]
    assert vs["dropped"]["no_chain"] == 0


def test_counter_drops_are_counted_at_the_nf(dataplane):
    with Session("double-buffer") as s:
        s.add_nfs("counter", ["c"], args=("--drop-every", "4"))
        s.set_chain(0, ["c"])
        gen = _traffic(s, 1, rate_pps=50_000)
        vs = s.close()
    assert vs["dropped"]["nf"] == gen["sent"] // 4
    reasons = vs["per_nf"][0]["drops_by_reason"]
    assert list(reasons) == list(limits.DROP_REASON_NAMES)
    assert reasons["policy"] == gen["sent"] // 4 and sum(reasons.values()) == gen["sent"] // 4
    assert gen["received"] == gen["sent"] - gen["sent"] // 4


def test_each_nf_says_why_it_drops(dataplane):
    """The NAT drops replies for which it has no connection (no_mapping); the router drops what
    its table has no route for (no_route): each counted under its reason, nothing as other."""
    with Session("double-buffer") as s:
        s.add_nfs("nat", ["nat"], args=("--public-ip", "198.51.100.7"))
        s.add_nfs("router", ["router"])
        s.set_chain(0, ["nat"])
        s.set_chain(1, ["router"])
        gen = _traffic(s, 1, rate_pps=20_000, duration_s=0.3,
                       extra=("--dst-ip-base", "198.51.100.7"))
        gen2 = _traffic(s, 2, rate_pps=20_000, duration_s=0.3,
                        extra=("--dst-ip-base", "172.31.0.1"))
        vs = s.close()
    nf = {n["name"]: n for n in vs["per_nf"]}
    assert nf["nat"]["drops_by_reason"]["no_mapping"] == nf["nat"]["drop"] > 0
    assert nf["router"]["drops_by_reason"]["no_route"] == nf["router"]["drop"] > 0
    assert nf["nat"]["drops_by_reason"]["other"] == nf["router"]["drops_by_reason"]["other"] == 0
    assert gen["sent"] > 0 and gen2["sent"] > 0


@pytest.mark.parametrize("arch", ["double-buffer", "shared-ring", "isolated"])
def test_reports_hold_the_loop_stages_the_naps_and_the_latency_histogram(dataplane, arch):
    """What a model of the data plane is fitted to, consistent with the counts beside it: the
    vSwitch's per-stage cycles, the generator's naps and its latency histograms."""
    with Session(arch) as s:
        s.add_nfs("forward", ["f"])
        s.set_chain(0, ["f"])
        gen = _traffic(s, 1, rate_pps=100_000, duration_s=0.3)
        vs = s.close()
    st = vs["stages"]
    assert st["rx"]["packets"] == sum(p["rx"] for p in vs["ports"]) > 0
    assert 0 < st["nf"]["packets"] <= sum(nf["returned"] for nf in vs["per_nf"])
    for name in ("rx", "nf", "flush"):
        x = st[name]
        assert 0 < x["calls"] <= x["packets"] and x["cycles"] > 0
        # sums of squares and products: no less than their values at the mean (Cauchy-Schwarz)
        assert x["sum_pp"] >= x["packets"] ** 2 / x["calls"] * (1 - 1e-12)
        assert x["sum_cp"] > 0
    assert st["rx"]["calls"] + st["idle_loops"] <= vs["loops"] and st["idle_cycles"] > 0

    naps = gen["naps"]                  # --idle sleep, 100 kpps: a burst due every 320 µs
    assert len(naps["samples"]) == min(naps["count"], 4096) > 0
    assert all(limits.GEN_NAP_MIN_US * 1000 <= q <= limits.GEN_NAP_MAX_US * 1000 and s > 0
               for q, s in naps["samples"])
    assert naps["requested_ns_sum"] >= sum(q for q, _ in naps["samples"])
    assert naps["slept_ns_sum"] >= sum(s for _, s in naps["samples"])

    stamped = gen["received"] - gen["bad_stamp"]
    for lat, got in [(gen["latency_ns"], stamped),
                     *((c["latency_ns"], c["received"]) for c in gen["classes"])]:
        hist = lat["hist"]
        assert sum(n for _, _, n in hist) == lat["count"] == got > 0
        assert all(lo < hi and n > 0 for lo, hi, n in hist)
        assert all(a[1] <= b[0] for a, b in zip(hist, hist[1:]))
        assert hist[0][0] <= lat["min"] < hist[0][1] and hist[-1][0] <= lat["max"] < hist[-1][1]


def _shared_maps(pid: int) -> set[str]:
    with open(f"/proc/{pid}/maps") as fh:
        return {m.group(1) for line in fh if (m := re.search(r"/memfd:(\S+)", line))}


def test_isolated_nfs_map_only_their_own_buffers(dataplane):
    """Sec. IV-E: an isolated NF cannot reach the mbuf pool nor another NF's packets; in the
    shared architectures every NF maps the arena."""
    with Session("isolated") as s:
        s.add_nfs("signature", ["p", "q"])
        s.set_chain(0, ["p", "q"])
        gen = _traffic(s, 1, rate_pps=20_000, duration_s=0.2)
        maps = {name: _shared_maps(p.pid) for name, p in s.nfs.items()}
        fds = {name: {os.readlink(f"/proc/{p.pid}/fd/{fd}") for fd in
                      os.listdir(f"/proc/{p.pid}/fd")} for name, p in s.nfs.items()}
        ids = {n["name"]: n["id"] for n in s.stats()["per_nf"]}
        s.close()
    assert gen["received"] == gen["sent"] > 0
    for name in ("p", "q"):
        assert maps[name] == {f"nfvp_nf{ids[name]}"}, maps
        assert not any("nfvp_arena" in f or "hugepages" in f for f in fds[name])
    with Session("semaphore") as s:
        s.add_nfs("signature", ["p"])
        # attached means the vSwitch gave it its slot and the arena's fd; it maps it next
        deadline = time.monotonic() + 10
        while not _shared_maps(s.nfs["p"].pid) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert _shared_maps(s.nfs["p"].pid) == {"nfvp_arena"}
        s.close()


@pytest.mark.parametrize("arch", ["semaphore", "isolated"])
def test_blocking_nfs_sleep_when_idle_and_account_for_every_wake(dataplane, arch):
    """Many blocking NFs: with no traffic each sleeps (a few polls in all, none spent spinning);
    under traffic every packet is accounted for, every mbuf comes back, and the vSwitch's
    wake-ups by count and by age are the NFs' wake-ups."""
    from nfvperf.wake import Wake

    names = [f"n{i}" for i in range(48)]
    with Session(arch, max_nfs=64, wake=Wake(batch=8, timeout_us=200, rate_max=5000)) as s:
        s.add_nfs("forward", names)
        for c in range(len(names) // 2):
            s.set_chain(c, names[2 * c:2 * c + 2])
        time.sleep(0.3)
        idle = {n["name"]: n["idle_polls"] for n in s.stats()["per_nf"]}
        gen = _traffic(s, len(names) // 2, rate_pps=200_000, duration_s=0.5)
        vs = s.close()
    # each NF looked a few times (start, a look after a turn, its own bound on a wait: 100 ms)
    assert max(idle.values()) <= 20, idle
    assert vs["pool"]["free"] == vs["pool"]["size"]
    assert _balanced(gen, vs), (gen, vs["dropped"])
    w = vs["wakes"]
    assert w["by_count"] + w["by_age"] == sum(n["wakeups"] for n in vs["per_nf"]) > 0
    assert (w["batch"], w["timeout_us"], w["rate_max"]) == (8, 200, 5000)
    assert 1 <= w["stretch_mean"] <= w["stretch_max"] <= limits.WAKE_STRETCH_MAX
    assert w["by_age"] == 0 or w["timeout_mean_us"] >= 200


@pytest.mark.parametrize("arch", ["shared-ring", "double-buffer"])
def test_nfs_killed_at_any_point_a_hundred_times_stall_nothing(dataplane, arch):
    """An NF killed at a random point of its loop under load (in the middle of handing packets
    back, sometimes): the vSwitch keeps forwarding the other chain, every packet is accounted
    for and every mbuf comes back."""
    import random

    rng = random.Random(16)
    with Session(arch, max_nfs=128) as s:
        s.add_nfs("forward", ["keep"])
        s.set_chain(0, ["keep"])
        kept = []
        for r in range(4):
            s.start_traffic(rate_pps=300_000, frame_bytes=64,
                            macs=[chain_mac(0), chain_mac(1)], duration_s=2.0)
            for i in range(25):
                name = f"v{r}_{i}"
                s.add_nfs("forward", [name])
                s.set_chain(1, [name])
                time.sleep(rng.uniform(0.0, 0.01))
                s.kill_nf(name)
            kept.append(next(n["tx"] for n in s.stats()["per_nf"] if n["name"] == "keep"))
            gen = s.wait_traffic()
            assert gen["received"] > 0
        vs = s.close()
    assert kept == sorted(kept) and kept[0] < kept[-1]     # still forwarding after each round
    dead = [n for n in vs["per_nf"] if not n["alive"]]
    assert len(dead) == 100
    assert vs["pool"]["free"] == vs["pool"]["size"]
    assert vs["dropped"]["nf_dead"] == sum(n["lost_at_death"] for n in dead)


def test_the_arena_carries_io_addresses_a_nic_could_dma_to(dataplane):
    """The pool's buffers have IO addresses (the pages' virtual ones in IOVA-as-VA mode, their
    physical ones in IOVA-as-PA, which only root may read), and every port's device accepted
    the arena's DMA map. No physical NIC here: what a NIC's driver would use is checked."""
    with Session("double-buffer") as s:
        arena = s.stats()["arena"]
        s.close()
    assert arena["iova"] in ("va", "pa", "none")
    assert arena["mbuf_iova"] == (arena["iova"] != "none")
    if os.geteuid() == 0:
        assert arena["iova"] != "none" and arena["dma_map_ports"] == 2
    assert arena["dma_map_refused"] == 0


def test_the_generator_on_the_vswitchs_cpu_shares_no_pool_cache_with_it(dataplane):
    """Calibration runs the generator on the vSwitch's CPU; both take mbufs from one pool whose
    cache is per EAL lcore id (the vSwitch's is its CPU's), so the generator runs as an id of
    its own there; every packet is accounted for and every mbuf comes back."""
    with Session("double-buffer", vswitch_cpu=0) as s:
        s.add_nfs("forward", ["f"])
        s.set_chain(0, ["f"])
        gen = _traffic(s, 1, rate_pps=100_000, duration_s=0.5, cpu=0)
        vs = s.close()
    assert gen["lcore"] == limits.GEN_LCORE != 0
    assert gen["sent"] > 0 and gen["received"] > 0
    assert vs["pool"]["free"] == vs["pool"]["size"]
    assert _balanced(gen, vs), (gen, vs["dropped"])
