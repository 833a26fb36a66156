"""Daml's values as JSON: the type tree and the codec it drives (docs/ledger-api.md §9).

A `DamlType` is one node of the tree: it decodes the accepted input JSON into a typed value and encodes a typed
value into the output form, as Canton renders it. Typed values by type: Unit `()`, Bool `bool`, Int64 `int`,
Numeric `decimal.Decimal`, Text/Party/ContractId `str`, Date `datetime.date`, Time `datetime.datetime` (UTC), List
`list`, TextMap and GenMap `dict`, tuples `tuple`. Optional is `None` or the value, except that an Optional whose
payload is itself Optional wraps its value in `Some` (so that Some(None) differs from None). Records, variants and
enums are built and read by hooks their type is given (`RecordType`, `VariantType`, `EnumType`); without hooks
they are `RecordValue`, `VariantValue` and the constructor's name.

This module imports nothing else of the participant: whoever builds the tree (a package's definitions, a client
reading a signature) drives the same codec. A value that does not decode raises `DecodeError` (its `path` says
where); a value that does not fit its type on encoding raises `ValueError`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal as PyDecimal
from typing import Any

from participant.daml_lf import scalars
from participant.daml_lf.scalars import (  # noqa: F401  (the codec's names for them, used by its callers)
    INT64_MAX,
    INT64_MIN,
    MAX_NUMERIC_SCALE,
    NUMERIC_PRECISION,
    ScalarProblem,
    is_contract_id,
    show_numeric,
)
from participant.daml_lf.scalars import is_party_id as is_party_id_string  # noqa: F401  (re-exported)

Json = Any


class DecodeError(Exception):
    """A JSON value that is not of its type: `message`, and `path`, where in the value (empty at the top)."""

    def __init__(self, message: str, path: str = "") -> None:
        self.message, self.path = message, path
        super().__init__(self.text)

    @property
    def text(self) -> str:
        return f"{self.message}{f' at {self.path}' if self.path else ''}"


class MalformedVariant(DecodeError):
    """A variant without its `{"tag", "value"}` shape or with an unknown tag (Canton answers it differently)."""


def bad_value(path: str, message: str) -> DecodeError:
    return DecodeError(message, path)


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

    def _expect(self, value: Json, path: str) -> DecodeError:
        return bad_value(path, f"Expected {self.name} but got {_kind(value)} {str(value)[:64]}")


Fields = Mapping[str, DamlType]


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

    def decode(self, value: Json, path: str = "") -> int:
        # 3.5 takes strings only, 3.4 numbers too: be lenient, clients of both exist.
        if isinstance(value, str):
            try:
                return scalars.int64_of_text(value)
            except ScalarProblem as problem:
                if problem.kind == "shape":
                    raise self._expect(value, path) from None
                raise bad_value(path, f"Int64 out of range: {value}") from None
        if isinstance(value, int) and not isinstance(value, bool):
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
        return scalars.int64_text(value)


class Numeric(DamlType):
    """Numeric with a fixed scale; `Decimal` is Numeric 10. `Numeric[0]` and `Numeric(0)` both build one."""

    def __init__(self, scale: int) -> None:
        scalars.check_scale(scale)
        self.scale = scale
        self.name = f"Numeric {scale}"

    def __class_getitem__(cls, scale: int) -> Numeric:
        return cls(scale)

    def describe(self) -> Json:
        return {"Numeric": self.scale}

    def fit(self, number: PyDecimal) -> PyDecimal | None:
        """The number at this scale, or None when it does not fit exactly (too many digits either side)."""
        return scalars.fit_numeric(number, self.scale)

    def decode(self, value: Json, path: str = "") -> PyDecimal:
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            raise self._expect(value, path)
        try:
            return scalars.numeric_of_text(str(value), self.scale)
        except ScalarProblem as problem:
            if problem.kind == "shape":
                raise bad_value(path, f"Could not read Numeric string {value!r}") from None
            raise bad_value(
                path, f"Cannot represent {value} as {self.name} without loss of precision"
            ) from None

    def encode(self, value: Any) -> Json:
        if isinstance(value, bool) or not isinstance(value, PyDecimal | int):
            raise ValueError(f"not a Numeric: {value!r}")
        fitted = self.fit(PyDecimal(value))
        if fitted is None:
            raise ValueError(f"{value} does not fit {self.name}")
        return scalars.numeric_text(fitted, self.scale)


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
        if not scalars.is_party_id(value):
            raise bad_value(path, f"Invalid party {str(value)[:64]!r}")
        return value


class _Date(DamlType):
    name = "Date"

    def decode(self, value: Json, path: str = "") -> dt.date:
        if not isinstance(value, str):
            raise self._expect(value, path)
        try:
            return scalars.date_of_text(value)
        except ScalarProblem as problem:
            if problem.kind == "shape":
                raise self._expect(value, path) from None
            raise bad_value(path, f"Invalid date {value!r}") from None

    def encode(self, value: Any) -> Json:
        if not isinstance(value, dt.date) or isinstance(value, dt.datetime):
            raise ValueError(f"not a Date: {value!r}")
        return scalars.date_text(value)


class _Time(DamlType):
    name = "Timestamp"

    def decode(self, value: Json, path: str = "") -> dt.datetime:
        if not isinstance(value, str):
            raise self._expect(value, path)
        try:
            return scalars.timestamp_of_text(value)
        except ScalarProblem as problem:
            if problem.kind == "shape":
                raise self._expect(value, path) from None
            if problem.kind == "precision":
                raise bad_value(path, f"Timestamp {value!r} is more precise than microseconds") from None
            raise bad_value(path, f"Invalid timestamp {value!r}") from None

    def encode(self, value: Any) -> Json:
        if not isinstance(value, dt.datetime):
            raise ValueError(f"not a Timestamp: {value!r}")
        return scalars.timestamp_text(value)


class ContractIdType(DamlType):
    """`ContractId T`: `template` names T (a string, or a function giving it: T may be declared later)."""

    def __init__(self, template: str | Callable[[], str]) -> None:
        self.template = template
        self.name = "ContractId"

    def describe(self) -> Json:
        return {"ContractId": self.template if isinstance(self.template, str) else self.template()}

    def decode(self, value: Json, path: str = "") -> str:
        if not scalars.is_contract_id(value):
            raise bad_value(path, f"Invalid contract id {str(value)[:150]!r}")
        return value

    def encode(self, value: Any) -> Json:
        if not scalars.is_contract_id(value):
            raise ValueError(f"not a contract id: {value!r}")
        return value


class ListType(DamlType):
    name = "List"

    def __init__(self, element: DamlType) -> None:
        self.element = element

    def describe(self) -> Json:
        return {"List": self.element.describe()}

    def decode(self, value: Json, path: str = "") -> list:
        if not isinstance(value, list):
            raise self._expect(value, path)
        return [self.element.decode(item, f"{path}[{i}]") for i, item in enumerate(value)]

    def encode(self, value: Any) -> Json:
        return [self.element.encode(item) for item in value]


@dataclass(frozen=True)
class Some:
    """The present value of an Optional whose payload is itself Optional."""

    value: Any


class OptionalType(DamlType):
    name = "Optional"
    is_optional = True
    element: DamlType
    in_optional: bool

    def __init__(self, element: DamlType, *, in_optional: bool = False) -> None:
        if isinstance(element, OptionalType) and not element.in_optional:
            element = OptionalType(element.element, in_optional=True)
        self.element = element
        self.in_optional = in_optional
        # Nested Optionals are arrays at every level: None `[]`, Some(None) `[[]]`, Some(Some(x)) `[[x]]`.
        self.as_array = in_optional or isinstance(element, OptionalType)

    def describe(self) -> Json:
        return {"Optional": self.element.describe()}

    def decode(self, value: Json, path: str = "") -> Any:
        if not self.as_array:
            return None if value is None else self.element.decode(value, path)
        if not isinstance(value, list) or len(value) > 1:
            raise bad_value(path, f"Expected a nested Optional as [] or [value] but got {_kind(value)}")
        if not value:
            return None
        inner = self.element.decode(value[0], f"{path}[0]")
        return Some(inner) if isinstance(self.element, OptionalType) else inner

    def encode(self, value: Any) -> Json:
        if not self.as_array:
            return None if value is None else self.element.encode(value)
        if value is None:
            return []
        if isinstance(self.element, OptionalType):
            if not isinstance(value, Some):
                raise ValueError(f"a nested Optional holds Some(...) or None, not {value!r}")
            value = value.value
        return [self.element.encode(value)]


class TextMapType(DamlType):
    name = "TextMap"

    def __init__(self, element: DamlType) -> None:
        self.element = element

    def describe(self) -> Json:
        return {"TextMap": self.element.describe()}

    def decode(self, value: Json, path: str = "") -> dict:
        if not isinstance(value, dict):
            raise self._expect(value, path)
        return {key: self.element.decode(item, join_path(path, key)) for key, item in value.items()}

    def encode(self, value: Any) -> Json:
        return {str(key): self.element.encode(item) for key, item in value.items()}


class GenMapType(DamlType):
    name = "GenMap"

    def __init__(self, key: DamlType, value: DamlType) -> None:
        self.key, self.value = key, value

    def describe(self) -> Json:
        return {"GenMap": [self.key.describe(), self.value.describe()]}

    def decode(self, value: Json, path: str = "") -> dict:
        if not isinstance(value, list):
            raise self._expect(value, path)
        result: dict = {}
        for i, pair in enumerate(value):
            if not isinstance(pair, list) or len(pair) != 2:
                raise bad_value(f"{path}[{i}]", "Expected a [key, value] pair")
            key = self.key.decode(pair[0], f"{path}[{i}][0]")
            if key in result:
                raise bad_value(f"{path}[{i}]", f"Duplicate GenMap key {pair[0]!r}")
            result[key] = self.value.decode(pair[1], f"{path}[{i}][1]")
        return result

    def encode(self, value: Any) -> Json:
        return [[self.key.encode(k), self.value.encode(v)] for k, v in value.items()]


# --- records, variants and enums


def decode_fields(fields: Fields, value: Json, path: str) -> dict[str, Any]:
    """A JSON object as a record: any key order; absent optional fields are None; all problems reported at once."""
    if not isinstance(value, dict):
        raise bad_value(path, f"Expected a record object but got {_kind(value)}")
    unexpected = [key for key, item in value.items() if key not in fields and item is not None]
    if unexpected:
        raise bad_value(path, f"Unexpected fields: Set({', '.join(unexpected)})")
    missing = [name for name, t in fields.items() if name not in value and not t.is_optional]
    if missing:
        raise bad_value(path, f"Missing non-optional fields: Set({', '.join(missing)})")
    result: dict[str, Any] = {}
    for name, field_type in fields.items():
        item = value.get(name)
        if name not in value and field_type.is_optional:
            result[name] = None  # absent is None even for nested Optionals: output drops trailing Nones
        elif item is None and not field_type.is_optional:
            raise bad_value(join_path(path, name), f"Expected {field_type.name} but got null")
        else:
            result[name] = field_type.decode(item, join_path(path, name))
    return result


def encode_fields(fields: Fields, values: Mapping[str, Any]) -> dict[str, Json]:
    """Declaration order; trailing None optional fields omitted, as 3.5 prints them."""
    names = list(fields)
    while names and fields[names[-1]].is_optional and values.get(names[-1]) is None:
        names.pop()
    return {name: fields[name].encode(values.get(name)) for name in names}


class TupleType(DamlType):
    """Daml's tuples `(a, b)`: records with fields `_1`, `_2`, ...; a Python tuple in Python."""

    name = "Tuple"

    def __init__(self, *elements: DamlType) -> None:
        self.fields = {f"_{i + 1}": t for i, t in enumerate(elements)}

    def describe(self) -> Json:
        return {"Tuple": [t.describe() for t in self.fields.values()]}

    def decode(self, value: Json, path: str = "") -> tuple:
        return tuple(decode_fields(self.fields, value, path).values())

    def encode(self, value: Any) -> Json:
        if not isinstance(value, tuple) or len(value) != len(self.fields):
            raise ValueError(f"expected a {len(self.fields)}-tuple: {value!r}")
        return encode_fields(self.fields, dict(zip(self.fields, value, strict=True)))


def freeze(value: Any) -> Any:
    """A hashable stand-in for a value (lists and dicts inside records would otherwise make them unhashable)."""
    if isinstance(value, list | tuple):
        return tuple(freeze(v) for v in value)
    if isinstance(value, dict):
        return tuple((freeze(k), freeze(v)) for k, v in value.items())
    return value


@dataclass(frozen=True, eq=False)
class RecordValue:
    """A record of a type that gives no hooks: its type's name and its fields in declaration order."""

    type_name: str
    fields: dict[str, Any]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RecordValue) and (self.type_name, self.fields) == (
            other.type_name,
            other.fields,
        )

    def __hash__(self) -> int:
        return hash((self.type_name, freeze(self.fields)))


@dataclass(frozen=True)
class VariantValue:
    """A variant of a type that gives no hooks: its type's name, the constructor and its payload."""

    type_name: str
    tag: str
    value: Any

    def __hash__(self) -> int:
        return hash((self.type_name, self.tag, freeze(self.value)))


def _resolved(types: Fields | Callable[[], Fields]) -> Callable[[], Fields]:
    return types if callable(types) else lambda: types


class RecordType(DamlType):
    """A record type `name` with `fields` (or a function giving them, resolved when first needed: types may refer
    to each other). `build` makes a value from its fields; `fields_of` reads a value's fields back, or gives None
    when the value is not of this type."""

    def __init__(
        self,
        name: str,
        fields: Fields | Callable[[], Fields],
        *,
        build: Callable[[dict[str, Any]], Any] | None = None,
        fields_of: Callable[[Any], Mapping[str, Any] | None] | None = None,
    ) -> None:
        self.name = name
        self._fields = _resolved(fields)
        self.build = build or (lambda values: RecordValue(name, values))
        self.fields_of = fields_of or (
            lambda value: value.fields if isinstance(value, RecordValue) and value.type_name == name else None
        )

    @property
    def fields(self) -> Fields:
        return self._fields()

    def describe(self) -> Json:
        return {"Record": self.name}

    def decode(self, value: Json, path: str = "") -> Any:
        return self.build(decode_fields(self.fields, value, path))

    def encode(self, value: Any) -> Json:
        values = self.fields_of(value)
        if values is None:
            raise ValueError(f"expected a {self.name} record, got {value!r}")
        return encode_fields(self.fields, values)

    def from_fields(self, values: dict[str, Any]) -> Any:
        """A value from its fields as code writes them: every field but optional ones, nothing else."""
        fields = self.fields
        unknown = [name for name in values if name not in fields]
        missing = [name for name, t in fields.items() if name not in values and not t.is_optional]
        if unknown or missing:
            raise TypeError(f"{self.name}: unknown fields {unknown}, missing fields {missing}")
        return self.build({name: values.get(name) for name in fields})


class VariantType(DamlType):
    """A variant type `name` with its `constructors` (each with its payload's type, or a function giving them).
    `build(tag, payload)` makes a value; `parts_of` reads a value back as (tag, payload), or None when the value
    is not of this type."""

    def __init__(
        self,
        name: str,
        constructors: Fields | Callable[[], Fields],
        *,
        build: Callable[[str, Any], Any] | None = None,
        parts_of: Callable[[Any], tuple[str, Any] | None] | None = None,
    ) -> None:
        self.name = name
        self._constructors = _resolved(constructors)
        self.build = build or (lambda tag, payload: VariantValue(name, tag, payload))
        self.parts_of = parts_of or (
            lambda value: (
                (value.tag, value.value)
                if isinstance(value, VariantValue) and value.type_name == name
                else None
            )
        )

    @property
    def constructors(self) -> Fields:
        return self._constructors()

    def describe(self) -> Json:
        return {"Variant": self.name}

    def decode(self, value: Json, path: str = "") -> Any:
        constructors = self.constructors
        # 3.5 maps malformed variants to INVALID_ARGUMENT, unlike other shape errors.
        if not isinstance(value, dict) or "tag" not in value or "value" not in value:
            raise MalformedVariant(
                f'Expected a variant {{"tag", "value"}} for {self.name} but got {_kind(value)}', path
            )
        tag = value["tag"]
        if tag not in constructors:
            raise MalformedVariant(f"Unknown constructor {tag!r} of variant {self.name}", path)
        return self.build(tag, constructors[tag].decode(value["value"], join_path(path, "value")))

    def encode(self, value: Any) -> Json:
        parts = self.parts_of(value)
        if parts is None:
            raise ValueError(f"expected a {self.name} variant, got {value!r}")
        tag, payload = parts
        return {"tag": tag, "value": self.constructors[tag].encode(payload)}


class EnumType(DamlType):
    """An enum type `name` with its `constructors`. `build(constructor)` makes a value; `constructor_of` reads a
    value back, or gives None when the value is not of this type. Without hooks a value is its constructor."""

    def __init__(
        self,
        name: str,
        constructors: list[str],
        *,
        build: Callable[[str], Any] | None = None,
        constructor_of: Callable[[Any], str | None] | None = None,
    ) -> None:
        self.name = name
        self.constructors = constructors
        self.build = build or (lambda constructor: constructor)
        self.constructor_of = constructor_of or (lambda value: value if value in constructors else None)

    def describe(self) -> Json:
        return {"Enum": self.name, "constructors": list(self.constructors)}

    def decode(self, value: Json, path: str = "") -> Any:
        if not isinstance(value, str) or value not in self.constructors:
            raise bad_value(path, f"Expected a constructor of enum {self.name} but got {str(value)[:64]!r}")
        return self.build(value)

    def encode(self, value: Any) -> Json:
        constructor = self.constructor_of(value)
        if constructor is None:
            raise ValueError(f"expected a {self.name} enum value, got {value!r}")
        return constructor


Unit = _Unit()
Bool = _Bool()
Int64 = _Int64()
Decimal = Numeric(10)
Text = _Text()
Party = _Party()
Date = _Date()
Time = _Time()
