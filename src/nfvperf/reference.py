"""The reference pages of the documentation, written from the code itself: the command line from
the Typer app, the file schemas from the pydantic models behind ``nfvperf schema``, each
command's JSON from its type (``OUTPUTS``), the API from the docstrings of what ``import
nfvperf`` exports. The docs' Sphinx extension calls these at every build, so a reference page
cannot drift from the code.

Each function returns Markdown (MyST). A command's heading is its call (``nfvperf estimate``:
anchor ``#nfvperf-estimate``); a schema's objects carry explicit anchors
(``schema-chain-service``, ``schema-output-dataplane-run-pernf``).
"""

from __future__ import annotations

import functools
import json
from typing import Any

#: the file kinds of ``nfvperf schema``, in the order the reference lists them
SCHEMA_KINDS = ("model", "platform", "chain", "sim", "plan")


def _cell(text: Any) -> str:
    """A value made safe for one cell of a Markdown table."""
    return " ".join(str(text).split()).replace("|", "\\|")


def cli_markdown() -> str:
    """Every command of ``nfvperf``: what it does, its usage, arguments and options, as
    Typer's own documentation writer (``typer ... utils docs``) puts them."""
    import typer
    from typer.cli import get_docs_for_click

    from nfvperf.cli import app

    root = typer.main.get_command(app)
    ctx = typer.Context(root, info_name="nfvperf")
    return get_docs_for_click(obj=root, ctx=ctx, indent=1, name="nfvperf").strip() + "\n"


def _type_of(prop: dict[str, Any], kind: str) -> str:
    if "$ref" in prop:
        name = prop["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#schema-{kind}-{name.lower()})"
    if "enum" in prop:
        return " \\| ".join(f"`{json.dumps(v)}`" for v in prop["enum"])
    if "const" in prop:
        return f"`{json.dumps(prop['const'])}`"
    for key in ("anyOf", "oneOf", "allOf"):
        if key in prop:
            return " \\| ".join(_type_of(p, kind) for p in prop[key])
    t = prop.get("type", "any")
    if t == "array":
        return f"list of {_type_of(prop.get('items', {}), kind)}"
    if t == "object" and isinstance(prop.get("additionalProperties"), dict):
        return f"map to {_type_of(prop['additionalProperties'], kind)}"
    return t


def _object_table(obj: dict[str, Any], kind: str) -> list[str]:
    props = obj.get("properties", {})
    if not props:
        return []
    required = set(obj.get("required", ()))
    rows = ["| field | type | required | default | what |", "|---|---|---|---|---|"]
    for name, prop in props.items():
        default = f"`{json.dumps(prop['default'])}`" if "default" in prop else ""
        rows.append(f"| `{name}` | {_type_of(prop, kind)} | {'yes' if name in required else ''}"
                    f" | {_cell(default)} | {_cell(prop.get('description', ''))} |")
    return [*rows, ""]


def _sections(schema: dict[str, Any], kind: str, level: str = "###") -> list[str]:
    """The tables of a JSON Schema's top object and of each object it defines."""
    defs = schema.get("$defs", {})
    top = schema.get("anyOf", [schema])[0] if "properties" not in schema else schema
    if "$ref" in top:                           # a profile: full, or partial with a base
        top = defs.get(top["$ref"].rsplit("/", 1)[-1], top)
    out = []
    if schema.get("description") or top.get("description"):
        out += [(schema.get("description") or top["description"]).strip(), ""]
    out += _object_table(top, kind)
    for name, sub in defs.items():
        table = _object_table(sub, kind)
        if not table and "enum" not in sub:
            continue
        out += [f"(schema-{kind}-{name.lower()})=", f"{level} `{name}`", ""]
        if sub.get("description"):
            out += [sub["description"].strip(), ""]
        if "enum" in sub:
            out += ["One of " + ", ".join(f"`{json.dumps(v)}`" for v in sub["enum"]) + ".", ""]
        out += table
    return out


def schema_markdown() -> str:
    """Each file kind's fields, from the JSON Schema ``nfvperf schema KIND`` prints."""
    from nfvperf.api import json_schema

    out = []
    for kind in SCHEMA_KINDS:
        out += [f"(schema-{kind})=", f"## `{kind}` files", "",
                f"`nfvperf schema {kind}` prints the whole JSON Schema.", ""]
        out += _sections(json_schema(kind), kind)
    return "\n".join(out)


#: (the commands, the type their ``--format json`` prints, what wraps it): the outputs whose
#: contract is a type; tests validate each command's JSON with ``output_type``, so the type
#: the reference shows is the one tested
OUTPUTS = (
    ("nfvperf estimate", "nfvperf.eo.estimate:EstimateRecord", "a list of"),
    ("nfvperf explain", "nfvperf.eo.views:ExplainRow", "a list of"),
    ("nfvperf demo", "nfvperf.eo.reproduction:DemoReport", ""),
    ("nfvperf list models", "nfvperf.api:ModelEntry", "a list of"),
    ("nfvperf list platforms", "nfvperf.api:PlatformEntry", "a list of"),
    ("nfvperf list eos", "nfvperf.api:EOEntry", "a list of"),
    ("nfvperf batching", "nfvperf.batching.model:BatchingRecord", ""),
    ("nfvperf simulate", "nfvperf.sim.batch_queue:SimulationRecord", ""),
    ("nfvperf fit", "nfvperf.batching.fit:FitRow", "a list of"),
    ("nfvperf doctor", "nfvperf.dataplane.build:DoctorRow", "a list of"),
    ("nfvperf chain simulate, nfvperf chain run", "nfvperf.chain.result:ChainResult", ""),
    ("nfvperf dataplane run", "nfvperf.dataplane.report:RunReport", ""),
    ("nfvperf dataplane sweep", "nfvperf.dataplane.report:SweepRow", "a list of"),
    ("nfvperf dataplane replay", "nfvperf.dataplane.report:ReplayReport", ""),
    ("nfvperf chain attach", "nfvperf.dataplane.report:AttachReport", ""),
    ("nfvperf calibrate", "nfvperf.calibrate.profile:CalibrationReport", ""),
    ("nfvperf plan", "nfvperf.plan.result:PlanResult", ""),
    ("nfvperf sweep", "nfvperf.sweep.run:SweepSummary", ""),
    ("nfvperf chain validate", "nfvperf.validation.chain_json:ChainValidation", ""),
    ("nfvperf validate dataplane", "nfvperf.validation.dataplane_json:ValidationRow",
     "a list of"),
    ("nfvperf validate colocation", "nfvperf.validation.colocation_json:ColocationRow",
     "a list of"),
    ("nfvperf validate vpp", "nfvperf.batching.latency_json:VppValidation", ""),
)


def output_kind(commands: str) -> str:
    """The name of an ``OUTPUTS`` entry's fragment: its first command less ``nfvperf``."""
    return commands.split(",")[0].split(" ", 1)[1].strip().replace(" ", "-")


def _type(where: str):
    import importlib

    module, name = where.split(":")
    return getattr(importlib.import_module(module), name)


@functools.cache
def output_type(command: str):
    """A pydantic TypeAdapter of what ``command`` (``nfvperf plan``) prints with ``--format
    json``, from its ``OUTPUTS`` entry: ``output_type(c).validate_python(data)`` fails on a
    field missing, unknown or of another type."""
    from pydantic import TypeAdapter

    for commands, where, wrap in OUTPUTS:
        if command in (c.strip() for c in commands.split(",")):
            return TypeAdapter(list[_type(where)] if wrap else _type(where))
    raise KeyError(f"{command}: not in reference.OUTPUTS")


def output_fragments() -> dict[str, str]:
    """For each entry of ``OUTPUTS``, its JSON field by field, from its type: the fragment
    ``reference/_gen/output-KIND.md`` that the outputs page includes under the command."""
    from pydantic import TypeAdapter

    out = {}
    for commands, where, wrap in OUTPUTS:
        name = where.split(":")[1]
        schema = TypeAdapter(_type(where)).json_schema()
        kind = output_kind(commands)
        lines = [f"The JSON is {wrap} `{name}`:", ""] if wrap else []
        out[kind] = "\n".join(lines + _sections(schema, f"output-{kind}"))
    return out


def api_markdown() -> str:
    """The public API (what ``import nfvperf`` exports), from the docstrings, by autodoc."""
    import importlib
    import inspect

    from nfvperf import _EXPORTS, _MODULES

    out = []
    for name in sorted(_EXPORTS, key=str.lower):
        module = _EXPORTS[name]
        if name in _MODULES:
            target, directive = module, "automodule"
        else:
            obj = getattr(importlib.import_module(module), name)
            directive = "autoclass" if inspect.isclass(obj) else "autofunction"
            target = f"{module}.{name}"
        out += [f"## `nfvperf.{name}`", "", "```{eval-rst}", f".. {directive}:: {target}"]
        if directive == "autoclass":
            out += ["   :members:"]
        out += ["```", ""]
    return "\n".join(out)
