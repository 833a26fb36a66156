"""Loading DARs (`POST /v2/dars`, `POST /v2/packages`, `POST /v2/dars/validate`, `serve --dar`).

A DAR is checked whole before anything is written: its container and every DALF's hash and LF version, every
package decoded, every reference of their signatures resolved (within the DAR or to a package loaded before), and
no package taking the name and version of another one. Then its packages are stored in one write; a DAR loaded
before changes nothing. Each refusal is Canton's error for it, with a cause that names the problem
(docs/ledger-api.md §5.1).
"""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import replace
from datetime import UTC, datetime

from participant.auth import Claims
from participant.base import errors
from participant.base.timestamps import format_timestamp
from participant.daml_lf import ast
from participant.daml_lf.archive import Dar, read_dar, read_payload
from participant.daml_lf.decode import decode_package
from participant.daml_lf.errors import DamlLfError, InvalidDar, MissingPackage, UnresolvedReference, ZipBomb
from participant.daml_lf.limits import DEFAULT_MAX_DAR_BYTES
from participant.daml_lf.packages import PackageSet, check_references, decode_dar
from participant.engine.registry import PackageRegistry
from participant.services.context import Context
from participant.store.packages import (
    KnownVersion,
    NewDar,
    NewPackage,
    PackageRow,
    has_dar,
    ids_of_version,
    package_payload,
    store_dar,
)
from participant.store.store import Store


def refusal(error: DamlLfError) -> errors.LedgerError:
    """Canton's error for what the reader found wrong (`PackageServiceErrors.Reading` and `.Validation`)."""
    if isinstance(error, ZipBomb):  # Canton's context names its message "msg"
        return errors.ZIP_BOMB(str(error), context={"msg": str(error)})
    if isinstance(error, InvalidDar):
        code = errors.INVALID_DAR
    elif isinstance(error, MissingPackage):
        code = errors.DAR_NOT_SELF_CONSISTENT
    elif isinstance(error, UnresolvedReference):
        code = errors.DAR_VALIDATION_ERROR
    else:  # an archive that does not decode, a hash that does not match, an LF version not known
        code = errors.DAR_PARSE_ERROR
    return code(str(error), context={"reason": str(error)})


def known_version(package: PackageRow, existing_id: str) -> errors.LedgerError:
    uploaded = f"{package.package_id} ({package.name} v{package.version})"
    return errors.KNOWN_DAR_VERSION(
        f"Tried to upload package {uploaded}, but a different package {existing_id} with the same name and "
        "version has previously been uploaded.",
        context={
            "uploadedPackageId": uploaded,
            "existingPackage": existing_id,
            "packageVersion": package.version,
        },
    )


def _utility(package: ast.Package) -> bool:
    """Canton's utility packages (no templates, no interfaces: the standard library, say) are exempt from the
    one-package-per-name-and-version rule."""
    return not any(module.templates or module.interfaces for module in package.modules.values())


async def _stored_package(store: Store, package_id: str) -> ast.Package | None:
    payload = await package_payload(store, package_id)
    if payload is None:
        return None
    return decode_package(read_payload(package_id, payload, f"<loaded package {package_id}>"))


async def _checked(store: Store, data: bytes, max_dar_bytes: int) -> tuple[Dar, PackageSet]:
    """The DAR read and decoded (in a thread: a large one takes a CPU for a while), its references resolved within
    it or, for a package it does not carry, to one loaded before."""
    try:
        dar = await asyncio.to_thread(read_dar, data, max_dar_bytes)
        package_set = await asyncio.to_thread(decode_dar, dar)
        dependencies: dict[str, ast.Package] = {}
        while True:
            try:
                await asyncio.to_thread(check_references, replace(package_set, dependencies=dependencies))
                return dar, package_set
            except MissingPackage as missing:
                loaded = (
                    None
                    if missing.package_id in dependencies
                    else await _stored_package(store, missing.package_id)
                )
                if loaded is None:
                    raise
                dependencies[missing.package_id] = loaded
    except DamlLfError as error:
        raise refusal(error) from None


async def _new_dar(
    store: Store, registry: PackageRegistry, data: bytes, dar_hash: str, max_dar_bytes: int
) -> NewDar:
    dar, package_set = await _checked(store, data, max_dar_bytes)
    now = format_timestamp(datetime.now(UTC))
    packages = []
    for dalf in dar.dalfs:
        package = package_set.packages[dalf.package_id]
        row = PackageRow(
            package_id=dalf.package_id,
            name=package.name,
            version=package.version,
            lf_version=dalf.lf_version,
            templates=tuple(f"{m.name}:{t}" for m in package.modules.values() for t in m.templates),
            interfaces=tuple(f"{m.name}:{i}" for m in package.modules.values() for i in m.interfaces),
            dar_hash=dar_hash,
            is_main=dalf is dar.main,
            uploaded_at=now,
        )
        versioned = not _utility(package)
        if versioned:
            await _check_version_free(store, registry, row)
        packages.append(NewPackage(row, dalf.payload, versioned))
    return NewDar(dar_hash, dar.name, dar.main.package_id, now, tuple(packages))


async def _check_version_free(store: Store, registry: PackageRegistry, row: PackageRow) -> None:
    """No other package, Daml-LF or Python, may have the name and version (a `#name` reference would be
    ambiguous)."""
    others = [pid for pid in await ids_of_version(store, row.name, row.version) if pid != row.package_id]
    others += [
        p.package_id
        for p in registry.versions(row.name)
        if p.version == row.version and p.package_id != row.package_id
    ]
    if others:
        raise known_version(row, others[0])


async def load_dar(
    store: Store, registry: PackageRegistry, data: bytes, max_dar_bytes: int = DEFAULT_MAX_DAR_BYTES
) -> list[PackageRow]:
    """Check and store a DAR, its entries decompressing to ``max_dar_bytes`` at most; returns the packages it
    added (none for a DAR loaded before)."""
    dar_hash = hashlib.sha256(data).hexdigest()
    if await has_dar(store, dar_hash):
        return []
    new = await _new_dar(store, registry, data, dar_hash, max_dar_bytes)
    try:
        return await store_dar(store, new)
    except KnownVersion as conflict:  # another upload took the name and version meanwhile
        raise known_version(conflict.package, conflict.existing_id) from None


def _check_query(ctx: Context, synchronizer_id: str | None) -> None:
    if synchronizer_id and ctx.identity.synchronizer(synchronizer_id) is None:
        raise errors.INVALID_ARGUMENT(f"Synchronizer id not found: {synchronizer_id}")


async def upload(ctx: Context, data: bytes, synchronizer_id: str | None, c: Claims) -> None:
    """Every package is usable on every connected synchronizer here, so there is nothing to vet: vetAllPackages
    changes nothing."""
    c.require_admin()
    _check_query(ctx, synchronizer_id)
    rows = await load_dar(ctx.store, ctx.registry, data, ctx.settings.max_dar_bytes)
    ctx.daml_packages.add(rows)
    await ctx.daml_packages.register(ctx.store, ctx.registry, rows)


async def validate(ctx: Context, data: bytes, synchronizer_id: str | None, c: Claims) -> None:
    """What an upload checks, writing nothing."""
    c.require_admin()
    _check_query(ctx, synchronizer_id)
    dar_hash = hashlib.sha256(data).hexdigest()
    if not await has_dar(ctx.store, dar_hash):
        await _new_dar(ctx.store, ctx.registry, data, dar_hash, ctx.settings.max_dar_bytes)
