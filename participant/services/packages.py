"""The package service, and the preferred packages of the interactive submission service.

A package's "archive" is the bytes its definition serves (`PackageDef.archive`; for a package written in Python,
the canonical JSON description of its templates and data types), whose SHA-256 is the package id. Every loaded
package is usable on every connected synchronizer, so the preferred package of a name is its highest loaded
version, wherever asked.

The Daml-LF packages of loaded DARs (`services.dars`) are served beside them: their archive is the payload as the
DALF held it, and every DALF of a DAR (the standard library's too) is listed.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from participant.api import (
    GetPackageStatusResponse,
    GetPreferredPackagesRequest,
    GetPreferredPackagesResponse,
    GetPreferredPackageVersionResponse,
    ListPackagesResponse,
    PackagePreference,
    PackageReference,
)
from participant.auth import Claims
from participant.base import errors
from participant.base.errors import BadRequestBody
from participant.base.timestamps import parse_timestamp
from participant.engine import ids
from participant.engine.definitions import PackageDef
from participant.ledger.daml_packages import version_key
from participant.services.context import Context
from participant.store.packages import PackageRow, package_payload


def list_packages(ctx: Context, c: Claims) -> ListPackagesResponse:
    python = [p.package_id for p in ctx.registry.packages]
    return ListPackagesResponse(package_ids=sorted({*python, *ctx.daml_packages.ids()}))


def package_status(ctx: Context, package_id: str, c: Claims) -> GetPackageStatusResponse:
    known = ids.is_package_id_string(package_id) and (
        ctx.registry.package(package_id) is not None or ctx.daml_packages.get(package_id) is not None
    )
    return GetPackageStatusResponse(
        package_status="PACKAGE_STATUS_REGISTERED" if known else "PACKAGE_STATUS_UNSPECIFIED"
    )


@dataclass(frozen=True)
class Archive:
    content: bytes
    hash: str  # Canton-Package-Hash: the SHA-256 of the content, which is the package id


async def package_archive(ctx: Context, package_id: str, c: Claims) -> Archive:
    if not ids.is_package_id_string(package_id):
        raise errors.INVALID_ARGUMENT(f"Invalid package id: {package_id!r} is not a PackageIdString")
    package = ctx.registry.package(package_id)
    content: bytes | None
    if package is not None:
        content = package.archive()
    elif ctx.daml_packages.get(package_id) is not None:
        content = await package_payload(ctx.store, package_id)
    else:
        content = None
    if content is None:
        raise errors.PACKAGE_NOT_FOUND("Could not find package.", resources=[("PACKAGE", package_id)])
    digest = hashlib.sha256(content).hexdigest()
    if (
        digest != package_id
    ):  # the id is meant to hash exactly these bytes; say so rather than serve other bytes
        raise errors.LEDGER_API_INTERNAL_ERROR(f"package {package_id} does not hash to its id")
    return Archive(content, digest)


def _reference(package: PackageDef | PackageRow) -> PackageReference:
    return PackageReference(
        package_id=package.package_id, package_name=package.name, package_version=package.version
    )


def _preferred(ctx: Context, package_name: str) -> PackageDef | PackageRow | None:
    """The highest version of the name among the loaded packages, Python or Daml-LF."""
    candidates = [
        p for p in (ctx.registry.preferred(package_name), ctx.daml_packages.preferred(package_name)) if p
    ]
    return max(candidates, key=lambda p: version_key(p.version), default=None)


def _synchronizer(ctx: Context, synchronizer_id: str) -> str:
    if not synchronizer_id:
        return ctx.identity.default_synchronizer.id
    if ctx.identity.synchronizer(synchronizer_id) is None:
        raise errors.INVALID_ARGUMENT(f"Synchronizer id not found: {synchronizer_id}")
    return synchronizer_id


def _check_time(text: str | None, where: str) -> None:
    if text:
        try:
            parse_timestamp(text)
        except ValueError as e:
            raise BadRequestBody(str(e), where=where) from None


def preferred_package_version(
    ctx: Context,
    package_name: str,
    parties: list[str],
    synchronizer_id: str,
    vetting_valid_at: str | None,
    c: Claims,
) -> GetPreferredPackageVersionResponse:
    ids.require_party_ids(parties, "parties")
    _check_time(vetting_valid_at, "query parameter vetting_valid_at")
    synchronizer = _synchronizer(ctx, synchronizer_id)
    package = _preferred(ctx, package_name)
    if package is None:  # Canton leaves the preference out when no package of that name is vetted
        return GetPreferredPackageVersionResponse()
    return GetPreferredPackageVersionResponse(
        package_preference=PackagePreference(
            package_reference=_reference(package), synchronizer_id=synchronizer
        )
    )


def preferred_packages(
    ctx: Context, req: GetPreferredPackagesRequest, c: Claims
) -> GetPreferredPackagesResponse:
    if not req.package_vetting_requirements:
        raise errors.missing_field("package_vetting_requirements")
    _check_time(req.vetting_valid_at, "body")
    references = []
    for requirement in req.package_vetting_requirements:
        if not requirement.package_name:
            raise errors.missing_field("package_name")
        if not requirement.parties:
            raise errors.missing_field("parties")
        ids.require_party_ids(requirement.parties, "parties")
        references.append(requirement.package_name)
    synchronizer = _synchronizer(ctx, req.synchronizer_id)
    found = []
    for name in dict.fromkeys(references):
        package = _preferred(ctx, name)
        if package is None:
            raise errors.NO_PREFERRED_PACKAGES_FOUND(
                f"No package with package-name '{name}' is vetted on synchronizer {synchronizer}",
                resources=[("PACKAGE_NAME", name)],
            )
        found.append(_reference(package))
    return GetPreferredPackagesResponse(package_references=found, synchronizer_id=synchronizer)
