"""From a rendered transaction to the deprecated transaction-tree shape (`JsTransactionTree`)."""

from __future__ import annotations

_TREE_KINDS = {"CreatedEvent": "CreatedTreeEvent", "ExercisedEvent": "ExercisedTreeEvent"}


def transaction_tree(tx: dict) -> dict:
    """The JsTransactionTree of a rendered JsTransaction, as Canton converts one for its deprecated tree forms:
    created and exercised events keyed by node id (archives, which only the ACS-delta shape has, have no tree
    form)."""
    events = {}
    for event in tx["events"]:
        ((kind, value),) = event.items()
        tree_kind = _TREE_KINDS.get(kind)
        if tree_kind is not None:
            events[str(value["nodeId"])] = {tree_kind: {"value": value}}
    return {
        "updateId": tx["updateId"],
        "commandId": tx["commandId"],
        "workflowId": tx["workflowId"],
        "effectiveAt": tx["effectiveAt"],
        "offset": tx["offset"],
        "eventsById": events,
        "synchronizerId": tx["synchronizerId"],
        "traceContext": tx["traceContext"],
        "recordTime": tx["recordTime"],
    }
