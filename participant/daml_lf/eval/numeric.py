"""Int64 and Numeric arithmetic, exactly as the spec states it.

Int64 results outside ``-2⁶³..2⁶³-1`` are errors, never big ints. A Numeric is a ``Decimal`` whose exponent is
minus its scale, so a result takes its scale from a witness by ``quantize``; every operation runs in an explicit
context (below) chosen so that rounding, where the spec asks for it (multiplication, division, ``ROUND_NUMERIC``),
happens once, half to even, on the exact result. A Numeric of scale ``s`` has at most 38 digits, so its absolute
value is below ``10^(38-s)``; a result past that overflows.

Failures raise ``Overflow`` (no argument): the builtin's wrapper turns it into ``DamlArithmeticError`` naming
itself and its arguments.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import (
    ROUND_05UP,
    ROUND_CEILING,
    ROUND_DOWN,
    ROUND_FLOOR,
    ROUND_HALF_DOWN,
    ROUND_HALF_EVEN,
    ROUND_HALF_UP,
    ROUND_UP,
    Context,
    Decimal,
    DecimalException,
    DivisionByZero,
    Inexact,
    InvalidOperation,
    Rounded,
)

from .values import INT64_MAX, INT64_MIN, NUMERIC_MAX_PRECISION, NUMERIC_MAX_SCALE, numeric_scale


class Overflow(Exception):
    """An arithmetic result the type cannot hold (or a division by zero)."""


# The contexts, each for one kind of step. A Numeric's exponent is minus its scale, so "fits 38 digits" is "its
# coefficient has at most 38 digits": a 38-digit context signals whatever would not fit.
# _SUM38: a sum or difference of two Numerics of one scale is exact; more than 38 digits signals Rounded.
_SUM38 = Context(prec=38, rounding=ROUND_HALF_EVEN, traps=[Rounded, InvalidOperation])
# _ROUND38: quantizing to a witness's exponent rounds half to even; more than 38 digits is InvalidOperation.
_ROUND38 = Context(prec=38, rounding=ROUND_HALF_EVEN, traps=[InvalidOperation])
# _CAST38: quantizing that must not lose a nonzero digit (Inexact) nor exceed 38 digits (InvalidOperation).
_CAST38 = Context(prec=38, rounding=ROUND_HALF_EVEN, traps=[Inexact, InvalidOperation])
# _ODD: quotients to 120 digits rounded "to odd" (ROUND_05UP): rounding such a quotient again to at most 118
# digits gives the correctly rounded exact quotient - one rounding in effect, never a double one.
_ODD = Context(prec=120, rounding=ROUND_05UP, traps=[InvalidOperation, DivisionByZero])
# _EXACT: two 38-digit operands multiply into at most 76 digits; nothing here may round.
_EXACT = Context(
    prec=120, rounding=ROUND_HALF_EVEN, traps=[InvalidOperation, DivisionByZero, Inexact], Emax=999, Emin=-999
)
# Rounding on purpose: the same context without the Inexact trap.
_ROUNDING = Context(
    prec=120, rounding=ROUND_HALF_EVEN, traps=[InvalidOperation, DivisionByZero], Emax=999, Emin=-999
)
_QUANTUM = tuple(Decimal(1).scaleb(-scale) for scale in range(NUMERIC_MAX_SCALE + 1))
_LIMIT = tuple(10 ** (NUMERIC_MAX_PRECISION - scale) for scale in range(NUMERIC_MAX_SCALE + 1))
_ZERO = tuple(Decimal(0).scaleb(-scale) for scale in range(NUMERIC_MAX_SCALE + 1))


# --- Int64


def int64(value: int) -> int:
    if value < INT64_MIN or value > INT64_MAX:
        raise Overflow
    return value


def add_int64(a: int, b: int) -> int:
    r = a + b
    if r < INT64_MIN or r > INT64_MAX:
        raise Overflow
    return r


def sub_int64(a: int, b: int) -> int:
    r = a - b
    if r < INT64_MIN or r > INT64_MAX:
        raise Overflow
    return r


def mul_int64(a: int, b: int) -> int:
    r = a * b
    if r < INT64_MIN or r > INT64_MAX:
        raise Overflow
    return r


def div_int64(a: int, b: int) -> int:
    """The quotient rounded toward zero (Python's ``//`` floors, Daml's does not)."""
    if b == 0:
        raise Overflow
    q = abs(a) // abs(b)
    q = q if (a < 0) == (b < 0) else -q
    if q > INT64_MAX:  # -2⁶³ / -1
        raise Overflow
    return q


def mod_int64(a: int, b: int) -> int:
    """The remainder of the truncated division: it has the sign of ``a`` (``-7 mod 2 = -1``)."""
    if b == 0:
        raise Overflow
    r = abs(a) % abs(b)
    return -r if a < 0 else r


def exp_int64(base: int, exponent: int) -> int:
    """``base`` to the ``exponent``; a negative exponent is an error, as is a result outside Int64."""
    if exponent < 0:
        raise Overflow
    if -1 <= base <= 1:
        return base**exponent  # 0⁰ = 1
    if exponent >= 64:  # |base| ≥ 2: at least 2⁶⁴
        raise Overflow
    return int64(base**exponent)


# --- Numeric


def check_numeric(value: Decimal, scale: int) -> Decimal:
    """``value`` (already at ``scale``) if it fits 38 digits; negative zero made zero."""
    if not value:
        return _ZERO[scale]
    if value.copy_abs() >= _LIMIT[scale]:
        raise Overflow
    return value


def add_numeric(a: Decimal, b: Decimal) -> Decimal:
    try:
        return _SUM38.add(a, b)  # x + (-x) is +0 under half-even rounding: no negative zero
    except Rounded:
        raise Overflow from None


def sub_numeric(a: Decimal, b: Decimal) -> Decimal:
    try:
        return _SUM38.subtract(a, b)
    except Rounded:
        raise Overflow from None


def mul_numeric(witness: Decimal, a: Decimal, b: Decimal) -> Decimal:
    """The exact product rounded half to even to the scale of ``witness``."""
    try:
        result = _ROUND38.quantize(_EXACT.multiply(a, b), witness)
    except InvalidOperation:
        raise Overflow from None
    return result if result else result.copy_abs()  # -1 · 0 is a negative zero


def div_numeric(witness: Decimal, a: Decimal, b: Decimal) -> Decimal:
    """The exact quotient rounded half to even to the scale of ``witness`` (through a quotient rounded to odd, so
    the one rounding that counts is on the exact value); dividing by zero is an error."""
    try:
        result = _ROUND38.quantize(_ODD.divide(a, b), witness)
    except DecimalException:
        raise Overflow from None
    return result if result else result.copy_abs()


def round_numeric(digits: int, value: Decimal) -> Decimal:
    """``value`` rounded half to even to ``digits`` decimal places (negative: to tens, hundreds …), kept at its
    own scale. ``digits`` must lie within ``scale - 38 .. scale``."""
    scale = numeric_scale(value)
    if digits > scale or digits < scale - NUMERIC_MAX_PRECISION:
        raise Overflow
    rounded = value.quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_EVEN, context=_ROUNDING)
    return check_numeric(rounded.quantize(_QUANTUM[scale], context=_EXACT), scale)


def cast_numeric(witness: Decimal, value: Decimal) -> Decimal:
    """``value`` at the scale of ``witness``; losing a nonzero digit or overflowing is an error."""
    try:
        return _CAST38.quantize(value, witness)
    except DecimalException:
        raise Overflow from None


def shift_numeric(witness: Decimal, value: Decimal) -> Decimal:
    """The same digits read at the scale of ``witness``: ``value · 10^(input scale - output scale)``."""
    sign, digits, _ = value.as_tuple()
    return Decimal((sign, digits, -numeric_scale(witness)))


def int64_to_numeric(witness: Decimal, value: int) -> Decimal:
    try:
        return _ROUND38.quantize(Decimal(value), witness)  # only adds zeros: exact, or too many digits
    except InvalidOperation:
        raise Overflow from None


def numeric_to_int64(value: Decimal) -> int:
    """The integral part (rounded toward zero); outside Int64 is an error."""
    return int64(int(value))


def numeric(text: str, scale: int) -> Decimal:
    """A Numeric of ``scale`` from its decimal text (a literal, a test): an error if it does not fit exactly."""
    return cast_numeric(_ZERO[scale], Decimal(text))


def _unscaled(value: Decimal) -> tuple[int, int]:
    sign, digits, exponent = value.as_tuple()
    assert isinstance(exponent, int)
    unscaled = int("".join(map(str, digits))) if digits else 0
    return (-unscaled if sign else unscaled), -exponent


def div_round(numerator: int, denominator: int, rounding: str) -> int:
    """``numerator / denominator`` rounded to an integer by one of ``decimal``'s rounding modes, exactly."""
    negative = (numerator < 0) != (denominator < 0)
    q, r = divmod(abs(numerator), abs(denominator))
    if r:
        twice, d = 2 * r, abs(denominator)
        up = {
            ROUND_UP: True,
            ROUND_DOWN: False,
            ROUND_CEILING: not negative,
            ROUND_FLOOR: negative,
            ROUND_HALF_UP: twice >= d,
            ROUND_HALF_DOWN: twice > d,
            ROUND_HALF_EVEN: twice > d or (twice == d and q % 2 == 1),
        }.get(rounding)
        if up is None:  # UNNECESSARY: an inexact quotient is an error
            raise Overflow
        q += up
    return -q if negative else q


# --- BigNumeric (LF 2.dev): a normalised Decimal (no trailing zeros) of at most 2¹⁵ digits either side of the point

BIGNUMERIC_MAX_SCALE = 2**15
BIGNUMERIC_MAX_PRECISION = 2**15
_BIG = Context(
    prec=2 * BIGNUMERIC_MAX_PRECISION + 2,
    rounding=ROUND_HALF_EVEN,
    traps=[InvalidOperation, DivisionByZero, Inexact],
    Emax=10**6,
    Emin=-(10**6),
)
# java.math.RoundingMode's order, which ROUNDING_MODE literals (and DIV_BIGNUMERIC's mode argument) number.
ROUNDING_MODES = (
    ROUND_UP,
    ROUND_DOWN,
    ROUND_CEILING,
    ROUND_FLOOR,
    ROUND_HALF_UP,
    ROUND_HALF_DOWN,
    ROUND_HALF_EVEN,
    "UNNECESSARY",
)


def bignumeric(value: Decimal) -> Decimal:
    """``value`` normalised, if it is a valid BigNumeric."""
    if not value:
        return Decimal(0)
    try:
        norm = value.normalize(_BIG)
    except Inexact:
        raise Overflow from None
    scale = bignumeric_scale(norm)
    if scale > BIGNUMERIC_MAX_SCALE or bignumeric_precision(norm) - scale > BIGNUMERIC_MAX_PRECISION:
        raise Overflow
    return norm


def bignumeric_scale(value: Decimal) -> int:
    exponent = value.as_tuple().exponent
    assert isinstance(exponent, int)
    return max(0, -exponent) if value else 0


def bignumeric_precision(value: Decimal) -> int:
    """Digits of the unscaled value at the number's scale (Java's ``BigDecimal.precision``); zero's is 0."""
    if not value:
        return 0
    _, digits, exponent = value.as_tuple()
    assert isinstance(exponent, int)
    return len(digits) + max(0, exponent)


def add_bignumeric(a: Decimal, b: Decimal) -> Decimal:
    return bignumeric(_big(_BIG.add, a, b))


def sub_bignumeric(a: Decimal, b: Decimal) -> Decimal:
    return bignumeric(_big(_BIG.subtract, a, b))


def mul_bignumeric(a: Decimal, b: Decimal) -> Decimal:
    return bignumeric(_big(_BIG.multiply, a, b))


def div_bignumeric(scale: int, mode: int, a: Decimal, b: Decimal) -> Decimal:
    """``a / b`` at ``scale`` digits after the point, rounded by the mode numbered ``mode``."""
    if (
        not b
        or not (-BIGNUMERIC_MAX_SCALE <= scale <= BIGNUMERIC_MAX_SCALE)
        or not 0 <= mode < len(ROUNDING_MODES)
    ):
        raise Overflow
    ua, sa = _unscaled(a)
    ub, sb = _unscaled(b)
    shift = scale - sa + sb
    numerator, denominator = (ua * 10**shift, ub) if shift >= 0 else (ua, ub * 10 ** (-shift))
    return bignumeric(Decimal(div_round(numerator, denominator, ROUNDING_MODES[mode])).scaleb(-scale, _BIG))


def shift_right_bignumeric(shift: int, value: Decimal) -> Decimal:
    if not value:
        return Decimal(0)
    if abs(shift) > BIGNUMERIC_MAX_PRECISION:
        raise Overflow
    return bignumeric(value.scaleb(-shift, _BIG))


def bignumeric_to_numeric(witness: Decimal, value: Decimal) -> Decimal:
    return cast_numeric(witness, value)


def numeric_to_bignumeric(value: Decimal) -> Decimal:
    return bignumeric(value)


def _big(operation: Callable[[Decimal, Decimal], Decimal], a: Decimal, b: Decimal) -> Decimal:
    try:
        return operation(a, b)
    except Inexact:
        raise Overflow from None
