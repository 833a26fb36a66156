"""Daml values read with their types: a record's fields in the order its data type declares them, each with its
type, nested records and variants typed too, from the signatures of the packages read (`app.packages`).

The JSON of a value names no types; these come from the template, choice or interface that the value belongs to.
What the signatures do not tell (a package not read, a field the type does not declare: an upgraded package's)
is left untyped, and the caller shows it as it would without types. Types are resolved by the Daml-LF type walker
(`participant.daml_lf.types`), which this module reads a value alongside.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app import daml_values as dv
from app.packages import (
    ChoiceSignature,
    DataTypeSignature,
    InterfaceSignature,
    PackageSignature,
    TemplateSignature,
    show_type,
)
from participant.daml_lf.signatures import definitions_of
from participant.daml_lf.types import (
    Builtin,
    EnumOf,
    Field,
    RecordOf,
    Type,
    TypeConRef,
    TypeWalker,
    VariantOf,
    con,
    substitute,
)

ValueType = Type
"""A Daml-LF type; callers hold it without looking inside and ask this module about it."""


@dataclass(frozen=True, slots=True)
class TypedEntry:
    name: str
    value: Any
    type: ValueType | None


@dataclass(frozen=True, slots=True)
class ChoiceLine:
    """A choice as the inspector lists it."""

    name: str
    consuming: bool
    argument: str  # ``newLabel : Text`` (its record's fields), or the argument's type
    result: str
    interface_id: str = ""  # for an interface's choice: the interface (``packageId:Module:Entity``)


class ValueTypes:
    """Types of values, resolved against the packages read (by package id)."""

    def __init__(self, packages: Mapping[str, PackageSignature]) -> None:
        self._packages = packages
        self._walker = TypeWalker(definitions_of(packages))

    # --- what a value's type is

    @staticmethod
    def of_template(template: TemplateSignature) -> ValueType:
        return con(template.ref)

    @staticmethod
    def show(type_: ValueType) -> str:
        return show_type(type_)

    # --- what events name, by id (``packageId:Module:Entity``)

    def template(self, template_id: str) -> TemplateSignature | None:
        package_id, _, qualified_name = template_id.partition(":")
        package = self._packages.get(package_id)
        return package.templates.get(qualified_name) if package is not None else None

    def interface(self, interface_id: str) -> InterfaceSignature | None:
        package_id, _, qualified_name = interface_id.partition(":")
        package = self._packages.get(package_id)
        return package.interfaces.get(qualified_name) if package is not None else None

    def template_type(self, template_id: str) -> ValueType | None:
        template = self.template(template_id)
        return self.of_template(template) if template is not None else None

    def key_type(self, template_id: str) -> ValueType | None:
        template = self.template(template_id)
        return template.key_type if template is not None else None

    def view_type(self, interface_id: str) -> ValueType | None:
        interface = self.interface(interface_id)
        return interface.view_type if interface is not None else None

    def choice(self, template_id: str, interface_id: str, name: str) -> ChoiceSignature | None:
        """The choice an exercise names: the interface's when exercised through one, else the template's."""
        owner = self.interface(interface_id) if interface_id else self.template(template_id)
        return owner.choice(name) if owner is not None else None

    def data_type(self, ref: TypeConRef) -> DataTypeSignature | None:
        package = self._packages.get(ref.package_id)
        return package.data_types.get(ref.qualified_name) if package is not None else None

    def entries(self, value: Any, type_: ValueType) -> list[TypedEntry] | None:
        """The children of `value` with their types (a record's in declared order), or None when its type does
        not say (the caller falls back to the value's own shape)."""
        resolved = self._walker.resolve(type_)
        if isinstance(resolved, Builtin):
            return self._builtin_entries(value, resolved)
        if isinstance(resolved, RecordOf) and isinstance(value, dict):
            return self._record_entries(value, resolved.fields)
        if isinstance(resolved, VariantOf) and dv.kind_of(value) == dv.VARIANT:
            return self._variant_entries(value, resolved)
        return None

    def _record_entries(self, value: dict, fields: tuple[Field, ...]) -> list[TypedEntry]:
        declared = {f.name for f in fields}
        typed = [
            TypedEntry(f.name, value.get(f.name), f.type)
            for f in fields
            if f.name in value or self._walker.is_optional(f.type)  # an Optional left out is None
        ]
        # fields the type does not declare (a newer version of the package wrote them): shown, untyped
        return typed + [TypedEntry(name, v, None) for name, v in value.items() if name not in declared]

    def _variant_entries(self, value: dict, variant: VariantOf) -> list[TypedEntry] | None:
        inner_type = variant.constructor(value["tag"])
        if inner_type is None:
            return None
        inner = value["value"]
        if dv.kind_of(inner) == dv.RECORD:
            # a constructor's record prints as its fields, as the value's own shape shows it
            return self.entries(inner, inner_type)
        if dv.kind_of(inner) == dv.UNIT:
            return []
        return [TypedEntry("value", inner, inner_type)]

    def _builtin_entries(self, value: Any, type_: Builtin) -> list[TypedEntry] | None:
        if type_.name == "OPTIONAL" and len(type_.args) == 1:
            nested = self._walker.is_optional(type_.args[0])
            # Some x is x itself, but an Optional in an Optional is [] or [x]: that one is read by its shape
            return None if value is None or nested else self.entries(value, type_.args[0])
        element = type_.args[-1] if type_.args else None
        kind = dv.kind_of(value)
        if type_.name == "LIST" and kind == dv.LIST or type_.name == "TEXTMAP" and kind == dv.TEXTMAP:
            return [TypedEntry(name, v, element) for name, v in dv.entries(value)]
        if type_.name == "TEXTMAP" and kind == dv.RECORD:  # keys that look like field names
            return [TypedEntry(f'"{k}"', v, element) for k, v in value.items()]
        if type_.name == "GENMAP" and kind == dv.GENMAP:
            return [
                TypedEntry(name, v, element if not name.startswith("entry ") else None)
                for name, v in dv.entries(value)
            ]
        return None

    def is_enum(self, type_: ValueType) -> bool:
        return isinstance(self._walker.resolve(type_), EnumOf)

    # --- choices

    def choice_lines(
        self, template: TemplateSignature, interfaces: Mapping[str, InterfaceSignature | None]
    ) -> list[ChoiceLine]:
        """The template's choices, then those of each interface it implements that was read (`interfaces`: by
        interface id, package-id form)."""
        lines = [self._choice_line(c) for c in template.choices]
        for interface_id, interface in interfaces.items():
            if interface is not None:
                lines += [self._choice_line(c, interface_id) for c in interface.choices]
        return lines

    def _choice_line(self, choice: ChoiceSignature, interface_id: str = "") -> ChoiceLine:
        return ChoiceLine(
            choice.name,
            choice.consuming,
            self.fields_text(choice.argument_type),
            show_type(choice.return_type),
            interface_id,
        )

    def fields_text(self, type_: ValueType) -> str:
        """A record type as its fields (``newLabel : Text, …``; ``no argument`` for none), another as itself."""
        resolved = self._walker.resolve(type_)
        if not isinstance(resolved, RecordOf):
            return show_type(substitute(type_, {}))  # applications flattened, as Daml writes them
        if not resolved.fields:
            return "no argument"
        return ", ".join(f"{f.name} : {show_type(f.type)}" for f in resolved.fields)

    def field_names(self, template: TemplateSignature) -> list[str]:
        return [f.name for f in template.fields]


def implemented(template: TemplateSignature) -> list[str]:
    """The interfaces a template implements, as events name them (``packageId:Module:Entity``)."""
    return [f"{ref.package_id}:{ref.qualified_name}" for ref in template.implements]


__all__ = ["ChoiceLine", "TypedEntry", "ValueType", "ValueTypes", "implemented"]
