"""Update service over HTTP: POST /v2/updates (list form) with an updateFormat or the legacy filter."""

from __future__ import annotations

import pytest

from tests.http.helpers import (
    LEDGER_EFFECTS,
    assert_error,
    event_format,
    template,
    transaction_format,
    update_format,
)

UPDATES = "/v2/updates"


async def updates(ledger_api, body: dict, *, user: str, params: dict | None = None):
    return await ledger_api.call("POST", UPDATES, json=body, user=user, params=params)


def transactions(r) -> list[dict]:
    assert r.status_code == 200, r.text
    return [u["update"]["Transaction"]["value"] for u in r.json()]


def event_kinds(tx: dict) -> list[str]:
    return [next(iter(e)) for e in tx["events"]]


async def test_acs_delta_updates_of_a_party(ledger_api, alice_bob, history):
    alice, _ = alice_bob
    txs = transactions(
        await updates(ledger_api, {"beginExclusive": 0, "updateFormat": update_format(alice)}, user="Alice")
    )
    assert [t["updateId"] for t in txs] == [history[k]["updateId"] for k in ("created", "transfer", "accept")]
    assert [event_kinds(t) for t in txs] == [
        ["CreatedEvent"],
        ["ArchivedEvent", "CreatedEvent"],
        ["ArchivedEvent", "CreatedEvent"],
    ]  # Alice issues Bob's new Iou
    offsets = [t["offset"] for t in txs]
    assert offsets == sorted(offsets)
    assert txs[0]["commandId"] and txs[2]["commandId"] == ""  # Alice did not submit the accept


async def test_ledger_effects_updates(ledger_api, alice_bob, history):
    _, bob = alice_bob
    txs = transactions(
        await updates(
            ledger_api,
            {
                "beginExclusive": history["transfer"]["offset"],
                "updateFormat": update_format(bob, shape=LEDGER_EFFECTS),
            },
            user="Bob",
        )
    )
    assert [event_kinds(t) for t in txs] == [["ExercisedEvent", "CreatedEvent"], ["CreatedEvent"]]
    exercised = txs[0]["events"][0]["ExercisedEvent"]
    assert exercised["choice"] == "IouTransfer_Accept" and exercised["lastDescendantNodeId"] == 1


async def test_range_and_template_filter(ledger_api, alice_bob, history):
    _, bob = alice_bob
    body = {
        "beginExclusive": history["created"]["offset"],
        "endInclusive": history["accept"]["offset"],
        "updateFormat": update_format(bob, filters=[template("#model-tests:Iou:IouTransfer")]),
    }
    txs = transactions(await updates(ledger_api, body, user="Bob"))
    assert [t["updateId"] for t in txs] == [history["transfer"]["updateId"], history["accept"]["updateId"]]
    assert [event_kinds(t) for t in txs] == [["CreatedEvent"], ["ArchivedEvent"]]


async def test_descending_order(ledger_api, alice_bob, history):
    _, bob = alice_bob
    end = await ledger_api.ledger_end()
    body = {
        "beginExclusive": 0,
        "endInclusive": end,
        "descendingOrder": True,
        "updateFormat": update_format(bob),
    }
    offsets = [t["offset"] for t in transactions(await updates(ledger_api, body, user="Bob"))]
    assert offsets == sorted(offsets, reverse=True) and len(offsets) == 3


async def test_legacy_filter_means_acs_delta(ledger_api, alice_bob, history):
    alice, _ = alice_bob
    fmt = event_format(alice)
    legacy = {
        "beginExclusive": 0,
        "verbose": False,
        "filter": {"filtersByParty": fmt["filtersByParty"], "filtersForAnyParty": None},
    }
    txs = transactions(await updates(ledger_api, legacy, user="Alice"))
    assert [event_kinds(t) for t in txs] == [
        ["CreatedEvent"],
        ["ArchivedEvent", "CreatedEvent"],
        ["ArchivedEvent", "CreatedEvent"],
    ]  # Alice issues Bob's new Iou


async def test_no_transactions_requested(ledger_api, alice_bob, history):
    r = await updates(ledger_api, {"beginExclusive": 0, "updateFormat": {}}, user="Alice")
    assert r.status_code == 200 and r.json() == []


async def test_limit_and_list_limit(small_ledger):
    alice = await small_ledger.party("Alice")
    for _ in range(4):
        await small_ledger.create_iou(alice, alice, user="Alice")
    body = {"beginExclusive": 0, "updateFormat": update_format(alice)}
    assert len(transactions(await updates(small_ledger, body, user="Alice", params={"limit": 2}))) == 2
    assert_error(
        await updates(small_ledger, body, user="Alice"), 413, "JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED"
    )


@pytest.mark.parametrize(
    "extra, status, code",
    [
        ({"beginExclusive": -1}, 400, "NEGATIVE_OFFSET"),
        ({"beginExclusive": 99}, 400, "OFFSET_AFTER_LEDGER_END"),
        ({"endInclusive": 99}, 400, "OFFSET_AFTER_LEDGER_END"),
        ({"endInclusive": 0}, 400, "NON_POSITIVE_OFFSET"),
        (
            {"beginExclusive": 3, "endInclusive": 2},
            400,
            "INVALID_ARGUMENT",
        ),  # as get-updates-page (docs/ledger-api.md §4.7)
        ({"descendingOrder": True}, 400, "DESCENDING_ORDER_MISSING_END"),
        ({"verbose": True}, 400, "INVALID_ARGUMENT"),
        ({"updateFormat": None}, 400, "INVALID_ARGUMENT"),
        (
            {"filter": {"filtersByParty": {}, "filtersForAnyParty": {"cumulative": []}}},
            400,
            "INVALID_ARGUMENT",
        ),
    ],
)
async def test_request_errors(ledger_api, alice_bob, history, extra, status, code):
    alice, _ = alice_bob
    body = {"beginExclusive": 0, "updateFormat": update_format(alice)} | extra
    assert_error(await updates(ledger_api, body, user="Alice"), status, code)


async def test_format_errors(ledger_api, alice_bob, history):
    alice, bob = alice_bob
    assert_error(await updates(ledger_api, {"updateFormat": update_format(bob)}, user="Alice"), 403, "NA")
    assert_error(
        await updates(ledger_api, {"updateFormat": update_format(any_party=True)}, user="Alice"), 403, "NA"
    )
    empty = {"updateFormat": {"includeTransactions": transaction_format()}}
    assert (
        "cannot be empty simultaneously"
        in assert_error(await updates(ledger_api, empty, user="Alice"), 400, "INVALID_ARGUMENT")["cause"]
    )
    no_shape = {"updateFormat": update_format(alice, shape="TRANSACTION_SHAPE_UNSPECIFIED")}
    assert_error(await updates(ledger_api, no_shape, user="Alice"), 400, "MISSING_FIELD")
    unknown = {"updateFormat": update_format(alice, filters=[template("#model-tests:Iou:Nope")])}
    assert_error(
        await updates(ledger_api, unknown, user="Alice"),
        404,
        "NO_TEMPLATES_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME",
    )
