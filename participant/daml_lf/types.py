"""One walker over Daml-LF types: applications flattened, type variables substituted, synonyms expanded, a data
type resolved with its arguments into what it is made of (a record's fields, a variant's constructors, an enum's
constructors, each type with the data type's parameters substituted).

The shape of dazl's `values.Context` driving `ValueMapper`s: `TypeWalker.map` resolves a type and calls the one
method of a `TypeMapper` that its kind asks for; the mapper builds what it is made for (the participant's value
codec, the composer's form types, the inspector's labels) and asks the walker again for the parts it needs, when it
needs them, so a recursive type is only walked as deep as a value goes.

The walker reads its definitions through `Definitions`: the reader's packages (`of_packages`, synonyms included)
or a client's package signatures (`signatures.definitions_of`). It never raises for what its definitions lack: a
type it cannot resolve is `Unresolved`, with the reason, and the mapper decides what that means.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from . import ast
from .packages import PackageSet

Type = ast.Type
TypeConRef = ast.TypeConRef
Field = ast.Field

SCALARS = frozenset({"UNIT", "BOOL", "INT64", "TEXT", "PARTY", "DATE", "TIMESTAMP"})
"""The builtin types that take no argument and have a value on the wire (Numeric takes its scale)."""


def con(ref: TypeConRef, *args: Type) -> Type:
    """The type of a data type (a template's, a record's...) applied to `args`."""
    return ast.TCon(ref, args)


# --- Types as terms


def head_ref(type_: Type) -> TypeConRef | None:
    """The data type (template, interface) at the head of a type, if one is there."""
    while isinstance(type_, ast.TApp):
        type_ = type_.lhs
    return type_.tycon if isinstance(type_, ast.TCon) else None


def applied(type_: Type, args: tuple[Type, ...]) -> Type:
    """`type_` applied to further arguments: added to its head's when it has one."""
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
    if isinstance(type_, ast.TApp):  # an application bound to a variable, applied further: one flat head
        return applied(type_.lhs, (type_.rhs, *args))
    for arg in args:
        type_ = ast.TApp(type_, arg)
    return type_


def substitute(type_: Type, env: Mapping[str, Type]) -> Type:
    """`type_` with its type variables replaced by their types in `env`, and its applications flattened
    (``TApp (TApp (TCon Map) k) v`` is ``TCon Map [k, v]``): the same type is then always the same term."""
    if isinstance(type_, ast.TVar):
        args = tuple(substitute(a, env) for a in type_.args)
        bound = env.get(type_.name)
        return applied(bound, args) if bound is not None else ast.TVar(type_.name, args)
    if isinstance(type_, ast.TCon):
        return ast.TCon(type_.tycon, tuple(substitute(a, env) for a in type_.args))
    if isinstance(type_, ast.TSyn):
        return ast.TSyn(type_.tysyn, tuple(substitute(a, env) for a in type_.args))
    if isinstance(type_, ast.TBuiltin):
        return ast.TBuiltin(type_.builtin, tuple(substitute(a, env) for a in type_.args))
    if isinstance(type_, ast.TApp):
        return applied(substitute(type_.lhs, env), (substitute(type_.rhs, env),))
    return type_  # TNat; TForall and TStruct bind or hold no variable a data type's parameter reaches


# --- What a type is


@dataclass(frozen=True, slots=True)
class Builtin:
    """A builtin type with its arguments: ``INT64``, ``NUMERIC [TNat 10]``, ``LIST [t]``, ``GENMAP [k, v]``…"""

    name: str
    args: tuple[Type, ...]


@dataclass(frozen=True, slots=True)
class RecordOf:
    ref: TypeConRef
    args: tuple[Type, ...]
    fields: tuple[ast.Field, ...]  # declared order, parameters substituted


@dataclass(frozen=True, slots=True)
class VariantOf:
    ref: TypeConRef
    args: tuple[Type, ...]
    constructors: tuple[ast.Field, ...]  # each with its argument's type, parameters substituted

    def constructor(self, name: str) -> Type | None:
        return next((c.type for c in self.constructors if c.name == name), None)


@dataclass(frozen=True, slots=True)
class EnumOf:
    ref: TypeConRef
    args: tuple[Type, ...]
    constructors: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class InterfaceOf:
    """The data type that stands for an interface: its values are not serializable."""

    ref: TypeConRef


@dataclass(frozen=True, slots=True)
class Unresolved:
    """A type the walker cannot say more of: a type variable left, a function, a package not read..."""

    type: Type
    why: str


Resolved = Builtin | RecordOf | VariantOf | EnumOf | InterfaceOf | Unresolved
DataOf = RecordOf | VariantOf | EnumOf | InterfaceOf


# --- Where definitions come from


@dataclass(frozen=True, slots=True)
class DataDefinition:
    params: tuple[str, ...]
    cons: ast.DataCons


@dataclass(frozen=True, slots=True)
class SynonymDefinition:
    params: tuple[str, ...]
    type: Type


class Definitions(Protocol):
    """The data types and synonyms a walker resolves; None: not among the packages read."""

    def data_type(self, ref: TypeConRef, /) -> DataDefinition | None: ...

    def synonym(self, ref: TypeConRef, /) -> SynonymDefinition | None: ...


class _PackageSetDefinitions:
    """A package set's definitions. Its references were checked when it was read: one that does not resolve is
    the reader's error, raised as such."""

    def __init__(self, packages: PackageSet) -> None:
        self._packages = packages

    def data_type(self, ref: TypeConRef, /) -> DataDefinition:
        found = self._packages.data_type(ref)
        return DataDefinition(tuple(p.name for p in found.params), found.cons)

    def synonym(self, ref: TypeConRef, /) -> SynonymDefinition:
        found = self._packages.synonym(ref)
        return SynonymDefinition(tuple(p.name for p in found.params), found.type)


def of_packages(packages: PackageSet) -> Definitions:
    return _PackageSetDefinitions(packages)


# --- The walker

_SYNONYM_DEPTH = 1000  # synonyms expanding into synonyms: the reader refuses cycles, this bounds the rest


class TypeWalker:
    """Resolves types against `definitions`; each data type instantiation is resolved once."""

    def __init__(self, definitions: Definitions) -> None:
        self.definitions = definitions
        self._data: dict[tuple[TypeConRef, tuple[Type, ...]], DataOf | Unresolved] = {}

    def normal(self, type_: Type) -> Type:
        """`type_` with its applications flattened and the synonyms at its head expanded."""
        type_ = substitute(type_, {})
        for _ in range(_SYNONYM_DEPTH):
            if not isinstance(type_, ast.TSyn):
                return type_
            synonym = self.definitions.synonym(type_.tysyn)
            if synonym is None or len(synonym.params) > len(type_.args):
                return type_
            n = len(synonym.params)
            env = dict(zip(synonym.params, type_.args[:n], strict=True))
            type_ = applied(substitute(synonym.type, env), type_.args[n:])
        return type_

    def resolve(self, type_: Type) -> Resolved:
        """What `type_` is: a builtin with its arguments, a data type made of its parts, or why neither."""
        type_ = self.normal(type_)
        if isinstance(type_, ast.TBuiltin):
            return Builtin(type_.builtin, type_.args)
        if isinstance(type_, ast.TCon):
            return self.data_type(type_.tycon, type_.args)
        if isinstance(type_, ast.TSyn):
            synonym = self.definitions.synonym(type_.tysyn)
            why = "its package is not read" if synonym is None else "a synonym partially applied"
            return Unresolved(type_, why)
        if isinstance(type_, ast.TVar):
            return Unresolved(type_, "a type variable")
        return Unresolved(type_, "not the type of a value on the wire")

    def data_type(self, ref: TypeConRef, args: tuple[Type, ...] = ()) -> DataOf | Unresolved:
        """A data type applied to `args`, made of its parts."""
        key = (ref, args)
        found = self._data.get(key)
        if found is None:
            found = self._data_type(ref, args)
            if not isinstance(found, Unresolved):  # its package may be read later: asked again then
                self._data[key] = found
        return found

    def _data_type(self, ref: TypeConRef, args: tuple[Type, ...]) -> DataOf | Unresolved:
        definition = self.definitions.data_type(ref)
        if definition is None:
            return Unresolved(ast.TCon(ref, args), "its package is not read")
        if len(definition.params) != len(args):
            return Unresolved(
                ast.TCon(ref, args),
                f"applied to {len(args)} of its {len(definition.params)} parameter{'' if len(definition.params) == 1 else 's'}",
            )
        env = dict(zip(definition.params, args, strict=True))
        cons = definition.cons
        if isinstance(cons, ast.Record):
            return RecordOf(ref, args, _substituted(cons.fields, env))
        if isinstance(cons, ast.Variant):
            return VariantOf(ref, args, _substituted(cons.constructors, env))
        if isinstance(cons, ast.Enum):
            return EnumOf(ref, args, cons.constructors)
        return InterfaceOf(ref)

    def map(self, type_: Type, mapper: TypeMapper[T]) -> T:
        """`mapper`'s result for `type_`: the method its kind asks for."""
        return self.map_resolved(self.resolve(type_), mapper)

    def map_resolved(self, resolved: Resolved, mapper: TypeMapper[T]) -> T:
        if isinstance(resolved, Builtin):
            return self._map_builtin(resolved, mapper)
        if isinstance(resolved, RecordOf):
            return mapper.record(resolved)
        if isinstance(resolved, VariantOf):
            return mapper.variant(resolved)
        if isinstance(resolved, EnumOf):
            return mapper.enum(resolved)
        if isinstance(resolved, InterfaceOf):
            return mapper.unserializable(ast.TCon(resolved.ref), "an interface's values are not serializable")
        return mapper.unserializable(resolved.type, resolved.why)

    def _map_builtin(self, builtin: Builtin, mapper: TypeMapper[T]) -> T:
        name, args = builtin.name, builtin.args
        if name in SCALARS and not args:
            return mapper.scalar(name)
        if len(args) == 1:
            (arg,) = args
            if name == "NUMERIC" and isinstance(arg, ast.TNat):
                return mapper.numeric(arg.value)
            if name == "CONTRACT_ID":
                return mapper.contract_id(self.normal(arg))
            if name == "OPTIONAL":
                return mapper.optional(arg)
            if name == "LIST":
                return mapper.list(arg)
            if name == "TEXTMAP":
                return mapper.text_map(arg)
        if name == "GENMAP" and len(args) == 2:
            return mapper.gen_map(args[0], args[1])
        return mapper.unserializable(ast.TBuiltin(name, args), "a builtin type no value on the wire has")

    def is_optional(self, type_: Type) -> bool:
        resolved = self.resolve(type_)
        return isinstance(resolved, Builtin) and resolved.name == "OPTIONAL" and len(resolved.args) == 1


def _substituted(fields: tuple[ast.Field, ...], env: Mapping[str, Type]) -> tuple[ast.Field, ...]:
    return tuple(ast.Field(f.name, substitute(f.type, env)) for f in fields)


T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


class TypeMapper(Protocol, Generic[T_co]):
    """What a walker drives: one method per kind of type. Element and field types come unresolved: the mapper
    asks the walker for them (`map`) when, and if, it needs them."""

    def scalar(self, builtin: str) -> T_co:
        """One of `SCALARS`: ``UNIT``, ``BOOL``, ``INT64``, ``TEXT``, ``PARTY``, ``DATE``, ``TIMESTAMP``."""
        ...

    def numeric(self, scale: int) -> T_co: ...

    def contract_id(self, target: Type) -> T_co:
        """`target`: the template or interface the id is of (normal: a `TCon` when the walker knows it)."""
        ...

    def optional(self, element: Type) -> T_co: ...

    def list(self, element: Type) -> T_co: ...

    def text_map(self, value: Type) -> T_co: ...

    def gen_map(self, key: Type, value: Type) -> T_co: ...

    def record(self, record: RecordOf) -> T_co: ...

    def variant(self, variant: VariantOf) -> T_co: ...

    def enum(self, enum: EnumOf) -> T_co: ...

    def unserializable(self, type_: Type, why: str) -> T_co:
        """A type no value on the wire has, or one the walker cannot resolve (`why` says which)."""
        ...


__all__ = [
    "SCALARS",
    "Builtin",
    "DataDefinition",
    "DataOf",
    "Definitions",
    "EnumOf",
    "Field",
    "InterfaceOf",
    "RecordOf",
    "Resolved",
    "SynonymDefinition",
    "Type",
    "TypeConRef",
    "TypeMapper",
    "TypeWalker",
    "Unresolved",
    "VariantOf",
    "applied",
    "con",
    "head_ref",
    "of_packages",
    "substitute",
]
