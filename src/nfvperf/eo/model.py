"""NF model files: an NF as lists of EOs, one list per packet path (Baldi & Sapio, Sec. 2-3).

A file has ``name``, ``description``, optional ``source`` and ``params``, and either
``operations:`` (one path) or ``paths:`` (several, each with its own ``operations`` and an optional
``weight``: the share of packets that take it, a number or an expression over the params, such
as ``1 - hit``). Each operation is a string in the paper's notation,
``"ht_lookup(1, 12, 2M, 0)"``, or a mapping with named parameters,
``{op: ht_lookup, N: 1, HE: 12, max: 2M, p: 0}``. Arguments may use ``ps`` (the Ethernet payload,
frame - 18 B), ``frame`` and the model's ``params``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, WithJsonSchema

from nfvperf import units
from nfvperf.eo.expr import Expr, ExprError
from nfvperf.eo.operations import KIND_EXPECTED, OperationSpec, check_value, lookup, names
from nfvperf.errors import InputError
from nfvperf.io import Document, format_path
from nfvperf.files import FileModel, validate

#: Variables every model may use; ``params`` add more.
BUILTIN_VARIABLES = {"ps": "Ethernet payload size: frame - 18 B", "frame": "Ethernet frame size"}
#: The path name of a model written with a plain ``operations:`` list.
SINGLE_PATH = "main"
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z_0-9]*$")
_NOTATION = re.compile(r"^\s*([A-Za-z_/][A-Za-z_/0-9]*)\s*\((.*)\)\s*$", re.S)

_ONE = Expr.parse(1)
_ARG_SCHEMA = {"anyOf": [{"type": "number"}, {"type": "string"}]}
#: An EO as written: notation string or mapping; checked by this module, not by pydantic.
Operation = Annotated[Any, WithJsonSchema({"anyOf": [
    {"type": "string", "pattern": r"^\s*[A-Za-z_/]+\s*\(.*\)\s*$",
     "examples": ["ht_lookup(1, 12, 2M, 0)", "I/O_mem(30, ps)"]},
    {"type": "object", "required": ["op"],
     "properties": {"op": {"type": "string", "enum": names()}},
     "additionalProperties": _ARG_SCHEMA},
]})]


class ParamDecl(FileModel):
    default: Annotated[Any, WithJsonSchema(_ARG_SCHEMA)] = Field(
        description="value used unless the command line sets another")
    doc: str = ""


class PathDecl(FileModel):
    description: str = ""
    weight: Annotated[Any, WithJsonSchema(_ARG_SCHEMA)] = Field(
        1.0, description="relative share of packets on this path: a number ≥ 0 or an expression "
                         "over the params (e.g. 1 - hit); the weights must not all be 0")
    operations: list[Operation] = Field(min_length=1)


class NFModelFile(FileModel):
    """The raw shape of a model file (the JSON Schema of ``nfvperf schema model``)."""

    name: str = Field(min_length=1)
    description: str
    source: str | None = None
    params: dict[str, ParamDecl] = Field(default_factory=dict)
    access: Literal["bulk", "serial"] = Field(
        "bulk", description="how the table EOs' accesses of a burst overlap, unless an EO says "
        "(access=): bulk (in flight together: bulk lookups, or packets that do not depend on "
        "one another) or serial (each waits for the last)")
    operations: list[Operation] | None = Field(None, min_length=1)
    paths: dict[str, PathDecl] | None = Field(None, min_length=1)


@dataclass(frozen=True)
class OperationLine:
    """One EO of a model with its arguments as written."""

    spec: OperationSpec
    args: dict[str, Expr]
    file: str | None = None
    line: int | None = None
    field: str = ""
    #: how a table EO's accesses overlap (``bulk``/``serial``: nfvperf.eo.memory); None: the
    #: model's ``access``
    access: str | None = None
    #: distinct keys the traffic looks up in a table EO's table (None: every entry)
    keys: Expr | None = None

    @property
    def text(self) -> str:
        """The EO in the paper's notation: ``ht_lookup(1, 12, 2M, 0)``, with its options."""
        args = [self.args[p.name].text for p in self.spec.params]
        args += [f"{k}={v}" for k, v in (("access", self.access),
                                         ("keys", self.keys and self.keys.text)) if v]
        return f"{self.spec.name}({', '.join(args)})"

    def evaluate(self, env: dict[str, float], frame_bytes: int) -> dict[str, float]:
        """The argument values at a frame size; InputError when one is out of its range."""
        values = {}
        for param in self.spec.params:
            expr = self.args[param.name]
            try:
                value = expr.evaluate(env)
            except ZeroDivisionError:
                raise self._error(param.name, "an expression that can be evaluated",
                                  f"{expr.text} (division by zero at a {frame_bytes} B frame)")
            if not check_value(param.kind, value):
                shown: object = (int(value) if value.is_integer() else value) if expr.constant \
                    else f"{value:g} ({expr.text} at a {frame_bytes} B frame)"
                raise self._error(param.name, KIND_EXPECTED[param.kind], shown)
            values[param.name] = value
        if self.keys is not None:
            try:
                keys = self.keys.evaluate(env)
            except ZeroDivisionError:
                keys = -1.0
            if not keys >= 1:
                raise self._error("keys", "a number of keys ≥ 1",
                                  f"{keys:g} ({self.keys.text} at a {frame_bytes} B frame)")
            values["keys"] = keys
        return values

    def _error(self, name: str, expected: str, found: object) -> InputError:
        return InputError(expected, found, file=self.file, line=self.line,
                          field=f"{self.field}.{name}" if self.field else name)


@dataclass(frozen=True)
class NFPath:
    name: str
    operations: tuple[OperationLine, ...]
    weight: Expr = _ONE
    description: str = ""


@dataclass(frozen=True)
class NFModel:
    """A loaded, checked NF model."""

    name: str
    description: str
    paths: tuple[NFPath, ...]
    source: str | None = None
    params: dict[str, float] = field(default_factory=dict)
    param_docs: dict[str, str] = field(default_factory=dict)
    file: str | None = None
    access: str = "bulk"

    def access_of(self, op: OperationLine) -> str:
        """How the accesses of ``op`` overlap: its own ``access=``, else the model's."""
        return op.access or self.access

    def weights(self, env: dict[str, float]) -> list[float]:
        """The paths' weights with the params of ``env``: each ≥ 0, not all 0."""
        values = [p.weight.evaluate(env) for p in self.paths]
        for path, w in zip(self.paths, values):
            if not w >= 0:
                raise InputError(f"a weight ≥ 0 for path {path.name}",
                                 f"{w:g} ({path.weight.text})", file=self.file,
                                 field=f"paths.{path.name}.weight")
        if sum(values) <= 0:
            raise InputError("path weights that are not all 0", 0, file=self.file,
                             field=f"paths.{self.paths[0].name}.weight")
        return values

    def environment(self, frame_bytes: int, overrides: dict[str, float] | None = None
                    ) -> dict[str, float]:
        """The variables at a frame size: ``ps``, ``frame`` and the params (with overrides)."""
        overrides = overrides or {}
        unknown = sorted(set(overrides) - set(self.params))
        if unknown:
            known = ", ".join(sorted(self.params)) or "none"
            raise InputError(f"a parameter of model {self.name} ({known})", unknown[0],
                             field="params")
        env = {**self.params, **overrides}
        env.update(ps=float(units.payload_bytes(frame_bytes)), frame=float(frame_bytes))
        return env


def _weight(value: Any, where: tuple, doc: Document, params: set[str]) -> Expr:
    try:
        expr = Expr.parse(value)
    except ExprError as exc:
        raise doc.error(where, str(exc), value) from None
    unknown = sorted(expr.variables - params)
    if unknown:
        raise doc.error(where, f"an expression over the params ({', '.join(sorted(params))})"
                        if params else "a number (the model has no params)", unknown[0])
    return expr


def load_nf(ref: str | Path) -> NFModel:
    """Load an NF model by packaged reference (``l2fwd``, ``bng@paper``; see ``nfvperf.nfs``) or
    path; raise :class:`InputError` when it is not valid.

    Every EO is checked at load: its name, its arguments (count, names, syntax, variables) and
    their ranges at the smallest frame (64 B) with the default params.
    """
    from nfvperf import nfs
    from nfvperf.eo.platform import resolve_ref
    from nfvperf.io import read_text

    packaged = nfs.model_file(str(ref)) if not Path(str(ref)).is_file() else None
    if packaged is not None:
        rel = packaged.relative_to(nfs.MODELS_DIR).as_posix()
        return parse_nf(read_text(packaged), f"nfvperf:nfs/{rel}")
    path, label = resolve_ref(ref, nfs.MODELS_DIR, nfs.packaged_models(), "model")
    return parse_nf(read_text(path), label)


def parse_nf(text: str, file: str = "<model>") -> NFModel:
    """Build an :class:`NFModel` from the text of a model file."""
    from nfvperf.io import load_yaml

    doc = load_yaml(text, file)
    if not isinstance(doc.data, dict):
        found = "an empty file" if doc.data is None else _kind(doc.data)
        raise doc.error((), "a mapping with name, description and operations or paths", found)
    raw = validate(NFModelFile, doc)
    if (raw.operations is None) == (raw.paths is None):
        raise doc.error((), "either 'operations' or 'paths'",
                        "neither" if raw.operations is None else "both")
    params, docs = _params(raw, doc)
    variables = set(BUILTIN_VARIABLES) | set(params)
    if raw.operations is not None:
        paths = (NFPath(SINGLE_PATH, _operations(raw.operations, ("operations",), doc, variables)),)
    else:
        paths = tuple(
            NFPath(name, _operations(p.operations, ("paths", name, "operations"), doc, variables),
                   _weight(p.weight, ("paths", name, "weight"), doc, set(params)),
                   p.description)
            for name, p in raw.paths.items()
        )
    model = NFModel(raw.name, raw.description.strip(), paths, raw.source, params, docs, file,
                    raw.access)
    env = model.environment(units.MIN_FRAME_BYTES)
    for path in model.paths:
        for op in path.operations:
            op.evaluate(env, units.MIN_FRAME_BYTES)
    try:
        model.weights(env)
    except InputError as exc:
        raise doc.error(tuple(exc.field.split(".")), exc.expected, exc.found) from None
    return model


def _kind(value: Any) -> str:
    if isinstance(value, (dict, list, str)):
        return {dict: "a mapping", list: "a list", str: "a string"}[type(value)]
    return value


def _params(raw: NFModelFile, doc: Document) -> tuple[dict[str, float], dict[str, str]]:
    values, docs = {}, {}
    for name, decl in raw.params.items():
        where = ("params", name)
        if not _IDENT.match(name) or name in BUILTIN_VARIABLES:
            raise doc.error(where, "a parameter name (letters, digits, _) other than ps, frame",
                            name)
        try:
            expr = Expr.parse(decl.default)
            if not expr.constant:
                raise ExprError("a constant default")
            values[name] = expr.evaluate({})
        except ExprError as exc:
            raise doc.error(where + ("default",), str(exc), decl.default) from None
        docs[name] = decl.doc
    return values, docs


def _operations(items: list[Operation], where: tuple, doc: Document, variables: set[str]
                ) -> tuple[OperationLine, ...]:
    return tuple(_operation(item, where + (i,), doc, variables) for i, item in enumerate(items))


def _operation(item: Operation, where: tuple, doc: Document, variables: set[str]) -> OperationLine:
    if not isinstance(item, (str, dict)):
        raise doc.error(where, "an EO as a string such as \"parse(6)\" or a mapping with 'op'",
                        _kind(item))
    if isinstance(item, str):
        m = _NOTATION.match(item)
        if not m:
            raise doc.error(where, "an EO such as \"ht_lookup(1, 12, 2M, 0)\"", item)
        name, args = m.group(1), _split_args(m.group(2))
        spec = _spec(name, where, doc)
        options = dict(_option(a, spec, where, doc) for a in args if _OPTION.match(a))
        args = [a for a in args if not _OPTION.match(a)]
        if len(args) != len(spec.params):
            raise doc.error(where, f"{len(spec.params)} argument(s) for {spec.name}"
                            f"({', '.join(p.name for p in spec.params)})", item)
        raw_args = dict(zip((p.name for p in spec.params), args))
    else:
        if "op" not in item:
            raise doc.error(where, "a mapping with 'op' naming the EO", "no 'op'")
        spec = _spec(item["op"], where + ("op",), doc)
        raw_args = {k: v for k, v in item.items() if k != "op" and k not in OPTIONS}
        options = dict(_option(f"{k}={v}", spec, where + (k,), doc)
                       for k, v in item.items() if k in OPTIONS)
        wanted = [p.name for p in spec.params]
        for key in raw_args:
            if key not in wanted:
                raise doc.error(where + (key,), f"a parameter of {spec.name} ({', '.join(wanted)})",
                                key)
        missing = [name for name in wanted if name not in raw_args]
        if missing:
            raise doc.error(where, f"parameter {missing[0]} of {spec.name}", None)
    exprs = {p.name: _expr(raw_args[p.name], where if isinstance(item, str) else
                           where + (p.name,), f"{spec.name} argument {p.name}", doc, variables)
             for p in spec.params}
    keys = options.get("keys")
    if keys is not None:
        keys = _expr(keys, where, f"{spec.name} option keys", doc, variables)
    return OperationLine(spec, exprs, doc.file, doc.line(where), format_path(where),
                         options.get("access"), keys)


def _expr(value: Any, at: tuple, what: str, doc: Document, variables: set[str]) -> Expr:
    """An EO's argument or option as an expression over the model's variables."""
    try:
        expr = Expr.parse(value)
    except ExprError as exc:
        raise doc.error(at, f"{exc} in {what}", value) from None
    unknown = sorted(expr.variables - variables)
    if unknown:
        raise doc.error(at, f"a known variable ({', '.join(sorted(variables))})", unknown[0])
    return expr


#: options of the EOs on tables, after their arguments: ``ht_lookup(1, 12, 2M, 0, keys=hosts,
#: access=serial)`` (nfvperf.eo.memory)
OPTIONS = ("access", "keys")
_OPTION = re.compile(r"^\s*([A-Za-z_]+)\s*=(?!=)\s*(.*)$", re.S)


def _option(text: str, spec: OperationSpec, where: tuple, doc: Document) -> tuple[str, str]:
    from nfvperf.eo.memory import ACCESS_MODES, TABLE_EOS

    key, value = _OPTION.match(text).groups()
    if spec.name not in TABLE_EOS:
        raise doc.error(where, f"no options for {spec.name} (only the table EOs take "
                        f"{', '.join(OPTIONS)}: {', '.join(TABLE_EOS)})", text)
    if key not in OPTIONS:
        raise doc.error(where, f"an option of {spec.name} ({', '.join(OPTIONS)})", key)
    value = str(value).strip()
    if key == "access" and value not in ACCESS_MODES:
        raise doc.error(where, f"access={'|'.join(ACCESS_MODES)}", value)
    return key, value


def _spec(name: object, where: tuple, doc: Document) -> OperationSpec:
    spec = lookup(name) if isinstance(name, str) else None
    if spec is None:
        raise doc.error(where, f"an EO of the catalogue ({', '.join(names())})", name)
    return spec


def _split_args(text: str) -> list[str]:
    if not text.strip():
        return []
    args, depth, current = [], 0, ""
    for ch in text:
        if ch == "," and depth == 0:
            args.append(current.strip())
            current = ""
            continue
        depth += ch == "("
        depth -= ch == ")"
        current += ch
    args.append(current.strip())
    return args
