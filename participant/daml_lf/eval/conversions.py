"""Text forms of values and values from text, in the exact formats Daml prints and accepts.

Digits are ASCII digits only (``[0-9]``, as Java's ``\\d``), never Python's Unicode ``\\d``.
"""

from __future__ import annotations

import datetime
import re
from decimal import Context, Decimal

from .errors import Crash
from .values import (
    DATE_MAX,
    DATE_MIN,
    INT64_MAX,
    INT64_MIN,
    NUMERIC_MAX_PRECISION,
    TIMESTAMP_MAX,
    TIMESTAMP_MIN,
    ContractId,
    Date,
    Party,
    Timestamp,
)

_EPOCH_ORDINAL = datetime.date(1970, 1, 1).toordinal()
_INT64_TEXT = re.compile(r"[+-]?[0-9]+")
# Daml's lenient reading: any number of leading zeros, and trailing zeros after the point, are not significant.
_NUMERIC_TEXT = re.compile(r"([+-]?)0*([0-9]+)(?:\.([0-9]*[1-9]|0)0*)?")
_PARTY_TEXT = re.compile(r"[a-zA-Z0-9:\-_ ]{1,255}")
_HEX = re.compile(r"(?:[0-9a-f]{2})*")
_WIDE = Context(prec=120)  # wider than any Numeric: normalising or rescaling one is exact


def numeric_to_text(value: Decimal) -> str:
    """The shortest exact decimal form, keeping one digit after the point: ``1.50`` (Numeric 10) → ``"1.5"``,
    ``100`` → ``"100.0"``, zero → ``"0.0"``."""
    text = format(value.normalize(_WIDE) if value else Decimal(0), "f")
    return text if "." in text else text + ".0"


def text_to_numeric(scale: int, text: str) -> Decimal | None:
    match = _NUMERIC_TEXT.fullmatch(text)
    if match is None:
        return None
    sign, integral, fraction = match.groups()
    fraction = "" if fraction in (None, "0") else fraction
    significant_integral = 0 if integral == "0" else len(integral)
    if significant_integral > NUMERIC_MAX_PRECISION - scale or len(fraction) > scale:
        return None
    value = Decimal(f"{sign}{integral}.{fraction}").quantize(Decimal(1).scaleb(-scale), context=_WIDE)
    return value if value else abs(value)  # "-0" is zero


def text_to_int64(text: str) -> int | None:
    if _INT64_TEXT.fullmatch(text) is None:
        return None
    value = int(text)
    return value if INT64_MIN <= value <= INT64_MAX else None


def date_to_text(value: Date) -> str:
    """``YYYY-MM-DD``."""
    return datetime.date.fromordinal(value.days + _EPOCH_ORDINAL).isoformat()


def date_from_days(days: int) -> Date | None:
    return Date(days) if DATE_MIN <= days <= DATE_MAX else None


def timestamp_to_text(value: Timestamp) -> str:
    """ISO 8601 in UTC as Java's ``Instant`` prints it: the fraction of a second in groups of three digits, none
    when it is zero (``1970-01-01T00:00:00Z``, ``…:00.500Z``, ``…:00.000001Z``)."""
    seconds, micros = divmod(value.micros, 1_000_000)
    days, second_of_day = divmod(seconds, 86_400)
    day = datetime.date.fromordinal(days + _EPOCH_ORDINAL)
    hours, rest = divmod(second_of_day, 3600)
    minutes, secs = divmod(rest, 60)
    if micros == 0:
        fraction = ""
    elif micros % 1000 == 0:
        fraction = f".{micros // 1000:03d}"
    else:
        fraction = f".{micros:06d}"
    return f"{day.isoformat()}T{hours:02d}:{minutes:02d}:{secs:02d}{fraction}Z"


def timestamp_from_micros(micros: int) -> Timestamp | None:
    return Timestamp(micros) if TIMESTAMP_MIN <= micros <= TIMESTAMP_MAX else None


def text_to_party(text: str) -> Party | None:
    return Party(text) if _PARTY_TEXT.fullmatch(text) else None


def code_points_to_text(code_points: list[int]) -> str:
    """The text of these code points; a surrogate (U+D800..U+DFFF) or a number outside U+0000..U+10FFFF is not a
    code point of any text (``Crash``). The spec's range reads "0x00DFFF to 0x10FFFF", which would admit the
    surrogate U+DFFF; no UTF-8 text holds it, and Daml's interpreter refuses every surrogate: so does this."""
    for point in code_points:
        if not (0 <= point <= 0x10FFFF) or 0xD800 <= point <= 0xDFFF:
            raise Crash(f"invalid code point 0x{point:x}.")
    return "".join(map(chr, code_points))


def hex_bytes(text: str) -> bytes | None:
    """The bytes of a hexadecimal string (lower case, an even number of digits, as Daml's ``HexString``)."""
    return bytes.fromhex(text) if _HEX.fullmatch(text) else None


def text_to_contract_id(text: str) -> ContractId | None:
    """A contract id from its hexadecimal text if it is an absolute (suffixed) V1 or V2 id.

    V1: ``00`` · 32-byte discriminator · a suffix of 1..94 bytes. V2: ``01`` · 12 bytes (time prefix and seed) ·
    a suffix of 1..33 bytes whose first bit is set (an unset bit marks a relative id).
    """
    raw = hex_bytes(text)
    if raw is None or not raw:
        return None
    version, rest = raw[0], raw[1:]
    if version == 0 and 32 < len(rest) <= 32 + 94:
        return ContractId(text)
    if version == 1 and 12 < len(rest) <= 12 + 33 and rest[12] & 0x80:
        return ContractId(text)
    return None
