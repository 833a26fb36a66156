"""The types a form is made of, resolved from the package signatures by the Daml-LF type walker
(`participant.daml_lf.types`: type constructors looked up in the packages read, type parameters substituted,
synonyms expanded); this module is its mapper to form types. A record's fields and a variant's constructors are
resolved when first asked for, so a recursive type (a list defined as a variant of itself) is only as deep as the
value the user builds.

A type the form cannot offer an input for (a package not read, an interface, `Any`) is `Opaque`: it is typed as
JSON, as the composer always allowed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from participant.daml_lf.signatures import (
    ChoiceSignature,
    Packages,
    PackageSignature,
    TemplateSignature,
    builtin_name,
    definitions_of,
    show_type,
)
from participant.daml_lf.types import (
    EnumOf,
    Field,
    RecordOf,
    Type,
    TypeConRef,
    TypeWalker,
    VariantOf,
    con,
    head_ref,
)


@dataclass(frozen=True, slots=True)
class Scalar:
    kind: str  # the builtin's name: one of the walker's SCALARS ("PARTY", "INT64"...)

    @property
    def shown(self) -> str:
        return builtin_name(self.kind)


@dataclass(frozen=True, slots=True)
class NumericT:
    scale: int

    @property
    def shown(self) -> str:
        return f"Numeric {self.scale}"


@dataclass(frozen=True, slots=True)
class ContractIdT:
    template: TypeConRef | None  # None: a type variable or an interface the form does not resolve

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
    ref: TypeConRef
    constructors: tuple[str, ...]

    @property
    def shown(self) -> str:
        return self.ref.qualified_name


class _Lazy:
    """A record's fields or a variant's constructors, resolved on first use."""

    def __init__(self, ref: TypeConRef, shown: str, resolve: Callable[[], tuple[tuple[str, FieldType], ...]]):
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


class TypeResolver:
    """Field types from Daml-LF types, through the packages read: the type walker's mapper to form types."""

    def __init__(self, packages: Packages | Mapping[str, PackageSignature]) -> None:
        self.packages = packages
        self.walker = TypeWalker(definitions_of(packages))
        self._data: dict[tuple[TypeConRef, tuple[Type, ...]], FieldType] = {}

    def of(self, type_: Type) -> FieldType:
        """The field type of a closed type (its type variables all substituted)."""
        return self.walker.map(type_, self)

    def template_arguments(self, template: TemplateSignature) -> FieldType:
        """A template's create arguments: the record of its fields."""
        return self.data_type(template.ref, ())

    def choice_argument(self, choice: ChoiceSignature) -> FieldType:
        return self.of(choice.argument_type)

    def data_type(self, ref: TypeConRef, args: tuple[Type, ...]) -> FieldType:
        return self.walker.map_resolved(self.walker.data_type(ref, args), self)

    # --- the walker's mapper

    def scalar(self, builtin: str) -> FieldType:
        return Scalar(builtin)

    def numeric(self, scale: int) -> FieldType:
        return NumericT(scale)

    def contract_id(self, target: Type) -> FieldType:
        return ContractIdT(head_ref(target))

    def optional(self, element: Type) -> FieldType:
        return OptionalT(self.of(element))

    def list(self, element: Type) -> FieldType:
        return ListT(self.of(element))

    def text_map(self, value: Type) -> FieldType:
        return TextMapT(self.of(value))

    def gen_map(self, key: Type, value: Type) -> FieldType:
        return GenMapT(self.of(key), self.of(value))

    def record(self, record: RecordOf) -> FieldType:
        return self._once(
            record, lambda: RecordT(record.ref, _shown(record), lambda: self._parts(record.fields))
        )

    def variant(self, variant: VariantOf) -> FieldType:
        return self._once(
            variant, lambda: VariantT(variant.ref, _shown(variant), lambda: self._parts(variant.constructors))
        )

    def enum(self, enum: EnumOf) -> FieldType:
        return self._once(enum, lambda: EnumT(enum.ref, tuple(enum.constructors)))

    def unserializable(self, type_: Type, why: str) -> FieldType:
        if why.startswith("applied to"):  # the walker's word for a data type given too few or many arguments
            return Opaque(show_type(type_), why)
        return Opaque(show_type(type_), _WHY.get(why, "a type the form does not know: write it as JSON"))

    def _once(self, data: RecordOf | VariantOf | EnumOf, build: Callable[[], FieldType]) -> FieldType:
        key = (data.ref, data.args)
        found = self._data.get(key)
        if found is None:
            found = self._data[key] = build()
        return found

    def _parts(self, fields: tuple[Field, ...]) -> tuple[tuple[str, FieldType], ...]:
        return tuple((f.name, self.of(f.type)) for f in fields)


_WHY = {
    "its package is not read": "its package is not read: write it as JSON",
    "an interface's values are not serializable": "an interface value: write it as JSON",
}


def _shown(data: RecordOf | VariantOf) -> str:
    return show_type(con(data.ref, *data.args))
