"""Reading the YAML files users write (with the line of every value) and writing outputs atomically."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nfvperf.errors import InputError

Path_ = tuple[str | int, ...]

_MAX_DEPTH = 64
_MAX_NODES = 200_000


@dataclass
class Document:
    """A YAML document as plain Python data, with where each value sits in the file."""

    data: Any
    file: str
    lines: dict[Path_, int] = field(default_factory=dict)
    #: For a document merged from several files: the file of each path that is not ``file``.
    files: dict[Path_, str] = field(default_factory=dict)

    def _known(self, path: Path_) -> Path_ | None:
        path = tuple(path)
        while path and path not in self.lines:
            path = path[:-1]
        return path if path in self.lines else None

    def line(self, path: Path_) -> int | None:
        """The 1-based line of the value at ``path``, or of its nearest known parent."""
        known = self._known(path)
        return None if known is None else self.lines[known]

    def error(self, path: Path_, expected: str, found: object = ...) -> InputError:
        """An :class:`InputError` located at ``path`` of this document."""
        kwargs = {} if found is ... else {"found": found}
        known = self._known(path)
        file = self.files.get(known, self.file) if known is not None else self.file
        return InputError(expected, file=file, line=self.line(path),
                          field=format_path(path) or None, **kwargs)

    def merged_onto(self, base: Document) -> Document:
        """This document's mappings laid over ``base`` (values here win, mappings merge), with
        each value still located in the file it came from."""
        lines = dict(base.lines)
        files = {path: base.files.get(path, base.file) for path in base.lines}
        lines.update(self.lines)
        for path in self.lines:
            files.pop(path, None)
        return Document(_merge(base.data, self.data), self.file, lines, files)


def _merge(base: Any, over: Any) -> Any:
    if isinstance(base, dict) and isinstance(over, dict):
        out = dict(base)
        for key, value in over.items():
            out[key] = _merge(base.get(key), value) if key in base else value
        return out
    return over


def format_path(path: Path_) -> str:
    """``("operations", 2, "max")`` -> ``operations[2].max``."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def read_text(path: str | os.PathLike[str]) -> str:
    """Read a UTF-8 text file, turning every OS error into an :class:`InputError`."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError("an existing file", str(path), file=str(path)) from None
    except IsADirectoryError:
        raise InputError("a file, not a directory", str(path), file=str(path)) from None
    except UnicodeDecodeError as exc:
        raise InputError("UTF-8 text", f"byte {exc.start} undecodable", file=str(path)) from None
    except OSError as exc:
        raise InputError("a readable file", exc.strerror or str(exc), file=str(path)) from None
    except ValueError:          # a name no file can have (a NUL byte in it)
        shown = str(path).replace("\x00", "\\0")
        raise InputError("a file name without NUL bytes", shown, file=shown) from None


def load_yaml(text: str, file: str) -> Document:
    """Parse one YAML document, recording the line of every mapping value and list item.

    Duplicate keys, non-string keys and documents nested or aliased beyond reason are errors:
    a user file that means two things should not silently mean one of them.
    """
    import yaml

    loader = None
    try:
        loader = yaml.SafeLoader(text)
        node = loader.get_single_node()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = (exc.problem or exc.context or "valid YAML").strip()
        raise InputError("valid YAML", problem, file=file,
                         line=mark.line + 1 if mark else None) from None
    except yaml.YAMLError as exc:
        raise InputError("valid YAML", str(exc).splitlines()[0], file=file) from None
    finally:
        if loader is not None:
            loader.dispose()
    doc = Document(data=None, file=file)
    if node is None:
        return doc
    budget = [_MAX_NODES]
    doc.data = _build(node, (), doc, loader, budget)
    return doc


def _build(node: Any, path: Path_, doc: Document, loader: Any, budget: list[int]) -> Any:
    import yaml

    budget[0] -= 1
    if budget[0] < 0:
        raise doc.error(path, f"a document of at most {_MAX_NODES} values", "more")
    if len(path) > _MAX_DEPTH:
        raise doc.error(path, f"nesting at most {_MAX_DEPTH} deep", "deeper")
    doc.lines.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        out: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise doc.error(path, "a plain key", "a list or mapping as key")
            key = loader.construct_object(key_node)
            if not isinstance(key, str):
                key = str(key) if isinstance(key, (int, float, bool)) or key is None else key
            if key in out:
                raise InputError("each key once", key, file=doc.file,
                                 line=key_node.start_mark.line + 1,
                                 field=format_path(path + (key,)))
            out[key] = _build(value_node, path + (key,), doc, loader, budget)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_build(item, path + (i,), doc, loader, budget) for i, item in enumerate(node.value)]
    try:
        return loader.construct_object(node)
    except yaml.YAMLError as exc:
        raise doc.error(path, "a valid YAML value", str(exc).splitlines()[0]) from None


def relative_file(ref: str, base: Path, suffixes=(".yaml", ".yml", ".csv")) -> str:
    """``ref`` as the reader of a file in ``base`` means it: a file beside that one when it
    names one (by its suffix), else as it is (a packaged name)."""
    path = base / ref
    return str(path) if ref.endswith(suffixes) and path.is_file() else ref


def write_atomic(path: str | os.PathLike[str], content: str | bytes) -> None:
    """Write text or bytes to ``path`` through a temporary file and a rename: all or nothing."""
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent or ".")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(content.encode("utf-8") if isinstance(content, str) else content)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
