"""The participant's packages as the client knows them: listed, fetched once, decoded into signatures (templates,
choices, data types; never expression bodies) and kept on disk by package id, since a package never changes.

A second start reads the cache alone: no archive is fetched, nothing decoded. What cannot be read (an endpoint
the participant lacks, a right the user lacks, an archive that does not decode) is named with its reason; the rest
is usable, and a template whose package is not known is simply one without a signature.

The bundled participant serves its Python-defined packages as its own JSON description, not as Daml-LF: such a
package is recognised (JSON naming a package, hashing to its id; a Daml-LF archive is never JSON) and listed with
its name and version, without signatures (``NotDamlLf``). The description is not translated into them: it is
canonical JSON with sorted keys, so a record's field order is lost, and it names no type for a choice's argument
nor a package for a tuple; signatures made from it would differ from what Daml-LF declares.
"""

from __future__ import annotations

import asyncio
import copyreg
import dataclasses
import hashlib
import io
import pickle
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

import orjson

from app.client import LedgerClient, errors
from app.private_files import private_dir, private_replacement
from participant.daml_lf.signatures import (
    ChoiceSignature,
    DataTypeSignature,
    InterfaceSignature,
    PackageSignature,
    TemplateSignature,
    UnreadablePackage,
    made_of,
    read_package_signature,
    show_type,
)

FETCH_CONCURRENCY = 4


@dataclass(frozen=True, slots=True)
class NotDamlLf:
    """A package whose archive is the bundled participant's JSON description of a Python package."""

    package_id: str
    name: str
    version: str

    reason = "defined in Python by the bundled participant, which describes it in its own JSON, not Daml-LF"


@dataclass(frozen=True, slots=True)
class Progress:
    listed: int
    from_cache: int
    fetched: int
    decoded: int
    failed: int

    @property
    def done(self) -> int:
        return self.from_cache + self.decoded + self.failed


class PackageCatalog:
    """Signatures of the participant's packages by id and by name; filled by `load` (in a worker)."""

    def __init__(
        self,
        client: LedgerClient,
        cache_dir: Path,
        *,
        progress: Callable[[Progress], None] | None = None,
        concurrency: int = FETCH_CONCURRENCY,
    ) -> None:
        self._client = client
        self._cache = PackageCache(cache_dir)
        self._progress = progress
        self._concurrency = concurrency
        self.packages: dict[str, PackageSignature] = {}
        self.not_daml_lf: dict[str, NotDamlLf] = {}
        self.unreadable: dict[str, str] = {}  # package id -> why its signatures are unknown
        self.problem = ""  # why no package could be listed, when none could
        self.loaded = False
        self._preferred: dict[str, str | None] = {}
        self._counts = {"listed": 0, "from_cache": 0, "fetched": 0, "decoded": 0, "failed": 0}

    # --- loading

    async def load(self) -> None:
        """List the packages, read what the cache holds, fetch and decode the rest. Never raises for a failure of
        the participant: `problem` and `unreadable` say what could not be read."""
        try:
            ids = await self._client.packages()
        except errors.LedgerApiError as e:
            self.problem = _why(e, "the packages cannot be listed")
            self.loaded = True
            return
        self._count(listed=len(ids))
        cached = await asyncio.to_thread(self._cache.read_many, ids)
        for entry in cached.values():
            self._keep(entry)
        self._count(from_cache=len(cached))
        missing = [pid for pid in ids if pid not in cached]
        gate = asyncio.Semaphore(self._concurrency)
        await asyncio.gather(*(self._fetch(pid, gate) for pid in missing))
        self.loaded = True

    async def _fetch(self, package_id: str, gate: asyncio.Semaphore) -> None:
        async with gate:
            archive = self._cache.read_archive(package_id)
            if archive is None:
                try:
                    archive = await self._client.package_archive(package_id)
                except errors.LedgerApiError as e:
                    self._fail(package_id, _why(e, "its archive cannot be fetched"))
                    return
                self._count(fetched=1)
        try:
            entry = await asyncio.to_thread(read_entry, package_id, archive)
        except UnreadablePackage as e:
            self._fail(package_id, f"its archive cannot be read: {e}")
            return
        self._keep(entry)
        self._count(decoded=1)
        await asyncio.to_thread(self._cache.write, entry, archive)

    def _keep(self, entry: PackageSignature | NotDamlLf) -> None:
        if isinstance(entry, NotDamlLf):
            self.not_daml_lf[entry.package_id] = entry
        else:
            self.packages[entry.package_id] = entry

    def _fail(self, package_id: str, reason: str) -> None:
        self.unreadable[package_id] = reason
        self._count(failed=1)

    def _count(self, **more: int) -> None:
        for key, n in more.items():
            self._counts[key] += n
        if self._progress is not None:
            self._progress(Progress(**self._counts))

    @property
    def progress(self) -> Progress:
        return Progress(**self._counts)

    async def archive(self, package_id: str) -> bytes:
        """A package's archive as the participant serves it: the one kept in the cache when it is there (checked
        against its id), else fetched. Raises the client's errors."""
        kept = await asyncio.to_thread(self._cache.read_archive, package_id)
        return kept if kept is not None else await self._client.package_archive(package_id)

    # --- lookups

    def package(self, package_id: str) -> PackageSignature | None:
        return self.packages.get(package_id)

    def versions(self, name: str) -> list[PackageSignature]:
        """The decoded packages of that name, highest version first."""
        found = [p for p in self.packages.values() if p.name == name]
        return sorted(found, key=lambda p: version_key(p.version), reverse=True)

    async def preferred(self, name: str) -> PackageSignature | None:
        """The version of package `name` the participant prefers (its preferred-package endpoint, asked once per
        name); the highest version decoded where the endpoint is missing, refused or names one not decoded."""
        if name not in self._preferred:
            try:
                reference = await self._client.preferred_package(name)
            except errors.LedgerApiError:
                reference = None
            self._preferred[name] = reference.package_id if reference is not None else None
        chosen = self._preferred[name]
        if chosen is not None and chosen in self.packages:
            return self.packages[chosen]
        versions = self.versions(name)
        return versions[0] if versions else None

    async def template(self, template_id: str) -> TemplateSignature | None:
        """``#name:Module:Entity`` (the preferred version) or ``packageId:Module:Entity``."""
        package, qualified_name = await self._package_of(template_id)
        return package.templates.get(qualified_name) if package is not None else None

    def template_of(self, template_id: str) -> TemplateSignature | None:
        """A template named as events name it, ``packageId:Module:Entity`` (the package read, or None)."""
        package_id, _, qualified_name = template_id.partition(":")
        package = self.packages.get(package_id)
        return package.templates.get(qualified_name) if package is not None else None

    def interface_of(self, interface_id: str) -> InterfaceSignature | None:
        """An interface named as events name it, ``packageId:Module:Entity``."""
        package_id, _, qualified_name = interface_id.partition(":")
        package = self.packages.get(package_id)
        return package.interfaces.get(qualified_name) if package is not None else None

    async def interface(self, interface_id: str) -> InterfaceSignature | None:
        package, qualified_name = await self._package_of(interface_id)
        return package.interfaces.get(qualified_name) if package is not None else None

    def implementations(self, interface: InterfaceSignature) -> list[TemplateSignature]:
        """The templates of every package read that implement `interface`."""
        return [
            template
            for package in self.packages.values()
            for template in package.templates.values()
            if interface.ref in template.implements
        ]

    async def _package_of(self, identifier: str) -> tuple[PackageSignature | None, str]:
        package_ref, _, qualified_name = identifier.partition(":")
        if package_ref.startswith("#"):
            return await self.preferred(package_ref[1:]), qualified_name
        return self.packages.get(package_ref), qualified_name


# Daml's standard library as the SDK packages it (the names in every DAR's dependencies): `daml-prim` and
# `daml-stdlib`, each with its small per-module packages (`daml-prim-DA-Types`, `daml-stdlib-DA-Set-Types`),
# `ghc-stdlib-*` from the older SDKs, and Daml Script's libraries
_STANDARD_LIBRARY = frozenset(
    {"daml-prim", "daml-stdlib", "ghc-prim", "ghc-stdlib", "daml-script", "daml3-script"}
)
_STANDARD_LIBRARY_PREFIXES = ("daml-prim-", "daml-stdlib-", "ghc-prim-", "ghc-stdlib-")


def is_standard_library(name: str) -> bool:
    """Whether a package name is one of Daml's standard library's (not a package of the user's)."""
    return name in _STANDARD_LIBRARY or name.startswith(_STANDARD_LIBRARY_PREFIXES)


def version_key(version: str) -> tuple[int, ...]:
    """Daml package versions are dot-separated integers: compared numerically."""
    return tuple(int(part) if part.isdigit() else -1 for part in version.split("."))


def _why(error: errors.LedgerApiError, what: str) -> str:
    if isinstance(error, errors.EndpointMissing):
        return f"{what}: this participant does not serve {error.path}"
    if isinstance(error, errors.PermissionDenied):
        return f"{what}: the user may not ({error.message})"
    return f"{what}: {error.message}"


# --- one archive


def read_entry(package_id: str, archive: bytes) -> PackageSignature | NotDamlLf:
    """The signatures of a package from its archive, its hash and Daml-LF version checked; or, for the bundled
    participant's JSON description of a Python package (hashing to the id too), what names it."""
    described = _json_description(package_id, archive)
    if described is not None:
        return described
    return read_package_signature(package_id, archive)


def _json_description(package_id: str, archive: bytes) -> NotDamlLf | None:
    if not archive.startswith(b"{") or hashlib.sha256(archive).hexdigest() != package_id:
        return None
    try:
        described = orjson.loads(archive)
    except orjson.JSONDecodeError:
        return None
    name, version = described.get("name"), described.get("version")
    if isinstance(name, str) and isinstance(version, str) and isinstance(described.get("templates"), dict):
        return NotDamlLf(package_id, name, version)
    return None


# --- the cache


def _mapping(items: dict) -> Mapping:
    return MappingProxyType(items)


def _reduce_mapping(mapping: Mapping) -> tuple[Any, tuple[dict]]:
    return _mapping, (dict(mapping),)


_PICKLED_MODULES = frozenset({"participant.daml_lf.ast", "participant.daml_lf.signatures", __name__})


def shapes_version(modules: Iterable[str]) -> str:
    """A digest of the field layout of every dataclass the modules define (by module, class, field and annotated
    type): what a pickled signature is made of. A change to any of them changes the digest."""
    layout = []
    for name in sorted(modules):
        module = sys.modules[name]
        for class_name, cls in sorted(vars(module).items()):
            if isinstance(cls, type) and dataclasses.is_dataclass(cls) and cls.__module__ == name:
                fields = [(f.name, str(f.type)) for f in dataclasses.fields(cls)]
                layout.append((name, class_name, fields))
    return hashlib.sha256(orjson.dumps(layout)).hexdigest()[:16]


# The cache's entries are read only by code whose classes have the shapes that wrote them: the directory is named
# by those shapes, so entries of other shapes are never unpickled (they are not found).
CACHE_FORMAT = shapes_version(_PICKLED_MODULES)


class _Pickler(pickle.Pickler):
    dispatch_table = {**copyreg.dispatch_table, MappingProxyType: _reduce_mapping}


class _Unpickler(pickle.Unpickler):
    """Builds only the signature classes (and this module's read-only mappings): a cache file is data."""

    def find_class(self, module: str, name: str) -> Any:
        found = super().find_class(module, name) if module in _PICKLED_MODULES else None
        if found is _mapping or (isinstance(found, type) and dataclasses.is_dataclass(found)):
            return found
        raise pickle.UnpicklingError(f"{module}.{name} is not part of a package signature")


class PackageCache:
    """``<cache>/packages/v<format>/<id>.sig`` (the signatures, pickled) and ``<id>.lf`` (the archive as served),
    0600 in 0700 directories, each written whole or not at all. An entry that does not read is removed."""

    def __init__(self, cache_dir: Path) -> None:
        self.dir = cache_dir / "packages" / f"v{CACHE_FORMAT}"

    def _path(self, package_id: str, suffix: str) -> Path:
        return self.dir / f"{package_id}{suffix}"

    def read_many(self, package_ids: Iterable[str]) -> dict[str, PackageSignature | NotDamlLf]:
        found = {}
        for package_id in package_ids:
            entry = self.read(package_id)
            if entry is not None:
                found[package_id] = entry
        return found

    def read(self, package_id: str) -> PackageSignature | NotDamlLf | None:
        if not _is_package_id(package_id):
            return None
        path = self._path(package_id, ".sig")
        try:
            data = path.read_bytes()
        except OSError:
            return None
        try:
            entry = _Unpickler(io.BytesIO(data)).load()
        except Exception:  # anything a damaged file makes the unpickler raise
            entry = None
        if not isinstance(entry, PackageSignature | NotDamlLf) or entry.package_id != package_id:
            path.unlink(missing_ok=True)
            return None
        return entry

    def read_archive(self, package_id: str) -> bytes | None:
        """The archive kept beside signatures that no longer read (it is checked against its id when decoded)."""
        if not _is_package_id(package_id):
            return None
        path = self._path(package_id, ".lf")
        try:
            data = path.read_bytes()
        except OSError:
            return None
        if hashlib.sha256(data).hexdigest() != package_id:
            path.unlink(missing_ok=True)
            return None
        return data

    def write(self, entry: PackageSignature | NotDamlLf, archive: bytes) -> None:
        if not _is_package_id(entry.package_id):
            return
        try:
            private_dir(self.dir)
            with private_replacement(self._path(entry.package_id, ".lf"), binary=True) as out:
                out.write(archive)
            buffer = io.BytesIO()
            _Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(entry)
            with private_replacement(self._path(entry.package_id, ".sig"), binary=True) as out:
                out.write(buffer.getvalue())
        except OSError:
            pass  # a cache that cannot be written costs a fetch next time, nothing more


def _is_package_id(text: str) -> bool:
    """A file name made of a package id is safe: 64 lowercase hex digits."""
    return len(text) == 64 and all(c in "0123456789abcdef" for c in text)


__all__ = [
    "CACHE_FORMAT",
    "ChoiceSignature",
    "DataTypeSignature",
    "InterfaceSignature",
    "NotDamlLf",
    "PackageCache",
    "PackageCatalog",
    "PackageSignature",
    "Progress",
    "TemplateSignature",
    "is_standard_library",
    "made_of",
    "read_entry",
    "show_type",
    "version_key",
]
