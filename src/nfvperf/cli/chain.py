"""Verbs of chains: ``chain simulate`` predicts a chain file, ``chain run`` measures it on the
data plane; both take the same traffic options and print the same result (``ChainResult``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from nfvperf.cli.common import (DEFAULT_PLATFORM, App, ArchOpt, DurationOpt, FlowsOpt, Format,
                                FormatOpt, GenCpuOpt, NfCpuOpt, OutOpt, PacketSizeOpt, QuietOpt,
                                RateGbpsOpt, RateMppsOpt, VswitchCpuOpt, WakeBatchOpt,
                                WakeRateOpt, WakeTimeoutOpt, app, emit, set_quiet, stages,
                                wake_given, write_file)

chain_app = App(help="Chains of services with parallel NF instances: predict one "
                "(simulate), measure it on the data plane (run), or both side by side "
                "(validate).", no_args_is_help=True)
app.add_typer(chain_app, name="chain")

ChainFileArg = Annotated[Path, typer.Argument(
    help="The chain (YAML: services, instances, policy, weights, traffic classes, scale "
    "events; `nfvperf schema chain`).", show_default=False)]


@chain_app.command("simulate")
def chain_simulate(
    chain: ChainFileArg,
    platform: Annotated[str, typer.Option(
        "--platform", "-p", help="The profile whose EO costs price the packets.")
    ] = DEFAULT_PLATFORM,
    sim: Annotated[Optional[Path], typer.Option(
        "--sim", help="The simulator's options (YAML: ring, burst, turns, stalls, measured "
        "costs; `nfvperf schema sim`).")] = None,
    arrivals: Annotated[Optional[str], typer.Option(
        "--arrivals", help="poisson or paced (as nfvp-gen) [default: the options' or "
        "poisson].")] = None,
    seed: Annotated[Optional[int], typer.Option("--seed", help="Seed of the arrivals.")] = None,
    host: Annotated[bool, typer.Option(
        "--host", help="Run it as the data plane does on the profile's host (its dataplane "
        "section, `nfvperf calibrate`): the NF core shared in turns and with the generator, "
        "paced sends, the host's stalls, the vSwitch's passes; predicts what `chain run` "
        "reports.")] = False,
    method: Annotated[str, typer.Option(
        "--method", help="auto: the batching model where it answers the chain alone (one "
        "service, one instance on a core of its own, no generator or stalls), else the "
        "simulator; model; simulator. The result's backend says which.")] = "auto",
    packet_size: PacketSizeOpt = 64,
    rate_mpps: RateMppsOpt = None,
    rate_gbps: RateGbpsOpt = None,
    flows: FlowsOpt = 1,
    duration: DurationOpt = 1.0,
    fmt: FormatOpt = Format.table,
    out: OutOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Predict a chain: each instance a batched polling queue priced by its NF's EO model,
    solved by the batching model where it applies, else simulated. --packet-size, --rate-*
    and --flows make its traffic when the file has none; --rate-* scale the file's own."""
    from nfvperf.chain import load_chain
    from nfvperf.eo.platform import load_platform
    from nfvperf.sim.analytic import predict_chain
    from nfvperf.sim.options import SimOptions, load_options

    set_quiet(quiet)
    spec = load_chain(chain)
    options = load_options(sim) if sim is not None else SimOptions()
    prof = load_platform(platform)
    if host:
        from nfvperf.sim.host import host_options

        options = host_options(prof, len(spec.services),
                               base=options if sim is not None else None)
    changes = {k: v for k, v in (("arrivals", arrivals), ("seed", seed)) if v is not None}
    if changes:
        options = SimOptions.model_validate({**options.model_dump(), **changes})
    spec, default = with_traffic(spec, packet_size, rate_mpps, rate_gbps, flows)
    with stages() as say:
        if say:
            say("predicting", 0, 1)
        result = predict_chain(spec, prof, options, default=default, duration_s=duration,
                               method=method)
    _show(result.to_dict(), fmt, out)


@chain_app.command("run")
def chain_run(
    chain: ChainFileArg,
    arch: ArchOpt = "double-buffer",
    packet_size: PacketSizeOpt = 64,
    rate_mpps: RateMppsOpt = None,
    rate_gbps: RateGbpsOpt = None,
    flows: FlowsOpt = 1,
    duration: DurationOpt = 1.0,
    vswitch_cpu: VswitchCpuOpt = 0,
    nf_cpu: NfCpuOpt = 1,
    gen_cpu: GenCpuOpt = 1,
    wake_batch: WakeBatchOpt = None,
    wake_timeout_us: WakeTimeoutOpt = None,
    wake_rate_max: WakeRateOpt = None,
    fmt: FormatOpt = Format.table,
    out: OutOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Measure a chain on the data plane: its instances as NF processes, its services in the
    vSwitch, its traffic from the generator, its scale events on time. --rate-* scale the
    file's traffic (or, with --packet-size and --flows, make it when the file has none)."""
    from nfvperf.chain import load_chain
    from nfvperf.dataplane.chain import run_chain

    set_quiet(quiet)
    spec = load_chain(chain, runnable=True)
    spec, default = with_traffic(spec, packet_size, rate_mpps, rate_gbps, flows)
    spec = with_wake(spec, wake_given(wake_batch, wake_timeout_us, wake_rate_max))
    with stages() as say:
        result = run_chain(spec, arch=arch, default=default, duration_s=duration,
                           vswitch_cpu=vswitch_cpu, nf_cpu=nf_cpu, gen_cpu=gen_cpu,
                           progress=say)
    _show(result.to_dict(), fmt, out)


@chain_app.command("attach")
def chain_attach(
    chain: ChainFileArg,
    between: Annotated[str, typer.Option(
        "--between", help="Two kernel interfaces, comma-separated: tap:NAME (a TAP device the "
        "vSwitch makes) or af_packet:IFACE (one that exists: a veth's end, a NIC).",
        show_default=False)],
    arch: ArchOpt = "double-buffer",
    duration: Annotated[float, typer.Option(
        "--duration", help="Seconds to run (Ctrl-C stops sooner).")] = 60.0,
    vswitch_cpu: VswitchCpuOpt = 0,
    nf_cpu: NfCpuOpt = 1,
    fmt: FormatOpt = Format.table,
    out: OutOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Put a chain between two kernel interfaces: every packet that arrives on one goes
    through the chain's NFs and leaves by the other, both ways (a bump in the wire; the frames
    keep their MACs). Reports each port's and NF's counts when it stops."""
    import signal
    import threading

    from nfvperf.chain import load_chain
    from nfvperf.dataplane.attach import KernelPort, attach_chain
    from nfvperf.dataplane.views import attach_tables
    from nfvperf.errors import InputError

    set_quiet(quiet)
    sides = between.split(",")
    if len(sides) != 2:
        raise InputError("two interfaces, comma-separated", between, field="between")
    ports = (KernelPort.parse(sides[0]), KernelPort.parse(sides[1]))
    spec = load_chain(chain, runnable=True)
    stop = threading.Event()

    def ready() -> None:
        if not quiet:
            typer.echo(f"{spec.name}: between {sides[0]} and {sides[1]} for {duration:g} s "
                       "(Ctrl-C stops)", err=True)

    before = signal.signal(signal.SIGINT, lambda *_: stop.set())   # stop, then report
    try:
        result = attach_chain(spec, ports, arch=arch, duration_s=duration,
                              vswitch_cpu=vswitch_cpu, nf_cpu=nf_cpu, stop=stop, ready=ready)
    finally:
        signal.signal(signal.SIGINT, before)
    emit(result, fmt, out, attach_tables)


@chain_app.command("validate")
def chain_validate(
    chain: ChainFileArg,
    platform: Annotated[str, typer.Option(
        "--platform", "-p", help="This host's profile, with its dataplane section (`nfvperf "
        "calibrate`).")],
    load: Annotated[Optional[str], typer.Option(
        "--load", help="Offered loads as fractions of the predicted capacity of the NF core, "
        "comma-separated, e.g. 0.2,0.5,0.8,1.2 (default: the chain's own traffic).")] = None,
    runs: Annotated[int, typer.Option("--runs", help="Runs of each load (each predicted for "
                                      "its own CPU placement).")] = 3,
    sim: Annotated[Optional[Path], typer.Option(
        "--sim", help="Simulator options over those of the host (YAML).")] = None,
    report: Annotated[Optional[Path], typer.Option(
        "--report", help="Write an HTML report (latency CDFs, load curves, every row).")] = None,
    arch: ArchOpt = "double-buffer",
    packet_size: PacketSizeOpt = 64,
    rate_mpps: RateMppsOpt = None,
    rate_gbps: RateGbpsOpt = None,
    flows: FlowsOpt = 1,
    duration: DurationOpt = 1.0,
    vswitch_cpu: VswitchCpuOpt = 0,
    nf_cpu: NfCpuOpt = 1,
    gen_cpu: GenCpuOpt = 1,
    fmt: FormatOpt = Format.table,
    out: OutOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Predict a chain as the data plane runs it on this host and measure it there: every
    quantity predicted, measured and its error, end to end and per instance."""
    from nfvperf.chain import load_chain
    from nfvperf.dataplane.sweep import parse_list
    from nfvperf.eo.platform import load_platform
    from nfvperf.sim.options import load_options
    from nfvperf.validation.chain import validate_chain
    from nfvperf.validation.views import chain_rows, chain_table

    set_quiet(quiet)
    spec = load_chain(chain, runnable=True)
    prof = load_platform(platform)
    options = load_options(sim) if sim is not None else None
    loads = parse_list(load, "--load", float) if load else None
    spec, default = with_traffic(spec, packet_size, rate_mpps, rate_gbps, flows)
    with stages() as say:
        result = validate_chain(spec, prof, loads=loads, runs=runs, duration_s=duration,
                                arch=arch, default=default, vswitch_cpu=vswitch_cpu,
                                nf_cpu=nf_cpu, gen_cpu=gen_cpu, sim=options, progress=say)
    if report is not None:
        from nfvperf.io import write_atomic
        from nfvperf.validation.chain_report import html_report

        write_file(report, "--report", lambda p: write_atomic(p, html_report(result)))
    emit(result, fmt, out, lambda d: [chain_table(d)], csv_rows=chain_rows(result))


def _show(result: dict, fmt: Format, out: Path | None) -> None:
    from nfvperf.chain.views import chain_rows, chain_tables

    emit(result, fmt, out, chain_tables, csv_rows=chain_rows(result))


def with_traffic(spec, packet_size: int, rate_mpps: float | None, rate_gbps: float | None,
                 flows: int):
    """The chain and the command line's traffic: a chain file with traffic of its own is
    scaled to --rate-mpps or --rate-gbps (its mix of frames and flows kept) when one is given;
    for one without, they make its class (``default_class``)."""
    default = default_class(packet_size, rate_mpps, rate_gbps, flows)
    if not spec.traffic or (rate_mpps is None and rate_gbps is None):
        return spec, default
    if rate_mpps is not None:
        return spec.at_rate(default.pps), default
    return spec.at_rate(rate_gbps * 1e9 * spec.pps / spec.wire_bps), default


def with_wake(spec, given: dict):
    """The chain with the command line's wake-up options over its file's ``wake``; errors
    name the options (``wake_batch`` -> --wake-batch)."""
    from nfvperf.wake import Wake

    if not given:
        return spec
    return spec.model_copy(update={"wake": Wake.checked(**{**spec.wake.model_dump(), **given})})


def default_class(packet_size: int, rate_mpps: float | None, rate_gbps: float | None,
                  flows: int):
    """The command line's traffic class (for a chain file that has none), checked as a file's
    would be; 0.1 Mpps when no rate is given. Errors name TrafficClass's fields."""
    from pydantic import ValidationError

    from nfvperf.chain import TrafficClass
    from nfvperf.errors import InputError
    from nfvperf.files import expected_of

    if rate_mpps is None and rate_gbps is None:
        rate_mpps = 0.1
    try:
        return TrafficClass(frame_bytes=packet_size, rate_mpps=rate_mpps, rate_gbps=rate_gbps,
                            flows=flows)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        # the field's name: the verb reports it as the option that sets it (App)
        name = err["loc"][0] if err["loc"] else "rate_gbps" if rate_gbps is not None \
            else "rate_mpps"
        found = err.get("input") if err["loc"] else \
            rate_gbps if rate_gbps is not None else rate_mpps
        raise InputError(expected_of(TrafficClass, err), found, field=str(name)) from None
