"""The types a form is made of, resolved from the package signatures: type constructors looked up in the packages
read, type parameters substituted, synonyms and applications flattened. A record's fields and a variant's
constructors are resolved when first asked for, so a recursive type (a list defined as a variant of itself) is
only as deep as the value the user builds.

A type the form cannot offer an input for (a package not read, an interface, `Any`) is `Opaque`: it is typed as
JSON, as the composer always allowed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from app.counting import count
from participant.daml_lf import ast
from participant.daml_lf.signatures import ChoiceSignature, PackageSignature, TemplateSignature, show_type

SCALARS = {
    "PARTY": "Party",
    "TEXT": "Text",
    "INT64": "Int",
    "BOOL": "Bool",
    "DATE": "Date",
    "TIMESTAMP": "Time",
    "UNIT": "()",
}


@dataclass(frozen=True, slots=True)
class Scalar:
    kind: str  # a key of SCALARS

    @property
    def shown(self) -> str:
        return SCALARS[self.kind]


@dataclass(frozen=True, slots=True)
class NumericT:
    scale: int

    @property
    def shown(self) -> str:
        return f"Numeric {self.scale}"


@dataclass(frozen=True, slots=True)
class ContractIdT:
    template: ast.TypeConRef | None  # None: a type variable or an interface the form does not resolve

    @property
    def shown(self) -> str:
        return f"ContractId {self.template.qualified_name}" if self.template else "ContractId"


@dataclass(frozen=True, slots=True)
class OptionalT:
    element: FieldType

    @property
    def shown(self) -> str:
        return f"Optional {_arg(self.element)}"


@dataclass(frozen=True, slots=True)
class ListT:
    element: FieldType

    @property
    def shown(self) -> str:
        return f"[{self.element.shown}]"


@dataclass(frozen=True, slots=True)
class TextMapT:
    value: FieldType

    @property
    def shown(self) -> str:
        return f"TextMap {_arg(self.value)}"


@dataclass(frozen=True, slots=True)
class GenMapT:
    key: FieldType
    value: FieldType

    @property
    def shown(self) -> str:
        return f"Map {_arg(self.key)} {_arg(self.value)}"


@dataclass(frozen=True, slots=True)
class EnumT:
    ref: ast.TypeConRef
    constructors: tuple[str, ...]

    @property
    def shown(self) -> str:
        return self.ref.qualified_name


class _Lazy:
    """A record's fields or a variant's constructors, resolved on first use."""

    def __init__(
        self, ref: ast.TypeConRef, shown: str, resolve: Callable[[], tuple[tuple[str, FieldType], ...]]
    ):
        self.ref = ref
        self.shown = shown
        self._resolve: Callable[[], tuple[tuple[str, FieldType], ...]] | None = resolve
        self._parts: tuple[tuple[str, FieldType], ...] = ()

    def _get(self) -> tuple[tuple[str, FieldType], ...]:
        if self._resolve is not None:
            self._parts, self._resolve = self._resolve(), None
        return self._parts

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.shown})"


class RecordT(_Lazy):
    @property
    def fields(self) -> tuple[tuple[str, FieldType], ...]:
        return self._get()


class VariantT(_Lazy):
    @property
    def constructors(self) -> tuple[tuple[str, FieldType], ...]:
        return self._get()

    def constructor(self, name: str) -> FieldType | None:
        return next((t for n, t in self.constructors if n == name), None)


@dataclass(frozen=True, slots=True)
class Opaque:
    shown: str
    why: str


FieldType = (
    Scalar
    | NumericT
    | ContractIdT
    | OptionalT
    | ListT
    | TextMapT
    | GenMapT
    | EnumT
    | RecordT
    | VariantT
    | Opaque
)


def _arg(type_: FieldType) -> str:
    shown = type_.shown
    return f"({shown})" if " " in shown and not shown.startswith("[") else shown


class Packages(Protocol):
    """The packages read, by id (`PackageCatalog.packages`, `Signatures.packages`)."""

    def get(self, package_id: str, /) -> PackageSignature | None: ...


class TypeResolver:
    """Field types from Daml-LF types, through the packages read."""

    def __init__(self, packages: Packages | Mapping[str, PackageSignature]) -> None:
        self.packages = packages
        self._data: dict[tuple[ast.TypeConRef, tuple[ast.Type, ...]], FieldType] = {}

    def of(self, type_: ast.Type) -> FieldType:
        """The field type of a closed type (its type variables all substituted)."""
        type_ = _flatten(type_)
        if isinstance(type_, ast.TBuiltin):
            return self._builtin(type_)
        if isinstance(type_, ast.TCon):
            return self.data_type(type_.tycon, type_.args)
        return Opaque(show_type(type_), "a type the form does not know: write it as JSON")

    def template_arguments(self, template: TemplateSignature) -> FieldType:
        """A template's create arguments: the record of its fields."""
        return self.data_type(template.ref, ())

    def choice_argument(self, choice: ChoiceSignature) -> FieldType:
        return self.of(choice.argument_type)

    def data_type(self, ref: ast.TypeConRef, args: tuple[ast.Type, ...]) -> FieldType:
        key = (ref, args)
        found = self._data.get(key)
        if found is None:
            found = self._data[key] = self._build(ref, args)
        return found

    def _build(self, ref: ast.TypeConRef, args: tuple[ast.Type, ...]) -> FieldType:
        shown = show_type(ast.TCon(ref, args))
        package = self.packages.get(ref.package_id)
        definition = package.data_types.get(ref.qualified_name) if package is not None else None
        if definition is None:
            return Opaque(shown, "its package is not read: write it as JSON")
        if len(definition.params) != len(args):
            return Opaque(
                shown, f"applied to {len(args)} of its {count(len(definition.params), 'parameter')}"
            )
        env = dict(zip(definition.params, args, strict=True))
        cons = definition.cons
        if isinstance(cons, ast.Record):
            return RecordT(ref, shown, lambda: self._parts(cons.fields, env))
        if isinstance(cons, ast.Variant):
            return VariantT(ref, shown, lambda: self._parts(cons.constructors, env))
        if isinstance(cons, ast.Enum):
            return EnumT(ref, tuple(cons.constructors))
        return Opaque(shown, "an interface value: write it as JSON")

    def _parts(
        self, fields: tuple[ast.Field, ...], env: Mapping[str, ast.Type]
    ) -> tuple[tuple[str, FieldType], ...]:
        return tuple((f.name, self.of(substitute(f.type, env))) for f in fields)

    def _builtin(self, type_: ast.TBuiltin) -> FieldType:
        builtin, args = type_.builtin, type_.args
        if builtin in SCALARS and not args:
            return Scalar(builtin)
        if builtin == "NUMERIC" and len(args) == 1 and isinstance(args[0], ast.TNat):
            return NumericT(args[0].value)
        if builtin == "CONTRACT_ID" and len(args) == 1:
            target = _flatten(args[0])
            return ContractIdT(target.tycon if isinstance(target, ast.TCon) else None)
        if builtin == "OPTIONAL" and len(args) == 1:
            return OptionalT(self.of(args[0]))
        if builtin == "LIST" and len(args) == 1:
            return ListT(self.of(args[0]))
        if builtin == "TEXTMAP" and len(args) == 1:
            return TextMapT(self.of(args[0]))
        if builtin == "GENMAP" and len(args) == 2:
            return GenMapT(self.of(args[0]), self.of(args[1]))
        return Opaque(show_type(type_), "a type the form does not know: write it as JSON")


def _applied(type_: ast.Type, args: tuple[ast.Type, ...]) -> ast.Type:
    if not args:
        return type_
    if isinstance(type_, ast.TCon):
        return ast.TCon(type_.tycon, type_.args + args)
    if isinstance(type_, ast.TBuiltin):
        return ast.TBuiltin(type_.builtin, type_.args + args)
    if isinstance(type_, ast.TVar):
        return ast.TVar(type_.name, type_.args + args)
    if isinstance(type_, ast.TSyn):
        return ast.TSyn(type_.tysyn, type_.args + args)
    for arg in args:
        type_ = ast.TApp(type_, arg)
    return type_


def _flatten(type_: ast.Type) -> ast.Type:
    """Applications folded into their head: ``TApp(TApp(Map, k), v)`` is ``Map k v``."""
    if isinstance(type_, ast.TApp):
        return _applied(_flatten(type_.lhs), (type_.rhs,))
    return type_


def substitute(type_: ast.Type, env: Mapping[str, ast.Type]) -> ast.Type:
    """`type_` with its type variables replaced by their types in `env`, applications flattened."""
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
    return type_
