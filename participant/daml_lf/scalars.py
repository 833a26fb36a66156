"""Daml-LF's builtin scalars in the JSON Ledger API's encoding: what each looks like, how it is checked, read and
written. The one home of these rules: the participant's value codec words Canton's errors from them, the
composer's form words its hints to someone typing from them, and the client shows values by them.

A value that does not read raises `ScalarProblem`: its `kind` says what is wrong (``shape``: not this scalar's
form at all; ``range``, ``precision``, ``day``, ``clock``, ``offset``, ``zone``: the form, but no value), its
message says it to a person typing; a codec answering a client words its own message from the kind.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from decimal import Context, InvalidOperation
from decimal import Decimal as PyDecimal

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
NUMERIC_PRECISION = 38
MAX_NUMERIC_SCALE = 37


class ScalarProblem(ValueError):
    """Text that is not a value of its scalar: `kind` (what is wrong) and a message for a person typing."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


# --- Party: a party id string; ``hint::namespace`` when Canton allocated it

_PARTY_ID = re.compile(r"[A-Za-z0-9:\-_ ]{1,255}")
_ALLOCATED_PARTY = re.compile(r"(?P<hint>[^:]+)::(?P<namespace>[0-9a-f]{8,})")


def is_party_id(text: object) -> bool:
    return isinstance(text, str) and _PARTY_ID.fullmatch(text) is not None


def party_parts(party: str) -> tuple[str, str] | None:
    """(hint, namespace) of a party id Canton allocated (``Alice::1220abcd…``), None for another string."""
    match = _ALLOCATED_PARTY.fullmatch(party)
    return (match["hint"], match["namespace"]) if match else None


# --- ContractId: a version byte, a 32-byte discriminator, a suffix of at most 94 bytes (Canton's V1 ids)

_CONTRACT_ID = re.compile(r"00[0-9a-f]{64}(?:[0-9a-f]{2}){0,94}")
# what reads as a contract id on screen, whatever its version byte or suffix: a long run of hexadecimal digits
_CONTRACT_ID_LIKE = re.compile(r"[0-9a-f]{2}[0-9a-f]{60,}")


def is_contract_id(text: object) -> bool:
    return isinstance(text, str) and _CONTRACT_ID.fullmatch(text) is not None


def looks_like_contract_id(text: str) -> bool:
    return _CONTRACT_ID_LIKE.match(text.strip()) is not None


# --- Int64: a string of digits (Canton 3.4 took JSON numbers too)

_INT64_TEXT = re.compile(r"[+-]?(\d+)")
_INT64_DIGITS = 19  # more digits than that is out of range whatever they are: never converted


def int64_of_text(text: str) -> int:
    match = _INT64_TEXT.fullmatch(text)
    if match is None:
        raise ScalarProblem("shape", f"Int is a whole number, not {text!r}")
    if len(match[1].lstrip("0")) > _INT64_DIGITS or not INT64_MIN <= (number := int(text)) <= INT64_MAX:
        raise ScalarProblem("range", "Int is out of range (64 bits)")
    return number


def int64_text(number: int) -> str:
    return str(number)


# --- Numeric n: a decimal string with at most n digits after the point and 38 in all

# Enough digits that fitting any decodable number to any scale is exact (default traps).
_FIT_CONTEXT = Context(prec=2 * NUMERIC_PRECISION + MAX_NUMERIC_SCALE)
# by scale, built once: the unit of the last digit, and the first magnitude that no longer fits
_QUANTUM = tuple(PyDecimal(1).scaleb(-scale, _FIT_CONTEXT) for scale in range(MAX_NUMERIC_SCALE + 1))
_LIMIT = tuple(
    _FIT_CONTEXT.power(PyDecimal(10), NUMERIC_PRECISION - scale) for scale in range(MAX_NUMERIC_SCALE + 1)
)
_PADDED = re.compile(r"-?\d+\.\d+")


def check_scale(scale: int) -> None:
    if not 0 <= scale <= MAX_NUMERIC_SCALE:
        raise ValueError(f"Numeric scale must be within 0..{MAX_NUMERIC_SCALE}: {scale}")


def decimal_of_text(text: str) -> PyDecimal | None:
    """The finite number `text` writes (spaces around it allowed), or None."""
    try:
        number = PyDecimal(text.strip())
    except InvalidOperation:
        return None
    return number if number.is_finite() else None


def fit_numeric(number: PyDecimal, scale: int) -> PyDecimal | None:
    """`number` at `scale`, or None when it does not fit exactly (too many digits either side of the point)."""
    if not number.is_finite():
        return None
    # An explicit context rather than `localcontext()`, which copies the thread's context on every call;
    # copy_abs is exact, like abs() at this precision.
    try:
        scaled = number.quantize(_QUANTUM[scale], context=_FIT_CONTEXT)
    except InvalidOperation:  # more digits than the context holds: far more than any Numeric
        return None
    if scaled != number or scaled.copy_abs() >= _LIMIT[scale]:
        return None
    return scaled if scaled else scaled.copy_abs()  # never "-0.000"


def numeric_of_text(text: str, scale: int) -> PyDecimal:
    try:
        number = PyDecimal(text.strip())
    except InvalidOperation:
        raise ScalarProblem("shape", f"Numeric {scale} is a number, not {text!r}") from None
    if not number.is_finite():  # NaN, Infinity: numbers to the decimal module, no Numeric's
        raise ScalarProblem("range", f"Numeric {scale} is a number, not {text!r}")
    fitted = fit_numeric(number, scale)
    if fitted is not None:
        return fitted
    if number.copy_abs() >= _LIMIT[scale]:
        raise ScalarProblem(
            "range",
            f"Numeric {scale} has at most {_count(NUMERIC_PRECISION - scale, 'digit')} before the point",
        )
    raise ScalarProblem("precision", f"Numeric {scale} has at most {_count(scale, 'decimal')}")


def numeric_text(number: PyDecimal, scale: int) -> str:
    """A fitted number as Canton writes it: every decimal of the scale, and a bare point at scale 0 (``5.``)."""
    text = f"{number:f}"
    return text + "." if scale == 0 else text


def show_numeric(number: PyDecimal) -> str:
    """Daml's `show` of a Numeric: no trailing zeros but at least one decimal digit ("999.99", "5.0")."""
    text = f"{number.normalize():f}" if number else "0"
    return text if "." in text else text + ".0"


def unpadded_numeric(text: str) -> str:
    """A Numeric's JSON string without the scale's padding: ``"999.9900000000"`` as ``999.99``, ``"5."`` as ``5``;
    other text unchanged."""
    if _PADDED.fullmatch(text):
        text = text.rstrip("0")
        return text[:-1] if text.endswith(".") else text
    if text.endswith(".") and text[:-1].lstrip("-").isdigit():
        return text[:-1]
    return text


# --- Date: YYYY-MM-DD

_DATE_TEXT = re.compile(r"\d{4}-\d{2}-\d{2}")
# in English whatever the locale (calendar.month_name follows it), as every other message is
MONTHS = "January February March April May June July August September October November December".split()


def date_of_text(text: str) -> dt.date:
    if not _DATE_TEXT.fullmatch(text):
        raise ScalarProblem("shape", f"a Date is YYYY-MM-DD, not {text!r}")
    try:
        return dt.date.fromisoformat(text)
    except ValueError:  # no such day: said why only then, reading a value stays fast
        raise ScalarProblem("day", _day_problem(text) or f"{text} is not a day") from None


def date_text(day: dt.date) -> str:
    return day.isoformat()


def _day_problem(text: str) -> str | None:
    """Why ``YYYY-MM-DD`` (well formed) names no day, or None: the format is right, so say what is not."""
    year, month, day = (int(part) for part in text.split("-"))
    if not 1 <= year <= 9999:
        return f"{text} is not a day: years run from 0001 to 9999"
    if not 1 <= month <= 12:
        return f"{text} is not a day: a year has 12 months, and {month:02d} is not one"
    days = calendar.monthrange(year, month)[1]
    if not 1 <= day <= days:
        return f"{text} is not a day: {MONTHS[month - 1]} {year} has {days}"
    return None


# --- Timestamp: YYYY-MM-DDThh:mm:ss[.ffffff] and Z or an offset, microseconds at most

_TIMESTAMP_TEXT = re.compile(
    r"(\d{4}-\d{2}-\d{2})[Tt](\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})"
)
# as a person types it: a space for the T, no seconds, no zone (asked for)
_TIMESTAMP_TYPED = re.compile(
    r"(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}(?::\d{2})?)(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})?"
)


def timestamp_of_text(text: str, *, typed: bool = False) -> dt.datetime:
    """The moment `text` names, in UTC. The JSON form is strict; `typed` (a person typing) also takes a space for
    the ``T`` and a time without seconds, and asks for the zone when it is missing."""
    match = (_TIMESTAMP_TYPED if typed else _TIMESTAMP_TEXT).fullmatch(text)
    if match is None:
        raise ScalarProblem("shape", "a Time is YYYY-MM-DDThh:mm:ssZ (or with an offset such as +01:00)")
    date, clock, fraction, zone = match.groups()
    if zone is None:
        raise ScalarProblem("zone", "add the time zone: Z for UTC, or an offset such as +01:00")
    fraction = fraction or ""
    if fraction[6:].strip("0"):
        raise ScalarProblem("precision", "a Time is precise to the microsecond at most")
    seconds = clock if clock.count(":") == 2 else clock + ":00"
    offset = "+00:00" if zone in ("Z", "z") else zone
    try:
        moment = dt.datetime.fromisoformat(f"{date}T{seconds}.{fraction[:6].ljust(6, '0')}{offset}")
    except ValueError:  # no such moment: said why only then, reading a value stays fast
        for kind, problem in (
            ("day", _day_problem(date)),
            ("clock", _clock_problem(clock)),
            ("offset", _offset_problem(zone)),
        ):
            if problem is not None:
                raise ScalarProblem(kind, problem) from None
        raise ScalarProblem("range", f"not a valid time: {text!r}") from None
    try:
        return moment.astimezone(dt.UTC)
    except OverflowError:  # a moment before year 1 or after 9999 once in UTC
        raise ScalarProblem("range", f"not a valid time: {text!r}") from None


def timestamp_text(moment: dt.datetime) -> str:
    """In UTC with ``Z``, the fraction without trailing zeros (none when whole); a naive moment is taken as UTC."""
    t = moment.astimezone(dt.UTC) if moment.tzinfo else moment
    text = f"{t.year:04d}-{t.month:02d}-{t.day:02d}T{t.hour:02d}:{t.minute:02d}:{t.second:02d}"
    if t.microsecond:
        text += "." + f"{t.microsecond:06d}".rstrip("0")
    return text + "Z"


def _clock_problem(clock: str) -> str | None:
    """Why ``hh:mm:ss`` names no time of day, or None."""
    hours, minutes, *seconds = (int(part) for part in clock.split(":"))
    if hours > 23:
        return f"{clock} is not a time of day: hours run from 00 to 23"
    if minutes > 59:
        return f"{clock} is not a time of day: minutes run from 00 to 59"
    if seconds and seconds[0] > 59:
        return f"{clock} is not a time of day: seconds run from 00 to 59"
    return None


def _offset_problem(zone: str) -> str | None:
    """Why a ``±hh:mm`` offset from UTC is none, or None (Z is UTC)."""
    if zone in ("Z", "z"):
        return None
    hours, minutes = int(zone[1:3]), int(zone[4:6])
    if hours > 23 or minutes > 59:
        return f"{zone} is not an offset from UTC: at most 23:59"
    return None


__all__ = [
    "INT64_MAX",
    "INT64_MIN",
    "MAX_NUMERIC_SCALE",
    "MONTHS",
    "NUMERIC_PRECISION",
    "ScalarProblem",
    "check_scale",
    "date_of_text",
    "date_text",
    "decimal_of_text",
    "fit_numeric",
    "int64_of_text",
    "int64_text",
    "is_contract_id",
    "is_party_id",
    "looks_like_contract_id",
    "numeric_of_text",
    "numeric_text",
    "party_parts",
    "show_numeric",
    "timestamp_of_text",
    "timestamp_text",
    "unpadded_numeric",
]


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
