"""Package listing and status (docs/ledger-api.md §5), and the preferred packages of the interactive submission service."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .base import Timestamp, WireModel

__all__ = [
    "GetPackageStatusResponse",
    "GetPreferredPackageVersionResponse",
    "GetPreferredPackagesRequest",
    "GetPreferredPackagesResponse",
    "ListPackagesResponse",
    "PackagePreference",
    "PackageReference",
    "PackageStatus",
    "PackageVettingRequirement",
    "UploadDarFileResponse",
]

PackageStatus = Literal["PACKAGE_STATUS_UNSPECIFIED", "PACKAGE_STATUS_REGISTERED"]


class ListPackagesResponse(WireModel):
    package_ids: list[str]


class GetPackageStatusResponse(WireModel):
    package_status: PackageStatus


class UploadDarFileResponse(WireModel):
    """``{}`` from ``POST /v2/packages`` and ``POST /v2/dars``."""


class PackageReference(WireModel):
    package_id: str
    package_name: str
    package_version: str


class PackagePreference(WireModel):
    package_reference: PackageReference
    synchronizer_id: str


class GetPreferredPackageVersionResponse(WireModel):
    package_preference: PackagePreference | None = None  # absent when no package of that name is found


class PackageVettingRequirement(WireModel):
    parties: list[str] = Field(default_factory=list)
    package_name: str = ""


class GetPreferredPackagesRequest(WireModel):
    package_vetting_requirements: list[PackageVettingRequirement] = Field(default_factory=list)
    synchronizer_id: str = ""
    vetting_valid_at: Timestamp | None = None


class GetPreferredPackagesResponse(WireModel):
    package_references: list[PackageReference]
    synchronizer_id: str
