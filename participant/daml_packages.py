"""The Daml-LF packages loaded from DARs, as the participant answers about them: kept in memory from the store's
rows (no payload, nothing decoded), so that listing them and resolving their names costs nothing."""

from __future__ import annotations

from collections.abc import Iterable

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
