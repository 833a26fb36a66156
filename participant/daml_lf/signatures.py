"""What a client needs of a DAR's packages: templates (fields, key, choices, interfaces), interfaces (view,
choices) and data types by name, with types that print as Daml writes them. Expression bodies are never decoded.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from . import ast
from .errors import UnresolvedReference
from .packages import PackageSet, read_packages


@dataclass(frozen=True, slots=True)
class ChoiceSignature:
    name: str
    consuming: bool
    argument_type: ast.Type
    return_type: ast.Type


@dataclass(frozen=True, slots=True)
class TemplateSignature:
    ref: ast.TypeConRef
    fields: tuple[ast.Field, ...]
    key_type: ast.Type | None
    choices: tuple[ChoiceSignature, ...]
    implements: tuple[ast.TypeConRef, ...]

    @property
    def qualified_name(self) -> str:
        return self.ref.qualified_name

    def choice(self, name: str) -> ChoiceSignature | None:
        return next((c for c in self.choices if c.name == name), None)


@dataclass(frozen=True, slots=True)
class InterfaceSignature:
    ref: ast.TypeConRef
    view_type: ast.Type
    choices: tuple[ChoiceSignature, ...]
    methods: tuple[ast.InterfaceMethod, ...]
    requires: tuple[ast.TypeConRef, ...]

    @property
    def qualified_name(self) -> str:
        return self.ref.qualified_name

    def choice(self, name: str) -> ChoiceSignature | None:
        return next((c for c in self.choices if c.name == name), None)


@dataclass(frozen=True, slots=True)
class DataTypeSignature:
    ref: ast.TypeConRef
    params: tuple[str, ...]
    serializable: bool
    cons: ast.DataCons  # Record(fields), Variant(constructors), Enum(constructors) or InterfaceCons

    @property
    def qualified_name(self) -> str:
        return self.ref.qualified_name


@dataclass(frozen=True, slots=True)
class PackageSignature:
    package_id: str
    name: str
    version: str
    lf_version: str
    templates: Mapping[str, TemplateSignature]  # by qualified name, "Module:Entity"
    interfaces: Mapping[str, InterfaceSignature]
    data_types: Mapping[str, DataTypeSignature]


@dataclass(frozen=True, slots=True)
class Signatures:
    """The signatures of every package of a DAR, main package first; references resolve among them."""

    main_package_id: str
    packages: Mapping[str, PackageSignature]

    @property
    def main(self) -> PackageSignature:
        return self.packages[self.main_package_id]

    def _package(self, ref: ast.TypeConRef) -> PackageSignature:
        package = self.packages.get(ref.package_id)
        if package is None:
            raise UnresolvedReference(f"package {ref.package_id} is not among the packages read")
        return package

    def data_type(self, ref: ast.TypeConRef) -> DataTypeSignature:
        found = self._package(ref).data_types.get(ref.qualified_name)
        if found is None:
            raise UnresolvedReference(f"no data type {ref.qualified_name} in package {ref.package_id}")
        return found

    def template(self, ref: ast.TypeConRef) -> TemplateSignature:
        found = self._package(ref).templates.get(ref.qualified_name)
        if found is None:
            raise UnresolvedReference(f"no template {ref.qualified_name} in package {ref.package_id}")
        return found

    def interface(self, ref: ast.TypeConRef) -> InterfaceSignature:
        found = self._package(ref).interfaces.get(ref.qualified_name)
        if found is None:
            raise UnresolvedReference(f"no interface {ref.qualified_name} in package {ref.package_id}")
        return found


def read_signatures(dar: bytes) -> Signatures:
    """The signatures of a DAR's packages, every container, hash, version and reference checked."""
    return signatures_of(read_packages(dar))


def signatures_of(package_set: PackageSet) -> Signatures:
    return Signatures(
        package_set.main_package_id,
        MappingProxyType({pid: package_signature(package) for pid, package in package_set.packages.items()}),
    )


def package_signature(package: ast.Package) -> PackageSignature:
    templates: dict[str, TemplateSignature] = {}
    interfaces: dict[str, InterfaceSignature] = {}
    data_types: dict[str, DataTypeSignature] = {}
    for module in package.modules.values():
        for data_type in module.data_types.values():
            ref = ast.TypeConRef(package.package_id, module.name, data_type.name)
            params = tuple(param.name for param in data_type.params)
            data_types[ref.qualified_name] = DataTypeSignature(
                ref, params, data_type.serializable, data_type.cons
            )
        for template in module.templates.values():
            ref = ast.TypeConRef(package.package_id, module.name, template.name)
            record = module.data_types[template.name].cons  # present: checked when the packages were read
            templates[ref.qualified_name] = TemplateSignature(
                ref=ref,
                fields=record.fields if isinstance(record, ast.Record) else (),
                key_type=template.key.type if template.key else None,
                choices=tuple(_choice(c) for c in template.choices),
                implements=tuple(instance.interface for instance in template.implements),
            )
        for interface in module.interfaces.values():
            ref = ast.TypeConRef(package.package_id, module.name, interface.name)
            interfaces[ref.qualified_name] = InterfaceSignature(
                ref=ref,
                view_type=interface.view,
                choices=tuple(_choice(c) for c in interface.choices),
                methods=interface.methods,
                requires=interface.requires,
            )
    return PackageSignature(
        package_id=package.package_id,
        name=package.name,
        version=package.version,
        lf_version=package.lf_version,
        templates=MappingProxyType(templates),
        interfaces=MappingProxyType(interfaces),
        data_types=MappingProxyType(data_types),
    )


def _choice(choice: ast.Choice) -> ChoiceSignature:
    return ChoiceSignature(choice.name, choice.consuming, choice.arg_type, choice.return_type)


# --- Printing types as Daml source writes them

_BUILTIN_NAMES = {
    "UNIT": "()",
    "BOOL": "Bool",
    "INT64": "Int",
    "DATE": "Date",
    "TIMESTAMP": "Time",
    "NUMERIC": "Numeric",
    "PARTY": "Party",
    "TEXT": "Text",
    "CONTRACT_ID": "ContractId",
    "OPTIONAL": "Optional",
    "LIST": "List",
    "GENMAP": "Map",
    "TEXTMAP": "TextMap",
    "ANY": "Any",
    "ANY_EXCEPTION": "AnyException",
    "TYPE_REP": "TypeRep",
    "UPDATE": "Update",
    "BIGNUMERIC": "BigNumeric",
    "ROUNDING_MODE": "RoundingMode",
    "FAILURE_CATEGORY": "FailureCategory",
}


def show_type(type_: ast.Type) -> str:
    """``Numeric 10``, ``Optional Text``, ``[Text]``, ``ContractId RichTypes:Marker``, ``a -> b`` …

    Type constructors print by qualified name (``Module:Entity``), without their package id.
    """
    return _show(type_, 0)


def _show(type_: ast.Type, precedence: int) -> str:
    """``precedence`` 0: anywhere; 1: left of an arrow; 2: an argument of an application."""
    head: str
    args: tuple[ast.Type, ...]
    if isinstance(type_, ast.TBuiltin):
        args = type_.args
        if type_.builtin == "LIST" and len(args) == 1:
            return f"[{_show(args[0], 0)}]"
        if type_.builtin == "ARROW" and len(args) == 2:
            shown = f"{_show(args[0], 1)} -> {_show(args[1], 0)}"
            return f"({shown})" if precedence >= 1 else shown
        head = _BUILTIN_NAMES.get(type_.builtin, type_.builtin)
    elif isinstance(type_, ast.TCon):
        head, args = type_.tycon.qualified_name, type_.args
    elif isinstance(type_, ast.TSyn):
        head, args = type_.tysyn.qualified_name, type_.args
    elif isinstance(type_, ast.TVar):
        head, args = type_.name, type_.args
    elif isinstance(type_, ast.TApp):
        head, args = _show(type_.lhs, 1), (type_.rhs,)
    elif isinstance(type_, ast.TNat):
        return str(type_.value)
    elif isinstance(type_, ast.TStruct):
        return "<" + ", ".join(f"{f.name}: {_show(f.type, 0)}" for f in type_.fields) + ">"
    else:  # TForall
        shown = f"forall {' '.join(v.name for v in type_.vars)}. {_show(type_.body, 0)}"
        return f"({shown})" if precedence >= 1 else shown
    if not args:
        return head
    shown = " ".join([head, *(_show(arg, 2) for arg in args)])
    return f"({shown})" if precedence >= 2 else shown
