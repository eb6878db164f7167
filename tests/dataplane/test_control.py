"""The vSwitch's control channel and the NF processes' options: a bad command or option is
answered with one line naming what was wrong, and changes nothing."""

from __future__ import annotations

import os
import subprocess

import pytest

from nfvperf.dataplane.build import binaries
from nfvperf.dataplane.session import Session, chain_mac
from nfvperf.errors import RuntimeFailure

pytestmark = [pytest.mark.dataplane]


@pytest.mark.parametrize("msg, reply", [
    ("chain del x", 'error chain id: expected 0..8191, found "x"'),
    ("chain del 8192", 'error chain id: expected 0..8191, found "8192"'),
    ("chain del -1", 'error chain id: expected 0..8191, found "-1"'),
    ("chain default 9000", "error chain default: expected a chain id or none"),
    ("chain add 0 02:00:00:00:00:00 0", "error chain add: expected ID MAC OUT_PORT NF"),
    ("chain add 1x 02:00:00:00:00:00 0 a", 'error chain id: expected 0..8191, found "1x"'),
    ("chain add 1 02:00:00:00:00 0 a", "error chain mac: expected aa:bb:cc:dd:ee:ff"),
    ("chain add 1 02:00:00:00:00:00 7 a", 'error chain out_port: expected 0..1, found "7"'),
    ("chain add 1 02:00:00:00:00:00 0 nobody", "error chain nf: expected the name of an"),
    ("service add s round-robin stateful packets 512 a", "error service policy: round-robin"),
    ("reboot", "error expected attach, chain, service, start, status, stats or quit"),
])
def test_a_bad_command_is_answered_with_an_error_and_changes_nothing(dataplane, msg, reply):
    with Session("double-buffer") as s:
        s.add_nfs("forward", ["a"])
        s.set_chain(0, ["a"])
        with pytest.raises(RuntimeFailure) as err:
            s.control.call(msg)
        assert str(err.value).endswith(f"with: {reply}") or reply in str(err.value)
        assert s.status()["chains"] == 1 and s.status()["nfs"] == 1
        # chain 0 still carries its traffic
        s.start_traffic(rate_pps=20_000, frame_bytes=64, macs=[chain_mac(0)], duration_s=0.2)
        gen = s.wait_traffic()
        s.close()
    assert gen["received"] > 0


def test_chain_del_takes_a_chain_away(dataplane):
    with Session("double-buffer") as s:
        s.add_nfs("forward", ["a"])
        s.set_chain(0, ["a"])
        s.set_chain(5, ["a"], mac="02:00:00:00:00:05")
        assert s.status()["chains"] == 2
        s.control.call("chain del 5")
        assert s.status()["chains"] == 1
        s.close()


@pytest.mark.parametrize("nf, args, message", [
    ("nat", ["--entries", "0"], 'nat: --entries: expected a count 1..'),
    ("nat", ["--port-min", "70000"], 'nat: --port-min: expected a port 1..65535, found "70000"'),
    ("nat", ["--public-ip", "300.1.1.1"], 'nat: --public-ip: expected a.b.c.d, found'),
    ("mpls", ["--delta", "2000000"], 'mpls: --delta: expected 0..1048575, found "2000000"'),
    ("router", ["--routes", "x"], 'router: --routes: expected a count 0..65536, found "x"'),
    ("l2fwd", ["--entries", "0"], 'l2fwd: --entries: expected a positive count, found "0"'),
    ("forward", ["--dst-mac", "02:00"], "forward: --dst-mac: expected a MAC address"),
    ("ids", ["--random", "0"], 'ids: --random: expected a count 1..4096, found "0"'),
])
def test_an_nf_names_its_bad_option_and_exits_2(dataplane, nf, args, message):
    """Nothing to attach to: the option is read (and refused) before the NF looks for the
    vSwitch."""
    p = subprocess.run([str(binaries()[f"nf-{nf}"]), "--ctl", "/nonexistent", "--", *args],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 2, p.stderr
    assert p.stderr.startswith(message) and len(p.stderr.splitlines()) == 1, p.stderr


@pytest.mark.parametrize("args, message", [
    (["--cpu", "x"], 'forward: --cpu: expected a CPU number, found "x"'),
    (["--duration", "0"], 'forward: --duration: expected seconds > 0, found "0"'),
    (["--idle", "nap"], 'forward: --idle: expected pause or yield, found "nap"'),
])
def test_nflib_names_its_own_bad_option_and_exits_2(dataplane, args, message):
    p = subprocess.run([str(binaries()["nf-forward"]), "--ctl", "/nonexistent", *args],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 2 and p.stderr.startswith(message), (p.returncode, p.stderr)


def test_a_missing_vswitch_is_a_run_time_failure_not_a_bad_option(dataplane):
    p = subprocess.run([str(binaries()["nf-forward"]), "--ctl", "/nonexistent"],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 1, p.stderr


def test_a_session_leaves_no_file_open(dataplane):
    before = set(os.listdir("/proc/self/fd"))
    with Session("double-buffer") as s:
        s.add_nfs("forward", ["a"])
        s.set_chain(0, ["a"])
        s.start_traffic(rate_pps=10_000, frame_bytes=64, macs=[chain_mac(0)], duration_s=0.1)
        s.wait_traffic()
        s.close()
    assert set(os.listdir("/proc/self/fd")) <= before
