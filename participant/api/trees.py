"""The deprecated transaction-tree shapes (3.5 still serves them): `/v2/updates/trees`, the tree lookups and
submit-and-wait-for-transaction-tree. A tree is a ledger-effects transaction with its created and exercised events
keyed by node id."""

from __future__ import annotations

from .base import Int64, Timestamp, Variant, WireModel, alt
from .events import CreatedEvent, ExercisedEvent, OffsetCheckpoint, TraceContext
from .updates import Reassignment

__all__ = [
    "CreatedTreeEvent",
    "ExercisedTreeEvent",
    "JsGetTransactionTreeResponse",
    "JsGetUpdateTreesResponse",
    "JsSubmitAndWaitForTransactionTreeResponse",
    "JsTransactionTree",
    "TransactionTree",
    "TreeEvent",
    "Update1",
]


class CreatedTreeEvent(WireModel):
    value: CreatedEvent


class ExercisedTreeEvent(WireModel):
    value: ExercisedEvent


class TreeEvent(Variant):
    created_tree_event: CreatedTreeEvent | None = alt("CreatedTreeEvent")
    exercised_tree_event: ExercisedTreeEvent | None = alt("ExercisedTreeEvent")


class JsTransactionTree(WireModel):
    update_id: str
    command_id: str | None = None
    workflow_id: str | None = None
    effective_at: Timestamp
    offset: Int64
    events_by_id: dict[str, TreeEvent]  # node id (as JSON object keys are strings) -> event
    synchronizer_id: str
    trace_context: TraceContext | None = None
    record_time: Timestamp


class TransactionTree(WireModel):
    value: JsTransactionTree


class Update1(Variant):
    """The spec's `Update1` (titled "Update"): an element of the tree stream."""

    offset_checkpoint: OffsetCheckpoint | None = alt("OffsetCheckpoint")
    reassignment: Reassignment | None = alt("Reassignment")
    transaction_tree: TransactionTree | None = alt("TransactionTree")


class JsGetUpdateTreesResponse(WireModel):
    update: Update1 | None = None


class JsGetTransactionTreeResponse(WireModel):
    transaction: JsTransactionTree


class JsSubmitAndWaitForTransactionTreeResponse(WireModel):
    transaction_tree: JsTransactionTree | None = None
