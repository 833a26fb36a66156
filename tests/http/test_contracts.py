"""Contract service (contract-by-id) and event query service (events-by-contract-id) over HTTP."""

from __future__ import annotations

import pytest

from tests.http.helpers import IOU, assert_error, created_cid, event_format, template

BY_ID = "/v2/contracts/contract-by-id"
EVENTS = "/v2/events/events-by-contract-id"
UNKNOWN_CID = "00" + "ab" * 68


async def by_id(ledger_api, cid: str, parties: list[str] | None, *, user: str):
    body = {"contractId": cid} if parties is None else {"contractId": cid, "queryingParties": parties}
    return await ledger_api.post(BY_ID, body, user=user)


async def events(ledger_api, cid: str, fmt: dict | None, *, user: str):
    return await ledger_api.post(EVENTS, {"contractId": cid, "eventFormat": fmt}, user=user)


@pytest.fixture
async def shared_iou(ledger_api, alice_bob, duo) -> dict:
    """An Iou with issuer Alice and owner Bob: both are stakeholders."""
    alice, bob = alice_bob
    tx = await ledger_api.create_iou(alice, bob, user=duo)
    return tx["events"][0]["CreatedEvent"]


# -- contract-by-id ---------------------------------------------------------------------------------------------


async def test_contract_by_id_for_a_stakeholder(ledger_api, alice_bob, shared_iou):
    alice, bob = alice_bob
    r = await by_id(ledger_api, shared_iou["contractId"], [alice], user="Alice")
    assert r.status_code == 200, r.text
    event = r.json()["createdEvent"]
    assert event["contractId"] == shared_iou["contractId"]
    assert event["witnessParties"] == [alice]
    assert event["createArgument"] == shared_iou["createArgument"]
    assert event["templateId"] == shared_iou["templateId"]
    assert event["representativePackageId"] == shared_iou["templateId"].split(":")[0]
    assert sorted(event["signatories"]) == sorted([alice, bob])


async def test_contract_by_id_witnesses_are_querying_stakeholders(ledger_api, alice_bob, shared_iou, duo):
    alice, bob = alice_bob
    carol = await ledger_api.party("Carol")
    rights = [{"kind": {"CanReadAs": {"value": {"party": carol}}}}]
    assert (
        await ledger_api.post("/v2/users/duo/rights", {"userId": "duo", "rights": rights})
    ).status_code == 200
    r = await by_id(ledger_api, shared_iou["contractId"], [alice, bob, carol], user=duo)
    assert r.status_code == 200, r.text
    assert sorted(r.json()["createdEvent"]["witnessParties"]) == sorted([alice, bob])


async def test_contract_by_id_invisible_or_unknown(ledger_api, alice_bob, shared_iou):
    carol = await ledger_api.party("Carol")
    body = assert_error(
        await by_id(ledger_api, shared_iou["contractId"], [carol], user="Carol"),
        404,
        "CONTRACT_PAYLOAD_NOT_FOUND",
    )
    assert body["cause"] == "Contract payload not found, or not visible."
    assert body["resources"] == [["CONTRACT_ID", shared_iou["contractId"]]]
    assert_error(
        await by_id(ledger_api, UNKNOWN_CID, [carol], user="Carol"), 404, "CONTRACT_PAYLOAD_NOT_FOUND"
    )


async def test_contract_by_id_reading_as_a_foreign_party(ledger_api, alice_bob, shared_iou):
    _, bob = alice_bob
    assert_error(await by_id(ledger_api, shared_iou["contractId"], [bob], user="Alice"), 403, "NA")


async def test_contract_by_id_without_parties_needs_read_any(ledger_api, alice_bob, shared_iou, reader):
    alice, bob = alice_bob
    assert_error(await by_id(ledger_api, shared_iou["contractId"], [], user="Alice"), 403, "NA")
    r = await by_id(ledger_api, shared_iou["contractId"], None, user=reader)
    assert r.status_code == 200, r.text
    assert sorted(r.json()["createdEvent"]["witnessParties"]) == sorted([alice, bob])


@pytest.mark.parametrize("cid, code", [("", "MISSING_FIELD"), ("not a contract id!", "INVALID_FIELD")])
async def test_contract_by_id_bad_ids(ledger_api, alice_bob, cid, code):
    alice, _ = alice_bob
    body = assert_error(await by_id(ledger_api, cid, [alice], user="Alice"), 400, code)
    assert body["context"]["field_name"] == "contract_id"


async def test_contract_by_id_missing_key_is_missing_field(ledger_api, alice_bob):
    alice, _ = alice_bob
    r = await ledger_api.post(BY_ID, {"queryingParties": [alice]}, user="Alice")
    assert_error(r, 400, "MISSING_FIELD")


async def test_contract_by_id_of_an_archived_contract(ledger_api, alice_bob):
    alice, _ = alice_bob
    cid = created_cid(await ledger_api.create_iou(alice, alice, user="Alice"))
    assert (
        await ledger_api.exercise(IOU, cid, "Iou_Settle", {}, act_as=[alice], user="Alice")
    ).status_code == 200
    r = await by_id(ledger_api, cid, [alice], user="Alice")
    assert r.status_code == 200, r.text  # looks up the payload, says nothing about activeness


# -- events-by-contract-id --------------------------------------------------------------------------------------


async def test_events_of_an_active_contract(ledger_api, alice_bob, shared_iou):
    alice, _ = alice_bob
    r = await events(ledger_api, shared_iou["contractId"], event_format(alice), user="Alice")
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["archived"] is None
    created = body["created"]["createdEvent"]
    assert created["contractId"] == shared_iou["contractId"] and created["offset"] == shared_iou["offset"]
    assert created["witnessParties"] == [alice]
    assert body["created"]["synchronizerId"]


async def test_events_of_an_archived_contract(ledger_api, alice_bob):
    alice, bob = alice_bob
    cid = created_cid(await ledger_api.create_iou(alice, alice, user="Alice"))
    r = await ledger_api.exercise(IOU, cid, "Iou_Transfer", {"newOwner": bob}, act_as=[alice], user="Alice")
    archived_at = r.json()["transaction"]["offset"]
    r = await events(ledger_api, cid, event_format(alice), user="Alice")
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["created"]["createdEvent"]["contractId"] == cid
    archived = body["archived"]["archivedEvent"]
    assert archived["contractId"] == cid and archived["offset"] == archived_at
    assert archived["witnessParties"] == [alice]


async def test_events_not_found(ledger_api, alice_bob, shared_iou):
    alice, _ = alice_bob
    carol = await ledger_api.party("Carol")
    body = assert_error(
        await events(ledger_api, UNKNOWN_CID, event_format(alice), user="Alice"),
        404,
        "CONTRACT_EVENTS_NOT_FOUND",
    )
    assert body["resources"] == [["CONTRACT_ID", UNKNOWN_CID]]
    assert_error(
        await events(ledger_api, shared_iou["contractId"], event_format(carol), user="Carol"),
        404,
        "CONTRACT_EVENTS_NOT_FOUND",
    )
    # filtered out by template
    fmt = event_format(alice, filters=[template("#model-tests:Iou:IouTransfer")])
    assert_error(
        await events(ledger_api, shared_iou["contractId"], fmt, user="Alice"),
        404,
        "CONTRACT_EVENTS_NOT_FOUND",
    )


async def test_events_request_errors(ledger_api, alice_bob, shared_iou):
    alice, bob = alice_bob
    cid = shared_iou["contractId"]
    body = assert_error(await events(ledger_api, cid, None, user="Alice"), 400, "MISSING_FIELD")
    assert body["context"]["field_name"] == "event_format"
    assert_error(await events(ledger_api, "", event_format(alice), user="Alice"), 400, "MISSING_FIELD")
    assert_error(await events(ledger_api, "bad id!", event_format(alice), user="Alice"), 400, "INVALID_FIELD")
    assert_error(await events(ledger_api, cid, event_format(bob), user="Alice"), 403, "NA")
    assert_error(await events(ledger_api, cid, event_format(any_party=True), user="Alice"), 403, "NA")
    pid_form = shared_iou["templateId"]
    assert_error(
        await events(ledger_api, cid, event_format(alice, filters=[template(pid_form)]), user="Alice"),
        400,
        "INVALID_FIELD",
    )


async def test_contract_by_id_invalid_party(ledger_api, alice_bob, shared_iou):
    r = await by_id(ledger_api, shared_iou["contractId"], ["not a party!"], user="Alice")
    assert_error(r, 400, "INVALID_ARGUMENT")
