"""Daml values read with their types: a record's fields in the order its data type declares them, each with its
type, nested records and variants typed too, from the signatures of the packages read (`app.packages`).

The JSON of a value names no types; these come from the template, choice or interface that the value belongs to.
What the signatures do not tell (a package not read, a field the type does not declare: an upgraded package's)
is left untyped, and the caller shows it as it would without types.
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
from participant.daml_lf import ast

ValueType = ast.Type
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

    # --- what a value's type is

    @staticmethod
    def of_template(template: TemplateSignature) -> ValueType:
        return ast.TCon(template.ref)

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

    def data_type(self, ref: ast.TypeConRef) -> DataTypeSignature | None:
        package = self._packages.get(ref.package_id)
        return package.data_types.get(ref.qualified_name) if package is not None else None

    def entries(self, value: Any, type_: ValueType) -> list[TypedEntry] | None:
        """The children of `value` with their types (a record's in declared order), or None when its type does
        not say (the caller falls back to the value's own shape)."""
        type_ = _unapplied(type_)
        if isinstance(type_, ast.TBuiltin):
            return self._builtin_entries(value, type_)
        if not isinstance(type_, ast.TCon):
            return None
        found = self._cons(type_)
        if found is None:
            return None
        cons, env = found
        if isinstance(cons, ast.Record) and isinstance(value, dict):
            return _record_entries(value, cons, env)
        if isinstance(cons, ast.Variant) and dv.kind_of(value) == dv.VARIANT:
            return self._variant_entries(value, cons, env)
        return None

    def _cons(self, type_: ast.TCon) -> tuple[ast.DataCons, dict[str, ast.Type]] | None:
        data_type = self.data_type(type_.tycon)
        if data_type is None or len(data_type.params) != len(type_.args):
            return None
        return data_type.cons, dict(zip(data_type.params, type_.args, strict=True))

    def _variant_entries(
        self, value: dict, cons: ast.Variant, env: dict[str, ast.Type]
    ) -> list[TypedEntry] | None:
        constructor = next((c for c in cons.constructors if c.name == value["tag"]), None)
        if constructor is None:
            return None
        inner, inner_type = value["value"], _substituted(constructor.type, env)
        if dv.kind_of(inner) == dv.RECORD:
            # a constructor's record prints as its fields, as the value's own shape shows it
            return self.entries(inner, inner_type)
        if dv.kind_of(inner) == dv.UNIT:
            return []
        return [TypedEntry("value", inner, inner_type)]

    def _builtin_entries(self, value: Any, type_: ast.TBuiltin) -> list[TypedEntry] | None:
        if type_.builtin == "OPTIONAL" and len(type_.args) == 1:
            inner = _unapplied(type_.args[0])
            nested = isinstance(inner, ast.TBuiltin) and inner.builtin == "OPTIONAL"
            # Some x is x itself, but an Optional in an Optional is [] or [x]: that one is read by its shape
            return None if value is None or nested else self.entries(value, inner)
        element = type_.args[-1] if type_.args else None
        kind = dv.kind_of(value)
        if type_.builtin == "LIST" and kind == dv.LIST or type_.builtin == "TEXTMAP" and kind == dv.TEXTMAP:
            return [TypedEntry(name, v, element) for name, v in dv.entries(value)]
        if type_.builtin == "TEXTMAP" and kind == dv.RECORD:  # keys that look like field names
            return [TypedEntry(f'"{k}"', v, element) for k, v in value.items()]
        if type_.builtin == "GENMAP" and kind == dv.GENMAP:
            return [
                TypedEntry(name, v, element if not name.startswith("entry ") else None)
                for name, v in dv.entries(value)
            ]
        return None

    def is_enum(self, type_: ValueType) -> bool:
        type_ = _unapplied(type_)
        found = self._cons(type_) if isinstance(type_, ast.TCon) else None
        return found is not None and isinstance(found[0], ast.Enum)

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
        type_ = _unapplied(type_)
        found = self._cons(type_) if isinstance(type_, ast.TCon) else None
        if found is None or not isinstance(found[0], ast.Record):
            return show_type(type_)
        cons, env = found
        if not cons.fields:
            return "no argument"
        return ", ".join(f"{f.name} : {show_type(_substituted(f.type, env))}" for f in cons.fields)

    def field_names(self, template: TemplateSignature) -> list[str]:
        return [f.name for f in template.fields]


def implemented(template: TemplateSignature) -> list[str]:
    """The interfaces a template implements, as events name them (``packageId:Module:Entity``)."""
    return [f"{ref.package_id}:{ref.qualified_name}" for ref in template.implements]


def _record_entries(value: dict, cons: ast.Record, env: dict[str, ast.Type]) -> list[TypedEntry]:
    declared = {f.name for f in cons.fields}
    typed = [
        TypedEntry(f.name, value.get(f.name), _substituted(f.type, env))
        for f in cons.fields
        if f.name in value or _is_optional(f.type)  # an Optional left out is None
    ]
    # fields the type does not declare (a newer version of the package wrote them): shown, untyped
    return typed + [TypedEntry(name, v, None) for name, v in value.items() if name not in declared]


def _is_optional(type_: ast.Type) -> bool:
    return isinstance(type_, ast.TBuiltin) and type_.builtin == "OPTIONAL"


def _unapplied(type_: ast.Type) -> ast.Type:
    """``TApp (TApp (TCon T) a) b`` as ``TCon T [a, b]`` (and the same for a builtin)."""
    args: list[ast.Type] = []
    while isinstance(type_, ast.TApp):
        args.insert(0, type_.rhs)
        type_ = type_.lhs
    if not args:
        return type_
    if isinstance(type_, ast.TCon):
        return ast.TCon(type_.tycon, (*type_.args, *args))
    if isinstance(type_, ast.TBuiltin):
        return ast.TBuiltin(type_.builtin, (*type_.args, *args))
    return type_


def _substituted(type_: ast.Type, env: dict[str, ast.Type]) -> ast.Type:
    """`type_` with the data type's parameters replaced by the arguments it is applied to."""
    if not env:
        return type_
    if isinstance(type_, ast.TVar):
        bound = env.get(type_.name)
        if bound is None:
            return type_
        args = tuple(_substituted(a, env) for a in type_.args)
        for arg in args:
            bound = ast.TApp(bound, arg)
        return bound
    if isinstance(type_, ast.TCon):
        return ast.TCon(type_.tycon, tuple(_substituted(a, env) for a in type_.args))
    if isinstance(type_, ast.TBuiltin):
        return ast.TBuiltin(type_.builtin, tuple(_substituted(a, env) for a in type_.args))
    if isinstance(type_, ast.TApp):
        return ast.TApp(_substituted(type_.lhs, env), _substituted(type_.rhs, env))
    return type_


__all__ = ["ChoiceLine", "TypedEntry", "ValueType", "ValueTypes", "implemented"]
