"""Every file of tests/data/bad has one defect; its first line says the message it must give.

Bad input exits with code 2 and one line naming the file, line, field, what was expected and
what was found: never a traceback, and nothing written.
"""

from __future__ import annotations

import json

from pathlib import Path

import pytest

BAD = sorted((Path(__file__).parent.parent / "data" / "bad").glob("*.yaml"))


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.stem)
def test_bad_file_gives_one_line_and_exit_2(cli, path, tmp_path):
    expected = path.read_text(encoding="utf-8").splitlines()[0].removeprefix("# expect: ")
    out_file = tmp_path / "out.json"
    if path.name.startswith("platform-"):
        args = ["estimate", "l2fwd@paper", "--platform", str(path)]
    else:
        args = ["estimate", str(path)]
    code, out, err = cli(*args, "-f", "json", "-o", str(out_file))
    assert code == 2
    assert out == ""
    assert err == f"nfvperf: error: {path}{expected}\n"
    assert not out_file.exists()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args, message", [
    (["estimate", "nope"], 'model: expected a packaged model (bng, bng@paper, forward, ids, l2fwd, '
     'l2fwd@paper, learnsw, learnsw@paper, mpls, mpls@paper, nat, router) or a YAML file, '
     'found "nope"'),
    (["estimate", "bng@paper", "-s", "63"], "--packet-size: expected a frame size in bytes from 64 to "
     "9216, found 63"),
    (["estimate", "bng@paper", "--packet-sizes", "64,x"], "--packet-sizes: expected comma-separated "
     'frame sizes such as 64,128,256, or rfc2544, found "64,x"'),
    (["estimate", "bng@paper", "-c", "21"], "--cores: expected a number of cores from 1 to 20 "
     "(platform xeon-e5-2690v2), found 21"),
    (["estimate", "bng@paper", "--remote-fraction", "1.5"], "--remote-fraction: expected a fraction in "
     "[0, 1], found 1.5"),
    (["estimate", "bng@paper", "--param", "x"], '--param: expected NAME=NUMBER, found "x"'),
    (["estimate", "bng@paper", "--param", "x=1"], '--param: expected a parameter of model bng@paper (none), '
     'found "x"'),
    (["estimate", "bng@paper", "-p", "nowhere.yaml"], 'nowhere.yaml: expected an existing file, found '
     '"nowhere.yaml"'),
    (["estimate", "bng@paper", "-p", "no-such-platform"], '--platform: expected a packaged platform '
     '(xeon-e5-2690v2, xeon-e5-2690v2-bng, xeon-e5-2690v2-printed) or a YAML file, found "no-such-platform"'),
    (["dataplane", "run", "--rate-mpps", "1", "--wake-rate-max", "-1"],
     "--wake-rate-max: expected a number ≥ 0, found -1"),
    (["chain", "run", "examples/chains/nat-ids.yaml", "--wake-batch", "0"],
     "--wake-batch: expected a number ≥ 1, found 0"),
])
def test_bad_command_line_values(cli, args, message):
    code, out, err = cli(*args)
    assert (code, out, err) == (2, "", f"nfvperf: error: {message}\n")


def test_unreadable_output_directory(cli, tmp_path):
    code, out, err = cli("estimate", "bng@paper", "-o", str(tmp_path / "missing" / "x.txt"))
    assert code == 2
    assert err.startswith("nfvperf: error: --out: expected a writable file")


def test_debug_shows_the_traceback(cli):
    from nfvperf.errors import InputError

    with pytest.raises(InputError):
        cli("--debug", "estimate", "nope")


def test_file_that_is_not_utf8(cli, tmp_path):
    path = tmp_path / "latin1.yaml"
    path.write_bytes(b"name: caf\xe9\n")
    code, out, err = cli("estimate", str(path))
    assert code == 2
    assert err == f'nfvperf: error: {path}: expected UTF-8 text, found "byte 9 undecodable"\n'


BAD_CHAINS = sorted((Path(__file__).parent.parent / "data" / "bad_chain").glob("*.yaml"))


@pytest.mark.parametrize("verb", ["run", "simulate"])
@pytest.mark.parametrize("path", BAD_CHAINS, ids=lambda p: p.stem)
def test_bad_chain_spec_gives_one_line_and_starts_nothing(cli, path, tmp_path, verb):
    """An unknown NF, zero instances, round-robin on a stateful NF, weights that do not sum to
    a positive value (and the rest) are refused by both back ends alike, before any process
    starts: this runs without DPDK."""
    expected = path.read_text(encoding="utf-8").splitlines()[0].removeprefix("# expect: ")
    out_file = tmp_path / "out.json"
    code, out, err = cli("chain", verb, str(path), "-f", "json", "-o", str(out_file))
    assert (code, out) == (2, "")
    assert err == f"nfvperf: error: {path}{expected}\n"
    assert list(tmp_path.iterdir()) == []


def test_earlier_spellings_of_chain_verbs_work_with_a_notice(cli, tmp_path):
    bad = BAD_CHAINS[0]
    expected = bad.read_text(encoding="utf-8").splitlines()[0].removeprefix("# expect: ")
    for old, new in ((("dataplane", "run", "--chain"), "chain run"),
                     (("simulate", "--chain"), "chain simulate")):
        code, out, err = cli(*old, str(bad))
        notice, error = err.splitlines()
        assert code == 2 and f"is now `nfvperf {new} FILE`" in notice
        assert notice.startswith("nfvperf: notice: ") and error.endswith(expected)
    good = tmp_path / "good.yaml"      # and a good file runs, its options where they belong
    good.write_text("services: [{nf: nat}]\n")
    code, out, err = cli("simulate", "--chain", str(good), "--rate-mpps", "0.5",
                         "--packet-size", "128", "-f", "json")
    assert code == 0, err
    r = json.loads(out)
    assert r["classes"][0]["frame_bytes"] == 128 and r["classes"][0]["rate_pps"] == 5e5


@pytest.mark.parametrize("verb", ["run", "simulate"])
@pytest.mark.parametrize("args, message", [
    (("--rate-mpps", "-1"), "--rate-mpps: expected a number > 0, found -1.0"),
    (("--rate-mpps", "0"), "--rate-mpps: expected a number > 0, found 0.0"),
    (("--rate-gbps", "inf"), "--rate-gbps: expected a finite rate, found inf"),
    (("--flows", "0"), "--flows: expected a number ≥ 1, found 0"),
    (("--flows", "100000"), "--flows: expected at most 65536 flows in all, found 100000"),
    (("--packet-size", "20"), "--packet-size: expected a number ≥ 64, found 20"),
])
def test_chain_verbs_check_the_command_lines_traffic(cli, tmp_path, args, message, verb):
    """A chain file without traffic takes one class from the command line: checked as a
    file's would be, by both back ends, before anything starts (the generator took at most
    65 536 flows where Python let 2^24 through)."""
    spec = tmp_path / "c.yaml"
    spec.write_text("name: t\nservices:\n  - {nf: forward, instances: 2}\n")
    code, out, err = cli("chain", verb, str(spec), *args)
    assert (code, out) == (2, "")
    assert err.startswith(f"nfvperf: error: {message}") and len(err.splitlines()) == 1


def test_a_service_on_a_cpu_this_machine_lacks_is_refused_before_anything_starts(cli, tmp_path):
    import os

    spec = tmp_path / "c.yaml"
    spec.write_text(f"services:\n  - {{nf: forward, cpu: {os.cpu_count()}}}\n")
    code, out, err = cli("chain", "run", str(spec))
    assert (code, out) == (2, "")
    assert err.startswith("nfvperf: error: services[0].cpu: expected a CPU number 0..")


def test_a_run_without_a_rate_names_the_option(cli):
    code, out, err = cli("dataplane", "run", "--nfs", "2")
    assert code == 2 and err.count("\n") == 1 and err.startswith("nfvperf: error: --rate-mpps")
