"""Int64 builtins: exact 64-bit results, overflow and division by zero as ArithmeticError, truncated division."""

from __future__ import annotations

import pytest

from participant.daml_lf.eval.errors import DamlArithmeticError
from participant.daml_lf.eval.values import INT64_MAX, INT64_MIN, Some

from .helpers import call


@pytest.mark.parametrize(
    ("name", "a", "b", "expected"),
    [
        ("ADD_INT64", 2, 3, 5),
        ("ADD_INT64", INT64_MAX, INT64_MIN, -1),
        ("SUB_INT64", INT64_MIN + 1, 1, INT64_MIN),
        ("MUL_INT64", -(2**31), 2**32, INT64_MIN),
        ("DIV_INT64", 7, 2, 3),
        ("DIV_INT64", -7, 2, -3),  # toward zero, not floor
        ("DIV_INT64", 7, -2, -3),
        ("DIV_INT64", INT64_MIN, 1, INT64_MIN),
        ("MOD_INT64", 7, 2, 1),
        ("MOD_INT64", -7, 2, -1),  # the sign of the dividend
        ("MOD_INT64", 7, -2, 1),
        ("MOD_INT64", -7, -2, -1),
        ("MOD_INT64", INT64_MIN, -1, 0),
        ("EXP_INT64", 2, 62, 2**62),
        ("EXP_INT64", -2, 63, INT64_MIN),
        ("EXP_INT64", 0, 0, 1),
        ("EXP_INT64", -1, INT64_MAX, -1),
        ("EXP_INT64", 1, INT64_MAX, 1),
        ("EXP_INT64", 0, 5, 0),
    ],
)
def test_results(name: str, a: int, b: int, expected: int) -> None:
    assert call(name, a, b) == expected


@pytest.mark.parametrize(
    ("name", "a", "b"),
    [
        ("ADD_INT64", INT64_MAX, 1),
        ("ADD_INT64", INT64_MIN, -1),
        ("SUB_INT64", INT64_MIN, 1),
        ("SUB_INT64", INT64_MAX, -1),
        ("MUL_INT64", 2**32, 2**31),
        ("MUL_INT64", INT64_MIN, -1),
        ("DIV_INT64", 1, 0),
        ("DIV_INT64", INT64_MIN, -1),
        ("MOD_INT64", 1, 0),
        ("EXP_INT64", 2, 63),
        ("EXP_INT64", 2, -1),
        ("EXP_INT64", 10, 2**62),  # refused without computing a huge power
        ("EXP_INT64", -2, 64),
    ],
)
def test_overflow_and_division_by_zero_are_arithmetic_errors(name: str, a: int, b: int) -> None:
    with pytest.raises(DamlArithmeticError) as caught:
        call(name, a, b)
    assert caught.value.builtin == name
    assert caught.value.message == f"ArithmeticError while evaluating ({name} {a} {b})."


def test_int64_to_text_and_back() -> None:
    assert call("INT64_TO_TEXT", INT64_MIN) == "-9223372036854775808"
    assert call("TEXT_TO_INT64", "+42").value == 42
    assert call("TEXT_TO_INT64", "-0042").value == -42
    assert call("TEXT_TO_INT64", "9223372036854775807").value == INT64_MAX
    assert isinstance(call("TEXT_TO_INT64", "1"), Some)


@pytest.mark.parametrize("text", ["", "+", "1.0", " 1", "1e3", "9223372036854775808", "١٢"])
def test_text_to_int64_refuses(text: str) -> None:
    assert call("TEXT_TO_INT64", text) is None
