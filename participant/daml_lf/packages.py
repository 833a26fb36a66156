"""A DAR's packages read together: decoded, and every reference of their signatures checked to resolve.

Checked: each type constructor, type synonym, implemented and required interface named by a data type, synonym,
value type, template (key, choices), interface (methods, view, choices) resolves to a package of the set, a module
of it and a definition of the right sort there; each template and interface has its data type. Expression bodies
stay encoded and are not walked.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TypeVar

from . import ast
from .archive import Dar, read_dar
from .decode import decode_package
from .errors import UnresolvedReference

D = TypeVar("D")


@dataclass(frozen=True, slots=True)
class PackageSet:
    """Packages by id, the DAR's main package first."""

    main_package_id: str
    packages: Mapping[str, ast.Package]

    @property
    def main(self) -> ast.Package:
        return self.packages[self.main_package_id]

    def module(self, package_id: str, module: str) -> ast.Module:
        package = self.packages.get(package_id)
        if package is None:
            raise UnresolvedReference(f"package {package_id} is not among the packages read")
        found = package.modules.get(module)
        if found is None:
            raise UnresolvedReference(f"package {package.name} ({package_id}) has no module {module}")
        return found

    def data_type(self, ref: ast.TypeConRef) -> ast.DataType:
        return _definition(self.module(ref.package_id, ref.module).data_types, ref, "data type")

    def synonym(self, ref: ast.TypeConRef) -> ast.TypeSynonym:
        return _definition(self.module(ref.package_id, ref.module).synonyms, ref, "type synonym")

    def template(self, ref: ast.TypeConRef) -> ast.Template:
        return _definition(self.module(ref.package_id, ref.module).templates, ref, "template")

    def interface(self, ref: ast.TypeConRef) -> ast.Interface:
        return _definition(self.module(ref.package_id, ref.module).interfaces, ref, "interface")

    def value(self, ref: ast.ValueRef) -> ast.ValueDef:
        return _definition(self.module(ref.package_id, ref.module).values, ref, "value")


def _definition(definitions: Mapping[str, D], ref: ast.TypeConRef | ast.ValueRef, what: str) -> D:
    found = definitions.get(ref.name)
    if found is None:
        raise UnresolvedReference(f"no {what} {ref.module}:{ref.name} in package {ref.package_id}")
    return found


def read_packages(data: bytes) -> PackageSet:
    """Read a DAR: check its container and hashes, decode every package, check that every reference resolves."""
    return packages_of(read_dar(data))


def packages_of(dar: Dar) -> PackageSet:
    packages = {dalf.package_id: decode_package(dalf) for dalf in dar.dalfs}
    package_set = PackageSet(dar.main.package_id, MappingProxyType(packages))
    check_references(package_set)
    return package_set


def check_references(package_set: PackageSet) -> None:
    """Raise ``UnresolvedReference`` naming the first reference of a signature that does not resolve.

    Each distinct reference is resolved once, and each type object walked once: decoded types are shared (the
    package interns them), so the same few thousand types recur across tens of thousands of signatures.
    """
    named: dict[tuple[str, ast.TypeConRef], str] = {}  # each reference, with where it first occurs
    walked: set[int] = set()
    for package in package_set.packages.values():
        for module in package.modules.values():
            where = f"{package.name} {package.version} ({package.package_id}), module {module.name}"
            for name in (*module.templates, *module.interfaces):
                if name not in module.data_types:
                    raise UnresolvedReference(f"{where}: {name} has no data type of its name")
            for template in module.templates.values():
                for instance in template.implements:
                    named.setdefault(("interface", instance.interface), where)
            for interface in module.interfaces.values():
                for required in interface.requires:
                    named.setdefault(("interface", required), where)
            for type_ in _signature_types(module):
                for reference in _references(type_, walked):
                    named.setdefault(reference, where)
    resolve = {"interface": package_set.interface, "syn": package_set.synonym, "con": package_set.data_type}
    for (kind, ref), where in named.items():
        try:
            resolve[kind](ref)
        except UnresolvedReference as exc:
            raise UnresolvedReference(f"{where}: {exc}") from None


def _signature_types(module: ast.Module) -> Iterator[ast.Type]:
    for data_type in module.data_types.values():
        cons = data_type.cons
        if isinstance(cons, ast.Record):
            yield from (field.type for field in cons.fields)
        elif isinstance(cons, ast.Variant):
            yield from (field.type for field in cons.constructors)
    yield from (synonym.type for synonym in module.synonyms.values())
    yield from (value.type for value in module.values.values())
    for template in module.templates.values():
        if template.key is not None:
            yield template.key.type
        for choice in template.choices:
            yield choice.arg_type
            yield choice.return_type
    for interface in module.interfaces.values():
        yield interface.view
        yield from (method.type for method in interface.methods)
        for choice in interface.choices:
            yield choice.arg_type
            yield choice.return_type


def _references(type_: ast.Type, walked: set[int]) -> Iterator[tuple[str, ast.TypeConRef]]:
    """The type constructors ("con") and synonyms ("syn") a type names, skipping type objects already walked."""
    stack = [type_]
    while stack:
        current = stack.pop()
        if id(current) in walked:
            continue
        walked.add(id(current))
        if isinstance(current, ast.TCon):
            yield "con", current.tycon
            stack.extend(current.args)
        elif isinstance(current, ast.TSyn):
            yield "syn", current.tysyn
            stack.extend(current.args)
        elif isinstance(current, ast.TVar | ast.TBuiltin):
            stack.extend(current.args)
        elif isinstance(current, ast.TApp):
            stack.extend((current.lhs, current.rhs))
        elif isinstance(current, ast.TForall):
            stack.append(current.body)
        elif isinstance(current, ast.TStruct):
            stack.extend(field.type for field in current.fields)
