"""The composer's logic without the UI: form state to `JsCommands`, problems with their place, the history file,
and what the catalog learns from transactions."""

from __future__ import annotations

import json
import shlex

import orjson
import pytest
from pydantic import BaseModel

from app.catalog import Catalog
from app.client import LedgerClient
from app.compose.commands import (
    CommandForm,
    InvalidForm,
    as_actor,
    as_curl,
    build,
    parse_json,
    parties_without_rights,
    resolve_parties,
    transaction_format,
)
from app.compose.history import FORMAT as HISTORY_FORMAT
from app.compose.history import History, HistoryEntry
from app.session import Identity, Session
from participant.api import Event

ALICE = "Alice::1220" + "a" * 64
BOB = "Bob::1220" + "b" * 64
CID = "00" + "c" * 136


def form(**kw) -> CommandForm:
    base = dict(template_id="#model-tests:Iou:Iou", act_as=ALICE, command_id="cmd-1")
    return CommandForm(**{**base, **kw})


def wire(model: BaseModel) -> dict:
    return orjson.loads(model.model_dump_json(by_alias=True))


def problems(f: CommandForm) -> list:
    with pytest.raises(InvalidForm) as e:
        build(f, default_user_id="ledger-tui")
    return e.value.problems


# --- each kind ----------------------------------------------------------------------------------------------------


def test_create_and_exercise():
    commands = build(
        form(create_arguments='{"a": 1}', choice="Iou_Split", choice_argument='{"splitAmount": "1"}'),
        default_user_id="Alice",
    )
    body = wire(commands)
    assert body["commands"] == [
        {
            "CreateAndExerciseCommand": {
                "templateId": "#model-tests:Iou:Iou",
                "createArguments": {"a": 1},
                "choice": "Iou_Split",
                "choiceArgument": {"splitAmount": "1"},
            }
        }
    ]
    assert body["actAs"] == [ALICE] and body["commandId"] == "cmd-1" and body["userId"] == "Alice"
    assert body["deduplicationPeriod"] == {"Empty": {}}


def test_create():
    body = wire(build(form(kind="Create", create_arguments="[1, 2]", choice="ignored"), default_user_id="u"))
    assert body["commands"] == [
        {"CreateCommand": {"templateId": "#model-tests:Iou:Iou", "createArguments": [1, 2]}}
    ]


def test_exercise_with_an_empty_argument_sends_an_empty_record():
    body = wire(
        build(
            form(kind="Exercise", contract_id=f" {CID} ", choice="Archive", create_arguments="{not json"),
            default_user_id="u",
        )
    )
    assert body["commands"] == [
        {
            "ExerciseCommand": {
                "templateId": "#model-tests:Iou:Iou",
                "contractId": CID,
                "choice": "Archive",
                "choiceArgument": {},
            }
        }
    ]


def test_exercise_by_key():
    body = wire(
        build(
            form(kind="ExerciseByKey", contract_key='{"_1": "p", "_2": "l"}', choice="Close"),
            default_user_id="u",
        )
    )
    assert body["commands"] == [
        {
            "ExerciseByKeyCommand": {
                "templateId": "#model-tests:Iou:Iou",
                "contractKey": {"_1": "p", "_2": "l"},
                "choice": "Close",
                "choiceArgument": {},
            }
        }
    ]


# --- advanced fields ----------------------------------------------------------------------------------------------


def test_advanced_fields():
    disclosed = [
        {
            "templateId": "#model-tests:Iou:Iou",
            "contractId": CID,
            "createdEventBlob": "AAEC",
            "synchronizerId": "sync::1220",
        }
    ]
    body = wire(
        build(
            form(
                kind="Create",
                create_arguments="{}",
                read_as=f"{BOB}, {ALICE}",
                user_id=" me ",
                workflow_id="wf",
                deduplication="duration",
                deduplication_value="1.5",
                min_ledger_time_abs="2030-01-01T01:00:00+01:00",
                disclosed_contracts=json.dumps(disclosed),
                synchronizer_id="sync::1220",
                package_preference="p1, p2 p1",
                submission_id="sub",
            ),
            default_user_id="u",
        )
    )
    assert body["readAs"] == [BOB]  # an acting party reads anyway
    assert body["userId"] == "me" and body["workflowId"] == "wf" and body["submissionId"] == "sub"
    assert body["deduplicationPeriod"]["DeduplicationDuration"]["value"]["seconds"] == 1
    assert body["deduplicationPeriod"]["DeduplicationDuration"]["value"]["nanos"] == 500_000_000
    assert body["minLedgerTimeAbs"] == "2030-01-01T00:00:00Z" and body["minLedgerTimeRel"] is None
    assert body["disclosedContracts"] == disclosed
    assert body["synchronizerId"] == "sync::1220"
    assert body["packageIdSelectionPreference"] == ["p1", "p2"]


def test_deduplication_offset_and_relative_ledger_time():
    body = wire(
        build(
            form(
                kind="Create",
                create_arguments="{}",
                deduplication="offset",
                deduplication_value="42",
                min_ledger_time_rel="30",
            ),
            default_user_id="u",
        )
    )
    assert body["deduplicationPeriod"] == {"DeduplicationOffset": {"value": 42}}
    assert body["minLedgerTimeRel"]["seconds"] == 30


def test_the_transaction_format_covers_acting_and_reading_parties_with_ledger_effects():
    commands = build(form(kind="Create", create_arguments="{}", read_as=BOB), default_user_id="u")
    fmt = wire(transaction_format(commands))
    assert fmt["transactionShape"] == "TRANSACTION_SHAPE_LEDGER_EFFECTS"
    assert set(fmt["eventFormat"]["filtersByParty"]) == {ALICE, BOB}


# --- problems -----------------------------------------------------------------------------------------------------


def test_every_problem_is_listed_with_its_field():
    found = problems(CommandForm(kind="Exercise", template_id="Iou", choice="no spaces", command_id=""))
    assert [p.field for p in found] == ["templateId", "contractId", "choice", "actAs", "commandId"]


def test_a_json_error_has_its_line_and_column():
    (problem,) = problems(form(kind="Create", create_arguments='{\n  "a": 1,\n  "b" 2\n}'))
    assert (problem.field, problem.line, problem.column) == ("createArguments", 3, 7)
    assert "line 3, column 7" in str(problem)


def test_blank_required_json_is_a_problem_but_blank_choice_argument_is_not():
    assert [p.field for p in problems(form(kind="Create", create_arguments="  "))] == ["createArguments"]
    assert parse_json("", "choiceArgument", empty={}) == ({}, None)


@pytest.mark.parametrize(
    "kw, field",
    [
        (dict(deduplication="duration", deduplication_value="soon"), "deduplicationPeriod"),
        (dict(deduplication="offset", deduplication_value="-1"), "deduplicationPeriod"),
        (dict(min_ledger_time_abs="2030-01-01T00:00:00"), "minLedgerTimeAbs"),
        (dict(min_ledger_time_abs="tomorrow"), "minLedgerTimeAbs"),
        (dict(min_ledger_time_abs="2030-01-01T00:00:00Z", min_ledger_time_rel="5"), "minLedgerTimeRel"),
        (dict(disclosed_contracts='{"not": "a list"}'), "disclosedContracts"),
        (dict(disclosed_contracts='[{"createdEventBlob": "not base64!"}]'), "disclosedContracts"),
    ],
)
def test_advanced_problems(kw, field):
    assert [p.field for p in problems(form(kind="Create", create_arguments="{}", **kw))] == [field]


# --- parties ------------------------------------------------------------------------------------------------------


def test_a_bare_name_stands_for_the_one_known_party_with_that_hint():
    other_bob = "Bob::1220" + "d" * 64
    assert resolve_parties(["Alice", "Bob", "Carol", ALICE], [ALICE, BOB]) == [ALICE, BOB, "Carol"]
    assert resolve_parties(["Bob"], [BOB, other_bob]) == ["Bob"]  # ambiguous: the participant decides


def test_parties_outside_the_rights():
    commands = build(
        form(kind="Create", create_arguments="{}", act_as=f"{ALICE} {BOB}", read_as="Carol::1"),
        default_user_id="u",
    )
    assert parties_without_rights(commands, Identity("Alice", act_as=[ALICE])) == [BOB, "Carol::1"]
    assert parties_without_rights(commands, Identity("Alice", act_as=[ALICE, BOB], read_any=True)) == []
    assert parties_without_rights(commands, Identity(None)) == []  # no auth: any party


def test_a_payload_made_creatable_by_the_acting_party():
    payload = {"issuer": BOB, "owner": BOB, "observers": [ALICE, BOB], "note": "Bob's"}
    assert as_actor(payload, [BOB], [ALICE]) == {
        "issuer": ALICE,
        "owner": ALICE,
        "observers": [ALICE, ALICE],
        "note": "Bob's",
    }
    assert as_actor(payload, [BOB], [BOB]) is payload


def test_curl_reads_the_token_from_the_environment():
    line = as_curl("http://h:1/", b'{"a":"it\'s"}', authorized=True)
    words = shlex.split(line)
    assert words[:5] == [
        "curl",
        "-sS",
        "-X",
        "POST",
        "http://h:1/v2/commands/submit-and-wait-for-transaction",
    ]
    assert "Authorization: Bearer $LEDGER_TOKEN" in words and words[-1] == '{"a":"it\'s"}'
    assert "Authorization" not in as_curl("http://h:1", b"{}", authorized=False)


def test_a_form_from_an_older_or_newer_history_line():
    restored = CommandForm.from_dict(
        {"kind": "Teleport", "template_id": "#a:B:C", "future_field": "x", "deduplication": 5}
    )
    assert restored == CommandForm(kind="CreateAndExercise", template_id="#a:B:C")


# --- history ------------------------------------------------------------------------------------------------------


def test_history_appends_lines_and_reads_newest_first(tmp_path):
    history = History(tmp_path / "h" / "history.jsonl")
    assert history.load() == []
    for i in range(3):
        history.append(
            HistoryEntry.now(form(command_id=f"c{i}"), ok=i != 1, offset=i, error="" if i != 1 else "X")
        )
    with history.path.open("ab") as f:
        f.write(b'{"truncated\n')
    entries = history.load()
    assert [e.form.command_id for e in entries] == ["c2", "c1", "c0"]
    assert [e.outcome for e in entries] == ["offset 2", "X", "offset 0"]
    assert len(history.path.read_bytes().splitlines()) == 4


def test_history_lines_say_their_format_and_older_lines_still_read(tmp_path):
    history = History(tmp_path / "history.jsonl")
    history.append(HistoryEntry.now(form(command_id="new"), ok=True, offset=3))
    assert orjson.loads(history.path.read_bytes().splitlines()[0])["format"] == HISTORY_FORMAT
    older = {"at": "2026-01-01T00:00:00Z", "ok": True, "offset": 1, "form": {"command_id": "old"}}
    newer = {**older, "format": HISTORY_FORMAT + 1, "form": {"command_id": "future"}}
    with history.path.open("ab") as f:
        f.write(orjson.dumps(older) + b"\n" + orjson.dumps(newer) + b"\n")
    assert [e.form.command_id for e in history.load()] == ["old", "new"]


def test_history_keeps_the_last_entries(tmp_path):
    history = History(tmp_path / "history.jsonl", keep=10)
    for i in range(12):
        history.append(HistoryEntry.now(form(command_id=f"c{i}"), ok=True))
        if i == 10:
            assert len(history.path.read_bytes().splitlines()) == 11  # a tenth more before a rewrite
    assert len(history.path.read_bytes().splitlines()) == 10
    assert [e.form.command_id for e in History(history.path, keep=10).load()][:3] == ["c11", "c10", "c9"]


# --- catalog ------------------------------------------------------------------------------------------------------


def _event(kind: str, **fields) -> Event:
    common = dict(
        offset=7,
        nodeId=0,
        contractId=CID,
        templateId="pkg1:Iou:Iou",
        packageName="model-tests",
        witnessParties=[ALICE],
    )
    return Event.read({kind: {**common, **fields}})


def test_the_catalog_learns_templates_choices_arguments_and_the_newest_contract():
    session = Session(LedgerClient("http://127.0.0.1:9"), label="test")  # never connected
    session.identity = Identity("Alice", act_as=[ALICE])
    catalog = Catalog(session)
    created = _event(
        "CreatedEvent",
        createArgument={"owner": ALICE},
        signatories=[ALICE],
        observers=[BOB],
        createdAt="2030-01-01T00:00:00Z",
        representativePackageId="pkg1",
        acsDelta=True,
    )
    exercised = _event(
        "ExercisedEvent",
        offset=8,
        choice="Iou_AddObserver",
        choiceArgument={"newObserver": BOB},
        actingParties=[ALICE],
        consuming=True,
        lastDescendantNodeId=1,
        acsDelta=True,
    )
    catalog.learn([created])
    assert catalog.template_refs() == ["#model-tests:Iou:Iou"]
    assert catalog.examples.newest["#model-tests:Iou:Iou"].contract_id == CID
    catalog.learn([exercised])
    assert "#model-tests:Iou:Iou" not in catalog.examples.newest  # consumed
    assert session.learned.choices == {
        "pkg1:Iou:Iou": {"Iou_AddObserver"},
        "#model-tests:Iou:Iou": {"Iou_AddObserver"},
    }
    assert catalog.choices_for("#model-tests:Iou:Iou") == ["Iou_AddObserver", "Archive"]
    assert catalog.choices_for("pkg1:Iou:Iou") == ["Iou_AddObserver", "Archive"]
    assert catalog.choice_argument("pkg1:Iou:Iou", "Iou_AddObserver") == {"newObserver": BOB}
    assert catalog.choice_argument("#model-tests:Iou:Iou", "Archive") == {}
    assert catalog.choice_argument("#model-tests:Iou:Iou", "Iou_Split") is None
    assert catalog.parties() == [ALICE, BOB]
    assert session.learned.interfaces == {}

    through_interface = _event(
        "ExercisedEvent",
        offset=9,
        choice="Archive",
        choiceArgument={},
        interfaceId="pkg1:Iou:IIou",
        actingParties=[ALICE],
        consuming=True,
        lastDescendantNodeId=0,
        acsDelta=True,
    )
    catalog.learn([through_interface])
    assert session.learned.interfaces == {"#model-tests:Iou:Iou": {"#model-tests:Iou:IIou"}}
    assert session.learned.interfaces_of("pkg1:Iou:Iou", "model-tests") == ["#model-tests:Iou:IIou"]
    assert session.learned.choices["pkg1:Iou:Iou"] == {
        "Iou_AddObserver"
    }  # an interface's choice is not the template's
    unnamed = _event(
        "ExercisedEvent",
        offset=10,
        choice="Archive",
        choiceArgument={},
        templateId="pkg2:M:T",
        interfaceId="pkg3:M:I",
        actingParties=[ALICE],
        consuming=True,
        lastDescendantNodeId=0,
        acsDelta=True,
    )
    catalog.learn([unnamed])
    assert (
        "#model-tests:M:T" not in session.learned.interfaces
    )  # pkg3's name is not known: a filter could not name it


def test_the_status_line_tells_a_participant_without_auth_from_a_user_never_learned():
    assert Identity("Alice").label == "Alice"
    assert Identity(read_any=True, admin=True).label == "(no auth)"  # what a participant without auth gives
    assert Identity().label == "(unknown)"  # the connection failed before the participant said who we are
