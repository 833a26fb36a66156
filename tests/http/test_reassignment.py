"""Reassignment over HTTP (notes §4.5, §10): unassign and assign, every synchronous rejection (which changes
nothing), failed completions, the update stream and lookups, and the ACS before, between and after."""

from __future__ import annotations

import asyncio

import pytest

from participant.api import JsGetActiveContractsResponse
from tests.http.helpers import ACS, IOU, acs, acs_body, assert_error, create, exercise, iou_args, new_id

SUBMIT = "/v2/commands/async/submit-reassignment"
WAIT = "/v2/commands/submit-and-wait-for-reassignment"
COMPLETIONS = "/v2/commands/completions"


def fmt(*parties: str) -> dict:
    return {"filtersByParty": {p: {"cumulative": []} for p in parties}, "verbose": False}


def unassign(cid: str, source: str, target: str) -> dict:
    return {"command": {"UnassignCommand": {"value": {"contractId": cid, "source": source, "target": target}}}}


def assign(rid: str, source: str, target: str) -> dict:
    return {"command": {"AssignCommand": {"value": {"reassignmentId": rid, "source": source, "target": target}}}}


def commands(submitter: str, *cmds: dict, **extra) -> dict:
    return {"reassignmentCommands": {"commandId": new_id("re"), "submitter": submitter, "commands": list(cmds),
                                     **extra}}


@pytest.fixture
async def world(ledger, alice_bob):
    alice, bob = alice_bob
    r = await ledger.get("/v2/state/connected-synchronizers")
    syncs = [s["synchronizerId"] for s in r.json()["connectedSynchronizers"]]
    tx = await ledger.create_iou(alice, alice, observers=[bob], user="Alice", act_as=[alice])
    cid = tx["events"][0]["CreatedEvent"]["contractId"]
    return {"alice": alice, "bob": bob, "global": syncs[0], "private": syncs[1], "cid": cid,
            "created_at": tx["offset"]}


async def snapshot(ledger, party: str, offset: int) -> list[dict]:
    r = await acs(ledger, acs_body(offset, fmt(party)), user="Alice")
    assert r.status_code == 200, r.text
    for entry in r.json():
        JsGetActiveContractsResponse.model_validate(entry)
    return r.json()


async def move(ledger, w, cid: str, source: str, target: str) -> tuple[dict, dict]:
    r = await ledger.post(WAIT, {**commands(w["alice"], unassign(cid, source, target)), "eventFormat": fmt(w["alice"])},
                          user="Alice")
    assert r.status_code == 200, r.text
    out = r.json()["reassignment"]
    rid = out["events"][0]["JsUnassignedEvent"]["value"]["reassignmentId"]
    r = await ledger.post(WAIT, {**commands(w["alice"], assign(rid, source, target)), "eventFormat": fmt(w["alice"])},
                          user="Alice")
    assert r.status_code == 200, r.text
    return out, r.json()["reassignment"]


async def test_unassign_then_assign_moves_the_contract(ledger, world):
    w = world
    before = await ledger.ledger_end()
    out, into = await move(ledger, w, w["cid"], w["global"], w["private"])
    (event,) = out["events"]
    un = event["JsUnassignedEvent"]["value"]
    assert un["reassignmentId"].startswith("00") and un["reassignmentCounter"] == 1
    assert (un["source"], un["target"], un["submitter"]) == (w["global"], w["private"], w["alice"])
    assert out["synchronizerId"] == w["global"] and out["offset"] == before + 1
    (event,) = into["events"]
    a = event["JsAssignmentEvent"]
    assert a["reassignmentId"] == un["reassignmentId"] and a["reassignmentCounter"] == 1
    assert a["createdEvent"]["contractId"] == w["cid"] and a["createdEvent"]["offset"] == into["offset"]
    assert into["synchronizerId"] == w["private"]

    # The ACS before, between and after.
    (entry,) = await snapshot(ledger, w["alice"], before)
    assert entry["contractEntry"]["JsActiveContract"]["synchronizerId"] == w["global"]
    (entry,) = await snapshot(ledger, w["alice"], out["offset"])
    incomplete = entry["contractEntry"]["JsIncompleteUnassigned"]
    assert incomplete["unassignedEvent"]["reassignmentId"] == un["reassignmentId"]
    assert incomplete["createdEvent"]["offset"] == w["created_at"]
    (entry,) = await snapshot(ledger, w["alice"], into["offset"])
    active = entry["contractEntry"]["JsActiveContract"]
    assert active["synchronizerId"] == w["private"] and active["reassignmentCounter"] == 1
    assert active["createdEvent"]["offset"] == into["offset"]

    # The contract is usable on the target, and what it creates lives there.
    r = await ledger.exercise(IOU, w["cid"], "Iou_Split", {"splitAmount": "10.0"}, act_as=[w["alice"]], user="Alice")
    assert r.status_code == 200, r.text
    assert r.json()["transaction"]["synchronizerId"] == w["private"]

    # And back: the counter goes on.
    new = r.json()["transaction"]["events"][1]["CreatedEvent"]["contractId"]
    back, _ = await move(ledger, w, new, w["private"], w["global"])
    assert back["events"][0]["JsUnassignedEvent"]["value"]["reassignmentCounter"] == 1


async def test_in_flight_contracts_cannot_be_used(ledger, world):
    w = world
    r = await ledger.post(SUBMIT, commands(w["alice"], unassign(w["cid"], w["global"], w["private"])), user="Alice")
    assert r.status_code == 200 and r.json() == {}
    r = await ledger.exercise(IOU, w["cid"], "Iou_Split", {"splitAmount": "10.0"}, act_as=[w["alice"]], user="Alice")
    body = assert_error(r, 400, "UNKNOWN_CONTRACT_SYNCHRONIZERS")
    assert "ongoing contract reassignments" in body["cause"]
    # contract-by-id still finds its payload
    r = await ledger.post("/v2/contracts/contract-by-id", {"contractId": w["cid"], "queryingParties": [w["alice"]]},
                          user="Alice")
    assert r.status_code == 200, r.text
