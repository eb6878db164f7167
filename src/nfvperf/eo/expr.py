"""Arithmetic in EO arguments: ``30``, ``2M``, ``12 B``, ``ps-4``, ``(ps + 8) / 2``.

``K``, ``M`` and ``G`` after a number mean 2^10, 2^20 and 2^30, as the paper writes table sizes
(``1M = 2^20``, Sec. 3.1.3); a trailing ``B`` (bytes) is allowed and ignored. Names are variables
(``ps``, ``frame`` and the model's own ``params``), bound when the model is evaluated at a frame
size. A tiny recursive-descent parser: no ``eval``, so model files cannot run code.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Union

_SUFFIX = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30}
_TOKEN = re.compile(
    r"\s*(?:(?P<num>(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)(?P<suffix>[KMG]?)"
    r"(?:\s*B\b)?|(?P<name>[A-Za-z_][A-Za-z_0-9]*)|(?P<op>[-+*/(),]))"
)

Node = Union[float, str, tuple]
#: Functions an expression may call, e.g. ``max(0, ps - 56)`` for bytes that may not exist.
FUNCTIONS = {"max": max, "min": min}
_MAX_LENGTH = 200


class ExprError(ValueError):
    """An argument that is not a valid expression; the message says what was expected."""


@dataclass(frozen=True)
class Expr:
    """A parsed argument expression; ``text`` is how the user wrote it."""

    text: str
    node: Node

    @classmethod
    def parse(cls, value: object) -> Expr:
        """Parse a number or a string; raise :class:`ExprError` on anything else."""
        if isinstance(value, bool) or value is None:
            raise ExprError("a number or an expression such as ps-4")
        if isinstance(value, (int, float)):
            if not math.isfinite(value):
                raise ExprError("a finite number")
            return cls(str(value), float(value))
        if not isinstance(value, str):
            raise ExprError("a number or an expression such as ps-4")
        return cls(value.strip(), _Parser(value).parse())

    @property
    def variables(self) -> frozenset[str]:
        """The names the expression reads."""
        return frozenset(_names(self.node))

    @property
    def constant(self) -> bool:
        return not self.variables

    def evaluate(self, env: dict[str, float]) -> float:
        """The value with the variables of ``env``; a missing name raises ``KeyError``."""
        return _eval(self.node, env)

    def __str__(self) -> str:
        return self.text


def _names(node: Node):
    if isinstance(node, str):
        yield node
    elif isinstance(node, tuple):
        for child in node[2:] if node[0] == "call" else node[1:]:
            yield from _names(child)


def _eval(node: Node, env: dict[str, float]) -> float:
    if isinstance(node, float):
        return node
    if isinstance(node, str):
        return float(env[node])
    op, *args = node
    if op == "call":
        return FUNCTIONS[args[0]](*(_eval(arg, env) for arg in args[1:]))
    if op == "neg":
        return -_eval(args[0], env)
    left, right = _eval(args[0], env), _eval(args[1], env)
    if op == "+":
        return left + right
    if op == "-":
        return left - right
    if op == "*":
        return left * right
    if right == 0:
        raise ZeroDivisionError("division by zero")
    return left / right


class _Parser:
    """expr := term (('+'|'-') term)*; term := unary (('*'|'/') unary)*; unary := '-' unary | atom."""

    def __init__(self, text: str) -> None:
        if len(text) > _MAX_LENGTH:
            raise ExprError(f"an expression of at most {_MAX_LENGTH} characters")
        self.text = text
        self.tokens: list[tuple[str, object]] = []
        pos = 0
        while pos < len(text):
            if text[pos:].strip() == "":
                break
            m = _TOKEN.match(text, pos)
            if not m or m.end() == pos:
                raise ExprError(f"an expression of numbers, names and + - * / ( ) (at "
                                f"{text[pos:].strip()[:10]!r})")
            if m.group("num") is not None:
                number = float(m.group("num")) * _SUFFIX[m.group("suffix")]
                if not math.isfinite(number):
                    raise ExprError("a finite number")
                self.tokens.append(("num", number))
            elif m.group("name") is not None:
                self.tokens.append(("name", m.group("name")))
            else:
                self.tokens.append(("op", m.group("op")))
            pos = m.end()
        self.pos = 0

    def parse(self) -> Node:
        if not self.tokens:
            raise ExprError("a number or an expression such as ps-4")
        node = self._expr()
        if self.pos != len(self.tokens):
            raise ExprError(f"an operator before {self._show(self.tokens[self.pos])}")
        return node

    def _peek(self) -> tuple[str, object] | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def _expr(self) -> Node:
        node = self._term()
        while (tok := self._peek()) and tok in (("op", "+"), ("op", "-")):
            self.pos += 1
            node = (tok[1], node, self._term())
        return node

    def _term(self) -> Node:
        node = self._unary()
        while (tok := self._peek()) and tok in (("op", "*"), ("op", "/")):
            self.pos += 1
            node = (tok[1], node, self._unary())
        return node

    def _unary(self) -> Node:
        tok = self._peek()
        if tok == ("op", "-"):
            self.pos += 1
            return ("neg", self._unary())
        if tok == ("op", "+"):
            self.pos += 1
            return self._unary()
        return self._atom()

    def _atom(self) -> Node:
        tok = self._peek()
        if tok is None:
            raise ExprError("an operand at the end of the expression")
        self.pos += 1
        kind, value = tok
        if kind == "num":
            return value  # type: ignore[return-value]
        if kind == "name":
            if self._peek() == ("op", "("):
                return self._call(value)  # type: ignore[arg-type]
            return value  # type: ignore[return-value]
        if value == "(":
            node = self._expr()
            if self._peek() != ("op", ")"):
                raise ExprError("a closing parenthesis")
            self.pos += 1
            return node
        raise ExprError(f"an operand before {self._show(tok)}")

    def _call(self, name: str) -> Node:
        if name not in FUNCTIONS:
            raise ExprError(f"a function of {', '.join(sorted(FUNCTIONS))} (not {name!r})")
        self.pos += 1
        args = [self._expr()]
        while self._peek() == ("op", ","):
            self.pos += 1
            args.append(self._expr())
        if self._peek() != ("op", ")"):
            raise ExprError(f"a closing parenthesis after the arguments of {name}")
        self.pos += 1
        if len(args) < 2:
            raise ExprError(f"two or more arguments for {name}")
        return ("call", name, *args)

    @staticmethod
    def _show(tok: tuple[str, object]) -> str:
        kind, value = tok
        if kind == "num":
            return f"{value:g}"
        return repr(value)
