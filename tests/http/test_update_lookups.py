"""One update looked up by offset or by id (`update-by-offset`, `update-by-id`) and the deprecated transaction
lookups (`transaction-by-offset`, `transaction-by-id`): what they answer is what the update stream answers for the
same format, and what they refuse, they refuse as Canton does."""

from __future__ import annotations

import pytest

from participant.store.pruning import prune
from tests.http.helpers import (
    ACS_DELTA,
    LEDGER_EFFECTS,
    TRANSFER,
    assert_error,
    event_format,
    template,
    transaction_format,
    update_format,
)

BY_OFFSET = "/v2/updates/update-by-offset"
BY_ID = "/v2/updates/update-by-id"
TX_BY_OFFSET = "/v2/updates/transaction-by-offset"
TX_BY_ID = "/v2/updates/transaction-by-id"
UNKNOWN_ID = "1220" + "0" * 64


async def streamed(ledger_api, tx: dict, fmt: dict, *, user: str) -> dict:
    """The same transaction as `/v2/updates` gives it for the same format."""
    body = {"beginExclusive": tx["offset"] - 1, "endInclusive": tx["offset"], "updateFormat": fmt}
    r = await ledger_api.post("/v2/updates", body, user=user)
    assert r.status_code == 200, r.text
    (update,) = r.json()
    return update["update"]["Transaction"]["value"]


def looked_up(r) -> dict:
    assert r.status_code == 200, r.text
    body = r.json()
    assert set(body) == {"update"} and set(body["update"]) == {"Transaction"}
    return body["update"]["Transaction"]["value"]


def kinds(tx: dict) -> list[str]:
    return [next(iter(e)) for e in tx["events"]]


@pytest.mark.parametrize("shape", [ACS_DELTA, LEDGER_EFFECTS])
async def test_by_offset_and_by_id_answer_what_the_stream_answers(ledger_api, alice_bob, history, shape):
    alice, bob = alice_bob
    accept = history["accept"]
    for user, party in (("Alice", alice), ("Bob", bob)):
        fmt = update_format(party, shape=shape)
        expected = await streamed(ledger_api, accept, fmt, user=user)
        by_offset = looked_up(
            await ledger_api.post(BY_OFFSET, {"offset": accept["offset"], "updateFormat": fmt}, user=user)
        )
        by_id = looked_up(
            await ledger_api.post(BY_ID, {"updateId": accept["updateId"], "updateFormat": fmt}, user=user)
        )
        assert by_offset == by_id == expected
        assert by_id["updateId"] == accept["updateId"] and by_id["offset"] == accept["offset"]
    if shape == ACS_DELTA:
        assert kinds(expected) == ["ArchivedEvent", "CreatedEvent"]
    else:
        assert kinds(expected) == ["ExercisedEvent", "CreatedEvent"]
        exercised = expected["events"][0]["ExercisedEvent"]
        assert exercised["choice"] == "IouTransfer_Accept" and exercised["consuming"]


async def test_the_command_id_is_shown_to_the_submitter_only(ledger_api, alice_bob, history):
    alice, bob = alice_bob
    transfer = history["transfer"]
    mine = looked_up(
        await ledger_api.post(
            BY_ID, {"updateId": transfer["updateId"], "updateFormat": update_format(alice)}, user="Alice"
        )
    )
    theirs = looked_up(
        await ledger_api.post(
            BY_ID, {"updateId": transfer["updateId"], "updateFormat": update_format(bob)}, user="Bob"
        )
    )
    assert mine["commandId"] == transfer["commandId"] != ""
    assert theirs["commandId"] == ""
    assert kinds(theirs) == ["CreatedEvent"]  # Bob sees the transfer offered to him, not Alice's Iou


async def test_read_any_party(ledger_api, history, reader):
    tx = history["own"]
    fmt = update_format(any_party=True, shape=LEDGER_EFFECTS)
    got = looked_up(
        await ledger_api.post(BY_OFFSET, {"offset": tx["offset"], "updateFormat": fmt}, user=reader)
    )
    assert got["commandId"] == tx["commandId"]  # a reader of every party reads as the submitter too
    assert kinds(got) == ["CreatedEvent"]


async def test_deprecated_lookups_with_requesting_parties_or_a_format(ledger_api, alice_bob, history):
    alice, bob = alice_bob
    accept = history["accept"]
    for path, key in (
        (TX_BY_OFFSET, {"offset": accept["offset"]}),
        (TX_BY_ID, {"updateId": accept["updateId"]}),
    ):
        # requestingParties: every event of theirs, ACS-delta shape
        r = await ledger_api.post(path, {**key, "requestingParties": [bob]}, user="Bob")
        assert r.status_code == 200, r.text
        assert set(r.json()) == {"transaction"}
        assert r.json()["transaction"] == await streamed(ledger_api, accept, update_format(bob), user="Bob")
        fmt = transaction_format(bob, shape=LEDGER_EFFECTS)
        r = await ledger_api.post(path, {**key, "transactionFormat": fmt}, user="Bob")
        assert r.status_code == 200, r.text
        assert r.json()["transaction"] == await streamed(
            ledger_api, accept, {"includeTransactions": fmt}, user="Bob"
        )
        # exactly one of the two
        both = await ledger_api.post(
            path, {**key, "requestingParties": [bob], "transactionFormat": fmt}, user="Bob"
        )
        assert (
            "Both transaction_format and requesting_parties are set"
            in assert_error(both, 400, "INVALID_ARGUMENT")["cause"]
        )
        neither = await ledger_api.post(path, key, user="Bob")
        assert (
            "Either transaction_format or requesting_parties is required"
            in assert_error(neither, 400, "INVALID_ARGUMENT")["cause"]
        )
        assert_error(
            await ledger_api.post(path, {**key, "requestingParties": [alice]}, user="Bob"), 403, "NA"
        )


async def test_not_found(ledger_api, alice_bob, history):
    alice, bob = alice_bob
    own = history["own"]  # Bob's Iou: Alice is no stakeholder
    end = await ledger_api.ledger_end()

    body = assert_error(
        await ledger_api.post(BY_OFFSET, {"offset": end + 1, "updateFormat": update_format(bob)}, user="Bob"),
        404,
        "UPDATE_NOT_FOUND",
    )
    assert body["cause"] == "Update not found, or not visible."
    assert body["resources"] == [["OFFSET", str(end + 1)]]
    body = assert_error(
        await ledger_api.post(
            BY_ID, {"updateId": UNKNOWN_ID, "updateFormat": update_format(bob)}, user="Bob"
        ),
        404,
        "UPDATE_NOT_FOUND",
    )
    assert body["resources"] == [["UPDATE_ID", UNKNOWN_ID]]
    # There, but nothing of it visible through the format: the same answer.
    filtered_out = [
        update_format(alice),
        update_format(bob, filters=[template(TRANSFER)]),
        {"includeReassignments": event_format(bob)},  # no transactions asked for
        {},
    ]
    for fmt in filtered_out:
        user = "Alice" if fmt == update_format(alice) else "Bob"
        assert_error(
            await ledger_api.post(BY_ID, {"updateId": own["updateId"], "updateFormat": fmt}, user=user),
            404,
            "UPDATE_NOT_FOUND",
        )
        assert_error(
            await ledger_api.post(BY_OFFSET, {"offset": own["offset"], "updateFormat": fmt}, user=user),
            404,
            "UPDATE_NOT_FOUND",
        )
    r = await ledger_api.post(
        TX_BY_OFFSET, {"offset": own["offset"], "requestingParties": [alice]}, user="Alice"
    )
    assert_error(r, 404, "UPDATE_NOT_FOUND")
    r = await ledger_api.post(TX_BY_ID, {"updateId": UNKNOWN_ID, "requestingParties": [alice]}, user="Alice")
    assert_error(r, 404, "UPDATE_NOT_FOUND")


async def test_pruned_updates_are_not_found(ledger_api, alice_bob, history, tmp_path):
    _, bob = alice_bob
    accept, own = history["accept"], history["own"]
    await prune(tmp_path / "ledger.db", accept["offset"])
    for key in ({"offset": accept["offset"]}, {"updateId": accept["updateId"]}):
        path = BY_OFFSET if "offset" in key else BY_ID
        assert_error(
            await ledger_api.post(path, {**key, "updateFormat": update_format(bob)}, user="Bob"),
            404,
            "UPDATE_NOT_FOUND",
        )
    looked_up(
        await ledger_api.post(
            BY_OFFSET, {"offset": own["offset"], "updateFormat": update_format(bob)}, user="Bob"
        )
    )


@pytest.mark.parametrize("offset", [0, -3])
async def test_offsets_must_be_positive(ledger_api, alice_bob, offset):
    alice, _ = alice_bob
    body = assert_error(
        await ledger_api.post(
            BY_OFFSET, {"offset": offset, "updateFormat": update_format(alice)}, user="Alice"
        ),
        400,
        "NON_POSITIVE_OFFSET",
    )
    assert body["cause"] == (
        f"Offset {offset} in offset is not a positive integer: the offset has to be a positive integer (>0)"
    )
    r = await ledger_api.post(TX_BY_OFFSET, {"offset": offset, "requestingParties": [alice]}, user="Alice")
    assert_error(r, 400, "NON_POSITIVE_OFFSET")


async def test_request_errors(ledger_api, alice_bob, history):
    alice, _ = alice_bob
    created = history["created"]
    assert_error(
        await ledger_api.post(BY_OFFSET, {"offset": created["offset"]}, user="Alice"), 400, "MISSING_FIELD"
    )
    assert_error(
        await ledger_api.post(BY_ID, {"updateId": created["updateId"]}, user="Alice"), 400, "MISSING_FIELD"
    )
    body = assert_error(
        await ledger_api.post(BY_ID, {"updateId": "", "updateFormat": update_format(alice)}, user="Alice"),
        400,
        "MISSING_FIELD",
    )
    assert body["context"]["field_name"] == "update_id"
    assert_error(
        await ledger_api.post(
            BY_ID, {"updateId": "not-an-update-id", "updateFormat": update_format(alice)}, user="Alice"
        ),
        400,
        "INVALID_ARGUMENT",
    )
    no_shape = update_format(alice, shape="TRANSACTION_SHAPE_UNSPECIFIED")
    body = assert_error(
        await ledger_api.post(
            BY_OFFSET, {"offset": created["offset"], "updateFormat": no_shape}, user="Alice"
        ),
        400,
        "MISSING_FIELD",
    )
    assert body["context"]["field_name"] == "transaction_shape"
    unknown = update_format(alice, filters=[template("#model-tests:Iou:Nope")])
    assert_error(
        await ledger_api.post(
            BY_OFFSET, {"offset": created["offset"], "updateFormat": unknown}, user="Alice"
        ),
        404,
        "NO_TEMPLATES_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME",
    )
    r = await ledger_api.call(
        "POST",
        BY_OFFSET,
        content=b'{"offset": "1"}',
        user="Alice",
        headers={"content-type": "application/json"},
    )
    assert r.status_code == 400 and r.text.startswith("Invalid value for: body")


async def test_read_rights(ledger_api, alice_bob, history):
    alice, bob = alice_bob
    tx = history["accept"]
    for path, key in ((BY_OFFSET, {"offset": tx["offset"]}), (BY_ID, {"updateId": tx["updateId"]})):
        assert_error(
            await ledger_api.post(path, {**key, "updateFormat": update_format(bob)}, user="Alice"), 403, "NA"
        )
        assert_error(
            await ledger_api.post(path, {**key, "updateFormat": update_format(any_party=True)}, user="Alice"),
            403,
            "NA",
        )
        # every part of the format counts, not only the transactions
        fmt = {**update_format(alice), "includeReassignments": event_format(bob)}
        assert_error(await ledger_api.post(path, {**key, "updateFormat": fmt}, user="Alice"), 403, "NA")
        topology = {
            **update_format(alice),
            "includeTopologyEvents": {"includeParticipantAuthorizationEvents": {"parties": []}},
        }
        assert_error(await ledger_api.post(path, {**key, "updateFormat": topology}, user="Alice"), 403, "NA")
        assert_error(
            await ledger_api.post(path, {**key, "updateFormat": update_format(alice)}, user=None), 401, "NA"
        )
