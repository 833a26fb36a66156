"""Daml's scalar types and the shared pieces of the JSON value codec (see `values.py` for the whole picture)."""

from __future__ import annotations

import datetime as dt
import re
from decimal import Context, InvalidOperation
from decimal import Decimal as PyDecimal
from typing import Any

from participant import errors
from participant.engine import ids

Json = Any
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
NUMERIC_PRECISION = 38
MAX_NUMERIC_SCALE = 37
# Enough digits that quantizing any decodable number to any scale is exact (default traps, as before).
_FIT_CONTEXT = Context(prec=2 * NUMERIC_PRECISION + MAX_NUMERIC_SCALE)


def bad_value(path: str, message: str) -> errors.LedgerError:
    where = f" at {path}" if path else ""
    return errors.COMMAND_PREPROCESSING_FAILED(f"{message}{where}", context={"path": path} if path else {})


def _kind(value: Json) -> str:
    return {
        bool: "boolean",
        int: "number",
        float: "number",
        str: "string",
        list: "array",
        dict: "object",
    }.get(type(value), "null" if value is None else type(value).__name__)


def join_path(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


class DamlType:
    """One Daml type: how its values decode from and encode to JSON, and how it is described in signatures."""

    name = "?"
    is_optional = False

    def decode(self, value: Json, path: str = "") -> Any:
        raise NotImplementedError

    def encode(self, value: Any) -> Json:
        raise NotImplementedError

    def describe(self) -> Json:
        return self.name

    def __repr__(self) -> str:
        return f"DamlType({self.describe()!r})"

    def _expect(self, value: Json, path: str) -> errors.LedgerError:
        return bad_value(path, f"Expected {self.name} but got {_kind(value)} {str(value)[:64]}")


class _Unit(DamlType):
    name = "Unit"

    def decode(self, value: Json, path: str = "") -> Any:
        return ()  # the transcoder accepts anything for Unit

    def encode(self, value: Any) -> Json:
        return {}


class _Bool(DamlType):
    name = "Bool"

    def decode(self, value: Json, path: str = "") -> bool:
        if not isinstance(value, bool):
            raise self._expect(value, path)
        return value

    def encode(self, value: Any) -> Json:
        return bool(value)


class _Int64(DamlType):
    name = "Int64"
    _DIGITS = re.compile(r"[+-]?\d{1,20}")

    def decode(self, value: Json, path: str = "") -> int:
        # 3.5 takes strings only, 3.4 numbers too: be lenient, clients of both exist.
        if isinstance(value, str) and self._DIGITS.fullmatch(value):
            number = int(value)
        elif isinstance(value, int) and not isinstance(value, bool):
            number = value
        elif isinstance(value, float) and value.is_integer():
            number = int(value)
        else:
            raise self._expect(value, path)
        if not INT64_MIN <= number <= INT64_MAX:
            raise bad_value(path, f"Int64 out of range: {value}")
        return number

    def encode(self, value: Any) -> Json:
        if isinstance(value, bool) or not isinstance(value, int) or not INT64_MIN <= value <= INT64_MAX:
            raise ValueError(f"not an Int64: {value!r}")
        return str(value)


class Numeric(DamlType):
    """Numeric with a fixed scale; `Decimal` is Numeric 10. `Numeric[0]` and `Numeric(0)` both build one."""

    def __init__(self, scale: int) -> None:
        if not 0 <= scale <= MAX_NUMERIC_SCALE:
            raise ValueError(f"Numeric scale must be within 0..{MAX_NUMERIC_SCALE}: {scale}")
        self.scale = scale
        self.name = f"Numeric {scale}"
        # Fixed per scale: built once instead of in every `fit`.
        self._quantum = PyDecimal(1).scaleb(-scale, _FIT_CONTEXT)
        self._limit = _FIT_CONTEXT.power(PyDecimal(10), NUMERIC_PRECISION - scale)

    def __class_getitem__(cls, scale: int) -> Numeric:
        return cls(scale)

    def describe(self) -> Json:
        return {"Numeric": self.scale}

    def fit(self, number: PyDecimal) -> PyDecimal | None:
        """The number at this scale, or None when it does not fit exactly (too many digits either side)."""
        if not number.is_finite():
            return None
        # An explicit context rather than `localcontext()`, which copies the thread's context on every call;
        # copy_abs is exact, like abs() at this precision.
        scaled = number.quantize(self._quantum, context=_FIT_CONTEXT)
        if scaled != number or scaled.copy_abs() >= self._limit:
            return None
        return scaled if scaled else scaled.copy_abs()  # never "-0.000"

    def decode(self, value: Json, path: str = "") -> PyDecimal:
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            raise self._expect(value, path)
        try:
            number = PyDecimal(str(value).strip()) if isinstance(value, str) else PyDecimal(str(value))
        except InvalidOperation:
            raise bad_value(path, f"Could not read Numeric string {value!r}") from None
        fitted = self.fit(number)
        if fitted is None:
            raise bad_value(path, f"Cannot represent {value} as {self.name} without loss of precision")
        return fitted

    def encode(self, value: Any) -> Json:
        if isinstance(value, bool) or not isinstance(value, PyDecimal | int):
            raise ValueError(f"not a Numeric: {value!r}")
        fitted = self.fit(PyDecimal(value))
        if fitted is None:
            raise ValueError(f"{value} does not fit {self.name}")
        text = f"{fitted:f}"
        return text + "." if self.scale == 0 else text


class _Text(DamlType):
    name = "Text"

    def decode(self, value: Json, path: str = "") -> str:
        if not isinstance(value, str):
            raise self._expect(value, path)
        return value

    def encode(self, value: Any) -> Json:
        if not isinstance(value, str):
            raise ValueError(f"not a Text: {value!r}")
        return value


class _Party(_Text):
    name = "Party"

    def decode(self, value: Json, path: str = "") -> str:
        if not ids.is_party_id_string(value):
            raise bad_value(path, f"Invalid party {str(value)[:64]!r}")
        return value


class _Date(DamlType):
    name = "Date"
    _SHAPE = re.compile(r"\d{4}-\d{2}-\d{2}")

    def decode(self, value: Json, path: str = "") -> dt.date:
        if not isinstance(value, str) or not self._SHAPE.fullmatch(value):
            raise self._expect(value, path)
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            raise bad_value(path, f"Invalid date {value!r}") from None

    def encode(self, value: Any) -> Json:
        if not isinstance(value, dt.date) or isinstance(value, dt.datetime):
            raise ValueError(f"not a Date: {value!r}")
        return value.isoformat()


class _Time(DamlType):
    name = "Timestamp"
    _SHAPE = re.compile(r"(\d{4}-\d{2}-\d{2})[Tt](\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})")

    def decode(self, value: Json, path: str = "") -> dt.datetime:
        match = self._SHAPE.fullmatch(value) if isinstance(value, str) else None
        if match is None:
            raise self._expect(value, path)
        date, clock, fraction, zone = match.groups()
        fraction = fraction or ""
        if fraction[6:].strip("0"):
            raise bad_value(path, f"Timestamp {value!r} is more precise than microseconds")
        zone = "+00:00" if zone in ("Z", "z") else zone
        try:
            moment = dt.datetime.fromisoformat(f"{date}T{clock}.{fraction[:6].ljust(6, '0')}{zone}")
            return moment.astimezone(dt.UTC)
        except (ValueError, OverflowError):
            raise bad_value(path, f"Invalid timestamp {value!r}") from None

    def encode(self, value: Any) -> Json:
        if not isinstance(value, dt.datetime):
            raise ValueError(f"not a Timestamp: {value!r}")
        t = value.astimezone(dt.UTC) if value.tzinfo else value
        text = f"{t.year:04d}-{t.month:02d}-{t.day:02d}T{t.hour:02d}:{t.minute:02d}:{t.second:02d}"
        if t.microsecond:
            text += "." + f"{t.microsecond:06d}".rstrip("0")
        return text + "Z"


class ContractIdType(DamlType):
    """`ContractId[T]`: T is the template class, or its name as a string (only used to describe the type)."""

    def __init__(self, template: Any) -> None:
        self.template = template
        self.name = "ContractId"

    def describe(self) -> Json:
        daml = getattr(self.template, "__daml__", None)
        return {"ContractId": daml.qualified_name if daml else str(self.template)}

    def decode(self, value: Json, path: str = "") -> str:
        if not ids.is_contract_id(value):
            raise bad_value(path, f"Invalid contract id {str(value)[:150]!r}")
        return value

    def encode(self, value: Any) -> Json:
        if not ids.is_contract_id(value):
            raise ValueError(f"not a contract id: {value!r}")
        return value
