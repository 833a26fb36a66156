"""The update stream: requests, elements and pages (docs/ledger-api.md §3, §4.7, §5)."""

from __future__ import annotations

from pydantic import Field

from .base import Base64, Int32, Int64, Timestamp, Variant, WireModel, alt
from .commands import JsTransaction
from .common import Empty, ParticipantPermission
from .events import JsReassignmentEvent, OffsetCheckpoint, TraceContext
from .filters import TransactionFilter, TransactionFormat, UpdateFormat

__all__ = [
    "GetTransactionByIdRequest",
    "GetTransactionByOffsetRequest",
    "GetUpdateByIdRequest",
    "GetUpdateByOffsetRequest",
    "GetUpdatesPageRequest",
    "GetUpdatesRequest",
    "JsGetTransactionResponse",
    "JsGetUpdateResponse",
    "JsGetUpdatesPageResponse",
    "JsGetUpdatesResponse",
    "JsReassignment",
    "JsTopologyTransaction",
    "ParticipantAuthorizationAdded",
    "ParticipantAuthorizationAdded1",
    "ParticipantAuthorizationChanged",
    "ParticipantAuthorizationChanged1",
    "ParticipantAuthorizationOnboarding",
    "ParticipantAuthorizationOnboarding1",
    "ParticipantAuthorizationRevoked",
    "ParticipantAuthorizationRevoked1",
    "ParticipantPermission",
    "Reassignment",
    "TopologyEvent",
    "TopologyEventEvent",
    "TopologyTransaction",
    "Transaction",
    "Update",
]


# --- requests (legacy DTO / proto: relaxed defaults) -------------------------


class GetUpdatesRequest(WireModel):
    begin_exclusive: Int64 = 0
    end_inclusive: Int64 | None = None  # absent = open-ended stream
    filter: TransactionFilter | None = None  # legacy, with verbose
    verbose: bool = False
    update_format: UpdateFormat | None = None
    descending_order: bool = False  # 3.5 only; needs endInclusive


class GetUpdatesPageRequest(WireModel):
    begin_offset_exclusive: Int64 | None = None
    end_offset_inclusive: Int64 | None = None
    max_page_size: Int32 | None = None
    update_format: UpdateFormat | None = None  # validated as required
    descending_order: bool = False
    page_token: Base64 | None = None


class GetUpdateByIdRequest(WireModel):
    update_id: str = ""
    update_format: UpdateFormat | None = None


class GetUpdateByOffsetRequest(WireModel):
    offset: Int64 = 0
    update_format: UpdateFormat | None = None


# The deprecated transaction lookups: either requestingParties (every event of theirs, ACS-delta shape) or a
# transactionFormat, not both.
class GetTransactionByIdRequest(WireModel):
    update_id: str = ""
    requesting_parties: list[str] = Field(default_factory=list)
    transaction_format: TransactionFormat | None = None


class GetTransactionByOffsetRequest(WireModel):
    offset: Int64 = 0
    requesting_parties: list[str] = Field(default_factory=list)
    transaction_format: TransactionFormat | None = None


# --- reassignments -----------------------------------------------------------


class JsReassignment(WireModel):
    update_id: str
    command_id: str | None = None
    workflow_id: str | None = None
    offset: Int64
    events: list[JsReassignmentEvent]
    trace_context: TraceContext | None = None
    record_time: Timestamp
    synchronizer_id: str
    paid_traffic_cost: Int64 | None = None  # 3.5 only


# --- topology ----------------------------------------------------------------


class ParticipantAuthorizationAdded1(WireModel):
    party_id: str
    participant_id: str
    participant_permission: ParticipantPermission


class ParticipantAuthorizationChanged1(WireModel):
    party_id: str
    participant_id: str
    participant_permission: ParticipantPermission


class ParticipantAuthorizationOnboarding1(WireModel):
    """3.5 only."""

    party_id: str
    participant_id: str
    participant_permission: ParticipantPermission


class ParticipantAuthorizationRevoked1(WireModel):
    party_id: str
    participant_id: str


class ParticipantAuthorizationAdded(WireModel):
    value: ParticipantAuthorizationAdded1


class ParticipantAuthorizationChanged(WireModel):
    value: ParticipantAuthorizationChanged1


class ParticipantAuthorizationOnboarding(WireModel):
    value: ParticipantAuthorizationOnboarding1


class ParticipantAuthorizationRevoked(WireModel):
    value: ParticipantAuthorizationRevoked1


class TopologyEventEvent(Variant):
    empty: Empty | None = alt("Empty")
    participant_authorization_added: ParticipantAuthorizationAdded | None = alt(
        "ParticipantAuthorizationAdded"
    )
    participant_authorization_changed: ParticipantAuthorizationChanged | None = alt(
        "ParticipantAuthorizationChanged"
    )
    participant_authorization_onboarding: ParticipantAuthorizationOnboarding | None = alt(
        "ParticipantAuthorizationOnboarding"
    )
    participant_authorization_revoked: ParticipantAuthorizationRevoked | None = alt(
        "ParticipantAuthorizationRevoked"
    )


class TopologyEvent(WireModel):
    event: TopologyEventEvent | None = None


class JsTopologyTransaction(WireModel):
    update_id: str
    offset: Int64
    synchronizer_id: str
    record_time: Timestamp
    events: list[TopologyEvent]
    trace_context: TraceContext | None = None


# --- the Update variant (proto oneof flavour) ----------------------------------


class Transaction(WireModel):
    value: JsTransaction


class Reassignment(WireModel):
    value: JsReassignment


class TopologyTransaction(WireModel):
    value: JsTopologyTransaction


class Update(Variant):
    # the spec names this alternative's schema OffsetCheckpoint2; it is the
    # same {"value": OffsetCheckpoint1} wrapper as in completions
    offset_checkpoint: OffsetCheckpoint | None = alt("OffsetCheckpoint")
    reassignment: Reassignment | None = alt("Reassignment")
    topology_transaction: TopologyTransaction | None = alt("TopologyTransaction")
    transaction: Transaction | None = alt("Transaction")


class JsGetUpdatesResponse(WireModel):
    update: Update | None = None


class JsGetUpdateResponse(WireModel):
    update: Update | None = None


class JsGetTransactionResponse(WireModel):
    transaction: JsTransaction


class JsGetUpdatesPageResponse(WireModel):
    updates: list[JsGetUpdateResponse] = Field(default_factory=list)
    lowest_page_offset_exclusive: Int64
    highest_page_offset_inclusive: Int64
    next_page_token: Base64 | None = None  # null = last page
