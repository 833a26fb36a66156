"""Daml's types in Python and the spec's JSON value encoding (docs/ledger-api.md §9).

A `DamlType` decodes the accepted input JSON into a Python value and encodes a Python value into the output form.
Python values by type: Unit `()`, Bool `bool`, Int64 `int`, Numeric `decimal.Decimal`, Text/Party/ContractId `str`,
Date `datetime.date`, Time `datetime.datetime` (UTC), List `list`, TextMap and GenMap `dict`, records and variants
instances of their classes (see `records.py`), enums `enum.Enum` members. Optional is `None` or the value, except
that an Optional whose payload is itself Optional wraps its value in `Some` (so that Some(None) differs from None).

Annotations use the constants and constructors below: `Party`, `Decimal`, `Numeric[0]`, `List[Party]`,
`Optional[Text]`, `ContractId[Iou]`, `TextMap[Int64]`, `GenMap[Text, Int64]`, `Tuple2[A, B]`, record classes.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal as PyDecimal
from typing import Any

from participant.engine.primitives import (  # noqa: F401  (re-exported: values is the codec's one entry point)
    INT64_MAX,
    INT64_MIN,
    ContractIdType,
    DamlType,
    Json,
    Numeric,
    _Bool,
    _Date,
    _Int64,
    _kind,
    _Party,
    _Text,
    _Time,
    _Unit,
    bad_value,
    join_path,
)


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


# --- records: shared by record classes, tuples and choice arguments


def decode_fields(fields: dict[str, DamlType], value: Json, path: str) -> dict[str, Any]:
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


def encode_fields(fields: dict[str, DamlType], values: dict[str, Any]) -> dict[str, Json]:
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


# --- the names models annotate with


def to_type(annotation: Any, namespace: dict[str, Any] | None = None) -> DamlType:
    """The DamlType an annotation stands for. String annotations (postponed evaluation, forward references) are
    evaluated in `namespace`, normally the model module's globals."""
    if isinstance(annotation, DamlType):
        return annotation
    if isinstance(annotation, str):
        try:
            evaluated = eval(annotation, dict(namespace or {}))  # model source, not user input
        except NameError as error:
            raise TypeError(f"cannot resolve the annotation {annotation!r}: {error}") from None
        return to_type(evaluated, namespace)
    if annotation is None:
        return Unit
    daml_type = getattr(annotation, "daml_type", None)
    if callable(daml_type):
        return daml_type()
    raise TypeError(f"{annotation!r} is not a Daml type")


class _Constructor:
    def __init__(self, build: Any, name: str) -> None:
        self._build, self._name = build, name

    def __getitem__(self, args: Any) -> DamlType:
        args = args if isinstance(args, tuple) else (args,)
        return self._build(*args)

    def __repr__(self) -> str:
        return self._name


Unit = _Unit()
Bool = _Bool()
Int64 = _Int64()
Decimal = Numeric(10)
Text = _Text()
Party = _Party()
Date = _Date()
Time = _Time()
Timestamp = Time
ContractId = _Constructor(ContractIdType, "ContractId")
List = _Constructor(lambda t: ListType(to_type(t)), "List")
Optional = _Constructor(lambda t: OptionalType(to_type(t)), "Optional")
TextMap = _Constructor(lambda t: TextMapType(to_type(t)), "TextMap")
GenMap = _Constructor(lambda k, v: GenMapType(to_type(k), to_type(v)), "GenMap")
Tuple2 = _Constructor(lambda a, b: TupleType(to_type(a), to_type(b)), "Tuple2")
Tuple3 = _Constructor(lambda a, b, c: TupleType(to_type(a), to_type(b), to_type(c)), "Tuple3")


def decode(daml_type: Any, value: Json, path: str = "") -> Any:
    return to_type(daml_type).decode(value, path)


def encode(daml_type: Any, value: Any) -> Json:
    return to_type(daml_type).encode(value)


def show_numeric(number: PyDecimal) -> str:
    """Daml's `show` of a Numeric: no trailing zeros but at least one decimal digit ("999.99", "5.0")."""
    text = f"{number.normalize():f}" if number else "0"
    return text if "." in text else text + ".0"
