"""The contract inspector against a real participant with the demo ledger."""

from __future__ import annotations

import os
import subprocess
import sys

import orjson
from textual.widgets import Input, TabbedContent

from app.client import LedgerClient, event_format
from app.daml import number, short_party, template_name
from app.messages import ComposeCommand, OpenContract
from app.screens.acs import AcsScreen
from app.screens.dialogs import PromptDialog
from app.screens.inspector import ARCHIVED, CONTRACT, CREATED, InspectorScreen
from app.widgets.contract_table import ContractTable
from app.widgets.transaction_view import TransactionView
from participant.api import Command, CreateCommand, CreatedEvent, ExerciseCommand, JsCommands
from tests.tui.conftest import SIZE, known, screen_text, wait_for
from tests.tui.helpers import WithoutEndpoints, archived_iou, client_for, contract_without, party_of

UNKNOWN = "00" + "ab" * 32 + "ca12" + "1220" + "cd" * 32


def inspector(app) -> InspectorScreen | None:
    return app.screen if isinstance(app.screen, InspectorScreen) else None


def loaded(app, contract_id: str | None = None) -> bool:
    screen = inspector(app)
    return (
        screen is not None
        and screen.lookup is not None
        and (contract_id is None or screen.contract_id == contract_id)
    )


def event_of(screen: InspectorScreen) -> CreatedEvent:
    """The create event of the contract the inspector has loaded."""
    return known(known(screen.lookup, "the lookup").event, "the create event")


def transaction_shown(screen: InspectorScreen, pane: str) -> bool:
    return screen.query_one(f"#{pane}-view", TransactionView).transaction is not None


async def open_contract(app, pilot, contract_id: str) -> InspectorScreen:
    await wait_for(pilot, lambda: app.connected, "the connection")
    app.post_message(OpenContract(contract_id))
    await wait_for(pilot, lambda: loaded(app, contract_id), "the inspector loaded")
    screen = inspector(app)
    assert screen is not None
    return screen


def walk(node):
    yield node
    for child in node.children:
        yield from walk(child)


def notified(app) -> str:
    """The notifications raised so far (run_test draws no toasts; the app keeps them)."""
    return "\n".join(n.message for n in app._notifications)


def record_compose(screen: InspectorScreen) -> list[ComposeCommand]:
    """What the screen asks the composer for (the composer itself is another screen's business)."""
    posted: list[ComposeCommand] = []
    original = screen.post_message

    def post(message) -> bool:
        if isinstance(message, ComposeCommand):
            posted.append(message)
            return True
        return original(message)

    screen.post_message = post  # type: ignore[method-assign]  # what the screen posts, recorded
    return posted


async def test_enter_on_a_contract_shows_its_create_event_and_payload(demo_server, make_app):
    app = make_app(demo_server, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot,
            lambda: (
                isinstance(app.screen, AcsScreen)
                and app.screen.query_one(ContractTable).row_at(0) is not None
            ),
            "the first rows",
        )
        row = known(app.screen.query_one(ContractTable).row_at(0), "the first row")
        await pilot.press("enter")
        await wait_for(pilot, lambda: loaded(app), "the inspector loaded")
        screen = known(inspector(app), "the inspector")
        assert screen.contract_id == row.contract_id
        await pilot.pause()
        text = screen_text(app)
        assert "› Inspector" in text and "1 Contracts" in text
        assert "● Active" in text
        assert screen.lookup is not None
        event = known(screen.lookup.event, "the create event")
        assert screen.lookup.created is not None and screen.lookup.by_id is not None
        for shown in [
            "Iou:Iou",
            row.contract_id[:12] + "…",
            "package name",
            "model-tests",
            event.template_id[:12],
            f"{event.offset}  (node {event.node_id})",
            event.created_at,
            "signatories",
            "observers",
            "witnesses",
            "synchronizer",
            "acs delta",
            "created event blob",
            "present",
            "createArgument  5 fields",
            f"amount: {number(row.payload['amount'])}",
            f'currency: "{row.payload["currency"]}"',
            f"owner: {short_party(row.payload['owner'])}",
        ]:
            assert shown in text, shown

        await pilot.press("y")
        assert app.clipboard == row.contract_id
        await pilot.press("Y")
        assert orjson.loads(app.clipboard) == row.payload

        await pilot.press("f")
        owner = f"owner: {row.payload['owner']}"
        await wait_for(pilot, lambda: owner in screen_text(app), "the payload as a tree")

        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, AcsScreen), "the contracts screen again")


async def test_an_archived_contract_shows_its_archive_event_and_transactions(demo_server, make_app):
    async with client_for(demo_server) as client:
        alice = await party_of(client)
        archive = await archived_iou(client, alice)
    app = make_app(demo_server, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_contract(app, pilot, archive.contract_id)
        await pilot.pause()
        lookup = known(screen.lookup, "the lookup")
        assert lookup.archived is not None and lookup.archived.offset == archive.offset
        text = screen_text(app)
        assert f"✕ Archived at offset {archive.offset}" in text
        assert f"{archive.offset}  (node {archive.node_id})" in text

        await pilot.press("x")
        await pilot.pause()
        assert f"archived at offset {archive.offset}" in notified(app)
        assert isinstance(app.screen, InspectorScreen)

        await pilot.press("t")
        await wait_for(pilot, lambda: transaction_shown(screen, CREATED), "the creating transaction")
        await pilot.pause()
        text = screen_text(app)
        assert f"Created Iou:Iou  {archive.contract_id[:12]}…  ◀ this contract" in text
        assert f"offset        {known(lookup.created, 'the create event').offset}" in text
        for field in (
            "update id",
            "command id",
            "workflow id",
            "effective at",
            "record time",
            "synchronizer",
        ):
            assert field in text, field

        await pilot.press("a")
        await wait_for(pilot, lambda: transaction_shown(screen, ARCHIVED), "the archiving transaction")
        await pilot.pause()
        text = screen_text(app)
        assert f"Exercised {archive.choice} on Iou:Iou  {archive.contract_id[:12]}…  ◀ this contract" in text
        assert "consuming" in text and "choiceArgument" in text and "exerciseResult" in text
        seen = app.workspace.learned.choices
        assert archive.choice in seen[archive.template_id]
        assert archive.choice in seen[f"#model-tests:{template_name(archive.template_id)}"]

        view = screen.query_one(f"#{ARCHIVED}-view", TransactionView)
        tree = view.transaction_tree
        child = next(
            e.created_event.contract_id
            for e in known(view.transaction, "the transaction").events
            if e.created_event is not None
        )
        node = next(
            n for n in walk(tree.root) if n.data and n.data.open_id == child and n.data.label is not None
        )  # the Created event's node
        tree.move_cursor(node)
        await pilot.press("o")
        await wait_for(pilot, lambda: loaded(app, child), "the created contract in a new inspector")
        assert "● Active" in screen_text(app) or "Archived at offset" in screen_text(app)
        await pilot.press("escape")
        await wait_for(pilot, lambda: inspector(app) is screen, "the first inspector again")
        assert screen.query_one(TabbedContent).active == ARCHIVED

        await pilot.press("escape")
        await wait_for(pilot, lambda: screen.query_one(TabbedContent).active == CONTRACT, "the contract tab")
        assert inspector(app) is screen
        await pilot.pause()
        assert any(
            "choices seen" in line and archive.choice in line for line in screen_text(app).splitlines()
        )


async def test_an_unknown_contract_id_says_so(demo_server, make_app):
    app = make_app(demo_server, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_contract(app, pilot, UNKNOWN)
        await pilot.pause()
        text = screen_text(app)
        assert not known(screen.lookup).found
        assert "Contract not found" in text
        assert "CONTRACT_PAYLOAD_NOT_FOUND" in text and "Contract payload not found, or not visible." in text
        assert "CONTRACT_EVENTS_NOT_FOUND" in text
        assert "No contract with this id is visible to Alice" in text
        await pilot.press("x")
        await pilot.pause()
        assert "The contract is not loaded." in notified(app)


async def test_a_contract_of_other_parties_is_not_shown(demo_server, make_app):
    async with client_for(demo_server, "Bob") as bob_client, client_for(demo_server, "Alice") as alice_client:
        alice = await party_of(alice_client)
        hidden = await contract_without(bob_client, await party_of(bob_client), alice)
    app = make_app(demo_server, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_contract(app, pilot, hidden)
        await pilot.pause()
        assert not known(screen.lookup).found
        text = screen_text(app)
        assert "CONTRACT_PAYLOAD_NOT_FOUND" in text and "No contract with this id is visible to Alice" in text


async def test_a_participant_without_contract_by_id_still_shows_the_contract(demo_server, make_app):
    """3.4: contract-by-id and (here also) update-by-offset answer the legacy 404; events-by-contract-id and the
    update list take over."""
    async with client_for(demo_server) as client:
        archive = await archived_iou(client, await party_of(client))
    app = make_app(demo_server, "Alice")
    transport = WithoutEndpoints(["/v2/contracts/contract-by-id", "/v2/updates/update-by-offset"])
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.connected, "the connection")
        app.session.client = LedgerClient(
            demo_server.url, app.session.client.tokens, log=app.request_log, transport=transport
        )
        screen = await open_contract(app, pilot, archive.contract_id)
        await pilot.pause()
        lookup = known(screen.lookup)
        assert lookup.found and lookup.by_id is None and not lookup.by_id_served
        assert app.session.client.capabilities.contract_by_id is False
        text = screen_text(app)
        assert f"✕ Archived at offset {archive.offset}" in text
        assert "not served by this participant (3.4)" in text
        assert "createArgument  5 fields" in text

        await pilot.press("a")
        await wait_for(pilot, lambda: transaction_shown(screen, ARCHIVED), "the archiving transaction")
        assert app.session.client.capabilities.update_by_offset is False
        assert f"Exercised {archive.choice}" in screen_text(app)

        await pilot.press("r")
        await wait_for(pilot, lambda: screen.lookup is not None, "the reload")
        assert transport.refused.count("/v2/contracts/contract-by-id") == 1  # learnt once, not asked again


async def test_exercise_and_clone_then_reload_after_archiving(demo_writable, make_app):
    async with client_for(demo_writable) as client:
        alice = await party_of(client)
        payload = {"issuer": alice, "owner": alice, "currency": "CHF", "amount": "12.5", "observers": []}
        tx = await client.submit_and_wait_for_transaction(
            JsCommands(
                commands=[
                    Command(
                        create_command=CreateCommand(
                            template_id="#model-tests:Iou:Iou", create_arguments=payload
                        )
                    )
                ],
                command_id=f"inspector-{os.urandom(4).hex()}",
                act_as=[alice],
            )
        )
        created = known(tx.events[0].created_event, "the create event")
        app = make_app(demo_writable, "Alice")
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_contract(app, pilot, created.contract_id)
            posted = record_compose(screen)
            await pilot.press("x")
            await pilot.press("n")
            await pilot.pause()
            assert [(m.kind, m.template_id, m.contract_id) for m in posted] == [
                ("Exercise", created.template_id, created.contract_id),
                ("CreateAndExercise", created.template_id, ""),
            ]
            assert posted[1].arguments == created.create_argument

            await client.submit_and_wait_for_transaction(
                JsCommands(
                    commands=[
                        Command(
                            exercise_command=ExerciseCommand(
                                template_id="#model-tests:Iou:Iou",
                                contract_id=created.contract_id,
                                choice="Archive",
                                choice_argument={},
                            )
                        )
                    ],
                    command_id=f"inspector-{os.urandom(4).hex()}",
                    act_as=[alice],
                )
            )
            await pilot.press("r")
            await wait_for(
                pilot,
                lambda: screen.lookup is not None and screen.lookup.archived is not None,
                "the archive event after the reload",
            )
            archived = f"✕ Archived at offset {known(known(screen.lookup).archived).offset}"
            await wait_for(pilot, lambda: archived in screen_text(app), "the archive drawn")
            posted.clear()
            await pilot.press("x")
            await pilot.pause()
            assert posted == []
            await pilot.press("a")
            await wait_for(pilot, lambda: transaction_shown(screen, ARCHIVED), "the archiving transaction")
            assert "Exercised Archive on Iou:Iou" in screen_text(app)
            assert "Archive" in app.workspace.learned.choices[created.template_id]


async def test_pruned_history_is_explained(demo_writable, make_app):
    async with client_for(demo_writable) as client:
        alice = await party_of(client)
        archive = await archived_iou(client, alice)
        active = await contract_without(client, alice, "nobody")
        end = await client.ledger_end()
    pruned = subprocess.run(
        [
            sys.executable,
            "-m",
            "participant.server.cli",
            "prune",
            "--db",
            str(demo_writable.db),
            "--up-to",
            str(end),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert pruned.returncode == 0, pruned.stderr
    app = make_app(demo_writable, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_contract(app, pilot, archive.contract_id)
        await pilot.pause()
        text = screen_text(app)
        assert "Contract not found" in text and "CONTRACT_EVENTS_NOT_FOUND" in text
        assert f"This participant is pruned up to offset {end}" in text

        await pilot.press("escape")
        screen = await open_contract(app, pilot, active)
        assert known(screen.lookup).found  # active contracts survive pruning
        await pilot.press("t")
        await wait_for(
            pilot, lambda: "Cannot read the update at offset" in screen_text(app), "the pruned message"
        )
        text = screen_text(app)
        assert "PARTICIPANT_PRUNED_DATA_ACCESSED" in text or "UPDATE_NOT_FOUND" in text
        assert f"This participant has pruned its history up to offset {end}" in text


async def test_an_interface_view_asked_for_is_shown_and_remembered_for_the_template(demo_server, make_app):
    async with client_for(demo_server) as client:
        alice = await party_of(client)
        end = await client.ledger_end()
        by_template: dict[str, list[str]] = {}
        for entry in await client.active_contracts(end, event_format([alice]), limit=200):
            active = entry.contract_entry.js_active_contract if entry.contract_entry else None
            if active is not None:
                event = active.created_event
                by_template.setdefault(template_name(event.template_id), []).append(event.contract_id)
    first, second = by_template["Iou:Iou"][:2]
    transfer = by_template["Iou:IouTransfer"][0]
    app = make_app(demo_server, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_contract(app, pilot, first)
        await wait_for(
            pilot, lambda: "none (i asks for one)" in screen_text(app), "the contract without views"
        )
        await pilot.press("i")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptDialog), "the interface prompt")
        prompt = app.screen.query_one(Input)
        assert prompt.value == "#model-tests:Iou:"  # the template's package and module, typed on
        await pilot.press(*"Nope", "enter")
        await wait_for(
            pilot,
            lambda: "NO_INTERFACE_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME" in notified(app),
            "the participant's error",
        )
        await wait_for(pilot, lambda: isinstance(app.screen, PromptDialog), "the prompt again")
        prompt = app.screen.query_one(Input)
        assert prompt.value == "#model-tests:Iou:Nope"  # what was typed, to be corrected
        await pilot.press(*["backspace"] * 4, *"IIou", "enter")
        await wait_for(
            pilot,
            lambda: any(v.interface_id.endswith(":Iou:IIou") for v in event_of(screen).interface_views),
            "the view",
        )
        await wait_for(pilot, lambda: "view Iou:IIou" in screen_text(app), "the view on screen")
        payload = event_of(screen).create_argument
        text = screen_text(app)
        assert "view Iou:IIou  2 fields" in text and f"iamount: {number(payload['amount'])}" in text
        assert "interface views       Iou:IIou" in text
        assert "its view is in the payload" in notified(app)
        assert app.workspace.learned.interfaces == {"#model-tests:Iou:Iou": {"#model-tests:Iou:IIou"}}

        await pilot.press("escape")
        screen = await open_contract(app, pilot, second)  # the same template: its view comes unasked
        await wait_for(pilot, lambda: event_of(screen).interface_views, "the remembered view")
        assert (
            event_of(screen).interface_views[0].view_value["iamount"]
            == event_of(screen).create_argument["amount"]
        )

        await pilot.press("escape")
        screen = await open_contract(app, pilot, transfer)
        await pilot.press("i")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptDialog), "the interface prompt")
        assert app.screen.query_one(Input).value == "#model-tests:Iou:IIou"  # the one interface known
        await pilot.press("enter")
        await wait_for(
            pilot,
            lambda: "Iou:IouTransfer does not implement #model-tests:Iou:IIou" in notified(app),
            "the answer for a template without it",
        )
        assert event_of(screen).interface_views == []


async def test_an_interface_choice_read_in_a_transaction_teaches_the_template_s_interface(
    demo_writable, make_app
):
    async with client_for(demo_writable) as client:
        alice = await party_of(client)
        ious = []
        for amount in ("3", "4"):
            payload: dict[str, object] = {
                "issuer": alice,
                "owner": alice,
                "currency": "CHF",
                "amount": amount,
                "observers": [],
            }
            tx = await client.submit_and_wait_for_transaction(
                JsCommands(
                    commands=[
                        Command(
                            create_command=CreateCommand(
                                template_id="#model-tests:Iou:Iou", create_arguments=payload
                            )
                        )
                    ],
                    command_id=f"inspector-{os.urandom(4).hex()}",
                    act_as=[alice],
                )
            )
            ious.append(known(tx.events[0].created_event).contract_id)
        await client.submit_and_wait_for_transaction(
            JsCommands(  # Archive through the interface
                commands=[
                    Command(
                        exercise_command=ExerciseCommand(
                            template_id="#model-tests:Iou:IIou",
                            contract_id=ious[0],
                            choice="Archive",
                            choice_argument={},
                        )
                    )
                ],
                command_id=f"inspector-{os.urandom(4).hex()}",
                act_as=[alice],
            )
        )
    app = make_app(demo_writable, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_contract(app, pilot, ious[0])
        assert app.workspace.learned.interfaces == {}
        await pilot.press("a")
        await wait_for(pilot, lambda: transaction_shown(screen, ARCHIVED), "the archiving transaction")
        assert app.workspace.learned.interfaces == {"#model-tests:Iou:Iou": {"#model-tests:Iou:IIou"}}

        await pilot.press("escape", "escape")
        screen = await open_contract(app, pilot, ious[1])
        await wait_for(pilot, lambda: event_of(screen).interface_views, "the view of the interface learned")
        assert event_of(screen).interface_views[0].view_value == {
            "icurrency": "CHF",
            "iamount": "4.0000000000",
        }
