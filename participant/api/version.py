"""``GET /v2/version`` (docs/ledger-api.md §5). The version string tells 3.4 from 3.5."""

from __future__ import annotations

from .base import Int32, WireModel
from .common import Duration

__all__ = [
    "ExperimentalCommandInspectionService",
    "ExperimentalFeatures",
    "ExperimentalStaticTime",
    "FeaturesDescriptor",
    "GetLedgerApiVersionResponse",
    "OffsetCheckpointFeature",
    "PackageFeature",
    "PartyManagementFeature",
    "UserManagementFeature",
]


class ExperimentalStaticTime(WireModel):
    supported: bool


class ExperimentalCommandInspectionService(WireModel):
    supported: bool


class ExperimentalFeatures(WireModel):
    static_time: ExperimentalStaticTime | None = None
    command_inspection_service: ExperimentalCommandInspectionService | None = None


class UserManagementFeature(WireModel):
    supported: bool
    max_rights_per_user: Int32
    max_users_page_size: Int32


class PartyManagementFeature(WireModel):
    max_parties_page_size: Int32


class OffsetCheckpointFeature(WireModel):
    max_offset_checkpoint_emission_delay: Duration


class PackageFeature(WireModel):
    max_vetted_packages_page_size: Int32


class FeaturesDescriptor(WireModel):
    experimental: ExperimentalFeatures
    user_management: UserManagementFeature
    party_management: PartyManagementFeature
    offset_checkpoint: OffsetCheckpointFeature
    package_feature: PackageFeature


class GetLedgerApiVersionResponse(WireModel):
    version: str
    features: FeaturesDescriptor
