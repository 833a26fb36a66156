"""Numeric arithmetic against exact rational arithmetic (``fractions``) on many seeded random operands."""

from __future__ import annotations

import random
from decimal import Decimal
from fractions import Fraction

import pytest

from participant.daml_lf.eval.errors import DamlArithmeticError

from .helpers import call, n


def random_numeric(rng: random.Random, scale: int) -> Decimal:
    digits = rng.randint(1, 38)
    unscaled = rng.randrange(10 ** (digits - 1), 10**digits) * rng.choice((1, -1))
    return n(str(Decimal(unscaled).scaleb(-scale)), scale)


def half_even(value: Fraction, scale: int) -> int | None:
    """The unscaled result at ``scale``, or None if it needs more than 38 digits."""
    scaled = value * 10**scale
    result = round(scaled)  # Fraction rounds half to even
    return result if abs(result) < 10**38 else None


def expect(name: str, witness: Decimal, scale: int, a: Decimal, b: Decimal, exact: Fraction) -> None:
    unscaled = half_even(exact, scale)
    if unscaled is None:
        with pytest.raises(DamlArithmeticError):
            call(name, witness, a, b)
    else:
        result = call(name, witness, a, b)
        assert result == Fraction(unscaled, 10**scale), (a, b, scale)
        assert result.as_tuple().exponent == -scale


@pytest.mark.parametrize("seed", range(4))
def test_mul_and_div_round_the_exact_result_half_to_even(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(500):
        sa, sb, s = rng.randint(0, 37), rng.randint(0, 37), rng.randint(0, 37)
        a, b = random_numeric(rng, sa), random_numeric(rng, sb)
        witness = n("0", s)
        expect("MUL_NUMERIC", witness, s, a, b, Fraction(a) * Fraction(b))
        expect("DIV_NUMERIC", witness, s, a, b, Fraction(a) / Fraction(b))


@pytest.mark.parametrize("seed", range(4))
def test_add_and_sub_are_exact_or_overflow(seed: int) -> None:
    rng = random.Random(100 + seed)
    for _ in range(500):
        s = rng.randint(0, 37)
        a, b = random_numeric(rng, s), random_numeric(rng, s)
        for name, exact in (
            ("ADD_NUMERIC", Fraction(a) + Fraction(b)),
            ("SUB_NUMERIC", Fraction(a) - Fraction(b)),
        ):
            if abs(exact) * 10**s >= 10**38:
                with pytest.raises(DamlArithmeticError):
                    call(name, a, b)
            else:
                result = call(name, a, b)
                assert result == exact and result.as_tuple().exponent == -s
