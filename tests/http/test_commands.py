"""Command service over HTTP: submit-and-wait(-for-transaction), async submit, completions, disclosure, dedup,
and every way a submission can be refused (after which nothing has been written)."""

from __future__ import annotations

import base64
import json

import pytest

from tests.http.helpers import (
    ACS_DELTA,
    LEDGER_EFFECTS,
    SUBMIT_TX,
    acs,
    acs_body,
    assert_bad_body,
    assert_error,
    commands,
    create,
    create_and_exercise,
    created_cid,
    created_events,
    event_format,
    events_of,
    exercise,
    iou_args,
    submit_tx,
    template,
    transaction_format,
    wildcard,
)


def kinds(r) -> list[str]:
    return [kind for kind, _ in events_of(r)]


# -- the three command kinds and the transaction formats -------------------------------------------------------


async def test_create_command_default_format(ledger_api, alice_bob):
    alice, bob = alice_bob
    r = await submit_tx(
        ledger_api,
        commands([alice], create(iou_args(alice, alice, observers=[bob])), readAs=[]),
        user="Alice",
    )
    [(kind, event)] = events_of(r)
    tx = r.json()["transaction"]
    assert kind == "CreatedEvent"
    assert event["witnessParties"] == [alice]  # actAs + readAs only, not the observer
    assert event["observers"] == [bob] and event["signatories"] == [alice]
    assert event["createArgument"]["amount"] == "100.0000000000"
    assert event["acsDelta"] is True and event["createdEventBlob"] == ""
    assert tx["offset"] == await ledger_api.ledger_end()
    assert tx["commandId"] and tx["workflowId"] == ""
    assert event["offset"] == tx["offset"] and event["nodeId"] == 0


async def test_default_format_covers_read_as(ledger_api, alice_bob, duo):
    alice, bob = alice_bob
    r = await submit_tx(
        ledger_api, commands([alice], create(iou_args(alice, alice, observers=[bob])), readAs=[bob]), user=duo
    )
    [(_, event)] = events_of(r)
    assert sorted(event["witnessParties"]) == sorted([alice, bob])


async def test_exercise_command_acs_delta(ledger_api, alice_bob):
    alice, bob = alice_bob
    cid = created_cid(await ledger_api.create_iou(alice, alice, user="Alice"))
    r = await submit_tx(
        ledger_api, commands([alice], exercise(cid, "Iou_Transfer", {"newOwner": bob})), user="Alice"
    )
    assert kinds(r) == ["ArchivedEvent", "CreatedEvent"]
    archived = events_of(r)[0][1]
    assert archived["contractId"] == cid and archived["witnessParties"] == [alice]


async def test_exercise_command_ledger_effects(ledger_api, alice_bob):
    alice, _ = alice_bob
    cid = created_cid(await ledger_api.create_iou(alice, alice, "10.0", user="Alice"))
    r = await submit_tx(
        ledger_api,
        commands([alice], exercise(cid, "Iou_Split", {"splitAmount": "4.0"})),
        user="Alice",
        fmt=transaction_format(alice, shape=LEDGER_EFFECTS),
    )
    assert kinds(r) == ["ExercisedEvent", "CreatedEvent", "CreatedEvent"]
    (_, ex), (_, c1), (_, c2) = events_of(r)
    assert ex["choice"] == "Iou_Split" and ex["consuming"] is True and ex["contractId"] == cid
    assert ex["nodeId"] == 0 and ex["lastDescendantNodeId"] == 2
    assert (c1["nodeId"], c2["nodeId"]) == (1, 2)
    assert ex["actingParties"] == [alice]
    assert ex["exerciseResult"] == {"_1": c1["contractId"], "_2": c2["contractId"]}
    assert [c1["createArgument"]["amount"], c2["createArgument"]["amount"]] == [
        "4.0000000000",
        "6.0000000000",
    ]


async def test_non_consuming_exercise_is_absent_from_acs_delta(ledger_api, alice_bob):
    alice, _ = alice_bob
    cid = created_cid(await ledger_api.create_iou(alice, alice, user="Alice"))
    cmd = exercise(cid, "DateCheckAddDays", {"payload": "2025-01-01"})
    r = await submit_tx(ledger_api, commands([alice], cmd), user="Alice")
    assert kinds(r) == []
    r = await submit_tx(
        ledger_api, commands([alice], cmd), user="Alice", fmt=transaction_format(alice, shape=LEDGER_EFFECTS)
    )
    [(kind, ex)] = events_of(r)
    assert kind == "ExercisedEvent" and ex["consuming"] is False
    assert ex["exerciseResult"] == "2025-02-01" and ex["acsDelta"] is False


async def test_create_and_exercise_transient_contract(ledger_api, alice_bob, duo):
    alice, bob = alice_bob
    cmd = create_and_exercise(iou_args(alice, bob), "Archive")
    r = await submit_tx(
        ledger_api, commands([alice, bob], cmd), user=duo, fmt=transaction_format(alice, shape=ACS_DELTA)
    )
    assert r.json()["transaction"]["events"] == []  # created and archived within: not part of the ACS delta
    r = await submit_tx(
        ledger_api, commands([alice, bob], cmd), user=duo, fmt=transaction_format(alice, shape=LEDGER_EFFECTS)
    )
    assert kinds(r) == ["CreatedEvent", "ExercisedEvent"]
    (_, created), (_, ex) = events_of(r)
    assert ex["choice"] == "Archive" and ex["consuming"] and ex["contractId"] == created["contractId"]
    assert created["acsDelta"] is False
    assert ex["lastDescendantNodeId"] == ex["nodeId"]


async def test_create_and_exercise_with_a_result(ledger_api, alice_bob):
    alice, _ = alice_bob
    cmd = create_and_exercise(iou_args(alice, alice, "7.5", "EUR"), "Iou_Inspect", {"viewer": alice})
    r = await submit_tx(
        ledger_api, commands([alice], cmd), user="Alice", fmt=transaction_format(alice, shape=LEDGER_EFFECTS)
    )
    assert kinds(r) == ["CreatedEvent", "ExercisedEvent"]
    assert events_of(r)[1][1]["exerciseResult"] == "7.5 EUR"


async def test_a_format_filtering_everything_gives_no_events(ledger_api, alice_bob):
    alice, _ = alice_bob
    fmt = transaction_format(alice, filters=[template("#model-tests:Iou:IouTransfer")])
    r = await submit_tx(ledger_api, commands([alice], create(iou_args(alice, alice))), user="Alice", fmt=fmt)
    assert r.status_code == 200, r.text
    tx = r.json()["transaction"]
    assert tx["events"] == [] and tx["offset"] == await ledger_api.ledger_end()


async def test_format_with_blob(ledger_api, alice_bob):
    alice, _ = alice_bob
    r = await submit_tx(
        ledger_api,
        commands([alice], create(iou_args(alice, alice))),
        user="Alice",
        fmt=transaction_format(alice, filters=[wildcard(blob=True)]),
    )
    [(_, event)] = events_of(r)
    assert base64.b64decode(event["createdEventBlob"])


async def test_format_needs_a_shape(ledger_api, alice_bob):
    alice, _ = alice_bob
    before = await ledger_api.ledger_end()
    fmt = transaction_format(alice, shape="TRANSACTION_SHAPE_UNSPECIFIED")
    r = await submit_tx(ledger_api, commands([alice], create(iou_args(alice, alice))), user="Alice", fmt=fmt)
    assert assert_error(r, 400, "MISSING_FIELD")["context"]["field_name"] == "transaction_shape"
    r = await submit_tx(
        ledger_api,
        commands([alice], create(iou_args(alice, alice))),
        user="Alice",
        fmt={"eventFormat": event_format(alice), "transactionShape": "TRANSACTION_SHAPE_NOPE"},
    )
    assert_bad_body(r)
    assert await ledger_api.ledger_end() == before


async def test_workflow_id_and_trace_context_are_echoed(ledger_api, alice_bob):
    alice, _ = alice_bob
    parent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
    r = await ledger_api.post(
        SUBMIT_TX,
        {"commands": commands([alice], create(iou_args(alice, alice)), workflowId="wf")},
        user="Alice",
        headers={"traceparent": parent},
    )
    tx = r.json()["transaction"]
    assert tx["workflowId"] == "wf"
    assert tx["traceContext"]["traceparent"] == parent


# -- refusals: nothing is written --------------------------------------------------------------------------------


def refusals(alice: str, bob: str) -> list[tuple[str, dict, int, str]]:
    """(name, JsCommands, status, code) of submissions by user Alice that must be refused."""
    ok = iou_args(alice, alice)
    return [
        (
            "unknown template",
            commands([alice], create(ok, "#model-tests:Iou:Nope")),
            404,
            "TEMPLATES_OR_INTERFACES_NOT_FOUND",
        ),
        (
            "unknown package id",
            commands([alice], create(ok, "Bad:Template:Id")),
            404,
            "TEMPLATES_OR_INTERFACES_NOT_FOUND",
        ),
        ("unknown choice", commands([alice], create_and_exercise(ok, "Iou_Nope")), 400, "INVALID_ARGUMENT"),
        ("ensure fails", commands([alice], create(iou_args(alice, alice, "0"))), 400, "UNHANDLED_EXCEPTION"),
        (
            "missing authority",
            commands([alice], create(iou_args(bob, alice))),
            400,
            "DAML_AUTHORIZATION_ERROR",
        ),
        ("act as a foreign party", commands([bob], create(iou_args(bob, bob))), 403, "NA"),
        ("user id of another user", commands([alice], create(ok), userId="Bob"), 403, "NA"),
        ("empty actAs", commands([], create(ok)), 400, "MISSING_FIELD"),
        ("empty commands", commands([alice]), 400, "MISSING_FIELD"),
        ("empty commandId", commands([alice], create(ok), commandId=""), 400, "MISSING_FIELD"),
        ("bad commandId", commands([alice], create(ok), commandId="no\u00e9"), 400, "INVALID_FIELD"),
        (
            "unknown contract",
            commands([alice], exercise("00" + "ab" * 68, "Iou_Settle")),
            404,
            "CONTRACT_NOT_FOUND",
        ),
        (
            "missing fields",
            commands([alice], create({"issuer": alice, "owner": alice})),
            400,
            "COMMAND_PREPROCESSING_FAILED",
        ),
    ]


REFUSALS = [r[0] for r in refusals("a", "b")]


@pytest.mark.parametrize("name", REFUSALS)
async def test_refused_submission_writes_nothing(ledger_api, alice_bob, name):
    alice, bob = alice_bob
    [(_, cmds, status, code)] = [r for r in refusals(alice, bob) if r[0] == name]
    before = await ledger_api.ledger_end()
    r = await submit_tx(ledger_api, cmds, user="Alice")
    body = assert_error(r, status, code)
    assert await ledger_api.ledger_end() == before
    if code == "TEMPLATES_OR_INTERFACES_NOT_FOUND":
        assert body["cause"].startswith("Templates do not exist")
    if name == "ensure fails":  # the uncaught PreconditionFailed
        assert body["errorCategory"] == 9 and body["grpcCodeValue"] == 9
        assert ["EXCEPTION_TYPE", "DA.Exception.PreconditionFailed:PreconditionFailed"] in body["resources"]
        assert "Template precondition violated" in body["cause"] and "error_id" not in body["context"]
    if name == "missing fields":
        assert "currency" in body["cause"] and "amount" in body["cause"] and "observers" in body["cause"]
    if code == "MISSING_FIELD" and name == "empty actAs":
        assert body["context"]["field_name"] == "party or act_as"


async def test_bad_argument_type(ledger_api, alice_bob):
    alice, _ = alice_bob
    before = await ledger_api.ledger_end()
    for args in (
        iou_args(alice, alice) | {"observers": "nobody"},
        iou_args(alice, alice) | {"currency": {"x": 1}},
        iou_args(alice, alice) | {"amount": "lots"},
    ):
        r = await submit_tx(ledger_api, commands([alice], create(args)), user="Alice")
        assert r.status_code == 400, r.text
        assert r.json()["code"] in {"COMMAND_PREPROCESSING_FAILED", "INVALID_ARGUMENT"}
    assert await ledger_api.ledger_end() == before


async def test_unexpected_field_in_arguments(ledger_api, alice_bob):
    alice, _ = alice_bob
    r = await submit_tx(
        ledger_api, commands([alice], create(iou_args(alice, alice) | {"colour": "red"})), user="Alice"
    )
    assert r.status_code == 400, r.text
    assert "Unexpected fields" in r.json()["cause"]


async def test_archived_contract_is_not_found(ledger_api, alice_bob):
    alice, _ = alice_bob
    cid = created_cid(await ledger_api.create_iou(alice, alice, user="Alice"))
    r = await submit_tx(ledger_api, commands([alice], exercise(cid, "Iou_Settle")), user="Alice")
    assert r.status_code == 200, r.text
    before = await ledger_api.ledger_end()
    r = await submit_tx(ledger_api, commands([alice], exercise(cid, "Iou_Settle")), user="Alice")
    body = assert_error(r, 404, "CONTRACT_NOT_FOUND")
    assert ["CONTRACT_ID", cid] in body["resources"]
    assert await ledger_api.ledger_end() == before


async def test_duplicate_command_id(ledger_api, alice_bob):
    alice, _ = alice_bob
    cmds = commands([alice], create(iou_args(alice, alice)))
    first = await submit_tx(ledger_api, cmds, user="Alice")
    assert first.status_code == 200, first.text
    before = await ledger_api.ledger_end()
    body = assert_error(await submit_tx(ledger_api, cmds, user="Alice"), 409, "DUPLICATE_COMMAND")
    assert "existing_submission_id" in body["context"]
    assert await ledger_api.ledger_end() == before


@pytest.mark.parametrize(
    "raw",
    [
        b'{"commands": {"commands": [], "actAs": ["x"]}}',  # no commandId key
        b'{"commands": {"commands": [], "commandId": "c", "actAs": "x"}}',  # wrong type
        b'{"commands": ',  # malformed JSON
        b"",  # empty body
        b'{"commands": {"commands": [{"NoSuchCommand": {}}], "commandId": "c", "actAs": ["x"]}}',
    ],
)
async def test_undecodable_body_is_text_plain(ledger_api, alice_bob, raw):
    before = await ledger_api.ledger_end()
    r = await ledger_api.call(
        "POST", SUBMIT_TX, content=raw, user="Alice", headers={"Content-Type": "application/json"}
    )
    assert_bad_body(r)
    assert await ledger_api.ledger_end() == before


async def test_missing_command_id_names_the_field(ledger_api, alice_bob):
    alice, _ = alice_bob
    body = commands([alice], create(iou_args(alice, alice)))
    del body["commandId"]
    text = assert_bad_body(await ledger_api.post(SUBMIT_TX, {"commands": body}, user="Alice"))
    assert "commandId" in text


async def test_huge_body_is_413(ledger_api, alice_bob):
    alice, _ = alice_bob
    before = await ledger_api.ledger_end()
    cmds = commands([alice], create(iou_args(alice, alice, currency="x" * (4 * 1024 * 1024 + 10))))
    r = await submit_tx(ledger_api, cmds, user="Alice")
    assert r.status_code == 413, r.text
    assert await ledger_api.ledger_end() == before


# -- submit-and-wait, async submit, completions ----------------------------------------------------------------


async def test_submit_and_wait(ledger_api, alice_bob):
    alice, _ = alice_bob
    r = await ledger_api.post(
        "/v2/commands/submit-and-wait", commands([alice], create(iou_args(alice, alice))), user="Alice"
    )
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["completionOffset"] == await ledger_api.ledger_end()
    assert len(body["updateId"]) == 68 and body["updateId"].startswith("1220")


async def test_submit_and_wait_refusal(ledger_api, alice_bob):
    alice, _ = alice_bob
    before = await ledger_api.ledger_end()  # the parties' allocations
    r = await ledger_api.post(
        "/v2/commands/submit-and-wait", commands([alice], create(iou_args(alice, alice, "-1"))), user="Alice"
    )
    assert_error(r, 400, "UNHANDLED_EXCEPTION")
    assert await ledger_api.ledger_end() == before


async def test_async_submit(ledger_api, alice_bob):
    alice, _ = alice_bob
    before = await ledger_api.ledger_end()
    r = await ledger_api.post(
        "/v2/commands/async/submit", commands([alice], create(iou_args(alice, alice))), user="Alice"
    )
    assert r.status_code == 200 and r.json() == {}
    assert await ledger_api.ledger_end() == before + 1
    r = await ledger_api.post(
        "/v2/commands/async/submit", commands([], create(iou_args(alice, alice))), user="Alice"
    )
    assert_error(r, 400, "MISSING_FIELD")


async def completions(ledger_api, *, user: str, parties: list[str], begin: int = 0, user_id: str = ""):
    return await ledger_api.post(
        "/v2/commands/completions",
        {"userId": user_id, "parties": parties, "beginExclusive": begin},
        user=user,
    )


async def test_completions_list_the_users_submissions_for_the_parties(ledger_api, alice_bob):
    alice, bob = alice_bob
    mine = commands([alice], create(iou_args(alice, alice)), submissionId="sub-1")
    r = await ledger_api.post("/v2/commands/submit-and-wait", mine, user="Alice")
    assert r.status_code == 200, r.text
    first = r.json()
    await ledger_api.create_iou(bob, bob, user="Bob")
    r = await submit_tx(
        ledger_api, commands([alice], create(iou_args(alice, alice, "0"))), user="Alice"
    )  # refused
    assert r.status_code == 400
    second = await ledger_api.create_iou(alice, alice, user="Alice")
    r = await completions(ledger_api, user="Alice", parties=[alice])
    assert r.status_code == 200, r.text
    got = [c["completionResponse"]["Completion"]["value"] for c in r.json()]
    assert [c["offset"] for c in got] == [first["completionOffset"], second["offset"]]
    assert got[0]["commandId"] == mine["commandId"] and got[0]["submissionId"] == "sub-1"
    assert got[0]["updateId"] == first["updateId"] and got[1]["updateId"] == second["updateId"]
    assert all(c["userId"] == "Alice" and c["actAs"] == [alice] for c in got)
    assert all(c["status"] is None or c["status"]["code"] == 0 for c in got)
    r = await completions(ledger_api, user="Alice", parties=[alice], begin=first["completionOffset"])
    assert [c["completionResponse"]["Completion"]["value"]["offset"] for c in r.json()] == [second["offset"]]


async def test_completions_errors(ledger_api, alice_bob):
    alice, bob = alice_bob
    assert_error(await completions(ledger_api, user="Alice", parties=[]), 400, "MISSING_FIELD")
    assert_error(await completions(ledger_api, user="Alice", parties=[bob]), 403, "NA")
    assert_error(await completions(ledger_api, user="Alice", parties=[alice], user_id="Bob"), 403, "NA")
    assert_error(
        await completions(ledger_api, user="Alice", parties=[alice], begin=5), 400, "OFFSET_AFTER_LEDGER_END"
    )
    assert_error(
        await completions(ledger_api, user="Alice", parties=[alice], begin=-1), 400, "NEGATIVE_OFFSET"
    )


# -- explicit disclosure ----------------------------------------------------------------------------------------


async def blob_of(ledger_api, party: str, cid: str, user: str) -> dict:
    r = await acs(
        ledger_api,
        acs_body(await ledger_api.ledger_end(), event_format(party, filters=[wildcard(blob=True)])),
        user=user,
    )
    [event] = [e for e in created_events(r.json()) if e["contractId"] == cid]
    return event


async def test_disclosed_contract(ledger_api, alice_bob):
    alice, bob = alice_bob
    cid = created_cid(await ledger_api.create_iou(alice, alice, "5.0", "CHF", user="Alice"))
    inspect = exercise(cid, "Iou_Inspect", {"viewer": bob})
    fmt = transaction_format(bob, shape=LEDGER_EFFECTS)
    before = await ledger_api.ledger_end()
    r = await submit_tx(ledger_api, commands([bob], inspect), user="Bob", fmt=fmt)
    assert_error(r, 404, "CONTRACT_NOT_FOUND")
    assert await ledger_api.ledger_end() == before

    event = await blob_of(ledger_api, alice, cid, "Alice")
    disclosed = {
        "templateId": event["templateId"],
        "contractId": cid,
        "createdEventBlob": event["createdEventBlob"],
        "synchronizerId": "",
    }
    r = await submit_tx(
        ledger_api, commands([bob], inspect, disclosedContracts=[disclosed]), user="Bob", fmt=fmt
    )
    [(kind, ex)] = events_of(r)
    assert kind == "ExercisedEvent" and ex["exerciseResult"] == "5.0 CHF" and ex["actingParties"] == [bob]


async def test_tampered_disclosed_contract(ledger_api, alice_bob):
    alice, bob = alice_bob
    cid = created_cid(await ledger_api.create_iou(alice, alice, "5.0", user="Alice"))
    event = await blob_of(ledger_api, alice, cid, "Alice")
    decoded = json.loads(base64.b64decode(event["createdEventBlob"]))
    decoded["argument"]["amount"] = "5000.0000000000"
    forged = base64.b64encode(json.dumps(decoded).encode()).decode()
    inspect = exercise(cid, "Iou_Inspect", {"viewer": bob})
    before = await ledger_api.ledger_end()
    for blob in (forged, base64.b64encode(b"garbage").decode()):
        r = await submit_tx(
            ledger_api, commands([bob], inspect, disclosedContracts=[{"createdEventBlob": blob}]), user="Bob"
        )
        assert r.status_code == 400, r.text
        assert r.json()["code"] == "INVALID_FIELD"
    r = await submit_tx(
        ledger_api,
        commands(
            [bob],
            inspect,
            disclosedContracts=[
                {"createdEventBlob": event["createdEventBlob"], "contractId": "00" + "cd" * 68}
            ],
        ),
        user="Bob",
    )
    assert_error(r, 400, "INVALID_FIELD")
    assert await ledger_api.ledger_end() == before


# -- deduplication ----------------------------------------------------------------------------------------------


async def test_deduplication_duration(ledger_api, alice_bob):
    alice, _ = alice_bob
    cmds = commands(
        [alice],
        create(iou_args(alice, alice)),
        deduplicationPeriod={"DeduplicationDuration": {"value": {"seconds": 3600, "nanos": 0}}},
    )
    assert (await submit_tx(ledger_api, cmds, user="Alice")).status_code == 200
    assert_error(await submit_tx(ledger_api, cmds, user="Alice"), 409, "DUPLICATE_COMMAND")
    too_long = cmds | {
        "commandId": "other",
        "deduplicationPeriod": {"DeduplicationDuration": {"value": {"seconds": 8 * 24 * 3600}}},
    }
    r = await submit_tx(ledger_api, too_long, user="Alice")
    assert r.status_code == 400 and r.json()["code"] in {"INVALID_DEDUPLICATION_PERIOD", "INVALID_FIELD"}


async def test_deduplication_offset(ledger_api, alice_bob):
    alice, _ = alice_bob
    cmds = commands([alice], create(iou_args(alice, alice)))
    r = await submit_tx(ledger_api, cmds, user="Alice")
    first = r.json()["transaction"]["offset"]
    since_before = cmds | {"deduplicationPeriod": {"DeduplicationOffset": {"value": first - 1}}}
    assert_error(await submit_tx(ledger_api, since_before, user="Alice"), 409, "DUPLICATE_COMMAND")
    since_first = cmds | {"deduplicationPeriod": {"DeduplicationOffset": {"value": first}}}
    r = await submit_tx(ledger_api, since_first, user="Alice")
    assert r.status_code == 200, r.text
    r = await completions(ledger_api, user="Alice", parties=[alice], begin=first)
    [c] = [c["completionResponse"]["Completion"]["value"] for c in r.json()]
    assert c["deduplicationPeriod"] == {"DeduplicationOffset": {"value": first}}


async def test_same_command_id_for_other_act_as_is_not_a_duplicate(ledger_api, alice_bob, duo):
    alice, bob = alice_bob
    cmds = commands([alice], create(iou_args(alice, alice)))
    assert (await submit_tx(ledger_api, cmds, user=duo)).status_code == 200
    r = await submit_tx(ledger_api, cmds | {"actAs": [alice, bob]}, user=duo)
    assert r.status_code == 200, r.text


# -- more refusals ----------------------------------------------------------------------------------------------


async def test_a_failed_submission_does_not_block_its_command_id(ledger_api, alice_bob):
    alice, _ = alice_bob
    cmds = commands([alice], create(iou_args(alice, alice, "0")))
    assert_error(await submit_tx(ledger_api, cmds, user="Alice"), 400, "UNHANDLED_EXCEPTION")
    r = await submit_tx(ledger_api, cmds | {"commands": [create(iou_args(alice, alice))]}, user="Alice")
    assert r.status_code == 200, r.text


async def test_format_reading_as_a_foreign_party_is_denied(ledger_api, alice_bob):
    alice, bob = alice_bob
    before = await ledger_api.ledger_end()  # the parties' allocations
    r = await submit_tx(
        ledger_api,
        commands([alice], create(iou_args(alice, alice))),
        user="Alice",
        fmt=transaction_format(bob),
    )
    assert_error(r, 403, "NA")
    r = await submit_tx(
        ledger_api,
        commands([alice], create(iou_args(alice, alice))),
        user="Alice",
        fmt=transaction_format(any_party=True),
    )
    assert_error(r, 403, "NA")
    r = await submit_tx(
        ledger_api, commands([alice], create(iou_args(alice, alice)), readAs=[bob]), user="Alice"
    )
    assert_error(r, 403, "NA")
    assert await ledger_api.ledger_end() == before


async def test_wrong_controller(ledger_api, alice_bob, duo):
    alice, bob = alice_bob
    cid = created_cid(await ledger_api.create_iou(alice, alice, observers=[bob], user="Alice"))
    r = await submit_tx(
        ledger_api, commands([bob], exercise(cid, "Iou_Transfer", {"newOwner": bob})), user="Bob"
    )
    assert_error(r, 400, "DAML_AUTHORIZATION_ERROR")


async def test_wrongly_typed_contract(ledger_api, alice_bob):
    alice, _ = alice_bob
    cid = created_cid(await ledger_api.create_iou(alice, alice, user="Alice"))
    before = await ledger_api.ledger_end()
    r = await submit_tx(
        ledger_api,
        commands([alice], exercise(cid, "IouTransfer_Cancel", {}, "#model-tests:Iou:IouTransfer")),
        user="Alice",
    )
    assert_error(r, 400, "WRONGLY_TYPED_CONTRACT")
    assert await ledger_api.ledger_end() == before


async def test_min_ledger_time_abs_and_rel_together(ledger_api, alice_bob):
    alice, _ = alice_bob
    cmds = commands(
        [alice],
        create(iou_args(alice, alice)),
        minLedgerTimeAbs="2020-01-01T00:00:00Z",
        minLedgerTimeRel={"seconds": 1, "nanos": 0},
    )
    assert_error(await submit_tx(ledger_api, cmds, user="Alice"), 400, "INVALID_ARGUMENT")


async def test_unknown_submitting_party(ledger_api, alice_bob, reader):
    alice, _ = alice_bob
    ghost = "Ghost::" + alice.split("::", 1)[1]
    r = await ledger_api.post(
        "/v2/users/Alice/rights",
        {"userId": "Alice", "rights": [{"kind": {"CanActAs": {"value": {"party": ghost}}}}]},
    )
    assert r.status_code == 200, r.text
    r = await submit_tx(ledger_api, commands([ghost], create(iou_args(ghost, ghost))), user="Alice")
    assert r.status_code == 404 and r.json()["code"] in {
        "SUBMITTING_PARTY_NOT_KNOWN_ON_LEDGER",
        "PARTY_NOT_KNOWN_ON_LEDGER",
    }


async def test_completions_in_no_auth_mode_need_a_user_id(open_ledger):
    alice = await open_ledger.party("Alice", user=False)
    r = await open_ledger.post(
        "/v2/commands/completions", {"parties": [alice], "beginExclusive": 0}, user=None
    )
    assert_error(r, 400, "INVALID_TOKEN")


async def test_read_any_party_user_may_read_others_completions(ledger_api, alice_bob, reader):
    alice, _ = alice_bob
    await ledger_api.create_iou(alice, alice, user="Alice")
    r = await completions(ledger_api, user=reader, parties=[alice], user_id="Alice")
    assert r.status_code == 200 and len(r.json()) == 1


async def test_null_choice_argument_means_unit(ledger_api, alice_bob):
    alice, _ = alice_bob
    cid = created_cid(await ledger_api.create_iou(alice, alice, user="Alice"))
    cmd = exercise(cid, "Iou_Settle")
    cmd["ExerciseCommand"]["choiceArgument"] = None
    assert kinds(await submit_tx(ledger_api, commands([alice], cmd), user="Alice")) == ["ArchivedEvent"]


async def test_negative_deduplication_duration(ledger_api, alice_bob):
    alice, _ = alice_bob
    before = await ledger_api.ledger_end()  # the parties' allocations
    cmds = commands(
        [alice],
        create(iou_args(alice, alice)),
        deduplicationPeriod={"DeduplicationDuration": {"value": {"seconds": -5, "nanos": 0}}},
    )
    assert_error(await submit_tx(ledger_api, cmds, user="Alice"), 400, "INVALID_FIELD")
    assert await ledger_api.ledger_end() == before
