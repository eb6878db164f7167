"""Verbs that measure this host: calibrate, and validate (estimates beside measurements)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from nfvperf.cli.common import (App, Format, FormatOpt, OutOpt, QuietOpt, app, emit, set_quiet,
                                stages, write_file)

@app.command()
def calibrate(
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="Write the platform profile "
                                                "(YAML) here, atomically.")] = None,
    quick: Annotated[bool, typer.Option("--quick", help="Fewer sizes and repetitions "
                                        "(under a minute).")] = False,
    cpu: Annotated[int, typer.Option("--cpu", help="The CPU to measure on.")] = 1,
    name: Annotated[str, typer.Option("--name", help="The profile's name.")] = "host",
    access: Annotated[str, typer.Option(
        "--access", help="Price loads overlapped (as in bursts of packets) or dependent "
        "(one at a time: latency, as the paper).")] = "overlapped",
    dataplane: Annotated[bool, typer.Option(
        "--dataplane/--no-dataplane", help="Measure the data plane's own costs too (its "
        "vSwitch, NF loop, generator, turns, stalls: the profile's dataplane section, which "
        "`chain validate` needs; about a minute, 15 s with --quick).")] = True,
    fmt: FormatOpt = Format.table,
    quiet: QuietOpt = False,
) -> None:
    """Measure this host (TSC, cache and DRAM latencies, rte_hash, rte_lpm, checksums, copies,
    and the data plane's own costs) and write a platform profile for `nfvperf estimate
    --platform` and `nfvperf chain validate`."""
    from nfvperf.calibrate import describe_host, measure, profile_yaml
    from nfvperf.calibrate.profile import ACCESS_MODES, derive
    from nfvperf.errors import InputError

    set_quiet(quiet)
    if access not in ACCESS_MODES:
        raise InputError(" or ".join(ACCESS_MODES), access, field="--access")
    host = describe_host(tsc_from_log=True)
    with stages() as say:
        data = measure(host, quick=quick, cpu=cpu, progress=say)
    section = None
    if dataplane:
        from nfvperf.calibrate import dataplane as dp

        with stages() as say:
            c2c = data.get("core_to_core") or {}
            raw = dp.measure(quick=quick, vswitch_cpu=0 if cpu else 1, nf_cpu=cpu,
                             gen_cpu=cpu, progress=say, l2_bytes=host.l2_bytes,
                             trip=(c2c.get("one_way_cycles") or {}).get("median"))
        section = dp.derive(raw)
    text = profile_yaml(host, data, name=name, access=access, dataplane=section)
    if not quiet:
        from nfvperf.calibrate.measure import reference_cycles
        from nfvperf.calibrate.sanity import QUIET_CHECKS, doubts

        from nfvperf.errors import RuntimeFailure

        try:        # a check that fails costs its notice, never the calibration
            after = [reference_cycles(host.l2_bytes, cpu=cpu) for _ in range(QUIET_CHECKS)]
        except RuntimeFailure:
            after = []
        for line in doubts(host, data, after):
            typer.echo(f"nfvperf: notice: calibrate: {line}", err=True)
    if out is not None:
        from nfvperf.io import write_atomic

        write_file(out, "--out", lambda path: write_atomic(path, text))
    rows = [{"value": k, "measured": v[0], "how": v[1]}
            for k, v in derive(host, data, access).items()]
    if fmt is Format.table and out is None and not sys.stdout.isatty():
        sys.stdout.write(text)
        return
    from nfvperf.calibrate.profile import profile_table

    emit({"profile": {r["value"]: r["measured"] for r in rows}, "measurements": data}, fmt, None,
         lambda d: [profile_table(rows, host)], csv_rows=rows)


validate_app = App(help="Estimates beside measurements.", no_args_is_help=True)
app.add_typer(validate_app, name="validate")


@validate_app.command("dataplane")
def validate_dataplane(
    platform: Annotated[Optional[str], typer.Option(
        "--platform", "-p", help="Profile of this host (default: run `calibrate --quick` "
        "first).")] = None,
    nf: Annotated[Optional[list[str]], typer.Option(
        "--nf", help="NFs to validate (repeatable): l2fwd, learnsw, router, mpls, nat, bng "
        "(default: all).")] = None,
    packet_sizes: Annotated[Optional[str], typer.Option(
        "--packet-sizes", help="Frame sizes, comma-separated.")] = None,
    quick: Annotated[bool, typer.Option("--quick", help="Small tables, two frame sizes, "
                                        "short runs.")] = False,
    report: Annotated[Optional[Path], typer.Option("--report", help="Write an HTML report "
                                                   "(with the figures).")] = None,
    plot_dir: Annotated[Optional[Path], typer.Option("--plot-dir", help="Write a PNG per NF "
                                                     "here.")] = None,
    journal: Annotated[Optional[Path], typer.Option(
        "--journal", help="Keep each row here as soon as it is measured (JSON lines); a rerun "
        "with the same file and profile measures only the rows it lacks.")] = None,
    fmt: FormatOpt = Format.table,
    out: OutOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """The estimate of each NF's EO model beside the NF measured on the data plane (Baldi &
    Sapio, Sec. 4, on this host)."""
    import tempfile

    from nfvperf.dataplane.sweep import parse_list
    from nfvperf.validation.dataplane import html_report, plot as draw, validate
    from nfvperf.validation.workloads import cases
    from nfvperf.units import check_frame_bytes

    set_quiet(quiet)
    sizes = parse_list(packet_sizes, "--packet-sizes", int) if packet_sizes else (
        [64, 512] if quick else [64, 128, 256, 512, 1024, 1518])
    for s in sizes:
        check_frame_bytes(s, field="--packet-sizes")
    kept = None
    if journal is not None:
        from nfvperf.errors import InputError
        from nfvperf.validation.dataplane import JOURNAL_KEY
        from nfvperf.validation.journal import Journal, profile_digest

        if platform is None:
            raise InputError("--platform beside it (a rerun must price its rows on the same "
                             "profile)", field="--journal")
        if not Path(platform).is_file():
            raise InputError("a profile file", platform, field="--platform")
        kept = Journal(journal, {"command": "validate dataplane", "quick": quick,
                                 "profile_sha256": profile_digest(platform)}, JOURNAL_KEY)
    with tempfile.TemporaryDirectory() as tmp:
        if platform is None:
            from nfvperf.calibrate import describe_host, measure, profile_yaml

            host = describe_host(tsc_from_log=True)
            with stages() as say:
                text = profile_yaml(host, measure(host, quick=True, progress=say))
            platform = str(Path(tmp) / "host.yaml")
            Path(platform).write_text(text)
        with stages() as say:
            rows = validate(platform, nf or list(cases(quick)), sizes,
                            quick=quick,
                            repeats=1 if quick else 3,
                            progress=say, journal=kept)
        pngs = {}
        for name in dict.fromkeys(r["nf"] for r in rows):
            target = (plot_dir or Path(tmp)) / f"{name}.png"
            if plot_dir is not None:
                plot_dir.mkdir(parents=True, exist_ok=True)
            draw(rows, name, target)
            pngs[name] = target
        if report is not None:
            from nfvperf.io import write_atomic

            write_file(report, "--report", lambda p: write_atomic(p, html_report(rows, pngs)))
    from nfvperf.validation.dataplane import summary
    from nfvperf.validation.views import dataplane_table, summary_table

    csv_rows = [{k: v for k, v in r.items() if k not in ("top_eos", "gap_causes")} for r in rows]
    emit(rows, fmt, out, lambda d: [dataplane_table(d), summary_table(summary(d))],
         csv_rows=csv_rows)


@validate_app.command("colocation")
def validate_colocation(
    platform: Annotated[str, typer.Option(
        "--platform", "-p", help="Profile of this host from `nfvperf calibrate`.")],
    nf: Annotated[Optional[list[str]], typer.Option(
        "--nf", help="NFs to run beside neighbours (repeatable; default: l2fwd, nat, bng).")
    ] = None,
    neighbours: Annotated[str, typer.Option(
        "--neighbours", help="Counts of neighbours, comma-separated (0 among them).")] = "0,1,2",
    neighbour_bytes: Annotated[str, typer.Option(
        "--neighbour-bytes", help="Bytes each neighbour ranges over.")] = "64 MiB",
    runs: Annotated[int, typer.Option("--runs", min=1, help="Runs per point (the median).")] = 3,
    fmt: FormatOpt = Format.table,
    out: OutOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """The slowdown neighbours on the other core (sharing its last-level cache and DRAM) cause
    an NF, predicted by the memory-stall term beside measured on the data plane."""
    from nfvperf.dataplane.sweep import parse_list
    from nfvperf.units import parse_bytes
    from nfvperf.validation.colocation import validate
    from nfvperf.validation.views import colocation_table

    set_quiet(quiet)
    counts = parse_list(neighbours, "--neighbours", int)
    size = int(parse_bytes(neighbour_bytes, field="--neighbour-bytes"))
    with stages() as say:
        rows = validate(platform, nf or ["l2fwd", "nat", "bng"], neighbours=counts,
                        neighbour_bytes=size, repeats=runs, progress=say)
    emit(rows, fmt, out, lambda d: [colocation_table(d)])
