"""The decoded package: plain, immutable values (frozen dataclasses, tuples, read-only mappings).

Interned strings, dotted names and types are resolved once when a package is decoded; package references are
absolute ids. Expression bodies stay encoded (``ExprBody``) until ``decode.decode_expr`` is asked for them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# --- References


@dataclass(frozen=True, slots=True)
class TypeConRef:
    """A type constructor (data type, template or interface) or a type synonym, by package id, module and name."""

    package_id: str
    module: str  # dotted: "Splice.AmuletRules"
    name: str  # dotted: "AmuletRules"

    @property
    def qualified_name(self) -> str:
        return f"{self.module}:{self.name}"

    def __str__(self) -> str:
        return f"{self.package_id}:{self.module}:{self.name}"


@dataclass(frozen=True, slots=True)
class ValueRef:
    """A top-level value definition."""

    package_id: str
    module: str
    name: str

    def __str__(self) -> str:
        return f"{self.package_id}:{self.module}:{self.name}"


# --- Kinds and types


@dataclass(frozen=True, slots=True)
class KStar:
    pass


@dataclass(frozen=True, slots=True)
class KNat:
    pass


@dataclass(frozen=True, slots=True)
class KArrow:
    params: tuple[Kind, ...]
    result: Kind


Kind = KStar | KNat | KArrow


@dataclass(frozen=True, slots=True)
class TypeVar:
    name: str
    kind: Kind


@dataclass(frozen=True, slots=True)
class TVar:
    name: str
    args: tuple[Type, ...] = ()


@dataclass(frozen=True, slots=True)
class TCon:
    tycon: TypeConRef
    args: tuple[Type, ...] = ()


@dataclass(frozen=True, slots=True)
class TSyn:
    tysyn: TypeConRef
    args: tuple[Type, ...] = ()


@dataclass(frozen=True, slots=True)
class TBuiltin:
    builtin: str  # the schema's BuiltinType name: "INT64", "NUMERIC", "CONTRACT_ID", "LIST", "TEXTMAP", ...
    args: tuple[Type, ...] = ()


@dataclass(frozen=True, slots=True)
class TForall:
    vars: tuple[TypeVar, ...]
    body: Type


@dataclass(frozen=True, slots=True)
class TStruct:
    fields: tuple[Field, ...]


@dataclass(frozen=True, slots=True)
class TNat:
    value: int


@dataclass(frozen=True, slots=True)
class TApp:
    lhs: Type
    rhs: Type


Type = TVar | TCon | TSyn | TBuiltin | TForall | TStruct | TNat | TApp


@dataclass(frozen=True, slots=True)
class Field:
    """A record field, a variant constructor with its argument type, or a struct field."""

    name: str
    type: Type


# --- Expressions


@dataclass(frozen=True, slots=True)
class ExprBody:
    """An expression still encoded: decoded by ``decode.decode_expr`` when first needed.

    ``context`` is the package's decoding context (interned tables, own id, imports): the same bytes mean another
    expression in another package, so two bodies are equal when both their bytes and their package's context are.
    """

    encoded: bytes
    context: Any = field(repr=False)


@dataclass(frozen=True, slots=True)
class Location:
    module: tuple[str, str] | None  # (package id, module); None: the module being defined
    start_line: int
    start_col: int
    end_line: int
    end_col: int


@dataclass(frozen=True, slots=True)
class Node:
    """A message of the schema inside an expression (``Expr.App``, ``Case``, ``Update.Exercise`` …).

    ``fields`` are the message's set fields in schema order, by schema name, resolved: interned names as text,
    ids as references, types as ``Type``, sub-expressions as ``Expr``, enums by name, repeated fields as tuples.
    """

    message: str  # the schema's message name without package: "Expr.App", "Update.Exercise"
    fields: tuple[tuple[str, Any], ...]

    def get(self, name: str, default: Any = None) -> Any:
        for key, value in self.fields:
            if key == name:
                return value
        return default


@dataclass(frozen=True, slots=True)
class Expr:
    """One expression: the schema's ``Expr.Sum`` case (``"app"``, ``"val"``, ``"var"``, ``"builtin"``, ``"update"``
    …; interned-index suffixes dropped) and its value (a ``Node``, a name, a reference, a ``Type``, a builtin's
    name)."""

    kind: str
    value: Any
    location: Location | None = None


# --- Definitions


@dataclass(frozen=True, slots=True)
class Record:
    fields: tuple[Field, ...]


@dataclass(frozen=True, slots=True)
class Variant:
    constructors: tuple[Field, ...]


@dataclass(frozen=True, slots=True)
class Enum:
    constructors: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class InterfaceCons:
    """The data type that stands for an interface."""


DataCons = Record | Variant | Enum | InterfaceCons


@dataclass(frozen=True, slots=True)
class DataType:
    name: str
    params: tuple[TypeVar, ...]
    serializable: bool
    cons: DataCons


@dataclass(frozen=True, slots=True)
class TypeSynonym:
    name: str
    params: tuple[TypeVar, ...]
    type: Type


@dataclass(frozen=True, slots=True)
class ValueDef:
    name: str
    type: Type
    body: ExprBody


@dataclass(frozen=True, slots=True)
class Choice:
    name: str
    consuming: bool
    self_binder: str
    arg_binder: str
    arg_type: Type
    return_type: Type
    controllers: ExprBody
    observers: ExprBody | None
    authorizers: ExprBody | None
    update: ExprBody


@dataclass(frozen=True, slots=True)
class TemplateKey:
    type: Type
    body: ExprBody
    maintainers: ExprBody


@dataclass(frozen=True, slots=True)
class InterfaceInstance:
    """A template's implementation of an interface: its methods and view."""

    interface: TypeConRef
    methods: tuple[tuple[str, ExprBody], ...]
    view: ExprBody


@dataclass(frozen=True, slots=True)
class Template:
    name: str
    param: str
    precondition: ExprBody | None
    signatories: ExprBody
    observers: ExprBody
    choices: tuple[Choice, ...]
    key: TemplateKey | None
    implements: tuple[InterfaceInstance, ...]


@dataclass(frozen=True, slots=True)
class InterfaceMethod:
    name: str
    type: Type


@dataclass(frozen=True, slots=True)
class Interface:
    name: str
    param: str
    methods: tuple[InterfaceMethod, ...]
    choices: tuple[Choice, ...]
    view: Type
    requires: tuple[TypeConRef, ...]


@dataclass(frozen=True, slots=True)
class ExceptionDef:
    name: str
    message: ExprBody


@dataclass(frozen=True, slots=True)
class Module:
    name: str
    data_types: Mapping[str, DataType]
    synonyms: Mapping[str, TypeSynonym]
    values: Mapping[str, ValueDef]
    templates: Mapping[str, Template]
    interfaces: Mapping[str, Interface]
    exceptions: Mapping[str, ExceptionDef]


@dataclass(frozen=True, slots=True)
class Package:
    package_id: str
    name: str
    version: str
    lf_version: str
    modules: Mapping[str, Module]
    upgraded_package_id: str | None
