from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nfvperf.eo.expr import Expr, ExprError


@pytest.mark.parametrize("text, value", [
    ("30", 30), ("2M", 2**21), ("1M", 2**20), ("64K", 2**16), ("16M", 2**24), ("12 B", 12),
    ("64B", 64), ("ps-4", 42), ("ps - 4", 42), ("(ps + 8) / 2", 27), ("-3", -3), ("2*ps+1", 93),
    ("max(0, ps-56)", 0), ("min(ps, 10, 20)", 10), ("frame", 64), ("1e3", 1000), ("0.5K", 512),
    (7, 7), (2.5, 2.5),
])
def test_values(text, value):
    """K and M are 2^10 and 2^20 as the paper writes table sizes (Sec. 3.1.3: '1M = 2^20')."""
    assert Expr.parse(text).evaluate({"ps": 46, "frame": 64}) == value


@pytest.mark.parametrize("text", ["", "ps-", "(ps", "ps ps", "2MB?", "3 4", "max(1)", "foo(2)",
                                  "max(2,3", "1,2", "*2", "1e400", "a" * 201, True, None, [1]])
def test_rejects(text):
    with pytest.raises(ExprError):
        Expr.parse(text)


def test_variables():
    assert Expr.parse("max(0, ps - frame) * n").variables == {"ps", "frame", "n"}
    assert Expr.parse("2M").constant


@given(st.text(max_size=40))
def test_any_text_parses_or_raises_expr_error(text):
    try:
        expr = Expr.parse(text)
    except ExprError:
        return
    try:
        expr.evaluate({name: 1.0 for name in expr.variables})
    except ZeroDivisionError:
        pass


@given(st.integers(0, 10**6), st.integers(0, 10**6))
def test_arithmetic_matches_python(a, b):
    assert Expr.parse(f"{a} + {b} * 2 - ({a} - {b})").evaluate({}) == a + b * 2 - (a - b)
