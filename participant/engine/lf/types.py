"""Daml-LF types as nodes of the engine's value codec (`participant.engine.values`), over the evaluator's values.

The JSON encoding, its checks and its error messages are the codec's own, so a command on a Daml-LF template is
refused exactly as one on a Python template; only the typed values differ: a node here decodes JSON into the
evaluator's runtime values (`participant.daml_lf.eval.values`) and encodes them back. Scalars the codec already
types as the evaluator does (Bool, Int64, Text, Numeric at its scale) are the codec's nodes unchanged; the others
are wrapped in a conversion. Type constructors are instantiated with their arguments, synonyms expanded; each
instantiation is built once, and its fields resolved when first needed, so recursive types are finite trees.
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


def _applied(type_: ast.Type, args: tuple[ast.Type, ...]) -> ast.Type:
    """`type_` applied to further arguments."""
    if not args:
        return type_
    if isinstance(type_, ast.TCon):
        return ast.TCon(type_.tycon, type_.args + args)
    if isinstance(type_, ast.TSyn):
        return ast.TSyn(type_.tysyn, type_.args + args)
    if isinstance(type_, ast.TBuiltin):
        return ast.TBuiltin(type_.builtin, type_.args + args)
    if isinstance(type_, ast.TVar):
        return ast.TVar(type_.name, type_.args + args)
    for arg in args:
        type_ = ast.TApp(type_, arg)
    return type_


def substitute(type_: ast.Type, env: Mapping[str, ast.Type]) -> ast.Type:
    """`type_` with its type variables replaced by their types in `env` (applications flattened)."""
    if isinstance(type_, ast.TVar):
        args = tuple(substitute(a, env) for a in type_.args)
        bound = env.get(type_.name)
        return _applied(bound, args) if bound is not None else ast.TVar(type_.name, args)
    if isinstance(type_, ast.TCon):
        return ast.TCon(type_.tycon, tuple(substitute(a, env) for a in type_.args))
    if isinstance(type_, ast.TSyn):
        return ast.TSyn(type_.tysyn, tuple(substitute(a, env) for a in type_.args))
    if isinstance(type_, ast.TBuiltin):
        return ast.TBuiltin(type_.builtin, tuple(substitute(a, env) for a in type_.args))
    if isinstance(type_, ast.TApp):
        return _applied(substitute(type_.lhs, env), (substitute(type_.rhs, env),))
    return type_  # TNat; TForall and TStruct have no value on the wire, and are refused when typed


class LfTypes:
    """The codec's nodes for the serializable types of a package set's definitions."""

    def __init__(self, packages: PackageSet) -> None:
        self.packages = packages
        self._data: dict[tuple[ast.TypeConRef, tuple[ast.Type, ...]], codec.DamlType] = {}

    def of(self, type_: ast.Type) -> codec.DamlType:
        """The node for a closed type (its type variables all substituted)."""
        type_ = self._head_normal(type_)
        if isinstance(type_, ast.TCon):
            return self.data_type(type_.tycon, type_.args)
        if isinstance(type_, ast.TBuiltin):
            return self._builtin(type_)
        raise UnserializableType(f"no value of type {type_} is serializable")

    def _head_normal(self, type_: ast.Type) -> ast.Type:
        """`type_` with applications flattened and synonyms at its head expanded."""
        type_ = substitute(type_, {})
        while isinstance(type_, ast.TSyn):
            synonym = self.packages.synonym(type_.tysyn)
            if len(synonym.params) > len(type_.args):
                raise UnserializableType(f"synonym {type_.tysyn} partially applied")
            params = len(synonym.params)
            env = {param.name: arg for param, arg in zip(synonym.params, type_.args[:params], strict=True)}
            type_ = _applied(substitute(synonym.type, env), type_.args[params:])
        return type_

    def data_type(self, tycon: ast.TypeConRef, args: tuple[ast.Type, ...] = ()) -> codec.DamlType:
        """The node for a data type applied to `args`, built once per instantiation."""
        key = (tycon, args)
        node = self._data.get(key)
        if node is None:
            node = self._data[key] = self._build(tycon, args)
        return node

    def _build(self, tycon: ast.TypeConRef, args: tuple[ast.Type, ...]) -> codec.DamlType:
        definition = self.packages.data_type(tycon)
        if len(definition.params) != len(args):
            raise UnserializableType(
                f"{tycon} applied to {len(args)} of its {len(definition.params)} parameters"
            )
        env = {param.name: arg for param, arg in zip(definition.params, args, strict=True)}
        name = tycon.qualified_name
        cons = definition.cons
        if isinstance(cons, ast.Record):
            names = tuple(field.name for field in cons.fields)
            return codec.RecordType(
                name,
                self._lazy_fields(cons.fields, env),
                build=lambda values: rt.Record(tycon, names, tuple(values[n] for n in names)),
                fields_of=lambda value: (
                    dict(zip(value.fields, value.values, strict=True))
                    if isinstance(value, rt.Record) and value.tycon == tycon
                    else None
                ),
            )
        if isinstance(cons, ast.Variant):
            ranks = {field.name: rank for rank, field in enumerate(cons.constructors)}
            return codec.VariantType(
                name,
                self._lazy_fields(cons.constructors, env),
                build=lambda tag, payload: rt.Variant(tycon, tag, ranks[tag], payload),
                parts_of=lambda value: (
                    (value.constructor, value.value)
                    if isinstance(value, rt.Variant) and value.tycon == tycon
                    else None
                ),
            )
        if isinstance(cons, ast.Enum):
            enum_ranks = {constructor: rank for rank, constructor in enumerate(cons.constructors)}
            return codec.EnumType(
                name,
                list(cons.constructors),
                build=lambda constructor: rt.Enum(tycon, constructor, enum_ranks[constructor]),
                constructor_of=lambda value: (
                    value.constructor if isinstance(value, rt.Enum) and value.tycon == tycon else None
                ),
            )
        raise UnserializableType(f"{tycon} is an interface: its values are not serializable")

    def _lazy_fields(
        self, fields: tuple[ast.Field, ...], env: Mapping[str, ast.Type]
    ) -> Callable[[], Mapping[str, codec.DamlType]]:
        resolved: dict[str, codec.DamlType] = {}

        def get() -> Mapping[str, codec.DamlType]:
            if not resolved and fields:
                resolved.update((field.name, self.of(substitute(field.type, env))) for field in fields)
            return resolved

        return get

    def _builtin(self, type_: ast.TBuiltin) -> codec.DamlType:
        builtin, args = type_.builtin, type_.args
        simple = _SIMPLE.get(builtin)
        if simple is not None and not args:
            return simple
        if builtin == "NUMERIC" and len(args) == 1 and isinstance(args[0], ast.TNat):
            return codec.Numeric(args[0].value)
        if builtin == "CONTRACT_ID" and len(args) == 1:
            target = args[0]
            template = target.tycon.qualified_name if isinstance(target, ast.TCon) else "?"
            return _Converted(
                codec.ContractIdType(template), rt.ContractId, _expecting(rt.ContractId, "ContractId", str)
            )
        if builtin == "LIST" and len(args) == 1:
            return _Converted(
                codec.ListType(self.of(args[0])), rt.list_of, _expecting((rt.Cons, rt.Nil), "List", list)
            )
        if builtin == "OPTIONAL" and len(args) == 1:
            return self._optional(args[0], in_optional=False)
        if builtin == "TEXTMAP" and len(args) == 1:
            return _Converted(
                codec.TextMapType(self.of(args[0])),
                _text_map,
                _expecting(rt.TextMap, "TextMap", lambda m: dict(zip(m.keys, m.values, strict=True))),
            )
        if builtin == "GENMAP" and len(args) == 2:
            return _GenMap(self.of(args[0]), self.of(args[1]))
        raise UnserializableType(f"no value of type {builtin} {args} is serializable")

    def _optional(self, element: ast.Type, *, in_optional: bool) -> codec.DamlType:
        # Built inside out with the nesting said, so that the codec keeps these nodes (and their conversion)
        # rather than rebuilding an inner Optional of its own.
        element = self._head_normal(element)
        if isinstance(element, ast.TBuiltin) and element.builtin == "OPTIONAL" and len(element.args) == 1:
            return _Optional(self._optional(element.args[0], in_optional=True), in_optional=in_optional)
        return _Optional(self.of(element), in_optional=in_optional)


_SIMPLE: dict[str, codec.DamlType] = {
    "UNIT": UNIT,
    "BOOL": codec.Bool,
    "INT64": codec.Int64,
    "TEXT": codec.Text,
    "PARTY": PARTY,
    "DATE": DATE,
    "TIMESTAMP": TIME,
}
