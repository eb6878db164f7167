"""nfvperf calibrate: host description, the mapping of measurements to a profile, and a quick
run on this host (needs the data plane's nfvp-calibrate)."""

from __future__ import annotations

import json
import os

import pytest
import yaml

from nfvperf.calibrate import describe_host, profile_yaml
from nfvperf.calibrate.host import Host
from nfvperf.calibrate.profile import derive
from nfvperf.calibrate.sanity import doubts
from nfvperf.eo.platform import load_platform

HOST = Host(model="Test CPU", sockets=1, cores_per_socket=4, l1_bytes=32 << 10,
            l2_bytes=1 << 20, l3_bytes=16 << 20, kernel_tsc_hz=2.0e9)


def stat(x):
    return {"median": x, "min": 0.9 * x, "max": 1.2 * x}


def synthetic():
    lat = {4 << 10: 4, 16 << 10: 4, 64 << 10: 12, 256 << 10: 12, 1 << 20: 20, 4 << 20: 40,
           16 << 20: 60, 64 << 20: 200, 256 << 20: 240}
    return {
        "tsc_hz": 2_000_000_000, "tsc_measured_hz": 2.0e9, "quick": True, "repetitions": 3,
        "hugepages": True,
        "load_latency": [{"bytes": b, "cycles": stat(c)} for b, c in lat.items()],
        "line_write_cycles": stat(3.0), "line_write_bytes": 16 << 10,
        "writeback_cycles": stat(6.0), "writeback_bytes": 4 << 20,
        "hash": [{"entries": 1024, "key_bytes": 16, "lookup_hit_cycles": stat(40.0),
                  "lookup_miss_cycles": stat(30.0), "insert_cycles": stat(80.0)},
                 {"entries": 65536, "key_bytes": 16, "lookup_hit_cycles": stat(90.0),
                  "lookup_miss_cycles": stat(60.0), "insert_cycles": stat(95.0)}],
        "lpm": {"short_rules": 100, "long_rules": 10, "short_prefix_cycles": stat(5.0),
                "long_prefix_cycles": stat(9.0)},
        "checksum": [{"bytes": b, "cycles": stat(10 + 0.5 * b / 2)} for b in (20, 64, 256, 1500)],
        "inc_checksum": [{"words": w, "cycles": stat(3 + 0.25 * w)} for w in (1, 2, 4, 8)],
        "dfa": [{"states": n, "cycles_per_byte": stat(c)} for n, c in ((64, 5), (1024, 7),
                                                                        (8192, 20))],
        "dfa_by_length": [{"bytes": n, "cycles_per_byte": stat(c)}
                          for n, c in ((8, 2.0), (64, 4.0), (1024, 5.0))],
        "hash_insert_by_load": {"entries": 16384, "key_bytes": 16, "steps": [
            {"load": (k + 1) / 10, "insert_cycles": stat(c)}
            for k, c in enumerate((80, 80, 80, 80, 80, 90, 100, 120, 160, 800))]},
        "copy": [{"bytes": 64, "cycles": stat(8.0)}],
        "overlap": {"bytes": 256 << 20, "loads": [
            {"in_flight": k, "cycles": stat(c)} for k, c in ((1, 240), (8, 40), (32, 15))]},
        "frames": [{"stream_bytes": f, "frame_slot": 2048, "pool_bytes": 64 << 20,
                    "load_latency": [{"bytes": b, "cycles": stat(c + f / 64),
                                      "alone_cycles": stat(c)}
                                     for b, c in lat.items() if b >= 16 << 10]}
                   for f in (128, 1536)],
    }


def test_derive_picks_each_level_and_fits_the_checksum():
    v = derive(HOST, synthetic())
    assert v["l1_load_cycles"][0] == 4            # 16 KB ≤ L1/2
    assert v["l2_load_cycles"][0] == 12           # 256 KB in (L1, L2/2]
    assert v["l3_access_cycles"][0] == 40         # 4 MB in (L2, L3/4]
    assert v["dram_latency_s"][0] == pytest.approx(240 / 2e9)
    assert v["checksum_cycles_per_word"][0] == pytest.approx(0.5)
    assert v["checksum_fixed_cycles"][0] == pytest.approx(10)
    assert v["hash_lookup_cycles"][0] == pytest.approx(40 - 2 * 4)   # less two 8 B key loads
    assert v["ct_insertion_cycles"][0] == 80
    # RFC 1624 updates: a fold per update and a little per changed word
    assert v["inc_checksum_cycles_per_word"][0] == pytest.approx(0.25)
    assert v["inc_checksum_fixed_cycles"][0] == pytest.approx(3)
    # the DFA walk over the largest table that fits L1 (32 KB of 64 states)
    assert v["dfa_step_cycles"][0] == 5


def test_profile_is_a_valid_platform_with_spreads_beside_values(tmp_path, run_json):
    text = profile_yaml(HOST, synthetic(), name="synthetic")
    path = tmp_path / "host.yaml"
    path.write_text(text)
    p = load_platform(path)
    assert p.cpu.clock_hz == 2e9 and p.cache.l2_load_cycles == 12
    assert p.memory.access_latency_s == pytest.approx(120e-9)
    assert "min 10.8, max 14.4" in text            # the spread of l2_load_cycles
    assert yaml.safe_load(text)["calibration"]["hash"][0]["entries"] == 1024
    rows = run_json("estimate", "l2fwd@paper", "--platform", str(path))
    assert rows[0]["platform"] == "synthetic" and rows[0]["cycles_per_packet"] > 0
    # the curves the stall term reads, medians, and the term turned on
    assert [q.cycles for q in p.memory.overlap] == [240, 40, 15]
    assert p.memory.load_latency[-1].bytes == 256 << 20
    assert p.memory.load_latency[-1].cycles == 240
    assert p.conventions.memory_stalls == "cycles"
    # inserts by the table's load, medians: a fuller table's inserts dearer
    assert [q.cycles for q in p.instructions.ct_insertion_by_load][-2:] == [160, 800]
    assert p.instructions.ct_insertion_by_load[0].load == pytest.approx(0.1)
    # the frames' chase, medians with frames and alone, for every table and frame size
    frames = {(q.bytes, q.frame_bytes): (q.cycles, q.alone_cycles)
              for q in p.memory.frames_latency}
    assert len(frames) == 2 * 8 and frames[(1 << 20, 1536)] == (44, 20)
    assert "# 39.6-52.8" in text                   # the spread of the loads with frames
    # DFA scans by length, medians: what dfa_scan reads before the one long walk
    assert [(q.bytes, q.cycles_per_byte) for q in p.instructions.dfa_scan_by_length] == [
        (8, 2.0), (64, 4.0), (1024, 5.0)]


def test_a_calibration_without_the_overlap_probe_keeps_the_papers_memory_bound(tmp_path):
    d = synthetic()
    del d["overlap"]
    path = tmp_path / "host.yaml"
    path.write_text(profile_yaml(HOST, d, name="old"))
    p = load_platform(path)
    assert p.conventions.memory_stalls == "separate" and p.memory.overlap is None


def test_describe_host_reads_sysfs_and_cpuinfo(tmp_path):
    proc, sys_root = tmp_path / "proc", tmp_path / "sys"
    proc.mkdir()
    (proc / "cpuinfo").write_text("".join(
        f"processor\t: {i}\nmodel name\t: Fake Xeon\nphysical id\t: {i // 4}\n"
        f"cpu MHz\t\t: 2100.000\n\n" for i in range(8)))
    for i, (level, kind, size) in enumerate([(1, "Data", "48K"), (1, "Instruction", "32K"),
                                             (2, "Unified", "2048K"), (3, "Unified", "30M")]):
        d = sys_root / f"devices/system/cpu/cpu0/cache/index{i}"
        d.mkdir(parents=True)
        (d / "level").write_text(f"{level}\n")
        (d / "type").write_text(f"{kind}\n")
        (d / "size").write_text(f"{size}\n")
    h = describe_host(sys_root, proc)
    assert (h.model, h.sockets, h.cores_per_socket) == ("Fake Xeon", 2, 4)
    assert (h.l1_bytes, h.l2_bytes, h.l3_bytes) == (48 << 10, 2 << 20, 30 << 20)
    assert h.kernel_tsc_hz == 2.1e9


@pytest.mark.dataplane
def test_quick_calibration_of_this_host(dataplane, cli, tmp_path):
    out = tmp_path / "host.yaml"
    code, stdout, err = cli("calibrate", "--quick", "-o", str(out), "--format", "json")
    assert code == 0, err
    from nfvperf.reference import output_type

    report = json.loads(stdout)
    output_type("nfvperf calibrate").validate_python(report)
    d = report["measurements"]
    # what was measured is whole and positive, and the profile says what the mapping gives
    # (whether the host's memory behaved -- L1 < L2 < L3 < DRAM, bigger tables dearer -- is
    # said by `calibrate` itself as notices: a busy VM may not, and a test cannot ask it to)
    lat = [p["cycles"]["median"] for p in d["load_latency"]]
    assert len(lat) >= 4 and min(lat) > 0 and d["tsc_measured_hz"] > 0
    assert all(r["lookup_hit_cycles"]["median"] > 0 for r in d["hash"])
    p = load_platform(out)
    overlapped = d["load_latency"][-1]["independent_cycles"]["median"]
    assert p.memory.access_latency_s == pytest.approx(overlapped / d["tsc_measured_hz"],
                                                      rel=0.05)
    assert all(isinstance(line, str) for line in doubts(describe_host(), d))
    code, _, err = cli("estimate", "l2fwd@paper", "--platform", str(out))
    assert code == 0, err
    # k chases in flight: one is the latency, and k of them take no longer per load
    ov = {q["in_flight"]: q["cycles"]["median"] for q in d["overlap"]["loads"]}
    assert sorted(ov) == [1, 2, 4, 8, 12, 16, 24, 32] and min(ov.values()) > 0
    assert p.conventions.memory_stalls == "cycles"


def test_doubts_name_what_a_healthy_memory_system_would_not_show():
    assert doubts(HOST, synthetic()) == []
    d = synthetic()
    d["load_latency"][-1]["cycles"] = stat(30.0)          # DRAM no slower than L3 (40)
    d["hash"][-1]["lookup_hit_cycles"] = stat(10.0)
    d["tsc_measured_hz"] = 2.5e9
    found = doubts(HOST, d)
    assert found == ["a load from DRAM (30 cycles) measured no slower than from L3 (40)",
                     "the TSC ran at 2.500 GHz, the kernel says 2.000",
                     "a lookup in the largest hash table costs no more than over the smallest"]


def test_a_calibration_on_a_shared_core_is_doubted():
    """The calibration's rte_hash lookups (40 cycles here) against the quietest of the checks
    after it: 1.6x what the core does alone says another machine shared the core."""
    quiet = {"hash_hit": 25.0, "hash_entries": 1024, "hash_key_bytes": 16}
    shared = {**quiet, "hash_hit": 41.0}
    found = doubts(HOST, synthetic(), [shared, quiet, shared])
    assert found == ["rte_hash lookups took 1.60x what the core took alone afterwards: another "
                     "machine shared the core (its other hardware thread) while calibrating; "
                     "calibrate again"]
    assert doubts(HOST, synthetic(), [shared, {**quiet, "hash_hit": 36.0}]) == []
    assert doubts(HOST, synthetic(), [{**quiet, "hash_entries": 4096}]) == []


def test_access_mode_picks_overlapped_or_dependent_loads():
    d = synthetic()
    for p in d["load_latency"]:
        p["independent_cycles"] = stat(p["cycles"]["median"] / 10)
    over, dep = derive(HOST, d, "overlapped"), derive(HOST, d, "dependent")
    assert over["l3_access_cycles"][0] == pytest.approx(4.0)      # 40 / 10
    assert dep["l3_access_cycles"][0] == 40
    assert over["dram_latency_s"][0] == pytest.approx(24 / 2e9)
    assert "independent random loads" in over["l1_load_cycles"][1]
    assert "pointer chase" in dep["l1_load_cycles"][1]


def test_calibrate_rejects_an_unknown_access_mode(cli):
    code, _, err = cli("calibrate", "--access", "random")
    assert code == 2 and "--access: expected overlapped or dependent" in err


def test_the_data_planes_parts_are_fitted_from_the_reports():
    """The generator's CPU time splits into wakes and packets (7 µs a wake, 0.04 µs a packet
    sent or received, over runs at three loads; beside a busy NF its wake is what the probes
    show less their packets), the vSwitch's stage into batch + packet × n
    (60 + 20 n over loops of 1 and 31 packets); neither part comes out negative."""
    from nfvperf.calibrate.dataplane import _generator, _stage

    def run(naps: int, packets: int) -> dict:
        return {"gen": {"naps": {"count": naps, "samples": [[20_000, 35_000]]},
                        "sent": packets // 2, "received": packets - packets // 2,
                        "send_cpu_ns": 1e3 * (7.0 * naps + 0.04 * packets)}}

    g = _generator([run(20_000, 40_000), run(25_000, 200_000), run(30_000, 2_000_000)], [])
    assert g["wake_us"] == pytest.approx(7.0) and g["packet_us"] == pytest.approx(0.04)
    assert g["overshoot_us"] == [15.0] * 3           # one sample a run, each 15 µs over
    assert "busy_wake_us" not in g                    # no probe beside a busy NF
    only_packets = _generator([run(0, 1000), run(0, 5000)], [])
    assert only_packets["wake_us"] == 0 and only_packets["packet_us"] == pytest.approx(0.04)
    assert "busy_overshoot_us" not in g
    # beside a busy NF (the preemption probes): 12 and 16 µs a wake once the packets' time
    # (0.04 µs each) is taken out; the median; and the naps' overshoot there, every probe's
    probes = [{"gen_cpu_us": w * naps + 0.04 * 60_000, "gen_naps": naps, "gen_packets": 60_000,
               "gen_overshoot_us": [w + 10.0]}
              for w, naps in ((12.0, 25_000), (16.0, 20_000), (14.0, 22_000))]
    busy = _generator([run(20_000, 40_000), run(25_000, 200_000)], probes + [{"gen_naps": 0}])
    assert busy["busy_wake_us"] == pytest.approx(14.0, abs=1e-3)
    assert busy["busy_overshoot_us"] == [22.0, 24.0, 26.0]
    loops = {"calls": 2, "packets": 32, "cycles": (60 + 20) + (60 + 20 * 31),
             "sum_pp": 1 + 31 ** 2, "sum_cp": 80 * 1 + 680 * 31}
    assert _stage([{"vswitch": {"stages": {"nf": loops}}}], "nf") == \
        {"batch_cycles": 60.0, "packet_cycles": 20.0}


def test_the_preemption_probes_give_the_time_lost_a_wake():
    """A busy NF that costs 10 000 cycles a packet alone and 40 000 beside a generator waking
    25 000 times a second lost 3/4 of the clock: 30 µs a wake; sorted by working set; a spread
    that holds no median is refused."""
    from nfvperf.calibrate.dataplane import _preemption

    from nfvperf.hostmodel import Preemption

    probes = [{"working_set": 4 << 20, "alone_cycles": 1e5, "beside_cycles": 5e5,
               "wakes_per_s": 20_000},
              {"working_set": 16 << 10, "alone_cycles": 1e4, "beside_cycles": 4e4,
               "wakes_per_s": 25_000}]
    assert _preemption(probes) == {"working_set_kb": [16.0, 4096.0], "lost_us": [30.0, 40.0],
                                   "spread_us": [[30.0, 30.0], [40.0, 40.0]]}
    # repeated: the median, and the least and most (16 KiB: 30, 20 and 10 µs a wake)
    again = [{**probes[1], "beside_cycles": 2e4}, {**probes[1], "beside_cycles": 1e4 / 0.75}]
    got = _preemption(probes + again)
    assert got["lost_us"] == [20.0, 40.0] and got["spread_us"][0] == [10.0, 30.0]
    Preemption.model_validate(got)
    with pytest.raises(ValueError, match=r"a \[least, most\] around each lost_us"):
        Preemption.model_validate({**got, "spread_us": [[21.0, 30.0], [40.0, 40.0]]})
    assert _preemption([]) is None


def test_serial_overlap_is_the_waits_one_after_another_over_those_measured(tmp_path):
    from nfvperf.calibrate.profile import serial_overlap

    d = synthetic()
    small, big = d["hash"][0]["lookup_hit_cycles"], d["hash"][1]["lookup_hit_cycles"]
    big["median"] = small["median"] + 1
    model = serial_overlap(d)[0]          # the stall term's waits over 1 cycle measured
    assert model > 1
    big["median"] = small["median"] + model / 2
    assert serial_overlap(d)[0] == pytest.approx(2)
    big["median"] = small["median"] + 2 * model      # slower than one after another: none
    assert serial_overlap(d)[0] == 1
    path = tmp_path / "host.yaml"
    big["median"] = small["median"] + model / 2
    path.write_text(profile_yaml(HOST, d, name="s"))
    assert load_platform(path).memory.serial_overlap == pytest.approx(2, abs=0.01)


def test_the_data_plane_is_calibrated_on_the_microbenchmarks_placement(monkeypatch):
    """A run of the data plane that began or ended with the vCPUs placed otherwise than when
    the core-to-core trip was measured is run again; the result says how many were thrown."""
    import sys

    from nfvperf.calibrate import dataplane as dp

    trips = iter([400, 410, 85, 420, 80, 90, 80, 80])
    monkeypatch.setattr(sys.modules["nfvperf.calibrate.measure"], "reference_cycles",
                        lambda l2, cpu=1: {"core_to_core": next(trips)})
    runs = iter(range(10))
    r = dp.on_placement(85.0, 1 << 20, lambda: {"run": next(runs)})
    # far before and after; near then far after; near before and after: the third is kept
    assert (r["run"], r["placement_moves"], r["placement_held"]) == (2, 2, True)
    # without a trip to hold to, any placement that holds through the run
    assert dp.on_placement(None, 1 << 20, lambda: {"run": next(runs)})["placement_moves"] == 0


def test_the_io_eos_are_priced_by_the_nfs_side_of_a_hand_over():
    """On the data plane an NF reads lines the vSwitch's core wrote (I/O_mem) and rewrites lines
    it read (mem_I/O): calibrate times this core's own side of a burst of 32 of each, and the
    I/O EOs are priced with them; a dependent-access profile keeps the one-way trip and the
    eviction write-back."""
    d = synthetic()
    for p in d["load_latency"]:
        p["independent_cycles"] = stat(p["cycles"]["median"] / 10)
    d["core_to_core"] = {"cpus": [0, 1], "one_way_cycles": stat(80.0),
                         "burst_line_cycles": stat(25.0), "read_line_cycles": stat(8.0),
                         "upgrade_line_cycles": stat(16.0)}
    over, dep = derive(HOST, d, "overlapped"), derive(HOST, d, "dependent")
    assert (over["l3_access_cycles"][0], over["l3_writeback_cycles"][0]) == (8.0, 16.0)
    assert "read on CPU 1, from CPU 0" in over["l3_access_cycles"][1]
    assert (dep["l3_access_cycles"][0], dep["l3_writeback_cycles"][0]) == (80.0, 6.0)
    del d["core_to_core"]["read_line_cycles"]     # an older nfvp-calibrate: the whole burst
    assert derive(HOST, d, "overlapped")["l3_access_cycles"][0] == 25.0


@pytest.mark.dataplane
def test_the_frames_chase_times_a_table_beside_frames_and_alone(dataplane):
    """nfvp-calibrate --stream: every working set timed with the frames and alone, and the
    frame size checked (one line, exit 2)."""
    import subprocess

    from nfvperf.calibrate.measure import frames_in_cache
    from nfvperf.dataplane.build import binaries

    d = frames_in_cache(512, 64 << 10)
    assert (d["stream_bytes"], d["frame_slot"]) == (512, 2048)
    assert [p["bytes"] for p in d["load_latency"]] == [16 << 10, 32 << 10, 64 << 10]
    assert all(p["cycles"]["median"] > 0 and p["alone_cycles"]["median"] > 0
               for p in d["load_latency"])
    p = subprocess.run([str(binaries()["calibrate"]), "--no-huge", "-m", "64", "--no-pci",
                        "--file-prefix", "nfvp_badstream", "--", "--stream", "9000"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "--stream" in p.stderr and "64..2048" in p.stderr


def test_the_frames_table_puts_the_load_beside_each_frame_size(bench_script):
    bench = bench_script("frames_in_cache")

    def run(with_frames):
        return {"load_latency": [
            {"bytes": b, "cycles": {"median": w}, "alone_cycles": {"median": a}}
            for b, w, a in zip((16 << 10, 2 << 20), with_frames, (4.0, 37.0))]}

    lines = bench.table({512: run((16.0, 219.0)), 128: run((6.0, 50.0))})
    assert lines[0] == "| table | alone | 128 B a load | 512 B a load |"
    assert lines[2] == "| 16 KB | 4 | 6 | 16 |"
    assert lines[3] == "| 2 MB | 37 | 50 | 219 |"


def test_processes_pinned_at_once_report_whole_however_large():
    """Two measuring processes on one CPU, each with a report of about 400 KB (a busy host's
    stalls over seconds): each comes back whole and in order (through one shared pipe, two
    reports larger than its atomic write interleaved)."""
    from nfvperf.calibrate.dataplane import _pinned

    def report() -> list[float]:
        return [os.getpid() + i / 7 for i in range(20_000)]

    a, b = _pinned([0, 0], report)
    assert len(a) == len(b) == 20_000 and a[0] != b[0]
    for got in (a, b):
        assert got == pytest.approx([got[0] + i / 7 for i in range(20_000)])
