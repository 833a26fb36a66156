"""BigNumeric builtins (LF 2.dev): normalised decimals, scale and precision, division with a rounding mode."""

from __future__ import annotations

from decimal import Decimal

import pytest

from participant.daml_lf.eval.errors import DamlArithmeticError
from participant.daml_lf.eval.numeric import ROUNDING_MODES

from .helpers import call, n

HALF_EVEN = 6
UNNECESSARY = 7


def big(text: str) -> Decimal:
    return call("NUMERIC_TO_BIGNUMERIC", Decimal(text))


def test_scale_precision_and_text() -> None:
    assert len(ROUNDING_MODES) == 8
    value = big("123.4500")
    assert call("SCALE_BIGNUMERIC", value) == 2  # normalised: no trailing zeros
    assert call("PRECISION_BIGNUMERIC", value) == 5
    assert call("BIGNUMERIC_TO_TEXT", value) == "123.45"
    assert call("SCALE_BIGNUMERIC", big("1200")) == 0 and call("PRECISION_BIGNUMERIC", big("1200")) == 4
    assert call("BIGNUMERIC_TO_TEXT", big("1200")) == "1200"
    assert call("SCALE_BIGNUMERIC", big("0")) == 0 and call("PRECISION_BIGNUMERIC", big("0")) == 0


def test_arithmetic() -> None:
    assert call("ADD_BIGNUMERIC", big("0.1"), big("0.2")) == Decimal("0.3")
    assert call("SUB_BIGNUMERIC", big("1"), big("1e-100")) == Decimal("0." + "9" * 100)
    assert call("MUL_BIGNUMERIC", big("1e-20"), big("1e-20")) == Decimal("1e-40")
    assert call("DIV_BIGNUMERIC", 0, HALF_EVEN, big("5"), big("2")) == 2
    assert call("DIV_BIGNUMERIC", 0, 0, big("5"), big("2")) == 3  # UP
    assert call("DIV_BIGNUMERIC", 3, 3, big("-1"), big("3")) == Decimal("-0.334")  # FLOOR
    assert call("SHIFT_RIGHT_BIGNUMERIC", 3, big("12345")) == Decimal("12.345")
    assert call("SHIFT_RIGHT_BIGNUMERIC", -2, big("1.5")) == 150


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("DIV_BIGNUMERIC", (0, UNNECESSARY, Decimal(1), Decimal(3))),
        ("DIV_BIGNUMERIC", (0, 8, Decimal(1), Decimal(3))),
        ("DIV_BIGNUMERIC", (0, HALF_EVEN, Decimal(1), Decimal(0))),
        ("MUL_BIGNUMERIC", (Decimal("1e20000"), Decimal("1e20000"))),  # 40,001 integral digits
        ("SHIFT_RIGHT_BIGNUMERIC", (40_000, Decimal(1))),
    ],
)
def test_failures(name: str, args: tuple[object, ...]) -> None:
    with pytest.raises(DamlArithmeticError):
        call(name, *args)


def test_to_numeric_is_exact_or_fails() -> None:
    assert call("BIGNUMERIC_TO_NUMERIC", n("0", 2), big("1.5")) == n("1.50", 2)
    with pytest.raises(DamlArithmeticError):
        call("BIGNUMERIC_TO_NUMERIC", n("0", 0), big("1.5"))
