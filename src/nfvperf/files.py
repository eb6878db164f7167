"""Files users write: the base of their pydantic models, and their loading with pydantic's errors
turned into one-line InputErrors (file, line, field, expected, found)."""

from __future__ import annotations

import re
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from nfvperf.io import Document

M = TypeVar("M", bound=BaseModel)


class FileModel(BaseModel):
    """Base of every model of a file users write: unknown fields are errors, objects are frozen."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


def load_file(path, cls: type[M], what: str) -> tuple[Document, M]:
    """Read a YAML file users write and validate it as ``cls`` (``what``: the fields a mapping
    there must have, for the message when it is not one); the document comes back too, to
    locate later checks."""
    from pathlib import Path

    from nfvperf.io import load_yaml, read_text

    doc = load_yaml(read_text(Path(path)), str(path))
    if not isinstance(doc.data, dict):
        raise doc.error((), f"a mapping with {what}", "an empty file" if doc.data is None
                        else type(doc.data).__name__)
    return doc, validate(cls, doc)


def validate(cls: type[M], doc: Document, *, context: dict[str, Any] | None = None,
             root: tuple = ()) -> M:
    """Validate ``doc.data`` (or the part at ``root``) as ``cls``; raise the first error located."""
    data = doc.data
    for key in root:
        data = data[key]
    try:
        return cls.model_validate(data, context=context)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        path = root + tuple(p for p in err["loc"] if not _is_internal(p))
        raise doc.error(path, _expected(cls, err, path[len(root):]), _found(err)) from None


def _is_internal(part: object) -> bool:
    # pydantic adds tags such as 'function-before[...]' to locations of wrapped validators
    return isinstance(part, str) and ("[" in part or part.startswith("function-"))


def _found(err: dict[str, Any]) -> object:
    if err["type"] == "missing":
        return None
    value = err.get("input")
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return value


_MESSAGES = {
    "missing": "a value (the field is required)",
    "int_parsing": "an integer",
    "int_type": "an integer",
    "int_from_float": "an integer",
    "float_parsing": "a number",
    "float_type": "a number",
    "bool_parsing": "true or false",
    "bool_type": "true or false",
    "string_type": "a string",
    "dict_type": "a mapping",
    "model_type": "a mapping",
    "model_attributes_type": "a mapping",
    "list_type": "a list",
}


def _expected(cls: type[BaseModel], err: dict[str, Any], path: tuple) -> str:
    kind = err["type"]
    if kind == "extra_forbidden":
        known = _known_fields(cls, path[:-1])
        return "one of the fields " + ", ".join(known) if known else "no such field"
    if kind in _MESSAGES:
        return _MESSAGES[kind]
    if kind == "value_error":
        return str(err.get("ctx", {}).get("error", err["msg"]))
    if kind == "literal_error":
        return "one of " + err["ctx"]["expected"]
    if kind in ("greater_than", "greater_than_equal", "less_than", "less_than_equal"):
        sign = {"greater_than": ">", "greater_than_equal": "≥", "less_than": "<",
                "less_than_equal": "≤"}[kind]
        limit = next(iter(err["ctx"].values()))
        return f"a number {sign} {limit:g}" if isinstance(limit, (int, float)) else \
            f"a number {sign} {limit}"
    msg = re.sub(r"^Input should be ", "", err["msg"])
    return msg[0].lower() + msg[1:] if msg else kind


def _known_fields(cls: type[BaseModel], path: tuple) -> list[str]:
    model: Any = cls
    for part in path:
        if isinstance(part, int):
            continue
        fields = getattr(model, "model_fields", {})
        info = fields.get(part) or next((f for f in fields.values() if f.alias == part), None)
        if info is None:
            return []
        model = _model_of(info.annotation)
    fields = getattr(model, "model_fields", None)
    if not fields:
        return []
    return [info.alias or name for name, info in fields.items()]


def _model_of(annotation: Any) -> Any:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()):
        found = _model_of(arg)
        if found is not None:
            return found
    return None



def expected_of(cls: type[BaseModel], err: dict[str, Any]) -> str:
    """What a pydantic error of ``cls`` expected, in the words of a file's error."""
    return _expected(cls, err, tuple(err["loc"]))
