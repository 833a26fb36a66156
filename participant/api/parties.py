"""Party management (docs/ledger-api.md §5). Requests are proto-shaped: relaxed defaults."""

from __future__ import annotations

from pydantic import Field

from .base import WireModel
from .common import FieldMask

__all__ = [
    "AllocatePartyRequest",
    "AllocatePartyResponse",
    "GetParticipantIdResponse",
    "GetPartiesResponse",
    "ListKnownPartiesResponse",
    "ObjectMeta",
    "PartyDetails",
    "UpdatePartyDetailsRequest",
    "UpdatePartyDetailsResponse",
]


class ObjectMeta(WireModel):
    resource_version: str = ""
    annotations: dict[str, str] = Field(default_factory=dict)


class PartyDetails(WireModel):
    party: str = ""
    is_local: bool = False
    local_metadata: ObjectMeta | None = None
    identity_provider_id: str = ""


class AllocatePartyRequest(WireModel):
    party_id_hint: str = ""  # "" -> the participant picks "party-<uuid>"
    local_metadata: ObjectMeta | None = None
    identity_provider_id: str = ""
    synchronizer_id: str = ""
    user_id: str = ""  # non-empty: that user also gets CanActAs


class AllocatePartyResponse(WireModel):
    party_details: PartyDetails


class ListKnownPartiesResponse(WireModel):
    party_details: list[PartyDetails]
    next_page_token: str | None = None


class GetPartiesResponse(WireModel):
    party_details: list[PartyDetails]


class GetParticipantIdResponse(WireModel):
    participant_id: str


class UpdatePartyDetailsRequest(WireModel):
    party_details: PartyDetails | None = None
    update_mask: FieldMask | None = None


class UpdatePartyDetailsResponse(WireModel):
    party_details: PartyDetails
