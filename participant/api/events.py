"""Event payloads and stream building blocks (docs/ledger-api.md §3).

These are output messages: keys the spec marks required are required; others
are optional (None when absent, e.g. keys a 3.4 participant does not print).
Repeated fields default to ``[]`` because Canton never prints them as null.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from .base import AnyValue, Base64, Int32, Int64, Timestamp, Variant, WireModel, alt
from .common import UnknownFieldSet

__all__ = [
    "ArchivedEvent",
    "CreatedEvent",
    "Event",
    "ExercisedEvent",
    "JsAssignedEvent",
    "JsAssignmentEvent",
    "JsInterfaceView",
    "JsReassignmentEvent",
    "JsStatus",
    "JsUnassignedEvent",
    "OffsetCheckpoint",
    "OffsetCheckpoint1",
    "ProtoAny",
    "SynchronizerTime",
    "TraceContext",
    "UnassignedEvent",
]


class TraceContext(WireModel):
    traceparent: str | None = None
    tracestate: str | None = None


class ProtoAny(WireModel):
    type_url: str
    value: Base64
    unknown_fields: UnknownFieldSet
    # The spec says string (3.4 printed protobuf text); 3.5 prints a JSON object
    # for the well-known error details. Opaque either way.
    value_decoded: Any = None


class JsStatus(WireModel):
    """A google.rpc.Status; ``code`` 0 means success."""

    code: Int32
    message: str
    details: list[ProtoAny] = Field(default_factory=list)


class JsInterfaceView(WireModel):
    interface_id: str
    view_status: JsStatus
    view_value: AnyValue = None  # null when the view failed (viewStatus.code != 0)
    implementation_package_id: str | None = None  # 3.5 only


class CreatedEvent(WireModel):
    offset: Int64
    node_id: Int32
    contract_id: str
    template_id: str
    contract_key: AnyValue = None
    contract_key_hash: Base64 | None = None  # 3.5 only; "" when the template has no key
    create_argument: AnyValue
    created_event_blob: Base64 | None = None  # "" unless requested by the filter
    interface_views: list[JsInterfaceView] = Field(default_factory=list)
    witness_parties: list[str]
    signatories: list[str]
    observers: list[str] = Field(default_factory=list)
    created_at: Timestamp
    package_name: str
    representative_package_id: str
    acs_delta: bool


class ArchivedEvent(WireModel):
    offset: Int64
    node_id: Int32
    contract_id: str
    template_id: str
    witness_parties: list[str]
    package_name: str
    implemented_interfaces: list[str] = Field(default_factory=list)


class ExercisedEvent(WireModel):
    offset: Int64
    node_id: Int32
    contract_id: str
    template_id: str
    interface_id: str | None = None
    choice: str
    choice_argument: AnyValue
    acting_parties: list[str]
    consuming: bool
    witness_parties: list[str]
    last_descendant_node_id: Int32
    exercise_result: AnyValue = None
    package_name: str
    implemented_interfaces: list[str] = Field(default_factory=list)
    acs_delta: bool


class Event(Variant):
    """A transaction event; JSON-API flavour (fields directly under the tag)."""

    archived_event: ArchivedEvent | None = alt("ArchivedEvent")
    created_event: CreatedEvent | None = alt("CreatedEvent")
    exercised_event: ExercisedEvent | None = alt("ExercisedEvent")


class UnassignedEvent(WireModel):
    reassignment_id: str
    contract_id: str
    template_id: str
    source: str
    target: str
    submitter: str | None = None  # "" when unassigned via repair
    reassignment_counter: Int64
    assignment_exclusivity: Timestamp | None = None
    witness_parties: list[str]
    package_name: str
    offset: Int64
    node_id: Int32


class JsAssignedEvent(WireModel):
    """The assignment inside an ACS ``JsIncompleteAssigned`` entry."""

    source: str
    target: str
    reassignment_id: str
    submitter: str | None = None
    reassignment_counter: Int64
    created_event: CreatedEvent


class JsAssignmentEvent(WireModel):
    """The assignment inside a reassignment update (submitter is required here)."""

    source: str
    target: str
    reassignment_id: str
    submitter: str
    reassignment_counter: Int64
    created_event: CreatedEvent


class JsUnassignedEvent(WireModel):
    value: UnassignedEvent


class JsReassignmentEvent(Variant):
    # mixed flavours: the assignment is a JSON-API class, the unassignment the
    # raw proto message wrapped in {"value": ..}
    js_assignment_event: JsAssignmentEvent | None = alt("JsAssignmentEvent")
    js_unassigned_event: JsUnassignedEvent | None = alt("JsUnassignedEvent")


class SynchronizerTime(WireModel):
    synchronizer_id: str
    record_time: Timestamp


class OffsetCheckpoint1(WireModel):
    """Progress marker in update and completion streams; clients skip it."""

    offset: Int64
    synchronizer_times: list[SynchronizerTime] = Field(default_factory=list)


class OffsetCheckpoint(WireModel):
    # also serves the spec's identical OffsetCheckpoint2/3 wrappers
    value: OffsetCheckpoint1
