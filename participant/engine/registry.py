"""The loaded packages, and the resolution of template references as requests write them (docs/ledger-api.md §2, §8)."""

from __future__ import annotations

import importlib

from participant.base import errors
from participant.engine import ids
from participant.engine.definitions import InterfaceDef, PackageDef, TemplateDef


def _version_key(version: str) -> tuple:
    """Daml package versions are dot-separated integers; compare them numerically."""
    return tuple(int(part) if part.isdigit() else -1 for part in version.split("."))


class PackageRegistry:
    """Packages by id and by name. A `#name` reference means the highest loaded version of that name."""

    def __init__(self, packages: list[PackageDef] | tuple[PackageDef, ...] = ()) -> None:
        self._by_id: dict[str, PackageDef] = {}
        self._resolved: dict[str, TemplateDef] = {}  # successful resolutions, by reference
        for package in packages:
            self.add(package)

    def add(self, package: PackageDef) -> PackageDef:
        self._resolved.clear()  # a new version may change what a `#name` reference means
        existing = self._by_id.get(package.package_id)
        if existing is not None and existing is not package:
            raise ValueError(f"{package!r} has the same package id as {existing!r}")
        self._by_id[package.package_id] = package
        return package

    def load_module(self, module_name: str) -> list[PackageDef]:
        """Import a Python module and add every package it defines at module level."""
        module = importlib.import_module(module_name)
        found = [
            value
            for value in vars(module).values()
            if not isinstance(value, type) and isinstance(value, PackageDef)
        ]
        if not found:
            raise ValueError(f"module {module_name} defines no Package")
        return [self.add(package) for package in found]

    @property
    def packages(self) -> list[PackageDef]:
        return list(self._by_id.values())

    def package(self, package_id: str) -> PackageDef | None:
        return self._by_id.get(package_id)

    def versions(self, package_name: str) -> list[PackageDef]:
        """All loaded versions of a package name, highest first."""
        matches = [p for p in self._by_id.values() if p.name == package_name]
        return sorted(matches, key=lambda p: _version_key(p.version), reverse=True)

    def preferred(self, package_name: str) -> PackageDef | None:
        versions = self.versions(package_name)
        return versions[0] if versions else None

    # --- resolution

    @staticmethod
    def parse(ref: str) -> tuple[str, str, str]:
        """Split `<package>:<Module>:<Entity>`; the package part keeps its leading `#` if it has one."""
        parts = ref.split(":") if isinstance(ref, str) else []
        if len(parts) != 3 or not ids.is_dotted_name(parts[1]) or not ids.is_dotted_name(parts[2]):
            raise errors.INVALID_ARGUMENT(
                f"Invalid template id {ref!r}: expected <packageId>:<Module>:<Entity> or #<package-name>:<Module>:<Entity>"
            )
        package, module, entity = parts
        valid_package = (
            ids.is_package_name(package[1:]) if package.startswith("#") else ids.is_package_id_string(package)
        )
        if not valid_package:
            raise errors.INVALID_ARGUMENT(f"Invalid package reference {package!r} in template id {ref!r}")
        return package, module, entity

    def resolve_template(self, ref: str) -> TemplateDef:
        """A template reference of a command: package-id form, or `#name` form (highest version)."""
        cached = self._resolved.get(ref)
        if cached is not None:
            return cached
        template = self._resolve_template(ref)
        self._resolved[ref] = template
        return template

    def resolve_exercise_target(self, ref: str) -> TemplateDef | InterfaceDef:
        """The `templateId` of an ExerciseCommand: a template, or an interface whose choice it exercises."""
        try:
            return self.resolve_template(ref)
        except errors.LedgerError as error:
            if error.code is not errors.TEMPLATES_OR_INTERFACES_NOT_FOUND:
                raise
            package_ref, module, entity = self.parse(ref)
            package = (
                self.preferred(package_ref[1:])
                if package_ref.startswith("#")
                else self._by_id.get(package_ref)
            )
            interface = None if package is None else package.interfaces.get(f"{module}:{entity}")
            if interface is None:
                raise
            return interface

    def _resolve_template(self, ref: str) -> TemplateDef:
        package_ref, module, entity = self.parse(ref)
        if package_ref.startswith("#"):
            package = self.preferred(package_ref[1:])
            if package is None:
                raise errors.JSON_API_PACKAGE_SELECTION_FAILED(
                    f"No package found for package name {package_ref[1:]} (template {ref})",
                    resources=[("PACKAGE_NAME", package_ref[1:])],
                )
        else:
            package = self._by_id.get(package_ref)
        template = None if package is None else package.templates.get(f"{module}:{entity}")
        if template is None:
            raise errors.TEMPLATES_OR_INTERFACES_NOT_FOUND(f"[{ref}]", resources=[("TEMPLATE_ID", ref)])
        return template

    def template_by_id(self, template_id: str) -> TemplateDef | None:
        """The template of a stored contract (package-id form), or None when its package is not loaded."""
        package_id, _, qualified_name = template_id.partition(":")
        package = self._by_id.get(package_id)
        return None if package is None else package.templates.get(qualified_name)

    def _filter_versions(self, ref: str) -> tuple[str, list[PackageDef], str]:
        """The package name of a filter's reference (name form only, 3.5), its loaded versions and the
        `Module:Entity`."""
        package_ref, module, entity = self.parse(ref)
        if not package_ref.startswith("#"):
            raise errors.INVALID_FIELD(
                f"Invalid field packageId: Received an identifier with package ID {package_ref}, "
                "but expected a package name.",
                context={"field_name": "packageId"},
            )
        name = package_ref[1:]
        versions = self.versions(name)
        if not versions:
            raise errors.PACKAGE_NAMES_NOT_FOUND(f"[{name}].", resources=[("PACKAGE_NAME", name)])
        return name, versions, f"{module}:{entity}"

    def resolve_interface_filter(self, ref: str) -> list[InterfaceDef]:
        """An interface reference of an event filter: every loaded version of it."""
        name, versions, qualified_name = self._filter_versions(ref)
        matches = [p.interfaces[qualified_name] for p in versions if qualified_name in p.interfaces]
        if not matches:
            raise errors.NO_INTERFACE_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME(
                f"[({name},{qualified_name})].", resources=[("INTERFACE_ID", ref)]
            )
        return matches

    def implementors(self, interface: InterfaceDef) -> list[TemplateDef]:
        """Every loaded template that implements the interface (in any version)."""
        return [
            t
            for p in self._by_id.values()
            for t in p.templates.values()
            if t.instance_of(interface) is not None
        ]

    def interface_by_id(self, interface_id: str) -> InterfaceDef | None:
        package_id, _, qualified_name = interface_id.partition(":")
        package = self._by_id.get(package_id)
        return None if package is None else package.interfaces.get(qualified_name)

    def resolve_filter(self, ref: str) -> list[TemplateDef]:
        """A template reference of an event filter: name form only (3.5); it matches every loaded version."""
        name, versions, qualified_name = self._filter_versions(ref)
        matches = [p.templates[qualified_name] for p in versions if qualified_name in p.templates]
        if not matches:
            raise errors.NO_TEMPLATES_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME(
                f"[({name},{qualified_name})].", resources=[("TEMPLATE_ID", ref)]
            )
        return matches
