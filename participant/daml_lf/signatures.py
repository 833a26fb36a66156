"""What a client needs of a DAR's packages: templates (fields, key, choices, interfaces), interfaces (view,
choices), data types and type synonyms by name, with types that print as Daml writes them, and the definitions
the type walker (`types.TypeWalker`) resolves types against. Expression bodies are never decoded.

A client reads a package's signatures from its archive here (`read_package_signature`) and meets the reader's
errors as `UnreadablePackage`; it needs nothing else of the reader.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Protocol

from . import ast
from .archive import read_payload
from .decode import decode_package
from .errors import DamlLfError, UnresolvedReference
from .packages import PackageSet, read_packages
from .types import DataDefinition, Definitions, SynonymDefinition

UnreadablePackage = DamlLfError
"""Every error of reading an archive: its container, hash, Daml-LF version, or contents."""


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
class SynonymSignature:
    ref: ast.TypeConRef
    params: tuple[str, ...]
    type: ast.Type


@dataclass(frozen=True, slots=True)
class PackageSignature:
    package_id: str
    name: str
    version: str
    lf_version: str
    templates: Mapping[str, TemplateSignature]  # by qualified name, "Module:Entity"
    interfaces: Mapping[str, InterfaceSignature]
    data_types: Mapping[str, DataTypeSignature]
    synonyms: Mapping[str, SynonymSignature]
    scripts: tuple[str, ...] = ()  # "Module:name" of each Daml Script taking no argument (`script_names`)


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


class Packages(Protocol):
    """Package signatures by id (a mapping, or a client's catalog of them)."""

    def get(self, package_id: str, /) -> PackageSignature | None: ...


class _SignatureDefinitions:
    def __init__(self, packages: Packages | Mapping[str, PackageSignature]) -> None:
        self._packages = packages

    def data_type(self, ref: ast.TypeConRef, /) -> DataDefinition | None:
        package = self._packages.get(ref.package_id)
        found = package.data_types.get(ref.qualified_name) if package is not None else None
        return DataDefinition(found.params, found.cons) if found is not None else None

    def synonym(self, ref: ast.TypeConRef, /) -> SynonymDefinition | None:
        package = self._packages.get(ref.package_id)
        found = package.synonyms.get(ref.qualified_name) if package is not None else None
        return SynonymDefinition(found.params, found.type) if found is not None else None


def definitions_of(packages: Packages | Mapping[str, PackageSignature]) -> Definitions:
    """The definitions of the packages read, for a type walker: a package not read resolves nothing."""
    return _SignatureDefinitions(packages)


def read_package_signature(package_id: str, archive: bytes) -> PackageSignature:
    """The signatures of one package from its archive (as the participant serves it), its hash and Daml-LF version
    checked. Raises `UnreadablePackage`."""
    return package_signature(decode_package(read_payload(package_id, archive, f"package {package_id}")))


def read_signatures(dar: bytes) -> Signatures:
    """The signatures of a DAR's packages, every container, hash, version and reference checked."""
    return signatures_of(read_packages(dar))


def signatures_of(package_set: PackageSet) -> Signatures:
    return Signatures(
        package_set.main_package_id,
        MappingProxyType({pid: package_signature(package) for pid, package in package_set.packages.items()}),
    )


# Daml Script's `Script a` (daml-script 3's): a value of that type, not a function, is a script run with no argument
SCRIPT_MODULE = "Daml.Script.Internal.LowLevel"


def script_names(package: ast.Package) -> tuple[str, ...]:
    """The package's scripts that take no argument, ``Module:name``, by module then name (names the compiler
    made, ``$...``, left out)."""
    found = []
    for module in sorted(package.modules.values(), key=lambda m: m.name):
        for name, value in sorted(module.values.items()):
            type_ = value.type
            if (
                not name.startswith("$")
                and isinstance(type_, ast.TCon)
                and type_.tycon.module == SCRIPT_MODULE
                and type_.tycon.name == "Script"
            ):
                found.append(f"{module.name}:{name}")
    return tuple(found)


def package_signature(package: ast.Package) -> PackageSignature:
    templates: dict[str, TemplateSignature] = {}
    interfaces: dict[str, InterfaceSignature] = {}
    data_types: dict[str, DataTypeSignature] = {}
    synonyms: dict[str, SynonymSignature] = {}
    for module in package.modules.values():
        for synonym in module.synonyms.values():
            ref = ast.TypeConRef(package.package_id, module.name, synonym.name)
            synonyms[ref.qualified_name] = SynonymSignature(
                ref, tuple(param.name for param in synonym.params), synonym.type
            )
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
        scripts=script_names(package),
        package_id=package.package_id,
        name=package.name,
        version=package.version,
        lf_version=package.lf_version,
        templates=MappingProxyType(templates),
        interfaces=MappingProxyType(interfaces),
        data_types=MappingProxyType(data_types),
        synonyms=MappingProxyType(synonyms),
    )


def _choice(choice: ast.Choice) -> ChoiceSignature:
    return ChoiceSignature(choice.name, choice.consuming, choice.arg_type, choice.return_type)


def made_of(data_type: DataTypeSignature) -> tuple[str, list[tuple[str, str]]]:
    """What a data type is, as Daml writes it: ("record", its fields and their types), ("variant", its constructors
    and their argument types), ("enum", its values, no type) or ("interface", nothing)."""
    cons = data_type.cons
    if isinstance(cons, ast.Record):
        return "record", [(f.name, show_type(f.type)) for f in cons.fields]
    if isinstance(cons, ast.Variant):
        return "variant", [(c.name, show_type(c.type)) for c in cons.constructors]
    if isinstance(cons, ast.Enum):
        return "enum", [(name, "") for name in cons.constructors]
    return "interface", []


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


def builtin_name(builtin: str) -> str:
    """A builtin type's name as Daml writes it: ``Int`` for ``INT64``, ``()`` for ``UNIT``."""
    return _BUILTIN_NAMES.get(builtin, builtin)


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
