"""The Daml-LF packages loaded from DARs, as the participant answers about them: kept in memory from the store's
rows, so that listing them and resolving their names costs nothing; and as code the engine runs, decoded once
from the stored payloads into one `LfPackages`, whose packages with templates or interfaces are in the engine's
registry."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING

from participant.base import errors
from participant.store.packages import PackageRow, package_payload
from participant.store.store import Store

if TYPE_CHECKING:
    from participant.daml_lf import ast
    from participant.engine.lf.definitions import LfPackages
    from participant.engine.registry import PackageRegistry

log = logging.getLogger(__name__)


def version_key(version: str) -> tuple:
    """Daml package versions are dot-separated integers; compare them numerically."""
    return tuple(int(part) if part.isdigit() else -1 for part in version.split("."))


class DamlPackages:
    """Loaded Daml-LF packages by id, in the order they were loaded."""

    def __init__(self, rows: Iterable[PackageRow] = (), code: LfPackages | None = None) -> None:
        """``code``: packages decoded and compiled before, shared with this participant (a test run's ledgers, one
        per script, share the DARs' code: decoded and compiled once per process); packages loaded later join it."""
        self._by_id: dict[str, PackageRow] = {}
        self._decoded: dict[str, ast.Package] = {}
        self._payloads: dict[str, bytes] = {}
        self._code = code
        if code is not None:
            packages, payloads = code.packages.packages, code.payloads
            assert isinstance(packages, dict) and isinstance(payloads, dict), (
                "a shared code's packages must grow"
            )
            self._decoded, self._payloads = packages, payloads
        self.add(rows)

    @property
    def code(self) -> LfPackages:
        """The loaded packages as code the engine runs. Made at its first use, not at the start: the evaluator
        behind it is loaded with the first package that has templates, or the first script run."""
        if self._code is None:
            from participant.daml_lf.packages import PackageSet
            from participant.engine.lf.definitions import LfPackages

            # One set over every loaded package (it grows as DARs load): no package of it is the main one.
            self._code = LfPackages(PackageSet("", self._decoded), self._payloads)
        return self._code

    def add(self, rows: Iterable[PackageRow]) -> None:
        for row in rows:
            self._by_id.setdefault(row.package_id, row)

    async def register(self, store: Store, registry: PackageRegistry, rows: Iterable[PackageRow]) -> None:
        """Decode the packages of ``rows`` not decoded yet and add those with templates or interfaces to
        ``registry``: their templates then run like the Python ones. Every package joins one package set, so
        a package's references to the packages loaded before it resolve."""
        rows = list(rows)
        known = [row for row in rows if row.package_id in self._decoded]
        new = [row for row in rows if row.package_id not in self._decoded]
        if new:  # the reader loads with the first package to decode: a ledger without DARs never needs it
            from participant.daml_lf.archive import read_payload
            from participant.daml_lf.decode import decode_package
            from participant.daml_lf.errors import DamlLfError
        for row in list(new):
            payload = await package_payload(store, row.package_id)
            if payload is None:
                raise LookupError(f"package {row.package_id} is listed but not stored")
            try:
                archive = read_payload(row.package_id, payload, f"<loaded package {row.package_id}>")
                self._decoded[row.package_id] = await asyncio.to_thread(decode_package, archive)
            except DamlLfError as refused:
                # Stored by an earlier version whose reader was less strict (a package without metadata, say):
                # still listed and served, never run, and the participant starts.
                log.warning("stored package %s is not run: %r", row.package_id, str(refused))
                new.remove(row)
                continue
            self._payloads[row.package_id] = payload
        for row in (*known, *new):
            if (row.templates or row.interfaces) and registry.package(row.package_id) is None:
                registry.add(self.code.package(row.package_id))

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
    """The packages as event filters resolve them: the registry's answers (Python packages and the Daml-LF packages
    registered to run), and where it knows no such template or interface, a name-form reference to one of a loaded
    Daml-LF package that is not registered resolves too, matching no contract, instead of being refused as
    unknown."""

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
