"""The Daml-LF packages loaded from DARs, as the participant answers about them: kept in memory from the store's
rows (no payload, nothing decoded), so that listing them and resolving their names costs nothing."""

from __future__ import annotations

from collections.abc import Iterable

from participant import errors
from participant.store.packages import PackageRow


def version_key(version: str) -> tuple:
    """Daml package versions are dot-separated integers; compare them numerically."""
    return tuple(int(part) if part.isdigit() else -1 for part in version.split("."))


class DamlPackages:
    """Loaded Daml-LF packages by id, in the order they were loaded."""

    def __init__(self, rows: Iterable[PackageRow] = ()) -> None:
        self._by_id: dict[str, PackageRow] = {}
        self.add(rows)

    def add(self, rows: Iterable[PackageRow]) -> None:
        for row in rows:
            self._by_id.setdefault(row.package_id, row)

    def __len__(self) -> int:
        return len(self._by_id)

    def ids(self) -> list[str]:
        return list(self._by_id)

    def get(self, package_id: str) -> PackageRow | None:
        return self._by_id.get(package_id)

    def versions(self, name: str) -> list[PackageRow]:
        """Every loaded package of that name, highest version first."""
        matches = [row for row in self._by_id.values() if row.name == name]
        return sorted(matches, key=lambda row: version_key(row.version), reverse=True)

    def preferred(self, name: str) -> PackageRow | None:
        versions = self.versions(name)
        return versions[0] if versions else None


class FilterPackages:
    """The packages as event filters resolve them: the Python registry's answers, and where it knows no such
    template or interface, a name-form reference to one of a loaded Daml-LF package resolves too. It matches no
    contract, since none of a Daml-LF template can be created here yet, instead of being refused as unknown."""

    def __init__(self, registry, daml: DamlPackages) -> None:
        self._registry = registry
        self._daml = daml

    def __getattr__(self, name: str):
        return getattr(self._registry, name)

    def resolve_filter(self, ref: str) -> list:
        return self._resolve(
            ref,
            self._registry.resolve_filter,
            "templates",
            errors.NO_TEMPLATES_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME,
            "TEMPLATE_ID",
        )

    def resolve_interface_filter(self, ref: str) -> list:
        return self._resolve(
            ref,
            self._registry.resolve_interface_filter,
            "interfaces",
            errors.NO_INTERFACE_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME,
            "INTERFACE_ID",
        )

    def _resolve(self, ref: str, python, kind: str, not_found: errors.ErrorCode, resource: str) -> list:
        try:
            return python(ref)
        except errors.LedgerError as error:
            if error.code not in (errors.PACKAGE_NAMES_NOT_FOUND, not_found):
                raise
            package_ref, module, entity = self._registry.parse(ref)
            name, qualified_name = package_ref[1:], f"{module}:{entity}"
            versions = self._daml.versions(name)
            if not versions:
                raise
            if any(qualified_name in getattr(package, kind) for package in versions):
                return []  # no Python definition of it
            raise not_found(f"[({name},{qualified_name})].", resources=[(resource, ref)]) from None
