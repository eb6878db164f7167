"""The layout's rules, checked: the simulator and the data plane are two back ends of one chain
model and neither imports the other; no two parts import each other; no file grows past about
400 lines without saying why at its top."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "nfvperf"
LIMIT = 420


def imports() -> dict[str, set[str]]:
    """Each module of nfvperf -> the nfvperf modules it imports, lazily or not."""
    out: dict[str, set[str]] = {}
    for path in SRC.rglob("*.py"):
        name = ".".join(path.relative_to(SRC.parent).with_suffix("").parts)
        name = name.removesuffix(".__init__")
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.add(node.module)
                found.update(f"{node.module}.{a.name}" for a in node.names)
            elif isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
        out[name] = {m for m in found if m.split(".")[0] == "nfvperf"}
    return out


def part(module: str) -> str:
    """The part a module belongs to: its subpackage, or the module itself at the top."""
    parts = module.split(".")
    return ".".join(parts[:2])


def test_neither_back_end_imports_the_other():
    for mod, deps in imports().items():
        if part(mod) == "nfvperf.sim":
            assert not {d for d in deps if part(d) == "nfvperf.dataplane"}, mod
        if part(mod) == "nfvperf.dataplane":
            assert not {d for d in deps if part(d) == "nfvperf.sim"}, mod


def test_no_two_parts_import_each_other():
    graph: dict[str, set[str]] = defaultdict(set)
    known = {part(m) for m in imports()}
    for mod, deps in imports().items():
        for d in deps:
            if part(d) != part(mod) and part(d) in known:
                graph[part(mod)].add(part(d))
    # the public API and the command line sit above every part
    top = {"nfvperf", "nfvperf.cli", "nfvperf.api", "nfvperf.__main__"}
    cycles = []

    def visit(node: str, path: list[str]) -> None:
        for nxt in graph[node] - top:
            if nxt in path:
                cycles.append(path[path.index(nxt):] + [nxt])
            elif len(path) < 12:
                visit(nxt, path + [nxt])

    for start in sorted(graph):
        if start not in top:
            visit(start, [start])
    assert not cycles, sorted({" -> ".join(c) for c in cycles})[:5]


def test_no_file_past_400_lines_without_its_reason():
    long = []
    for path in [*SRC.rglob("*.py"), *(ROOT / "dataplane").rglob("*.[ch]")]:
        text = path.read_text(encoding="utf-8")
        head = "\n".join(text.splitlines()[:15])
        if text.count("\n") > LIMIT and "past 400 lines" not in head:
            long.append(f"{path.relative_to(ROOT)}: {text.count(chr(10))} lines")
    assert not long, long
