"""``POST /v2/events/events-by-contract-id`` (docs/ledger-api.md §4.4)."""

from __future__ import annotations

from .base import WireModel
from .events import ArchivedEvent, CreatedEvent
from .filters import EventFormat

__all__ = ["GetEventsByContractIdRequest", "JsArchived", "JsCreated", "JsGetEventsByContractIdResponse"]


class GetEventsByContractIdRequest(WireModel):
    contract_id: str = ""
    event_format: EventFormat | None = None  # validated as required


class JsCreated(WireModel):
    created_event: CreatedEvent
    synchronizer_id: str


class JsArchived(WireModel):
    archived_event: ArchivedEvent
    synchronizer_id: str


class JsGetEventsByContractIdResponse(WireModel):
    created: JsCreated | None = None
    archived: JsArchived | None = None  # null while the contract is active
