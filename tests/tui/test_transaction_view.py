"""A LEDGER_EFFECTS transaction's events nest under the exercises that caused them."""

from __future__ import annotations

from app.widgets.transaction_view import nest
from participant.api import Event
from tests.tui.conftest import known

PARTY = "Alice::1220" + "ab" * 32


def created(node: int) -> Event:
    return Event.read(
        {
            "CreatedEvent": {
                "offset": 9,
                "nodeId": node,
                "contractId": f"00{node:02x}" + "0" * 134,
                "templateId": "p:M:T",
                "createArgument": {},
                "witnessParties": [PARTY],
                "signatories": [PARTY],
                "createdAt": "2025-01-01T00:00:00Z",
                "packageName": "p",
                "representativePackageId": "p",
                "acsDelta": True,
            }
        }
    )


def exercised(node: int, last: int) -> Event:
    return Event.read(
        {
            "ExercisedEvent": {
                "offset": 9,
                "nodeId": node,
                "contractId": "00" + "1" * 136,
                "templateId": "p:M:T",
                "choice": f"C{node}",
                "choiceArgument": {},
                "actingParties": [PARTY],
                "consuming": node == 0,
                "witnessParties": [PARTY],
                "lastDescendantNodeId": last,
                "exerciseResult": None,
                "packageName": "p",
                "acsDelta": False,
            }
        }
    )


def shape(forest) -> list:
    return [(_id(event), shape(children)) for event, children in forest]


def _id(event: Event) -> str:
    if event.exercised_event is not None:
        return f"x{event.exercised_event.node_id}"
    return f"c{known(event.created_event).node_id}"


def test_exercises_hold_the_events_in_their_range():
    events = [created(5), exercised(0, 3), created(1), exercised(2, 3), created(3), exercised(4, 4)]
    assert shape(nest(events)) == [
        ("x0", [("c1", []), ("x2", [("c3", [])])]),
        ("x4", []),
        ("c5", []),
    ]


def test_acs_delta_events_are_a_flat_list():
    assert shape(nest([created(1), created(0)])) == [("c0", []), ("c1", [])]
