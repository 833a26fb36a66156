"""The records the cache stores: a create event as the cache needs it, read from a snapshot element or an update,
and checked field by field (an answer of another shape is the participant's, not a crash)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.client import errors

ACTIVE, UNASSIGNED, ASSIGNED = 0, 1, 2  # contract kinds: active, incomplete unassigned, incomplete assigned


@dataclass(frozen=True)
class Move:
    """The reassignment an incomplete entry is half of: the unassignment seen, the assignment not yet (or the
    reverse)."""

    reassignment_id: str
    source: str
    target: str
    submitter: str = ""


@dataclass
class CreatedRecord:
    """A create event as the cache needs it (from a snapshot entry or an update)."""

    contract_id: str
    template_id: str
    offset: int
    created_at: str
    signatories: list[str]
    observers: list[str]
    payload: Any
    synchronizer: str = ""
    counter: int | None = 0
    kind: int = ACTIVE
    workflow_id: str = ""
    archived_offset: int | None = None
    move: Move | None = None


def record_of_entry(entry: dict[str, Any]) -> CreatedRecord | None:
    """A snapshot element (`JsGetActiveContractsResponse` as JSON) as a record; None for `JsEmpty`. An element of
    another shape is `UnreadableAnswer` naming the field."""
    contract_entry = _field(entry, "contractEntry", dict, "")
    workflow_id = entry.get("workflowId") or ""
    if "JsActiveContract" in contract_entry:
        c = _field(contract_entry, "JsActiveContract", dict, "contractEntry.")
        return _record(
            _field(c, "createdEvent", dict, "contractEntry.JsActiveContract."),
            c.get("synchronizerId") or "",
            c.get("reassignmentCounter"),
            ACTIVE,
            workflow_id,
            "contractEntry.JsActiveContract.createdEvent.",
        )
    if "JsIncompleteUnassigned" in contract_entry:
        c = _field(contract_entry, "JsIncompleteUnassigned", dict, "contractEntry.")
        unassigned = c.get("unassignedEvent") or {}
        record = _record(
            _field(c, "createdEvent", dict, "contractEntry.JsIncompleteUnassigned."),
            unassigned.get("source") or "",
            unassigned.get("reassignmentCounter"),
            UNASSIGNED,
            workflow_id,
            "contractEntry.JsIncompleteUnassigned.createdEvent.",
        )
        record.move = _move(unassigned)
        if isinstance(unassigned.get("offset"), int):
            record.offset = unassigned["offset"]  # this state (in flight) began with the unassignment
        return record
    if "JsIncompleteAssigned" in contract_entry:
        c = _field(contract_entry, "JsIncompleteAssigned", dict, "contractEntry.")
        assigned = _field(c, "assignedEvent", dict, "contractEntry.JsIncompleteAssigned.")
        record = _record(
            _field(assigned, "createdEvent", dict, "contractEntry.JsIncompleteAssigned.assignedEvent."),
            assigned.get("target") or "",
            assigned.get("reassignmentCounter"),
            ASSIGNED,
            workflow_id,
            "contractEntry.JsIncompleteAssigned.assignedEvent.createdEvent.",
        )
        record.move = _move(assigned)
        return record
    return None


_KIND_WORDS = {str: "text", dict: "an object", list: "a list", int: "a number"}


def _field(data: dict[str, Any], key: str, kind: type, where: str) -> Any:
    """`data[key]` when it is a `kind`; else the participant sent what this client cannot read."""
    value = data.get(key)
    if isinstance(value, kind) and not isinstance(value, bool):
        return value
    what = "missing" if value is None else f"{type(value).__name__} where {_KIND_WORDS[kind]} belongs"
    raise errors.UnreadableAnswer(
        f"unexpected answer from the participant: {where}{key}: {what}",
        hint="The participant may run a version this client does not know.",
    )


def _texts(data: dict[str, Any], key: str, where: str) -> list[str]:
    value = data.get(key) or []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise errors.UnreadableAnswer(
            f"unexpected answer from the participant: {where}{key}: not a list of party ids",
            hint="The participant may run a version this client does not know.",
        )
    return value


def _move(event: dict[str, Any]) -> Move:
    return Move(
        event.get("reassignmentId") or "",
        event.get("source") or "",
        event.get("target") or "",
        event.get("submitter") or "",
    )


def record_of_created_event(event: dict[str, Any], synchronizer: str, workflow_id: str = "") -> CreatedRecord:
    return _record(event, synchronizer, 0, ACTIVE, workflow_id, "createdEvent.")


def _record(
    event: dict[str, Any], synchronizer: str, counter: Any, kind: int, workflow_id: str, where: str
) -> CreatedRecord:
    offset = event.get("offset") or 0
    if not isinstance(offset, int) or isinstance(offset, bool):
        _field(event, "offset", int, where)
    return CreatedRecord(
        contract_id=_field(event, "contractId", str, where),
        template_id=_field(event, "templateId", str, where),
        offset=offset,
        created_at=event.get("createdAt") or "",
        signatories=_texts(event, "signatories", where),
        observers=_texts(event, "observers", where),
        payload=event.get("createArgument"),
        synchronizer=synchronizer,
        counter=counter if isinstance(counter, int) else None,
        kind=kind,
        workflow_id=workflow_id,
    )
