"""Daml-LF types as nodes of the engine's value codec (`participant.engine.values`), over the evaluator's values.

The JSON encoding, its checks and its error messages are the codec's own, so a command on a Daml-LF template is
refused exactly as one on a Python template; only the typed values differ: a node here decodes JSON into the
evaluator's runtime values (`participant.daml_lf.eval.values`) and encodes them back. Scalars the codec already
types as the evaluator does (Bool, Int64, Text, Numeric at its scale) are the codec's nodes unchanged; the others
are wrapped in a conversion. The types are walked by the Daml-LF reader's walker (`participant.daml_lf.types`):
this module is its mapper to codec nodes. Each data type instantiation is built once, and its fields resolved
when first needed, so recursive types are finite trees.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Callable, Mapping
from typing import Any

from participant.daml_lf import ast
from participant.daml_lf.eval import ordering
from participant.daml_lf.eval import values as rt
from participant.daml_lf.packages import PackageSet
from participant.daml_lf.types import Builtin, EnumOf, RecordOf, TypeWalker, VariantOf, of_packages
from participant.engine import values as codec

_EPOCH_DATE = dt.date(1970, 1, 1)
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_MICROSECOND = dt.timedelta(microseconds=1)


class UnserializableType(ValueError):
    """A type no value on the wire has: functions, type abstractions, `Any`, interfaces' own data types..."""


class _Converted(codec.DamlType):
    """The codec's node `inner` with its typed values converted to and from the evaluator's."""

    def __init__(
        self, inner: codec.DamlType, to_runtime: Callable[[Any], Any], from_runtime: Callable[[Any], Any]
    ):
        self.inner, self.to_runtime, self.from_runtime = inner, to_runtime, from_runtime
        self.name = inner.name

    def describe(self) -> codec.Json:
        return self.inner.describe()

    def decode(self, value: codec.Json, path: str = "") -> Any:
        return self.to_runtime(self.inner.decode(value, path))

    def encode(self, value: Any) -> codec.Json:
        return self.inner.encode(self.from_runtime(value))


def _expecting(
    kind: type | tuple[type, ...], what: str, convert: Callable[[Any], Any]
) -> Callable[[Any], Any]:
    def from_runtime(value: Any) -> Any:
        if not isinstance(value, kind):
            raise ValueError(f"not a {what}: {value!r}")
        return convert(value)

    return from_runtime


def _date(days: rt.Date) -> dt.date:
    return _EPOCH_DATE + dt.timedelta(days=int(days))


def _timestamp(micros: rt.Timestamp) -> dt.datetime:
    return _EPOCH + dt.timedelta(microseconds=int(micros))


UNIT = _Converted(codec.Unit, lambda _: rt.UNIT, _expecting(rt.Unit, "Unit", lambda _: ()))
PARTY = _Converted(codec.Party, rt.Party, _expecting(rt.Party, "Party", str))
DATE = _Converted(
    codec.Date, lambda day: rt.Date((day - _EPOCH_DATE).days), _expecting(rt.Date, "Date", _date)
)
TIME = _Converted(
    codec.Time,
    lambda moment: rt.Timestamp((moment - _EPOCH) // _MICROSECOND),
    _expecting(rt.Timestamp, "Timestamp", _timestamp),
)


def _text_map(items: dict[str, Any]) -> rt.TextMap:
    keys = tuple(sorted(items))  # by code point, the evaluator's order of TextMap keys
    return rt.TextMap(keys, tuple(items[key] for key in keys))


class _Optional(codec.OptionalType):
    """The codec's Optional (nested ones as arrays), with the evaluator's `None` / `Some(value)`."""

    def decode(self, value: codec.Json, path: str = "") -> Any:
        decoded = super().decode(value, path)
        if decoded is None:
            return None
        return rt.Some(decoded.value if isinstance(decoded, codec.Some) else decoded)

    def encode(self, value: Any) -> codec.Json:
        if value is None:
            return super().encode(None)
        if not isinstance(value, rt.Some):
            raise ValueError(f"not an Optional: {value!r}")
        nested = isinstance(self.element, codec.OptionalType)
        return super().encode(codec.Some(value.value) if nested else value.value)


class _GenMap(codec.DamlType):
    """The codec's GenMap (`[[key, value], ...]`, its messages) as the evaluator's map: sorted, keys distinct by
    Daml's equality (keys may be records, which Python cannot hash as Daml compares them)."""

    name = "GenMap"

    def __init__(self, key: codec.DamlType, value: codec.DamlType) -> None:
        self.key, self.value = key, value

    def describe(self) -> codec.Json:
        return {"GenMap": [self.key.describe(), self.value.describe()]}

    def decode(self, value: codec.Json, path: str = "") -> rt.GenMap:
        if not isinstance(value, list):
            raise self._expect(value, path)
        entries: list[tuple[Any, Any, int]] = []
        for i, pair in enumerate(value):
            if not isinstance(pair, list) or len(pair) != 2:
                raise codec.bad_value(f"{path}[{i}]", "Expected a [key, value] pair")
            key = self.key.decode(pair[0], f"{path}[{i}][0]")
            entries.append((key, self.value.decode(pair[1], f"{path}[{i}][1]"), i))
        entries.sort(key=functools.cmp_to_key(_by_key_then_position))
        for before, after in zip(entries, entries[1:], strict=False):
            if ordering.compare(before[0], after[0]) == 0:
                i = after[2]
                raise codec.bad_value(f"{path}[{i}]", f"Duplicate GenMap key {value[i][0]!r}")
        return rt.GenMap(tuple(e[0] for e in entries), tuple(e[1] for e in entries))

    def encode(self, value: Any) -> codec.Json:
        if not isinstance(value, rt.GenMap):
            raise ValueError(f"not a GenMap: {value!r}")
        return [
            [self.key.encode(k), self.value.encode(v)] for k, v in zip(value.keys, value.values, strict=True)
        ]


def _by_key_then_position(a: tuple[Any, Any, int], b: tuple[Any, Any, int]) -> int:
    return ordering.compare(a[0], b[0]) or a[2] - b[2]


class LfTypes:
    """The codec's nodes for the serializable types of a package set's definitions."""

    def __init__(self, packages: PackageSet) -> None:
        self.packages = packages
        self.walker = TypeWalker(of_packages(packages))
        self._data: dict[tuple[ast.TypeConRef, tuple[ast.Type, ...]], codec.DamlType] = {}

    def of(self, type_: ast.Type) -> codec.DamlType:
        """The node for a closed type (its type variables all substituted)."""
        return self.walker.map(type_, self)

    def data_type(self, tycon: ast.TypeConRef, args: tuple[ast.Type, ...] = ()) -> codec.DamlType:
        """The node for a data type applied to `args`, built once per instantiation."""
        node = self._data.get((tycon, args))
        if node is None:
            node = self.walker.map_resolved(self.walker.data_type(tycon, args), self)
        return node

    # --- the walker's mapper

    def scalar(self, builtin: str) -> codec.DamlType:
        return _SCALARS[builtin]

    def numeric(self, scale: int) -> codec.DamlType:
        return codec.Numeric(scale)

    def contract_id(self, target: ast.Type) -> codec.DamlType:
        template = target.tycon.qualified_name if isinstance(target, ast.TCon) else "?"
        return _Converted(
            codec.ContractIdType(template), rt.ContractId, _expecting(rt.ContractId, "ContractId", str)
        )

    def optional(self, element: ast.Type) -> codec.DamlType:
        return self._optional(element, in_optional=False)

    def _optional(self, element: ast.Type, *, in_optional: bool) -> codec.DamlType:
        # Built inside out with the nesting said, so that the codec keeps these nodes (and their conversion)
        # rather than rebuilding an inner Optional of its own.
        inner = self.walker.resolve(element)
        if isinstance(inner, Builtin) and inner.name == "OPTIONAL" and len(inner.args) == 1:
            return _Optional(self._optional(inner.args[0], in_optional=True), in_optional=in_optional)
        return _Optional(self.walker.map_resolved(inner, self), in_optional=in_optional)

    def list(self, element: ast.Type) -> codec.DamlType:
        return _Converted(
            codec.ListType(self.of(element)), rt.list_of, _expecting((rt.Cons, rt.Nil), "List", list)
        )

    def text_map(self, value: ast.Type) -> codec.DamlType:
        return _Converted(
            codec.TextMapType(self.of(value)),
            _text_map,
            _expecting(rt.TextMap, "TextMap", lambda m: dict(zip(m.keys, m.values, strict=True))),
        )

    def gen_map(self, key: ast.Type, value: ast.Type) -> codec.DamlType:
        return _GenMap(self.of(key), self.of(value))

    def record(self, record: RecordOf) -> codec.DamlType:
        tycon, fields = record.ref, record.fields
        names = tuple(field.name for field in fields)
        return self._once(
            record,
            lambda: codec.RecordType(
                tycon.qualified_name,
                self._lazy_fields(fields),
                build=lambda values: rt.Record(tycon, names, tuple(values[n] for n in names)),
                fields_of=lambda value: (
                    dict(zip(value.fields, value.values, strict=True))
                    if isinstance(value, rt.Record) and value.tycon == tycon
                    else None
                ),
            ),
        )

    def variant(self, variant: VariantOf) -> codec.DamlType:
        tycon = variant.ref
        ranks = {field.name: rank for rank, field in enumerate(variant.constructors)}
        return self._once(
            variant,
            lambda: codec.VariantType(
                tycon.qualified_name,
                self._lazy_fields(variant.constructors),
                build=lambda tag, payload: rt.Variant(tycon, tag, ranks[tag], payload),
                parts_of=lambda value: (
                    (value.constructor, value.value)
                    if isinstance(value, rt.Variant) and value.tycon == tycon
                    else None
                ),
            ),
        )

    def enum(self, enum: EnumOf) -> codec.DamlType:
        tycon = enum.ref
        ranks = {constructor: rank for rank, constructor in enumerate(enum.constructors)}
        return self._once(
            enum,
            lambda: codec.EnumType(
                tycon.qualified_name,
                list(enum.constructors),
                build=lambda constructor: rt.Enum(tycon, constructor, ranks[constructor]),
                constructor_of=lambda value: (
                    value.constructor if isinstance(value, rt.Enum) and value.tycon == tycon else None
                ),
            ),
        )

    def unserializable(self, type_: ast.Type, why: str) -> codec.DamlType:
        raise UnserializableType(f"no value of type {type_} is serializable: {why}")

    def _once(
        self, data: RecordOf | VariantOf | EnumOf, build: Callable[[], codec.DamlType]
    ) -> codec.DamlType:
        """The instantiation's node, built on its first use and shared by every other."""
        key = (data.ref, data.args)
        node = self._data.get(key)
        if node is None:
            node = self._data[key] = build()
        return node

    def _lazy_fields(self, fields: tuple[ast.Field, ...]) -> Callable[[], Mapping[str, codec.DamlType]]:
        resolved: dict[str, codec.DamlType] = {}

        def get() -> Mapping[str, codec.DamlType]:
            if not resolved and fields:
                resolved.update((field.name, self.of(field.type)) for field in fields)
            return resolved

        return get


_SCALARS: dict[str, codec.DamlType] = {
    "UNIT": UNIT,
    "BOOL": codec.Bool,
    "INT64": codec.Int64,
    "TEXT": codec.Text,
    "PARTY": PARTY,
    "DATE": DATE,
    "TIMESTAMP": TIME,
}
