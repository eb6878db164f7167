"""`nfvperf batching`, `simulate` and `fit` as a user runs them."""

from __future__ import annotations

import csv
import io
import json

import pytest
from nfvperf.batching.vpp import DATA
from nfvperf.reference import output_type


@pytest.fixture(scope="module")
def service_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("svc") / "svc.csv"
    path.write_text("batch_size,mean_service_time_ns\n0,300\n16,1420\n")
    return path


def test_batching_json_contract(run_json, service_file):
    d = run_json("batching", "--service-times", str(service_file), "--beta", "16", "--queue",
                 "128", "--rate-mpps", "8")
    output_type("nfvperf batching").validate_python(d)   # every field the reference lists
    assert set(d["sojourn_time_us_percentiles"]) == {"50", "90", "99", "99.9"}
    assert len(d["batch_size_pmf"]) == 17 and sum(d["batch_size_pmf"]) == pytest.approx(1)
    assert d["arrival_rate_mpps"] == pytest.approx(8)


def test_rate_from_bits_and_frame(run_json, service_file):
    """10 Gbps at 64 B is 14.88 Mpps (20 B per frame on the wire)."""
    d = run_json("batching", "--service-times", str(service_file), "--beta", "16", "--queue",
                 "64", "--rate-mbps", "10000", "--packet-size", "64")
    assert d["arrival_rate_mpps"] == pytest.approx(14.880952, rel=1e-6)


def test_simulate_has_confidence_intervals(run_json, service_file):
    d = run_json("simulate", "--service-times", str(service_file), "--beta", "16", "--queue",
                 "128", "--rate-mpps", "8", "--packets", "200000", "--seed", "3", "--drop", "ring")
    output_type("nfvperf simulate").validate_python(d)
    assert d["drop"] == "ring" and d["simulated_packets"] == 200000


def test_table_csv_and_plot(cli, service_file, tmp_path):
    png = tmp_path / "b.png"
    code, out, err = cli("batching", "--service-times", str(service_file), "--beta", "16",
                         "--queue", "128", "--rate-mpps", "5", "--plot", str(png))
    assert code == 0, err
    assert "mean batch size" in out and png.read_bytes()[:4] == b"\x89PNG"
    code, out, _ = cli("batching", "--service-times", str(service_file), "--beta", "16",
                       "--queue", "128", "--rate-mpps", "5", "-f", "csv")
    [row] = list(csv.DictReader(io.StringIO(out)))
    assert float(row["mean_batch_size"]) > 0 and "sojourn_time_us_p99" in row


def test_fit_raw_then_batching(cli, run_json, tmp_path):
    svc = tmp_path / "svc.csv"
    code, _, err = cli("fit", str(DATA), "--beta", "256", "--tsc-ghz", "3.393", "-o", str(svc),
                       "-q")
    assert code == 0 and err == ""
    rows = list(csv.DictReader(svc.open()))
    assert [int(r["batch_size"]) for r in rows] == list(range(257))
    d = run_json("batching", "--service-times", str(svc), "--rate-mbps", "9000")
    assert d["mean_batch_size"] == pytest.approx(256, abs=0.01)
    for extra in ([], ["--per-rate"]):             # JSON: the CSV's rows, per rate with its rate
        rows = run_json("fit", str(DATA), "--tsc-ghz", "3.393", *extra)
        output_type("nfvperf fit").validate_python(rows)
        assert all(("rate_mbps" in r) == bool(extra) for r in rows)


def test_fit_per_rate_needs_a_rate_to_use(cli, tmp_path):
    svc = tmp_path / "per.csv"
    assert cli("fit", str(DATA), "--tsc-ghz", "3.393", "--per-rate", "-o", str(svc))[0] == 0
    code, _, err = cli("batching", "--service-times", str(svc), "--rate-mbps", "5000")
    assert code == 2 and "--service-rate: expected a rate to choose among the rates" in err
    code, out, err = cli("batching", "--service-times", str(svc), "--rate-mbps", "5000",
                         "--service-rate", "5000", "-f", "json")
    assert code == 0, err
    assert json.loads(out)["mean_batch_size"] == pytest.approx(16.5, abs=2)


@pytest.mark.parametrize("args, message", [
    (["--beta", "16", "--queue", "8", "--rate-mpps", "1"], "--queue: expected a queue capacity "
     "L ≥ β = 16, found 8"),
    (["--beta", "16", "--queue", "64", "--rate-mpps", "-1"], "--rate-mpps: expected a finite "
     "rate ≥ 0, found -1.0"),
    (["--beta", "16", "--queue", "64"], "--rate-mbps: expected a bit rate (with a frame size) "
     "or a packet rate, found \"neither\""),
    (["--beta", "16", "--queue", "64", "--rate-mpps", "1", "--arrivals", "pareto"],
     "--arrivals: expected one of deterministic, poisson, geometric or negbin:CV, found "
     "\"pareto\""),
    (["--beta", "16", "--queue", "64", "--rate-mpps", "1", "--dt-ns", "0"],
     "--dt-ns: expected a time step > 0 ns, found 0.0"),
])
def test_bad_options(cli, service_file, args, message):
    code, out, err = cli("batching", "--service-times", str(service_file), *args)
    assert (code, out) == (2, "")
    assert err == f"nfvperf: error: {message}\n"


@pytest.mark.parametrize("text, message", [
    ("size,ns\n0,1\n", "expected the header batch_size,mean_service_time_ns"),
    ("batch_size,mean_service_time_ns\n5,100\n2,50\n", ":3: batch_size: expected batch sizes in "
     "increasing order"),
    ("batch_size,mean_service_time_ns\n0,100\n2,NaN\n", ":3: mean_service_time_ns: expected a "
     "service time > 0 ns"),
])
def test_bad_service_files(cli, tmp_path, text, message):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    code, out, err = cli("batching", "--service-times", str(path), "--beta", "16", "--queue",
                         "64", "--rate-mpps", "1")
    assert code == 2 and out == "" and message in err and err.count("\n") == 1


def test_bad_samples(cli, tmp_path):
    path = tmp_path / "s.csv"
    path.write_text("vecsize,service_time_ns\n1,100\nx,200\n")
    code, _, err = cli("fit", str(path))
    assert code == 2
    assert err == f'nfvperf: error: {path}:3: vecsize: expected a number in column vecsize, ' \
                  f'found "x"\n'


def test_replayed_arrivals(cli, service_file, tmp_path):
    trace = tmp_path / "t.txt"
    trace.write_text("time_ns\n" + "\n".join(str(200 * i) for i in range(5000)) + "\n")
    code, out, err = cli("simulate", "--service-times", str(service_file), "--beta", "16",
                         "--queue", "64", "--rate-mpps", "5", "--arrivals-file", str(trace),
                         "--packets", "20000", "-f", "json")
    assert code == 0, err
    assert json.loads(out)["loss_probability"] == 0
