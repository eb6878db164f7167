"""End-to-end runs of the data plane through the CLI, one per architecture (needs DPDK)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from nfvperf.reference import output_type

pytestmark = [pytest.mark.dataplane]

ARCHS = ["double-buffer", "semaphore", "shared-ring", "fdir", "isolated"]
#: the contract: every field the documentation lists, none it does not (wrong types fail too)
CONTRACT = output_type("nfvperf dataplane run")


def _no_leftovers():
    """No process of ours (a child of this test process) from the data plane is left."""
    me = str(os.getpid())
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            comm, rest = stat.read_text().rsplit(")", 1)
        except OSError:
            continue
        if rest.split()[1] == me and "nfvp-" in comm:
            return False
    return True


@pytest.mark.parametrize("arch", ARCHS)
def test_every_architecture_moves_packets_and_accounts_for_all(dataplane, cli, arch):
    code, out, err = cli("dataplane", "run", "--arch", arch, "--nfs", "4", "--chain-length", "2",
                         "--rate-mpps", "0.1", "--duration", "0.5", "--flows", "8",
                         "--format", "json")
    assert code == 0, err
    r = json.loads(out)
    CONTRACT.validate_python(r)
    assert r["arch"] == arch and r["nfs"] == 4 and r["chains"] == 2
    assert set(r["latency_us"]) >= {"mean", "p50", "p99", "p999"}
    assert r["conservation"]["balanced"], r["conservation"]
    assert r["pool"]["all_returned"], r["pool"]
    assert r["delivered_packets"] > 0.5 * r["offered_packets"], r["dropped"]
    assert len(r["per_nf"]) == 4 and all(nf["rx"] > 0 for nf in r["per_nf"])
    # each packet crossed both NFs of its chain: NF receptions = 2 x packets that left hop 1
    assert sum(nf["rx"] for nf in r["per_nf"]) >= 2 * r["delivered_packets"]
    assert _no_leftovers()


def test_table_output(dataplane, cli):
    code, out, err = cli("dataplane", "run", "--arch", "semaphore", "--nfs", "2",
                         "--rate-mpps", "0.05", "--duration", "0.3")
    assert code == 0, err
    assert "delivered" in out and "conservation" in out and "nf1" in out


def test_sweep_table_json_and_plot(dataplane, cli, tmp_path):
    png = tmp_path / "sweep.png"
    code, out, err = cli("dataplane", "sweep", "--arch", "semaphore,isolated", "--nfs", "1,2",
                         "--rate-mpps", "0.05", "--duration", "0.3", "--format", "json",
                         "--plot", str(png))
    assert code == 0, err
    rows = json.loads(out)
    output_type("nfvperf dataplane sweep").validate_python(rows)
    assert [(r["arch"], r["nfs"]) for r in rows] == [("semaphore", 1), ("semaphore", 2),
                                                      ("isolated", 1), ("isolated", 2)]
    assert all(r["balanced"] and r["all_returned"] and r["delivered_mpps"] > 0 for r in rows)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_sweep_rejects_a_bad_list(cli):
    code, _, err = cli("dataplane", "sweep", "--nfs", "1,two")
    assert code == 2 and err.startswith("nfvperf: error: --nfs: expected a comma-separated list")
