"""Sweep files (YAML): what to run at every point of a grid.

    run: batching                 # batching | estimate | plan
    fixed: {service: vpp}         # arguments every point gets
    grid:                         # every combination of these
      queue: [1024, 2048, 4096]
      beta: [64, 256]
      frame_bytes: [64, 512]
      rate_mbps: {from: 500, to: 10000, step: 500}

A grid value is a list or a range (``from``, ``to`` included, ``step``). Files (plans, NF
models, platform profiles, service-time tables) are named relative to the sweep file
(``run.sweep``); packaged names stay as they are.
"""

from __future__ import annotations

import itertools
import math
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from nfvperf.files import FileModel

RUNS = ("batching", "estimate", "plan")


class Range(FileModel):
    from_: float = Field(alias="from")
    to: float
    step: float = Field(gt=0)

    @model_validator(mode="after")
    def _ordered(self) -> Range:
        if self.to < self.from_:
            raise ValueError("to ≥ from")
        return self

    def values(self) -> list[float]:
        """from, from + step, ... up to to (included when a whole number of steps away)."""
        n = math.floor((self.to - self.from_) / self.step + 1e-9)
        vals = [self.from_ + i * self.step for i in range(n + 1)]
        return [int(v) if float(v).is_integer() else v for v in vals]


class SweepSpec(FileModel):
    name: str = "sweep"
    run: Literal["batching", "estimate", "plan"]
    fixed: dict[str, Any] = Field(default_factory=dict)
    grid: dict[str, Annotated[list[Any], Field(min_length=1)] | Range] = Field(min_length=1)

    def points(self) -> list[dict[str, Any]]:
        """Every combination of the grid's values, in order."""
        names = list(self.grid)
        values = [v.values() if isinstance(v, Range) else v for v in self.grid.values()]
        return [dict(zip(names, combo)) for combo in itertools.product(*values)]


def load_sweep(path: str | Path) -> SweepSpec:
    from nfvperf.sweep.runners import check
    from nfvperf.files import load_file

    doc, spec = load_file(path, SweepSpec, "run and grid")
    bad = check(spec)
    if bad is not None:
        raise doc.error(*bad)
    return spec
