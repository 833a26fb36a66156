"""State service: active contracts, ledger end, pruning, synchronizers (docs/ledger-api.md §4.1, §4.6, §5)."""

from __future__ import annotations

from pydantic import Field

from .base import Base64, Int32, Int64, Variant, WireModel, alt
from .common import ParticipantPermission
from .events import CreatedEvent, JsAssignedEvent, UnassignedEvent
from .filters import EventFormat, TransactionFilter

__all__ = [
    "ConnectedSynchronizer",
    "GetActiveContractsPageRequest",
    "GetActiveContractsRequest",
    "GetConnectedSynchronizersResponse",
    "GetLatestPrunedOffsetsResponse",
    "GetLedgerEndResponse",
    "JsActiveContract",
    "JsContractEntry",
    "JsEmpty",
    "JsGetActiveContractsPageResponse",
    "JsGetActiveContractsResponse",
    "JsIncompleteAssigned",
    "JsIncompleteUnassigned",
]


class GetActiveContractsRequest(WireModel):
    """Legacy DTO: either ``eventFormat`` or the old ``filter`` + ``verbose``."""

    filter: TransactionFilter | None = None
    verbose: bool = False
    # 3.5 relaxed codec: omitted means 0, which silently yields an empty ACS
    active_at_offset: Int64 = 0
    event_format: EventFormat | None = None
    stream_continuation_token: Base64 | None = None  # 3.5 only


class GetActiveContractsPageRequest(WireModel):
    active_at_offset: Int64 | None = None  # absent (or 0) = ledger end
    event_format: EventFormat | None = None  # validated as required
    max_page_size: Int32 | None = None
    page_token: Base64 | None = None


class JsActiveContract(WireModel):
    created_event: CreatedEvent
    synchronizer_id: str
    reassignment_counter: Int64


class JsIncompleteAssigned(WireModel):
    assigned_event: JsAssignedEvent


class JsIncompleteUnassigned(WireModel):
    created_event: CreatedEvent
    unassigned_event: UnassignedEvent


class JsEmpty(WireModel):
    """Unset proto oneof in the JSON-API flavour: ``{"JsEmpty":{}}``."""


class JsContractEntry(Variant):
    js_active_contract: JsActiveContract | None = alt("JsActiveContract")
    js_empty: JsEmpty | None = alt("JsEmpty")
    js_incomplete_assigned: JsIncompleteAssigned | None = alt("JsIncompleteAssigned")
    js_incomplete_unassigned: JsIncompleteUnassigned | None = alt("JsIncompleteUnassigned")


class JsGetActiveContractsResponse(WireModel):
    workflow_id: str | None = None
    contract_entry: JsContractEntry | None = None
    # 3.5: on every streamed element; "" inside active-contracts-page
    stream_continuation_token: Base64 | None = None


class JsGetActiveContractsPageResponse(WireModel):
    active_contracts: list[JsGetActiveContractsResponse]
    active_at_offset: Int64
    next_page_token: Base64 | None = None  # null = last page


class GetLedgerEndResponse(WireModel):
    offset: Int64 | None = None  # 0 = empty ledger


class GetLatestPrunedOffsetsResponse(WireModel):
    participant_pruned_up_to_inclusive: Int64 | None = None
    all_divulged_contracts_pruned_up_to_inclusive: Int64 | None = None


class ConnectedSynchronizer(WireModel):
    synchronizer_alias: str
    synchronizer_id: str
    permission: ParticipantPermission | None = None


class GetConnectedSynchronizersResponse(WireModel):
    connected_synchronizers: list[ConnectedSynchronizer] = Field(default_factory=list)
