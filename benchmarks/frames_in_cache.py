"""How frames streaming through the caches slow a table's loads, on this host.

    python benchmarks/frames_in_cache.py [--cpu 1] [--frames 128,512,1536] [--max-ws 32M]
        [-o frames.json]

A chase through a table (working sets of 16 KB up to --max-ws) on the NF's CPU, alone and
with each of --frames bytes of a frame written for each of its loads (nfvp-calibrate
--stream: 2 KB buffers of a 64 MB pool written in turn, as the data plane's generator fills
its mbufs, which the pool hands out oldest first; the loads timed in rounds of 16, after the
round's frames are written and drained, so the frames' own cost is not in them). Prints a
Markdown table of the cycles a load takes (a timer's few cycles included, alike in every
column). Tables that fit a cache alone stop fitting it once frames pass through; where that
happens is what the table shows.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from nfvperf.calibrate.measure import FRAME_BYTES, FRAMES_MAX_WS, frames_in_cache


def table(runs: dict[int, dict]) -> list[str]:
    """Markdown: per working set, the cycles a load takes alone and beside each frame size."""
    sizes = sorted(runs)
    first = runs[sizes[0]]
    lines = ["| table | alone | " + " | ".join(f"{s} B a load" for s in sizes) + " |",
             "|---|---|" + "---|" * len(sizes)]
    for i, p in enumerate(first["load_latency"]):
        cells = [f"{p['alone_cycles']['median']:.0f}"] + [
            f"{runs[s]['load_latency'][i]['cycles']['median']:.0f}" for s in sizes]
        lines.append(f"| {_size(p['bytes'])} | " + " | ".join(cells) + " |")
    return lines


def _size(n: int) -> str:
    return f"{n >> 20} MB" if n >= 1 << 20 else f"{n >> 10} KB"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cpu", type=int, default=1, help="the NF's CPU (default 1)")
    ap.add_argument("--frames", default=",".join(map(str, FRAME_BYTES)),
                    help="bytes of a frame a load (default: what calibrate measures)")
    ap.add_argument("--max-ws", default=f"{FRAMES_MAX_WS >> 20}M",
                    help="the largest table (K or M)")
    ap.add_argument("-o", "--out", type=Path, help="write the measurements here (JSON)")
    args = ap.parse_args()
    unit = {"K": 1 << 10, "M": 1 << 20}.get(args.max_ws[-1:].upper(), 1)
    max_ws = int(float(args.max_ws.rstrip("KMkm")) * unit)
    runs = {}
    for s in (int(x) for x in args.frames.split(",")):
        print(f"frames of {s} B a load ...", flush=True)
        runs[s] = frames_in_cache(s, max_ws, args.cpu)
    if args.out:
        args.out.write_text(json.dumps(runs, indent=1))
    print("\n".join(table(runs)))


if __name__ == "__main__":
    main()
