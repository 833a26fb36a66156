"""Numeric builtins: scales carried by the values, banker's rounding once on the exact result, 38-digit bound."""

from __future__ import annotations

from decimal import Decimal

import pytest

from participant.daml_lf.eval.errors import DamlArithmeticError
from participant.daml_lf.eval.values import INT64_MAX, INT64_MIN, numeric_scale

from .helpers import call, n

MAX_10 = n("9999999999999999999999999999.9999999999")  # the largest Numeric 10


def same(actual: Decimal, expected: Decimal) -> bool:
    """Equal in value and in scale."""
    return actual == expected and numeric_scale(actual) == numeric_scale(expected)


def test_add_and_sub_keep_the_scale() -> None:
    assert same(call("ADD_NUMERIC", n("1.5"), n("2.25")), n("3.75"))
    assert same(call("SUB_NUMERIC", n("1.5"), n("2.25")), n("-0.75"))
    assert same(call("SUB_NUMERIC", n("1.5"), n("1.5")), n("0"))
    assert same(call("ADD_NUMERIC", MAX_10, n("-1")), n("9999999999999999999999999998.9999999999"))


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("ADD_NUMERIC", (MAX_10, n("0.0000000001"))),
        ("SUB_NUMERIC", (-MAX_10, n("0.0000000001"))),
        ("MUL_NUMERIC", (n("0"), MAX_10, n("2"))),
        ("DIV_NUMERIC", (n("0"), n("1"), n("0"))),  # division by zero
        ("DIV_NUMERIC", (n("0", 37), n("10", 0), n("1", 0))),  # 10 does not fit a Numeric 37
        ("INT64_TO_NUMERIC", (n("0", 20), INT64_MAX)),  # 19 + 20 digits
        ("NUMERIC_TO_INT64", (n("9223372036854775808", 0),)),
        ("CAST_NUMERIC", (n("0", 1), n("1.55"))),  # a digit lost
        ("CAST_NUMERIC", (n("0", 37), n("10"))),
        ("ROUND_NUMERIC", (11, n("1"))),  # more digits than the scale
        ("ROUND_NUMERIC", (-29, n("1"))),  # below scale - 38
        ("ROUND_NUMERIC", (-1, n("9" * 38, 0))),  # rounds up to 39 digits
    ],
)
def test_arithmetic_errors(name: str, args: tuple[object, ...]) -> None:
    with pytest.raises(DamlArithmeticError) as caught:
        call(name, *args)
    assert caught.value.message.startswith(f"ArithmeticError while evaluating ({name} ")


def test_arithmetic_error_message_prints_numerics_as_daml_does() -> None:
    with pytest.raises(DamlArithmeticError) as caught:
        call("ADD_NUMERIC", MAX_10, n("0.0000000001"))
    assert caught.value.message == (
        "ArithmeticError while evaluating (ADD_NUMERIC 9999999999999999999999999999.9999999999 0.0000000001)."
    )


@pytest.mark.parametrize(
    ("a", "b", "scale", "expected"),
    [
        ("1.25", "0.5", 2, "0.62"),  # 0.625: the tie goes to the even digit
        ("1.35", "0.5", 2, "0.68"),  # 0.675
        ("-1.25", "0.5", 2, "-0.62"),
        ("1.1", "1.1", 10, "1.21"),
        ("0.0000000001", "0.0000000001", 10, "0"),  # 1e-20 rounds to zero
        ("0.00000000015", "1", 10, "0.0000000002"),
    ],
)
def test_mul_rounds_half_to_even_to_the_witness_scale(a: str, b: str, scale: int, expected: str) -> None:
    assert same(call("MUL_NUMERIC", n("0", scale), n(a, 11), n(b, 11)), n(expected, scale))


@pytest.mark.parametrize(
    ("a", "b", "scale", "expected"),
    [
        ("5", "2", 0, "2"),  # 2.5 → 2
        ("7", "2", 0, "4"),  # 3.5 → 4
        ("-7", "2", 0, "-4"),
        ("1", "8", 2, "0.12"),  # 0.125
        ("3", "8", 2, "0.38"),  # 0.375
        ("1", "3", 10, "0.3333333333"),
        ("2", "3", 10, "0.6666666667"),
        ("1", "0.0000000003", 0, "3333333333"),
        ("12345678901234567890123456.7890123456", "0.0000000007", 0, "17636684144620811271604938270017637"),
    ],
)
def test_div_rounds_the_exact_quotient_once(a: str, b: str, scale: int, expected: str) -> None:
    assert same(call("DIV_NUMERIC", n("0", scale), n(a), n(b)), n(expected, scale))


def test_div_rounds_a_quotient_just_below_a_tie_down() -> None:
    # 3 / (2 + 10⁻³⁷) lies just below 1.5: rounded once, half to even, it is 1; a quotient first rounded to a
    # few digits (1.5) would round to 2.
    assert call("DIV_NUMERIC", n("0", 0), n("3", 0), n("2.0000000000000000000000000000000000001", 37)) == 1


@pytest.mark.parametrize(
    ("digits", "value", "expected"),
    [
        (2, "1.125", "1.12"),
        (2, "1.135", "1.14"),
        (0, "2.5", "2"),
        (0, "3.5", "4"),
        (0, "-2.5", "-2"),
        (-1, "15", "20"),
        (-1, "25", "20"),
        (10, "1.0000000001", "1.0000000001"),
    ],
)
def test_round_keeps_the_input_scale(digits: int, value: str, expected: str) -> None:
    assert same(call("ROUND_NUMERIC", digits, n(value)), n(expected))


def test_cast_and_shift() -> None:
    assert same(call("CAST_NUMERIC", n("0", 1), n("1.5")), n("1.5", 1))
    assert same(call("CAST_NUMERIC", n("0", 37), n("1.5")), n("1.5", 37))
    assert same(call("SHIFT_NUMERIC", n("0", 2), n("123", 0)), n("1.23", 2))
    assert same(call("SHIFT_NUMERIC", n("0", 0), n("1.23", 2)), n("123", 0))
    assert same(call("SHIFT_NUMERIC", n("0", 37), n("9" * 38, 0)), n("9." + "9" * 37, 37))


def test_int64_conversions() -> None:
    assert same(call("INT64_TO_NUMERIC", n("0"), INT64_MAX), n("9223372036854775807"))
    assert same(call("INT64_TO_NUMERIC", n("0", 19), INT64_MIN), n("-9223372036854775808", 19))
    assert call("NUMERIC_TO_INT64", n("2.7")) == 2
    assert call("NUMERIC_TO_INT64", n("-2.7")) == -2
    assert call("NUMERIC_TO_INT64", n("-9223372036854775808", 0)) == INT64_MIN


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (n("1.5"), "1.5"),
        (n("100"), "100.0"),
        (n("0"), "0.0"),
        (n("-0.0000000001"), "-0.0000000001"),
        (n("-1.25", 2), "-1.25"),
        (n("9" * 38, 0), "9" * 38 + ".0"),
        (n("0." + "1" * 37, 37), "0." + "1" * 37),
        (n("12345678901234567890123456789.123456789", 9), "12345678901234567890123456789.123456789"),
    ],
)
def test_numeric_to_text(value: Decimal, text: str) -> None:
    assert call("NUMERIC_TO_TEXT", value) == text


def test_negative_zero_prints_as_zero() -> None:
    product = call("MUL_NUMERIC", n("0"), n("-1"), n("0"))
    assert call("NUMERIC_TO_TEXT", product) == "0.0"


@pytest.mark.parametrize(
    ("text", "scale", "expected"),
    [
        ("1.50", 2, "1.50"),
        ("001.500", 1, "1.5"),
        ("+3", 0, "3"),
        ("-0", 3, "0"),
        ("0.0000", 0, "0"),
        ("9" * 28 + ".5", 10, "9" * 28 + ".5"),
        ("1" + "0" * 37, 0, "1" + "0" * 37),
    ],
)
def test_text_to_numeric(text: str, scale: int, expected: str) -> None:
    result = call("TEXT_TO_NUMERIC", n("0", scale), text)
    assert same(result.value, n(expected, scale))
    assert not result.value.is_signed()


@pytest.mark.parametrize(
    ("text", "scale"),
    [
        ("1.55", 1),  # precision lost
        ("9" * 29, 10),  # 29 integral digits at scale 10
        ("1.", 2),
        (".5", 2),
        ("1e5", 2),
        ("1,5", 2),
        ("", 2),
        (" 1", 2),
        ("١", 2),  # an Arabic-Indic digit is not a digit here
    ],
)
def test_text_to_numeric_refuses(text: str, scale: int) -> None:
    assert call("TEXT_TO_NUMERIC", n("0", scale), text) is None
