"""Package listing and status (notes §5)."""

from __future__ import annotations

from typing import Literal

from .base import WireModel

__all__ = ["GetPackageStatusResponse", "ListPackagesResponse", "PackageStatus", "UploadDarFileResponse"]

PackageStatus = Literal["PACKAGE_STATUS_UNSPECIFIED", "PACKAGE_STATUS_REGISTERED"]


class ListPackagesResponse(WireModel):
    package_ids: list[str]


class GetPackageStatusResponse(WireModel):
    package_status: PackageStatus


class UploadDarFileResponse(WireModel):
    """``{}`` from ``POST /v2/packages`` and ``POST /v2/dars``."""
