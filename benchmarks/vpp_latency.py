"""The table of the batching model's latency against the VPP histograms (Geissler et al.,
Sec. 5.3; docs/background/batching.md): the method as `nfvperf validate vpp` runs it beside
the paper's model and each of the method's two additions alone, on the packaged cross-connect
data.

    python benchmarks/vpp_latency.py

Prints Markdown: per variant, the offset, the spread of the per-rate differences it was taken
from, and how many loss-free rates are within each target. About half a minute (four variants,
17 rates each).
"""

from __future__ import annotations

from nfvperf.batching import latency, vpp
from nfvperf.batching.latency import TARGETS
from nfvperf.batching.histograms import read_histograms

VARIANTS = (
    ("this method (egress link, fitted line)", latency.Method()),
    ("the fitted line alone", latency.Method(link_gbps=None)),
    ("the egress link alone", latency.Method(means="table")),
    ("the paper's model (each size's own mean)", latency.Method(means="table", link_gbps=None)),
)


def main() -> None:
    config, hists = read_histograms(vpp.HISTOGRAMS)
    samples = vpp.samples()
    print("| variant | offset µs | differences µs | " + " | ".join(
        t.replace("_", " ") for t in TARGETS) + " |")
    print("|---|---|---|" + "---|" * len(TARGETS))
    for name, method in VARIANTS:
        d = latency.validate(config, hists, samples, method, loss=vpp.table3_loss())
        off, s = d["offset"], d["summary"]
        print(f"| {name} | {off['value_us']:.2f} | {off['spread_us'][0]:.2f}-"
              f"{off['spread_us'][1]:.2f} | " + " | ".join(
                  f"{s[t]['within']}/{s[t]['of']}" for t in TARGETS) + " |")


if __name__ == "__main__":
    main()
