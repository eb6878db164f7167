"""Verbs of the DPDK data plane: dataplane build|run|sweep|replay, and doctor."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from nfvperf.cli.common import (App, ArchOpt, DurationOpt, FlowsOpt, Format, FormatOpt,
                                GenCpuOpt, NfCpuOpt, OutOpt, PacketSizeOpt, PlotOpt, QuietOpt,
                                RateGbpsOpt, RateMppsOpt, VswitchCpuOpt, WakeBatchOpt,
                                WakeRateOpt, WakeTimeoutOpt, app, emit, renamed, save_plot,
                                set_quiet, stages, wake_given)

dataplane_app = App(help="The DPDK data plane (Cerrato et al.): build it, run it.",
                            no_args_is_help=True)
app.add_typer(dataplane_app, name="dataplane")


@dataplane_app.command("build")
def dataplane_build(quiet: QuietOpt = False) -> None:
    """Build the vSwitch, the NFs and the generator (meson, ninja, Debian's libdpdk)."""
    from nfvperf.dataplane import build

    set_quiet(quiet)
    out = build(quiet=True)
    if not quiet:
        typer.echo(f"built in {out}", err=True)


@dataplane_app.command("run")
def dataplane_run(
    arch: ArchOpt = "double-buffer",
    nfs: Annotated[int, typer.Option("--nfs", help="NF processes.")] = 2,
    chain_length: Annotated[int, typer.Option("--chain-length", help="NFs per chain.")] = 2,
    packet_size: PacketSizeOpt = 64,
    rate_mpps: RateMppsOpt = None,
    rate_gbps: RateGbpsOpt = None,
    flows: FlowsOpt = 1,
    duration: DurationOpt = 1.0,
    nf: Annotated[str, typer.Option("--nf", help="signature, forward, mpls or counter.")
                  ] = "signature",
    vswitch_cpu: VswitchCpuOpt = 0,
    nf_cpu: NfCpuOpt = 1,
    gen_cpu: GenCpuOpt = 1,
    wake_batch: WakeBatchOpt = None,
    wake_timeout_us: WakeTimeoutOpt = None,
    wake_rate_max: WakeRateOpt = None,
    chain: Annotated[Optional[Path], typer.Option(
        "--chain", help="Spelling of earlier releases for `nfvperf chain run FILE`.",
        hidden=True)] = None,
    fmt: FormatOpt = Format.table,
    out: OutOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Run the vSwitch, N NFs and the generator; report throughput, drops, latency, per NF."""
    from nfvperf.dataplane import RunConfig, run
    from nfvperf.dataplane.views import run_tables

    set_quiet(quiet)
    if chain is not None:
        from nfvperf.cli.chain import chain_run

        renamed("dataplane run --chain FILE", "chain run FILE")
        chain_run(chain, arch, packet_size, rate_mpps, rate_gbps, flows, duration, vswitch_cpu,
                  nf_cpu, gen_cpu, wake_batch, wake_timeout_us, wake_rate_max, fmt, out,
                  quiet)
        return
    wake = wake_given(wake_batch, wake_timeout_us, wake_rate_max)
    cfg = RunConfig(arch=arch, nfs=nfs, chain_length=chain_length, packet_size=packet_size,
                    rate_mpps=rate_mpps, rate_gbps=rate_gbps, flows=flows, duration_s=duration,
                    nf=nf, vswitch_cpu=vswitch_cpu, nf_cpu=nf_cpu, gen_cpu=gen_cpu,
                    **{f"wake_{k}": v for k, v in wake.items()})
    with stages() as say:                        # run() validates cfg before it starts anything
        result = run(cfg, progress=say)
    row = {k: v for k, v in result.items() if not isinstance(v, (list, dict))}
    row.update({f"dropped_{k}": v for k, v in result["dropped"].items()})
    row.update({f"latency_us_{k}": v for k, v in result["latency_us"].items()})
    emit(result, fmt, out, run_tables, csv_rows=[row])


@dataplane_app.command("sweep")
def dataplane_sweep(
    arch: Annotated[str, typer.Option("--arch", help="Architectures, comma-separated.")
                    ] = "double-buffer,semaphore,shared-ring,fdir,isolated",
    nfs: Annotated[str, typer.Option("--nfs", help="NF counts, comma-separated.")
                   ] = "1,2,4,8,16,32",
    chain_length: Annotated[int, typer.Option("--chain-length")] = 2,
    packet_size: Annotated[int, typer.Option("--packet-size")] = 64,
    rate_mpps: Annotated[float, typer.Option("--rate-mpps", help="Offered rate.")] = 1.0,
    duration: Annotated[float, typer.Option("--duration", help="Seconds per run.")] = 1.0,
    nf: Annotated[str, typer.Option("--nf")] = "signature",
    wake_batch: WakeBatchOpt = None,
    wake_timeout_us: WakeTimeoutOpt = None,
    wake_rate_max: WakeRateOpt = None,
    fmt: FormatOpt = Format.table,
    out: OutOpt = None,
    plot: PlotOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Throughput and latency versus the number of NFs per architecture (Cerrato et al.,
    Fig. 3 and 4, on this machine): a table and, with --plot, a PNG."""
    from nfvperf.dataplane import RunConfig
    from nfvperf.dataplane.sweep import parse_list, plot as draw, sweep
    from nfvperf.dataplane.views import sweep_table

    set_quiet(quiet)
    wake = wake_given(wake_batch, wake_timeout_us, wake_rate_max)
    base = RunConfig(chain_length=chain_length, packet_size=packet_size, rate_mpps=rate_mpps,
                     duration_s=duration, nf=nf, **{f"wake_{k}": v for k, v in wake.items()})
    with stages() as say:
        rows = sweep(base, parse_list(arch, "--arch"), parse_list(nfs, "--nfs", int), say)
    title = (f"{nf} NFs in chains of {chain_length}, {packet_size} B at {rate_mpps:g} Mpps "
             f"offered, {duration:g} s per point")
    emit(rows, fmt, out, lambda d: sweep_table(d, title))
    if plot is not None:
        save_plot(lambda r, p: draw(r, p, title), rows, plot)


@dataplane_app.command("replay")
def dataplane_replay(
    pcap_in: Annotated[Path, typer.Argument(help="pcap file of Ethernet frames to send in.",
                                            show_default=False)],
    capture: Annotated[Path, typer.Option("--capture", help="pcap file for what comes out.",
                                          show_default=False)],
    nf: Annotated[str, typer.Option("--nf", help="signature, forward, mpls or counter.")
                  ] = "forward",
    chain_length: Annotated[int, typer.Option("--chain-length")] = 1,
    arch: Annotated[str, typer.Option("--arch")] = "double-buffer",
    nf_arg: Annotated[Optional[list[str]], typer.Option(
        "--nf-arg", help="An option for the NF, e.g. --nf-arg=--delta=5 (repeatable).")] = None,
    fmt: FormatOpt = Format.table,
    quiet: QuietOpt = False,
) -> None:
    """Replay a pcap file through a chain of NFs (one chain per destination MAC in it) and
    capture what leaves the vSwitch."""
    from nfvperf.dataplane.replay import replay

    set_quiet(quiet)
    r = replay(pcap_in, capture, nf=nf, chain_length=chain_length, arch=arch,
               nf_args=tuple(nf_arg or ()))
    from nfvperf.dataplane.views import replay_tables

    emit(r, fmt, None, replay_tables)



@app.command()
def doctor(fmt: FormatOpt = Format.table) -> None:
    """Check what the data plane needs (DPDK, hugepages, binaries) and say how to fix each."""
    from nfvperf.dataplane import doctor as checks
    from nfvperf.dataplane.views import doctor_table

    data = [c.to_dict() for c in checks()]
    emit(data, fmt, None, doctor_table)
    if not all(c["ok"] for c in data):
        raise typer.Exit(1)
