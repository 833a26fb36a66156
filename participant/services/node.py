"""What the participant says about itself: the API version and features it serves, and its participant id."""

from __future__ import annotations

from participant.api import (
    Duration,
    ExperimentalCommandInspectionService,
    ExperimentalFeatures,
    ExperimentalStaticTime,
    FeaturesDescriptor,
    GetLedgerApiVersionResponse,
    GetParticipantIdResponse,
    OffsetCheckpointFeature,
    PackageFeature,
    PartyManagementFeature,
    UnknownFieldSet,
    UserManagementFeature,
)
from participant.auth import Claims
from participant.services.admin import MAX_USERS_PAGE_SIZE
from participant.services.context import Context
from participant.services.parties import MAX_PARTIES_PAGE_SIZE

API_VERSION = "3.5.4"

VERSION = GetLedgerApiVersionResponse(
    version=API_VERSION,
    features=FeaturesDescriptor(
        experimental=ExperimentalFeatures(
            static_time=ExperimentalStaticTime(supported=False),
            command_inspection_service=ExperimentalCommandInspectionService(supported=False),
        ),
        user_management=UserManagementFeature(
            supported=True, max_rights_per_user=1000, max_users_page_size=MAX_USERS_PAGE_SIZE
        ),
        party_management=PartyManagementFeature(max_parties_page_size=MAX_PARTIES_PAGE_SIZE),
        # as Canton prints a protobuf Duration, unknown fields included
        offset_checkpoint=OffsetCheckpointFeature(
            max_offset_checkpoint_emission_delay=Duration(
                seconds=75, nanos=0, unknown_fields=UnknownFieldSet()
            )
        ),
        package_feature=PackageFeature(max_vetted_packages_page_size=100),
    ),
)


# With `--static-time`, as Canton's version service says of a participant whose time provider is static.
STATIC_TIME_VERSION = VERSION.model_copy(
    update={
        "features": VERSION.features.model_copy(
            update={
                "experimental": ExperimentalFeatures(
                    static_time=ExperimentalStaticTime(supported=True),
                    command_inspection_service=ExperimentalCommandInspectionService(supported=False),
                )
            }
        )
    }
)


def version(static_time: bool = False) -> GetLedgerApiVersionResponse:
    """No token needed, as on Canton."""
    return STATIC_TIME_VERSION if static_time else VERSION


def participant_id(ctx: Context, c: Claims) -> GetParticipantIdResponse:
    return GetParticipantIdResponse(participant_id=ctx.identity.participant_id)
