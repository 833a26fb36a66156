"""The command composer against a real participant with the demo ledger: submit, rejections, JSON errors, prefill,
history, read-only sessions, and the preview against what was sent."""

from __future__ import annotations

import json
import sys
import types
from collections.abc import Iterator

import orjson
import pytest
from textual.screen import Screen
from textual.widgets import Static

from app.compose.commands import SUBMIT_PATH, CommandForm
from app.compose.history import History
from app.messages import ComposeCommand
from app.screens import composer
from app.screens.command_history import HistoryDialog
from app.screens.composer import ComposerScreen
from app.screens.dialogs import ChoiceDialog
from app.widgets.command_form import CommandEditor
from app.widgets.completing_input import CompletingInput
from app.widgets.json_editor import JsonEditor
from app.widgets.request_preview import RequestPreview
from app.widgets.transaction_result import TransactionResult
from tests.conftest import ServerProcess, start_demo_server
from tests.tui.conftest import SIZE, known, screen_text, wait_for
from tests.tui.helpers import paste

IOU = "#model-tests:Iou:Iou"


@pytest.fixture(scope="module")
def ledger(tmp_path_factory) -> Iterator[ServerProcess]:
    """One participant with the demo ledger for the module's tests (a participant's start is seconds): each submits
    commands of its own, with command ids of its own, and asserts on what its own commands did."""
    s = start_demo_server(tmp_path_factory.mktemp("composer") / "ledger.db")
    yield s
    s.stop()


async def open_composer(pilot, app) -> ComposerScreen:
    await wait_for(pilot, lambda: app.connected, "a connection")
    await pilot.press("2")
    await wait_for(
        pilot,
        lambda: isinstance(app.screen, ComposerScreen) and app.screen.catalog is not None,
        "the composer",
    )
    screen: ComposerScreen = app.screen
    await wait_for(pilot, lambda: known(screen.catalog).template_refs(), "templates learned from the ledger")
    return screen


def submissions(app) -> list:
    return [r for r in app.request_log.entries if r.path == SUBMIT_PATH]


def editor(screen, selector: str) -> JsonEditor:
    return screen.query_one(selector, JsonEditor)


def forms_at_work(screen: ComposerScreen) -> bool:
    """A typed form is being built, or the newest contract of the template read (the arguments' skeleton)."""
    return any(
        w.is_running and w.group in ("composer-forms", "composer-skeleton") for w in screen.app.workers
    )


def answered_submissions(app) -> int:
    return sum(1 for r in submissions(app) if r.done)


async def outcome(
    pilot, screen: ComposerScreen, state: str, what: str, *, after: int | None = None
) -> TransactionResult:
    """Wait until the submission ended (`state` "-ok" or "-failed") and its history line is written.

    `after`: the submissions answered before this one (`answered_submissions`), when one ended on the screen
    already: its result shows `state` until the new submission starts, which a look right after the key may
    come before."""
    app = screen.app
    if after is not None:
        await wait_for(pilot, lambda: answered_submissions(app) > after, f"{what}: its answer")
    result = screen.query_one(TransactionResult)
    await wait_for(pilot, lambda: result.has_class(state) and not screen.submitting, what)
    return result


async def type_template_and_choice(pilot, screen: ComposerScreen, choice: str) -> None:
    screen.query_one("#template").focus()
    await paste(pilot, IOU)
    await pilot.press("enter")
    create = editor(screen, "#create-arguments")
    await wait_for(pilot, lambda: '"issuer"' in create.text, "the createArguments skeleton")
    screen.query_one("#choice").focus()
    await paste(pilot, choice)
    await pilot.press("enter")


async def test_create_and_exercise_shows_the_transaction_events(ledger, make_app):
    app = make_app(ledger, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot, app)
        assert screen.editor.kind == "CreateAndExercise"
        await type_template_and_choice(pilot, screen, "Iou_Split")
        alice = app.session.identity.act_as[0]
        skeleton = json.loads(editor(screen, "#create-arguments").text)
        assert skeleton["issuer"] == skeleton["owner"] == alice  # a create Alice can sign alone
        editor(screen, "#create-arguments").area.load_text(json.dumps({**skeleton, "amount": "100.0"}))
        editor(screen, "#choice-argument").area.load_text('{"splitAmount": "40.0"}')
        await pilot.press("ctrl+s")
        result = await outcome(pilot, screen, "-ok", "the transaction")
        assert len(result.contract_ids) == 3  # the Iou created, then split in two
        text = screen_text(app)
        assert "Committed" in text and "Iou_Split" in text
        for cid in result.contract_ids:
            assert cid[:20] in text
        sent = orjson.loads(submissions(app)[-1].request_body)["commands"]["commandId"]
        assert screen.editor.state().command_id != sent  # renewed for the next command


async def test_enter_on_a_created_event_opens_it_in_the_inspector(ledger, make_app, monkeypatch):
    opened: list[str] = []

    class Inspector(Screen):
        def __init__(self, contract_id: str) -> None:
            super().__init__()
            opened.append(contract_id)

    monkeypatch.setitem(
        sys.modules, "app.screens.inspector", types.SimpleNamespace(InspectorScreen=Inspector)
    )
    app = make_app(ledger, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot, app)
        screen.editor.load(
            CommandForm(
                kind="Create",
                template_id=IOU,
                act_as=app.session.identity.act_as[0],
                command_id="enter-opens",
                create_arguments=_iou(app, "5.0"),
            )
        )
        await pilot.press("ctrl+s")
        result = await outcome(pilot, screen, "-ok", "the transaction")
        assert result.query_one("#result-events").has_focus  # the events, to open one
        await pilot.press("enter")
        await wait_for(pilot, lambda: opened, "the inspector")
        assert opened == result.contract_ids


def _iou(app, amount: str) -> str:
    alice = app.session.identity.act_as[0]
    return json.dumps({"issuer": alice, "owner": alice, "currency": "EUR", "amount": amount, "observers": []})


async def test_a_rejection_shows_the_error_and_keeps_every_field(ledger, make_app):
    app = make_app(ledger, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot, app)
        form = CommandForm(
            kind="Create",
            template_id=IOU,
            act_as=app.session.identity.act_as[0],
            command_id="negative-iou",
            create_arguments=_iou(app, "-5.0"),
            workflow_id="wf-1",
        )
        screen.editor.load(form)
        await pilot.press("ctrl+s")
        await outcome(pilot, screen, "-failed", "the rejection")
        text = screen_text(app)
        assert "UNHANDLED_EXCEPTION" in text
        assert "category 9" in text
        assert "Everything you typed is kept" in text
        assert screen.editor.state() == form


async def test_acting_without_the_right_asks_first_then_shows_the_403(ledger, make_app, monkeypatch):
    reckoned: list[list[str]] = []
    reckon = composer.parties_without_rights

    def counted(commands, identity):
        reckoned.append(reckon(commands, identity))
        return reckoned[-1]

    monkeypatch.setattr(composer, "parties_without_rights", counted)
    app = make_app(ledger, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot, app)
        bob = next(p for p in known(screen.catalog).parties() if p.startswith("Bob::"))
        form = CommandForm(
            kind="Create",
            template_id=IOU,
            act_as="Bob",
            command_id="as-bob",
            create_arguments=json.dumps(
                {"issuer": bob, "owner": bob, "currency": "EUR", "amount": "1.0", "observers": []}
            ),
        )
        screen.editor.load(form)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: "not in your rights" in screen_text(app), "the rights warning")
        assert f'"actAs":["{bob}"]' in screen.query_one(RequestPreview).body.decode()  # "Bob" resolved
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceDialog), "the confirmation")
        assert not submissions(app)
        reckoned.clear()
        await pilot.press("up", "enter")  # "Submit anyway"
        await outcome(pilot, screen, "-failed", "the refusal")
        assert submissions(app)[-1].status == 403
        assert "(HTTP 403)" in screen_text(app)
        # the parties outside the rights were reckoned once, when the form was checked: the confirmation and the
        # refusal's explanation use that answer rather than asking again
        assert reckoned == []
        head = str(screen.query_one("#result-head", Static).render())
        assert "which the user's rights do not include" in head
        assert screen.editor.state() == form


async def test_invalid_json_shows_line_and_column_and_is_not_submitted(ledger, make_app):
    app = make_app(ledger, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot, app)
        screen.editor.load(
            CommandForm(
                kind="Create",
                template_id=IOU,
                act_as=app.session.identity.act_as[0],
                command_id="bad-json",
                create_arguments='{\n  "issuer": "x",\n  "owner" 1\n}',
            )
        )
        create = editor(screen, "#create-arguments")
        await wait_for(pilot, lambda: create.has_class("-invalid"), "the JSON error")
        assert "✗ line 3, column 11" in screen_text(app)
        await pilot.press("ctrl+s")
        # refused: the cursor sent to the error instead
        await wait_for(pilot, lambda: create.area.has_focus, "the focus in the JSON")
        assert not submissions(app) and not screen.submitting
        assert create.area.cursor_location == (2, 10)  # at the error
        create.area.load_text(_iou(app, "3.0"))
        await wait_for(pilot, lambda: not create.has_class("-invalid"), "valid JSON")
        assert "✓ valid JSON" in screen_text(app)


async def test_prefill_from_an_exercise_request(ledger, make_app):
    app = make_app(ledger, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot, app)
        screen.editor.load(
            CommandForm(
                kind="Create",
                template_id=IOU,
                act_as=app.session.identity.act_as[0],
                command_id="to-exercise",
                create_arguments=_iou(app, "4.0"),
            )
        )
        await pilot.press("ctrl+s")
        result = await outcome(pilot, screen, "-ok", "the create")
        (cid,) = result.contract_ids
        template_id = (
            known(screen.catalog).examples.newest[IOU].template_id
        )  # the package-id form, as the ACS shows it
        await pilot.press("1")
        app.post_message(ComposeCommand(kind="Exercise", template_id=template_id, contract_id=cid))
        await wait_for(pilot, lambda: isinstance(app.screen, ComposerScreen), "the composer")
        await wait_for(pilot, lambda: screen.editor.kind == "Exercise", "the prefill")
        state = screen.editor.state()
        assert (state.template_id, state.contract_id) == (template_id, cid)
        assert screen.query_one("#contract-row").display and not screen.query_one("#create-arguments").display
        offered = screen.editor.choices()
        assert "Archive" in offered and "Iou_Split" in offered
        # the focus lands once the prefilled form is built (docs/architecture.md, "The composer's focus")
        await wait_for(
            pilot,
            lambda: screen.query_one("#choice", CompletingInput).input.has_focus,
            "the focus in the choice",
        )
        await paste(pilot, "Archive")
        await pilot.press("enter", "ctrl+s")
        await wait_for(
            pilot, lambda: "Archive" in screen_text(app) and result.contract_ids == [], "the archive"
        )
        await outcome(pilot, screen, "-ok", "the archive")
        assert "consuming" in screen_text(app)


async def test_history_is_written_and_recalled_with_a_fresh_command_id(ledger, make_app, locations):
    app = make_app(ledger, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot, app)
        form = CommandForm(
            kind="Create",
            template_id=IOU,
            act_as=app.session.identity.act_as[0],
            command_id="history-1",
            create_arguments=_iou(app, "7.0"),
        )
        screen.editor.load(form)
        await pilot.press("ctrl+s")
        await outcome(pilot, screen, "-ok", "the transaction")
        entries = History(locations.history_file).load()
        assert len(entries) == 1 and entries[0].ok and entries[0].form == form
        assert screen.editor.state().command_id != "history-1"
        await pilot.press("ctrl+l")
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryDialog), "the history")
        assert "history-1" in screen_text(app)
        await pilot.press("r")
        await wait_for(pilot, lambda: isinstance(app.screen, ComposerScreen), "the form again")
        recalled = screen.editor.state()
        assert recalled.command_id not in ("history-1", "")
        assert recalled.create_arguments == form.create_arguments and recalled.kind == "Create"
        await pilot.press("ctrl+l")
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryDialog), "the history")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ComposerScreen), "the form again")
        assert screen.editor.state().command_id == "history-1"  # as it was
        await pilot.press("ctrl+s")
        await outcome(pilot, screen, "-failed", "the duplicate")
        assert "DUPLICATE_COMMAND" in screen_text(app)
        assert len(History(locations.history_file).load()) == 2


async def test_readonly_refuses_to_submit_but_previews(ledger, make_app):
    app = make_app(ledger, "Alice", readonly=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot, app)
        screen.editor.load(
            CommandForm(
                kind="Create",
                template_id=IOU,
                act_as=app.session.identity.act_as[0],
                command_id="readonly",
                create_arguments=_iou(app, "2.0"),
            )
        )
        text = screen_text(app)
        assert "Read-only session" in text
        assert "Submit" not in text.splitlines()[-1]  # not in the footer
        await pilot.press("ctrl+s")
        assert not await app.run_action("screen.submit")
        screen.action_submit()
        assert not screen.submitting  # refused at once: a submission starts here, before its request
        await pilot.pause()
        assert not submissions(app)
        await pilot.press("ctrl+r")
        assert b'"commandId":"readonly"' in screen.query_one(RequestPreview).body
        await pilot.press("ctrl+y")
        assert "$LEDGER_TOKEN" in app.clipboard and "readonly" in app.clipboard
        assert "eyJ" not in app.clipboard  # no token


async def test_the_preview_is_the_body_sent(ledger, make_app):
    app = make_app(ledger, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot, app)
        screen.editor.load(
            CommandForm(
                kind="Create",
                template_id=IOU,
                act_as=app.session.identity.act_as[0],
                command_id="preview-is-sent",
                create_arguments=_iou(app, "9.0"),
                workflow_id="wf",
                deduplication="duration",
                deduplication_value="60",
            )
        )
        await pilot.press("ctrl+r")
        previewed = screen.query_one(RequestPreview).body
        assert previewed
        await pilot.press("ctrl+y")
        curl = app.clipboard
        await pilot.press("ctrl+s")
        await outcome(pilot, screen, "-ok", "the transaction")
        sent = submissions(app)[-1]
        assert sent.request_body == previewed
        period = orjson.loads(previewed)["commands"]["deduplicationPeriod"]
        assert period["DeduplicationDuration"]["value"]["seconds"] == 60
        assert sent.url in curl


async def test_ctrl_t_cycles_the_kinds(ledger, make_app):
    app = make_app(ledger, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot, app)
        seen = []
        for _ in range(4):
            before = screen.editor.kind
            await pilot.press("ctrl+t")
            await wait_for(pilot, lambda: screen.editor.kind != before, "the next kind")  # noqa: B023  (awaited here)
            seen.append(
                (
                    screen.editor.kind,
                    screen.query_one("#create-arguments").display,
                    screen.query_one("#contract-key").display,
                )
            )
        assert seen == [
            ("Create", True, False),
            ("Exercise", False, False),
            ("ExerciseByKey", False, True),
            ("CreateAndExercise", True, False),
        ]
        assert isinstance(screen.editor, CommandEditor)


async def test_prefill_from_a_clone_keeps_the_payload(ledger, make_app):
    app = make_app(ledger, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot, app)
        payload = json.loads(_iou(app, "12.5"))
        await pilot.press("1")
        app.post_message(ComposeCommand(kind="Create", template_id=IOU, arguments=payload))
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, ComposerScreen) and screen.editor.kind == "Create",
            "the prefill",
        )
        # a skeleton read, if one were started, would have replaced it by the time it ended
        await wait_for(pilot, lambda: not forms_at_work(screen), "the form settled")
        assert json.loads(editor(screen, "#create-arguments").text) == payload
        assert editor(screen, "#create-arguments").area.has_focus


async def test_a_participant_gone_away_is_explained_without_a_traceback(demo_writable, make_app):
    app = make_app(demo_writable, "Alice")  # a participant of its own: it is stopped
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot, app)
        form = CommandForm(
            kind="Create",
            template_id=IOU,
            act_as=app.session.identity.act_as[0],
            command_id="nobody-there",
            create_arguments=_iou(app, "1.0"),
        )
        screen.editor.load(form)
        demo_writable.stop()
        await pilot.press("ctrl+s")
        result = screen.query_one(TransactionResult)
        await wait_for(pilot, lambda: result.has_class("-failed") and not screen.submitting, "the failure")
        text = screen_text(app)
        assert "participant unreachable" in text and "The outcome is unknown" in text
        assert "Traceback" not in text
        assert screen.editor.state() == form
        assert History(app.locations.history_file).load()[0].error == "participant unreachable"


async def test_escape_leaves_the_field_then_the_screen(ledger, make_app):
    app = make_app(ledger, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot, app)
        assert screen.query_one("#template", CompletingInput).input.has_focus
        await pilot.press("1")  # typed: a template id may start with a digit
        assert screen.editor.state().template_id == "1"
        await pilot.press("escape")
        assert screen.focused is None
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.current_mode == "contracts", "the contracts")
        await pilot.press("2")
        await wait_for(pilot, lambda: app.screen is screen, "the composer again")
        assert screen.editor.state().template_id == "1"  # kept


async def test_prefill_opens_the_composer_the_first_time(ledger, make_app):
    app = make_app(ledger, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.connected, "a connection")
        cid = "00" + "ab" * 68
        app.post_message(ComposeCommand(kind="Exercise", template_id=IOU, contract_id=cid, choice="Archive"))
        await wait_for(pilot, lambda: isinstance(app.screen, ComposerScreen), "the composer")
        screen: ComposerScreen = app.screen
        await wait_for(pilot, lambda: screen.editor.state().contract_id == cid, "the prefill")
        state = screen.editor.state()
        assert (state.kind, state.template_id, state.choice) == ("Exercise", IOU, "Archive")
        assert json.loads(editor(screen, "#choice-argument").text) == {}
        assert state.act_as == app.session.identity.act_as[0]


async def test_without_auth_the_command_names_a_user(tmp_path, locations):
    from app.app import LedgerApp
    from app.config import Config
    from tests.conftest import start_server

    server = start_server(tmp_path / "noauth.db", "--no-auth", "--demo")
    try:
        app = LedgerApp(config=Config(), locations=locations, url=server.url, tokens=None, label=server.url)
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_composer(pilot, app)
            alice = next(p for p in screen.editor.parties() if p.startswith("Alice::"))
            assert screen.editor.state().act_as == ""  # no rights to take a party from: any may be typed
            screen.editor.load(
                CommandForm(
                    kind="Create",
                    template_id=IOU,
                    act_as="Alice",
                    command_id="no-auth",
                    create_arguments=json.dumps(
                        {"issuer": alice, "owner": alice, "currency": "EUR", "amount": "1.0", "observers": []}
                    ),
                )
            )
            await pilot.press("ctrl+s")
            await outcome(pilot, screen, "-ok", "the transaction")
            body = orjson.loads(submissions(app)[-1].request_body)["commands"]
            assert body["userId"] == "ledger-tui" and body["actAs"] == [alice]
            await pilot.press("ctrl+y")
            assert app.clipboard.startswith("curl ") and "Authorization" not in app.clipboard
    finally:
        server.stop()


async def test_a_preview_due_while_the_screen_is_taken_down_does_nothing(ledger, make_app):
    # quitting removes the screen's widgets before its timers: a preview set to refresh then must not raise
    app = make_app(ledger, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot, app)
        await screen.query_one(RequestPreview).remove()
        assert screen.refresh_preview() is None
