"""A validation's journal: rows kept as measured, read back on a rerun, a line cut short by a
kill dropped, a journal of another profile or a damaged one refused in one line."""

from __future__ import annotations

import json

import pytest

from nfvperf.calibrate.placement import Placement, PlacedRun
from nfvperf.errors import InputError
from nfvperf.validation import dataplane
from nfvperf.validation.journal import Journal

KEY = dataplane.JOURNAL_KEY
HEAD = {"command": "validate dataplane", "profile_sha256": "ab" * 32, "quick": True}


def row(nf: str, size: int, cycles: float = 50.0) -> dict:
    return {"nf": nf, "traffic": "one label", "packet_size": size, "measured_cycles": cycles,
            "window_cycles": [cycles, cycles + 1]}


def test_rows_are_read_back_on_a_rerun(tmp_path):
    path = tmp_path / "v.jsonl"
    j = Journal(path, HEAD, KEY)
    j.add(row("mpls", 64))
    j.add(row("mpls", 512, 61.5))
    again = Journal(path, HEAD, KEY)
    assert again.get("mpls", "one label", 512) == row("mpls", 512, 61.5)
    assert again.get("mpls", "one label", 128) is None
    assert len(path.read_text().splitlines()) == 3           # header and two rows


def test_a_line_cut_short_is_dropped_and_the_journal_goes_on(tmp_path):
    path = tmp_path / "v.jsonl"
    Journal(path, HEAD, KEY).add(row("mpls", 64))
    with open(path, "a") as fh:
        fh.write('{"nf": "mpls", "traffic": "one l')          # killed while writing
    j = Journal(path, HEAD, KEY)
    assert list(j.rows) == [("mpls", "one label", 64)]
    j.add(row("mpls", 512))
    lines = path.read_text().splitlines()
    assert [json.loads(x)["packet_size"] for x in lines[1:]] == [64, 512]


@pytest.mark.parametrize("change", [{"profile_sha256": "cd" * 32}, {"quick": False}])
def test_a_journal_of_other_settings_is_refused(tmp_path, change):
    path = tmp_path / "v.jsonl"
    Journal(path, HEAD, KEY).add(row("mpls", 64))
    with pytest.raises(InputError) as e:
        Journal(path, {**HEAD, **change}, KEY)
    assert e.value.message.startswith(f"{path}:1: {next(iter(change))}: expected ")


def test_a_file_that_is_not_a_journal_is_refused(tmp_path):
    path = tmp_path / "v.jsonl"
    path.write_text('[{"nf": "mpls"}]\n')
    with pytest.raises(InputError, match=r"v.jsonl:1: expected a validation journal"):
        Journal(path, HEAD, KEY)
    Journal(tmp_path / "w.jsonl", HEAD, KEY)
    with open(tmp_path / "w.jsonl", "a") as fh:
        fh.write("not json\n")
    with pytest.raises(InputError, match=r"w.jsonl:2: expected one row"):
        Journal(tmp_path / "w.jsonl", HEAD, KEY)


def fake_run(nf, traffic, size, platform, **_):
    """What measure_placed returns, without a data plane."""
    m = {"rx": 1000, "delivered": 1000, "sent": 1000, "dropped_by_nf": 0, "tsc_hz": 2e9,
         "loop_cycles": 80.0, "handler_cycles": 40.0, "loop_cycles_mean": 81.0,
         "batch_mean": 8.0, "windows": [80.0, 80.0]}
    return PlacedRun(m, Placement(platform, 1.0, 90.0, 1.0, 1.0), 0, True)


def test_validate_measures_only_the_rows_the_journal_lacks(tmp_path, monkeypatch):
    measured = []

    def run(nf, traffic, size, platform, **kw):
        measured.append((nf, traffic.name, size))
        return fake_run(nf, traffic, size, platform, **kw)

    monkeypatch.setattr(dataplane, "measure_placed", run)
    profile = "xeon-e5-2690v2"
    path = tmp_path / "v.jsonl"
    first = dataplane.validate(profile, ["mpls"], [64], quick=True, repeats=1,
                               journal=Journal(path, HEAD, KEY))
    assert measured == [("mpls", "one label", 64)]
    # a rerun over more sizes measures the new size alone, and returns the kept row as it was
    rows = dataplane.validate(profile, ["mpls"], [64, 512], quick=True, repeats=1,
                              journal=Journal(path, HEAD, KEY))
    assert measured == [("mpls", "one label", 64), ("mpls", "one label", 512)]
    assert rows[0] == json.loads(json.dumps(first[0]))
    assert [r["packet_size"] for r in rows] == [64, 512]
    assert len(path.read_text().splitlines()) == 3


def test_the_cli_wants_the_profile_beside_a_journal(cli, tmp_path):
    code, _, err = cli("validate", "dataplane", "--quick", "--journal", str(tmp_path / "v"))
    assert code == 2
    assert err.strip().splitlines()[-1].endswith("--journal: expected --platform beside it "
                                                 "(a rerun must price its rows on the same "
                                                 "profile)")
