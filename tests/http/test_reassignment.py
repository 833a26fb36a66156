"""Reassignment over HTTP (docs/ledger-api.md §4.5, §10): unassign and assign, every synchronous rejection (which changes
nothing), failed completions, the update stream and lookups, and the ACS before, between and after."""

from __future__ import annotations

import asyncio

import pytest

from participant.api import JsGetActiveContractsResponse
from tests.http.helpers import ACS, IOU, acs, acs_body, assert_error, create, exercise, iou_args, new_id

SUBMIT = "/v2/commands/async/submit-reassignment"
WAIT = "/v2/commands/submit-and-wait-for-reassignment"
COMPLETIONS = "/v2/commands/completions"
# a list of completions (which has no end) is answered once none has come for this long; Canton's default, half a
# second, twice in each of the 44 rejection tests, was most of the module's time (the rejections are answered
# before anything is committed: a completion of one would be there at once)
SETTLED = {"stream_idle_timeout_ms": 50}


def fmt(*parties: str) -> dict:
    return {"filtersByParty": {p: {"cumulative": []} for p in parties}, "verbose": False}


def unassign(cid: str, source: str, target: str) -> dict:
    return {
        "command": {"UnassignCommand": {"value": {"contractId": cid, "source": source, "target": target}}}
    }


def assign(rid: str, source: str, target: str) -> dict:
    return {
        "command": {"AssignCommand": {"value": {"reassignmentId": rid, "source": source, "target": target}}}
    }


def commands(submitter: str, *cmds: dict, **extra) -> dict:
    return {
        "reassignmentCommands": {
            "commandId": new_id("re"),
            "submitter": submitter,
            "commands": list(cmds),
            **extra,
        }
    }


@pytest.fixture
async def world(ledger_api, alice_bob):
    alice, bob = alice_bob
    r = await ledger_api.get("/v2/state/connected-synchronizers")
    syncs = [s["synchronizerId"] for s in r.json()["connectedSynchronizers"]]
    tx = await ledger_api.create_iou(alice, alice, observers=[bob], user="Alice", act_as=[alice])
    cid = tx["events"][0]["CreatedEvent"]["contractId"]
    return {
        "alice": alice,
        "bob": bob,
        "global": syncs[0],
        "private": syncs[1],
        "cid": cid,
        "created_at": tx["offset"],
    }


async def snapshot(ledger_api, party: str, offset: int) -> list[dict]:
    r = await acs(ledger_api, acs_body(offset, fmt(party)), user="Alice")
    assert r.status_code == 200, r.text
    for entry in r.json():
        JsGetActiveContractsResponse.model_validate(entry)
    return r.json()


async def move(ledger_api, w, cid: str, source: str, target: str) -> tuple[dict, dict]:
    r = await ledger_api.post(
        WAIT,
        {**commands(w["alice"], unassign(cid, source, target)), "eventFormat": fmt(w["alice"])},
        user="Alice",
    )
    assert r.status_code == 200, r.text
    out = r.json()["reassignment"]
    rid = out["events"][0]["JsUnassignedEvent"]["value"]["reassignmentId"]
    r = await ledger_api.post(
        WAIT,
        {**commands(w["alice"], assign(rid, source, target)), "eventFormat": fmt(w["alice"])},
        user="Alice",
    )
    assert r.status_code == 200, r.text
    return out, r.json()["reassignment"]


async def test_unassign_then_assign_moves_the_contract(ledger_api, world):
    w = world
    before = await ledger_api.ledger_end()
    out, into = await move(ledger_api, w, w["cid"], w["global"], w["private"])
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
    (entry,) = await snapshot(ledger_api, w["alice"], before)
    assert entry["contractEntry"]["JsActiveContract"]["synchronizerId"] == w["global"]
    (entry,) = await snapshot(ledger_api, w["alice"], out["offset"])
    incomplete = entry["contractEntry"]["JsIncompleteUnassigned"]
    assert incomplete["unassignedEvent"]["reassignmentId"] == un["reassignmentId"]
    assert incomplete["createdEvent"]["offset"] == w["created_at"]
    (entry,) = await snapshot(ledger_api, w["alice"], into["offset"])
    active = entry["contractEntry"]["JsActiveContract"]
    assert active["synchronizerId"] == w["private"] and active["reassignmentCounter"] == 1
    assert active["createdEvent"]["offset"] == into["offset"]

    # The contract is usable on the target, and what it creates lives there.
    r = await ledger_api.exercise(
        IOU, w["cid"], "Iou_Split", {"splitAmount": "10.0"}, act_as=[w["alice"]], user="Alice"
    )
    assert r.status_code == 200, r.text
    assert r.json()["transaction"]["synchronizerId"] == w["private"]

    # And back: the counter goes on.
    new = r.json()["transaction"]["events"][1]["CreatedEvent"]["contractId"]
    back, _ = await move(ledger_api, w, new, w["private"], w["global"])
    assert back["events"][0]["JsUnassignedEvent"]["value"]["reassignmentCounter"] == 1


async def test_in_flight_contracts_cannot_be_used(ledger_api, world):
    w = world
    r = await ledger_api.post(
        SUBMIT, commands(w["alice"], unassign(w["cid"], w["global"], w["private"])), user="Alice"
    )
    assert r.status_code == 200 and r.json() == {}
    r = await ledger_api.exercise(
        IOU, w["cid"], "Iou_Split", {"splitAmount": "10.0"}, act_as=[w["alice"]], user="Alice"
    )
    body = assert_error(r, 400, "UNKNOWN_CONTRACT_SYNCHRONIZERS")
    assert "ongoing contract reassignments" in body["cause"]
    # contract-by-id still finds its payload
    r = await ledger_api.post(
        "/v2/contracts/contract-by-id",
        {"contractId": w["cid"], "queryingParties": [w["alice"]]},
        user="Alice",
    )
    assert r.status_code == 200, r.text


async def test_a_batch_of_unassigns_is_one_reassignment(ledger_api, world):
    w = world
    tx = await ledger_api.create_iou(w["alice"], w["alice"], "5.0", user="Alice", act_as=[w["alice"]])
    other = tx["events"][0]["CreatedEvent"]["contractId"]
    body = commands(
        w["alice"], unassign(w["cid"], w["global"], w["private"]), unassign(other, w["global"], w["private"])
    )
    r = await ledger_api.post(WAIT, {**body, "eventFormat": fmt(w["alice"])}, user="Alice")
    assert r.status_code == 200, r.text
    out = r.json()["reassignment"]
    events = [e["JsUnassignedEvent"]["value"] for e in out["events"]]
    assert [e["contractId"] for e in events] == [w["cid"], other]
    assert len({e["reassignmentId"] for e in events}) == 1 and [e["nodeId"] for e in events] == [0, 1]
    r = await ledger_api.post(
        WAIT,
        {
            **commands(w["alice"], assign(events[0]["reassignmentId"], w["global"], w["private"])),
            "eventFormat": fmt(w["alice"]),
        },
        user="Alice",
    )
    assert r.status_code == 200, r.text
    assigned = [e["JsAssignmentEvent"] for e in r.json()["reassignment"]["events"]]
    assert [a["createdEvent"]["contractId"] for a in assigned] == [w["cid"], other]
    entries = await snapshot(ledger_api, w["alice"], await ledger_api.ledger_end())
    assert {e["contractEntry"]["JsActiveContract"]["synchronizerId"] for e in entries} == {w["private"]}
    # Without an eventFormat, submit-and-wait answers the reassignment without events.
    r = await ledger_api.post(
        WAIT, commands(w["alice"], unassign(other, w["private"], w["global"])), user="Alice"
    )
    assert r.status_code == 200 and r.json()["reassignment"]["events"] == [], r.text


def _rejections():
    """(id, body builder, status, code, what the cause says): every synchronous rejection of docs/ledger-api.md §4.5."""
    unknown_cid = "00" + "ab" * 32 + "ca12" + "1220" + "cd" * 32
    foreign = "elsewhere::1220" + "0" * 64
    return [
        (
            "unknown-reassignment",
            lambda w: commands(w["alice"], assign("00" + "ab" * 32, w["global"], w["private"])),
            400,
            "INVALID_ARGUMENT",
            "unknown reassignment id",
        ),
        (
            "completed-reassignment",
            lambda w: commands(w["alice"], assign(w["done"], w["global"], w["private"])),
            400,
            "INVALID_ARGUMENT",
            "reassignment already completed",
        ),
        (
            "malformed-reassignment-id",
            lambda w: commands(w["alice"], assign("01ab", w["global"], w["private"])),
            400,
            "INVALID_FIELD",
            "Invalid field reassignment_id: Invalid reassignment ID",
        ),
        (
            "unconnected",
            lambda w: commands(w["alice"], unassign(w["cid"], w["global"], foreign)),
            400,
            "INVALID_ARGUMENT",
            f"Unable to resolve {foreign} to a connected physical synchronizer id",
        ),
        (
            "same-source-and-target",
            lambda w: commands(w["alice"], unassign(w["cid"], w["global"], w["global"])),
            400,
            "INVALID_ARGUMENT",
            "source and target synchronizers are the same",
        ),
        (
            "unknown-contract",
            lambda w: commands(w["alice"], unassign(unknown_cid, w["global"], w["private"])),
            400,
            "INVALID_ARGUMENT",
            f"Cannot unassign contract `{unknown_cid}`: unknown contract",
        ),
        (
            "not-on-source",
            lambda w: commands(w["alice"], unassign(w["cid"], w["private"], w["global"])),
            400,
            "INVALID_ARGUMENT",
            "unknown contract",
        ),
        (
            "in-flight",
            lambda w: commands(w["alice"], unassign(w["flying"], w["global"], w["private"])),
            400,
            "INVALID_ARGUMENT",
            "because it's not active",
        ),
        (
            "not-a-stakeholder",
            lambda w: commands(w["carol"], unassign(w["cid"], w["global"], w["private"])),
            400,
            "INVALID_ARGUMENT",
            "is not a stakeholder",
        ),
        (
            "mixed-batch",
            lambda w: commands(
                w["alice"],
                assign(w["done"], w["global"], w["private"]),
                unassign(w["cid"], w["global"], w["private"]),
            ),
            400,
            "INVALID_ARGUMENT",
            "The batch of reassignment commands was invalid: mixed assign with other commands",
        ),
        (
            "differing-synchronizers",
            lambda w: commands(
                w["alice"],
                unassign(w["cid"], w["global"], w["private"]),
                unassign(w["cid"], w["private"], w["global"]),
            ),
            400,
            "INVALID_ARGUMENT",
            "The batch of reassignment commands was invalid: differing synchronizers",
        ),
        (
            "empty-batch",
            lambda w: commands(w["alice"]),
            400,
            "INVALID_ARGUMENT",
            "The batch of reassignment commands was invalid: no commands",
        ),
        (
            "empty-command",
            lambda w: commands(w["alice"], {"command": {"Empty": {}}}),
            400,
            "MISSING_FIELD",
            "command",
        ),
        ("omitted-command", lambda w: commands(w["alice"], {}), 400, "MISSING_FIELD", "command"),
        (
            "no-command-id",
            lambda w: {
                "reassignmentCommands": {
                    **commands(w["alice"], unassign(w["cid"], w["global"], w["private"]))[
                        "reassignmentCommands"
                    ],
                    "commandId": "",
                }
            },
            400,
            "INVALID_FIELD",
            "command_id",
        ),
        (
            "no-submitter",
            lambda w: commands("", unassign(w["cid"], w["global"], w["private"])),
            400,
            "INVALID_FIELD",
            "submitter",
        ),
        (
            "no-source",
            lambda w: commands(w["alice"], unassign(w["cid"], "", w["private"])),
            400,
            "MISSING_FIELD",
            "source",
        ),
        (
            "no-contract-id",
            lambda w: commands(w["alice"], unassign("", w["global"], w["private"])),
            400,
            "MISSING_FIELD",
            "contract_id",
        ),
        ("no-reassignment-commands", lambda w: {}, 400, "MISSING_FIELD", "reassignment_commands"),
        (
            "other-user-id",
            lambda w: commands(w["alice"], unassign(w["cid"], w["global"], w["private"]), userId="Bob"),
            403,
            "NA",
            "",
        ),
        (
            "not-act-as",
            lambda w: commands(w["bob"], unassign(w["cid"], w["global"], w["private"])),
            403,
            "NA",
            "",
        ),
        (
            "duplicate",
            lambda w: {
                "reassignmentCommands": {
                    **commands(w["alice"], unassign(w["cid"], w["global"], w["private"]))[
                        "reassignmentCommands"
                    ],
                    "commandId": w["done_command"],
                }
            },
            409,
            "DUPLICATE_COMMAND",
            "already been successfully processed",
        ),
    ]


@pytest.fixture
async def rejection_world(ledger_api, world):
    w = dict(world)
    w["carol"] = await ledger_api.party("Carol")
    tx = await ledger_api.create_iou(w["alice"], w["alice"], "7.0", user="Alice", act_as=[w["alice"]])
    moved = tx["events"][0]["CreatedEvent"]["contractId"]
    out, into = await move(ledger_api, w, moved, w["global"], w["private"])
    w["done"] = out["events"][0]["JsUnassignedEvent"]["value"]["reassignmentId"]
    w["done_command"] = into["commandId"]
    tx = await ledger_api.create_iou(w["alice"], w["alice"], "8.0", user="Alice", act_as=[w["alice"]])
    w["flying"] = tx["events"][0]["CreatedEvent"]["contractId"]
    r = await ledger_api.post(
        SUBMIT, commands(w["alice"], unassign(w["flying"], w["global"], w["private"])), user="Alice"
    )
    assert r.status_code == 200, r.text
    return w


@pytest.mark.parametrize("path", [SUBMIT, WAIT])
@pytest.mark.parametrize(
    ("name", "body", "status", "code", "says"), _rejections(), ids=[r[0] for r in _rejections()]
)
async def test_rejections_change_nothing(ledger_api, rejection_world, path, name, body, status, code, says):
    w = rejection_world
    end = await ledger_api.ledger_end()
    before = await snapshot(ledger_api, w["alice"], end)
    completions = await ledger_api.post(
        COMPLETIONS,
        {"userId": "Alice", "parties": [w["alice"]], "beginExclusive": 0},
        user="Alice",
        params=SETTLED,
    )
    r = await ledger_api.post(path, body(w), user="Carol" if name == "not-a-stakeholder" else "Alice")
    error = assert_error(r, status, code)
    assert says in error["cause"], error["cause"]
    assert await ledger_api.ledger_end() == end
    assert await snapshot(ledger_api, w["alice"], end) == before
    again = await ledger_api.post(
        COMPLETIONS,
        {"userId": "Alice", "parties": [w["alice"]], "beginExclusive": 0},
        user="Alice",
        params=SETTLED,
    )
    assert again.json() == completions.json()


async def test_completions_of_successes_and_failures(participant_app, ledger_api, world):
    """Two assignments of one reassignment accepted together: the first moves the contract, the second fails in
    its group commit, which its completion says (at an offset of its own); a failure is no duplicate."""
    w = world
    r = await ledger_api.post(
        WAIT, commands(w["alice"], unassign(w["cid"], w["global"], w["private"])), user="Alice"
    )
    assert r.status_code == 200, r.text
    unassigned_at = r.json()["reassignment"]["offset"]
    updates = await ledger_api.post(
        "/v2/updates",
        {
            "beginExclusive": unassigned_at - 1,
            "endInclusive": unassigned_at,
            "updateFormat": {"includeReassignments": fmt(w["alice"])},
        },
        user="Alice",
    )
    rid = updates.json()[0]["update"]["Reassignment"]["value"]["events"][0]["JsUnassignedEvent"]["value"][
        "reassignmentId"
    ]

    store = participant_app.state.context.store
    release = asyncio.Event()

    async def hold(batch):  # keeps the writer busy while both assignments pass their checks
        await release.wait()

    held = asyncio.ensure_future(store.write(hold))
    first, second = (commands(w["alice"], assign(rid, w["global"], w["private"])) for _ in range(2))
    answers = [asyncio.ensure_future(ledger_api.post(SUBMIT, body, user="Alice")) for body in (first, second)]
    writer = store._writer
    for _ in range(500):
        if writer._queue.qsize() == 2:
            break
        await asyncio.sleep(0.01)
    assert writer._queue.qsize() == 2
    release.set()
    await held
    for answer in answers:
        r = await answer
        assert r.status_code == 200 and r.json() == {}, r.text

    r = await ledger_api.post(
        COMPLETIONS,
        {"userId": "Alice", "parties": [w["alice"]], "beginExclusive": unassigned_at - 1},
        user="Alice",
    )
    assert r.status_code == 200, r.text
    done = [c["completionResponse"]["Completion"]["value"] for c in r.json()]
    assert len(done) == 3
    unassigned, succeeded, failed = done
    assert (
        unassigned["synchronizerTime"]["synchronizerId"] == w["global"] and unassigned["status"]["code"] == 0
    )
    assert succeeded["commandId"] == first["reassignmentCommands"]["commandId"]
    assert succeeded["status"]["code"] == 0 and succeeded["updateId"]
    assert succeeded["synchronizerTime"]["synchronizerId"] == w["private"]
    assert failed["commandId"] == second["reassignmentCommands"]["commandId"] and failed["updateId"] == ""
    assert failed["status"]["code"] == 3 and failed["actAs"] == [w["alice"]]
    assert failed["status"]["message"].startswith("INVALID_ARGUMENT(8,")
    assert "reassignment already completed" in failed["status"]["message"]
    assert failed["offset"] == succeeded["offset"] + 1 == await ledger_api.ledger_end()
    assert failed["synchronizerTime"]["synchronizerId"] == w["private"]

    # The failure is no update, and no duplicate: its command id may be used again.
    r = await ledger_api.post(
        "/v2/updates/update-by-offset",
        {
            "offset": failed["offset"],
            "updateFormat": {
                "includeReassignments": fmt(w["alice"]),
                "includeTransactions": {
                    "eventFormat": fmt(w["alice"]),
                    "transactionShape": "TRANSACTION_SHAPE_ACS_DELTA",
                },
            },
        },
        user="Alice",
    )
    assert_error(r, 404, "UPDATE_NOT_FOUND")
    retry = {
        "reassignmentCommands": {
            **commands(w["alice"], unassign(w["cid"], w["private"], w["global"]))["reassignmentCommands"],
            "commandId": failed["commandId"],
        }
    }
    r = await ledger_api.post(WAIT, retry, user="Alice")
    assert r.status_code == 200, r.text


async def test_updates_and_lookups_of_reassignments(ledger_api, world):
    w = world
    start = await ledger_api.ledger_end()
    out, into = await move(ledger_api, w, w["cid"], w["global"], w["private"])
    both = {
        "includeReassignments": fmt(w["bob"]),
        "includeTransactions": {
            "eventFormat": fmt(w["bob"]),
            "transactionShape": "TRANSACTION_SHAPE_ACS_DELTA",
        },
    }
    r = await ledger_api.post("/v2/updates", {"beginExclusive": start, "updateFormat": both}, user="Bob")
    assert r.status_code == 200, r.text
    seen = [u["update"]["Reassignment"]["value"] for u in r.json()]
    assert [u["updateId"] for u in seen] == [out["updateId"], into["updateId"]]
    assert all(u["commandId"] == "" for u in seen)  # Bob did not submit them
    assert seen[0]["events"][0]["JsUnassignedEvent"]["value"]["witnessParties"] == [w["bob"]]
    transactions_only = {"includeTransactions": both["includeTransactions"]}
    r = await ledger_api.post(
        "/v2/updates", {"beginExclusive": start, "updateFormat": transactions_only}, user="Bob"
    )
    assert r.json() == []
    # The legacy filter form includes reassignments (docs/ledger-api.md §5).
    r = await ledger_api.post(
        "/v2/updates",
        {
            "beginExclusive": start,
            "verbose": False,
            "filter": {"filtersByParty": fmt(w["bob"])["filtersByParty"]},
        },
        user="Bob",
    )
    assert [u["update"]["Reassignment"]["value"]["offset"] for u in r.json()] == [
        out["offset"],
        into["offset"],
    ]
    for path, key in (
        ("/v2/updates/update-by-offset", {"offset": into["offset"]}),
        ("/v2/updates/update-by-id", {"updateId": into["updateId"]}),
    ):
        r = await ledger_api.post(path, {**key, "updateFormat": both}, user="Bob")
        assert r.status_code == 200, r.text
        assert (
            r.json()["update"]["Reassignment"]["value"]["events"][0]["JsAssignmentEvent"][
                "reassignmentCounter"
            ]
            == 1
        )
        r = await ledger_api.post(path, {**key, "updateFormat": transactions_only}, user="Bob")
        assert_error(r, 404, "UPDATE_NOT_FOUND")
    r = await ledger_api.post(
        "/v2/updates/transaction-by-offset",
        {"offset": into["offset"], "requestingParties": [w["bob"]]},
        user="Bob",
    )
    assert_error(r, 404, "UPDATE_NOT_FOUND")
    # events-by-contract-id: created on the source, archived on the target.
    r = await ledger_api.exercise(IOU, w["cid"], "Archive", {}, act_as=[w["alice"]], user="Alice")
    assert r.status_code == 200, r.text
    r = await ledger_api.post(
        "/v2/events/events-by-contract-id", {"contractId": w["cid"], "eventFormat": fmt(w["bob"])}, user="Bob"
    )
    assert r.status_code == 200, r.text
    assert r.json()["created"]["synchronizerId"] == w["global"]
    assert r.json()["archived"]["synchronizerId"] == w["private"]


async def test_transactions_run_where_their_inputs_live(ledger_api, world):
    w = world
    a = w["alice"]
    cmds = {
        "commands": [create(iou_args(a, a, "3.0"))],
        "commandId": new_id(),
        "actAs": [a],
        "synchronizerId": w["private"],
    }
    r = await ledger_api.post(
        "/v2/commands/submit-and-wait-for-transaction", {"commands": cmds}, user="Alice"
    )
    assert r.status_code == 200, r.text
    assert r.json()["transaction"]["synchronizerId"] == w["private"]
    on_private = r.json()["transaction"]["events"][0]["CreatedEvent"]["contractId"]
    entries = await snapshot(ledger_api, a, await ledger_api.ledger_end())
    where = {
        e["contractEntry"]["JsActiveContract"]["createdEvent"]["contractId"]: e["contractEntry"][
            "JsActiveContract"
        ]["synchronizerId"]
        for e in entries
    }
    assert where == {w["cid"]: w["global"], on_private: w["private"]}
    end = await ledger_api.ledger_end()
    # Inputs on two synchronizers: Canton without automatic reassignment refuses.
    r = await ledger_api.exercise(
        IOU, w["cid"], "Iou_Merge", {"otherCid": on_private}, act_as=[a], user="Alice"
    )
    error = assert_error(r, 400, "MULTI_SYNCHRONIZER_SUPPORT_NOT_ENABLED")
    assert w["global"] in error["cause"] and w["private"] in error["cause"]
    # A prescribed synchronizer where the inputs are not.
    cmds = {
        "commands": [exercise(w["cid"], "Iou_Split", {"splitAmount": "1.0"})],
        "commandId": new_id(),
        "actAs": [a],
        "synchronizerId": w["private"],
    }
    r = await ledger_api.post(
        "/v2/commands/submit-and-wait-for-transaction", {"commands": cmds}, user="Alice"
    )
    error = assert_error(r, 400, "INVALID_PRESCRIBED_SYNCHRONIZER_ID")
    assert error["cause"] == f"The needed input contracts are not on {w['private']}, but on {w['global']}"
    assert await ledger_api.ledger_end() == end
    # Once both live on one synchronizer, the merge runs there.
    await move(ledger_api, w, on_private, w["private"], w["global"])
    r = await ledger_api.exercise(
        IOU, w["cid"], "Iou_Merge", {"otherCid": on_private}, act_as=[a], user="Alice"
    )
    assert r.status_code == 200, r.text
    assert r.json()["transaction"]["synchronizerId"] == w["global"]


async def test_snapshots_page_through_moved_contracts(ledger_api, world):
    """Every entry once, in every form, wherever a page or continuation token cuts the snapshot."""
    w = world
    a = w["alice"]
    for amount in ("1.0", "2.0", "3.0"):
        await ledger_api.create_iou(a, a, amount, user="Alice", act_as=[a])
    await move(ledger_api, w, w["cid"], w["global"], w["private"])
    tx = await ledger_api.create_iou(a, a, "9.0", user="Alice", act_as=[a])
    flying = tx["events"][0]["CreatedEvent"]["contractId"]
    r = await ledger_api.post(SUBMIT, commands(a, unassign(flying, w["global"], w["private"])), user="Alice")
    assert r.status_code == 200
    end = await ledger_api.ledger_end()
    whole = await snapshot(ledger_api, a, end)
    kinds = [next(iter(e["contractEntry"])) for e in whole]
    assert kinds == ["JsActiveContract"] * 4 + ["JsIncompleteUnassigned"]
    assert whole[3]["contractEntry"]["JsActiveContract"]["createdEvent"]["contractId"] == w["cid"]
    pages, token = [], None
    while True:
        body = {
            "activeAtOffset": end,
            "eventFormat": fmt(a),
            "maxPageSize": 1,
            **({"pageToken": token} if token else {}),
        }
        r = await ledger_api.call("GET", "/v2/state/active-contracts-page", json=body, user="Alice")
        assert r.status_code == 200, r.text
        pages += r.json()["activeContracts"]
        token = r.json()["nextPageToken"]
        if token is None:
            break
    strip = [{**e, "streamContinuationToken": ""} for e in whole]
    assert pages == strip
    resumed = []
    after = None
    for _ in range(len(whole)):
        r = await acs(
            ledger_api,
            acs_body(end, fmt(a), **({"streamContinuationToken": after} if after else {})),
            user="Alice",
            params={"limit": 1},
        )
        if not r.json():
            break
        resumed += r.json()
        after = r.json()[-1]["streamContinuationToken"]
    assert resumed == whole
    r = await ledger_api.call("POST", ACS, json=acs_body(end, fmt(a)), user="Alice", params={"limit": 2})
    assert len(r.json()) == 2
