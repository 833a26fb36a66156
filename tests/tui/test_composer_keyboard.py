"""The composer keeps the keyboard (docs/architecture.md, "The composer's focus"), against a real participant with
the splice-amulet and richtypes DARs: choosing a template or a choice moves the focus to the first field still to
fill, and keys typed at once, while its form is built, land there; a prefill and a recall open in their first
field; the focused row's label is marked; ctrl+u clears a field and never opens the user picker; a new form starts
without the problems and the result of the command before it."""

from __future__ import annotations

import re

import orjson
from textual import events
from textual.widgets import Select

from app.compose.form_rows import FormRow
from app.messages import ComposeCommand
from app.screens.composer import ComposerScreen
from app.widgets.completing_input import CompletingInput
from app.widgets.request_preview import RequestPreview
from app.widgets.transaction_result import TransactionResult
from app.widgets.typed_form import RowEditor, TypedForm
from tests.client.test_packages import loaded  # noqa: F401  (the participant with richtypes and splice-amulet)
from tests.daml_lf.conftest import dars_dir  # noqa: F401  (pytest fixtures, used by name)
from tests.tui.conftest import SIZE, screen_text, wait_for
from tests.tui.helpers import paste, text_of
from tests.tui.test_composer import IOU, outcome
from tests.tui.test_typed_form import MARKER, choose_template, field, open_composer

AMULET_RULES = "#splice-amulet:Splice.AmuletRules:AmuletRules"


def type_at_once(app, *keys: str) -> None:
    """Keys as a fast typist's reach the app: all queued before any is handled (Pilot's `press` waits after each)."""
    for key in keys:
        app.post_message(events.Key(key, key if len(key) == 1 else None))


def focused_row(screen: ComposerScreen) -> FormRow | None:
    """The row of the typed form whose input has the focus."""
    focused = screen.focused
    editor = (
        next((a for a in focused.ancestors_with_self if isinstance(a, RowEditor)), None) if focused else None
    )
    return editor.row if editor is not None else None


async def settled(pilot, screen: ComposerScreen) -> None:
    await wait_for(
        pilot,
        lambda: not [w for w in screen.app.workers if w.is_running and w.group == "composer-forms"],
        "the forms built",
    )
    await pilot.pause()


async def test_keys_typed_at_once_after_choosing_a_choice_go_into_its_first_argument(loaded, make_app):  # noqa: F811  (the fixture imported above)
    app = make_app(loaded)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot, app)
        while screen.editor.kind != "Exercise":
            await pilot.press("ctrl+t")
        screen.query_one("#template").focus()
        await paste(pilot, AMULET_RULES)
        await pilot.press("enter")
        # an Exercise needs its contract next
        await wait_for(pilot, lambda: screen.focused is screen.query_one("#contract-id"), "the contract id")
        await wait_for(pilot, lambda: "AmuletRules_Transfer" in screen.editor.choices(), "its choices")
        screen.query_one("#choice").focus()
        type_at_once(app, *"AmuletRules_Transfer", "enter", *"Alice")
        sender = await field(pilot, screen, "choiceArgument.transfer.sender")
        await wait_for(pilot, lambda: text_of(sender) == "Alice", "Alice typed into the sender")
        assert screen.query_one("#choice", CompletingInput).value == "AmuletRules_Transfer"
        assert focused_row(screen) is sender
        await settled(pilot, screen)
        assert screen.query("#choice-form-typed")  # the typed form stayed (no JSON box in its place)


async def test_keys_typed_at_once_after_choosing_a_template_go_into_its_first_argument(loaded, make_app):  # noqa: F811  (the fixture imported above)
    app = make_app(loaded)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot, app)
        while screen.editor.kind != "Create":
            await pilot.press("ctrl+t")
        template = screen.query_one("#template", CompletingInput)
        template.value = ""
        template.focus()
        await pilot.pause()
        type_at_once(app, *MARKER, "enter", *"Alice")
        owner = await field(pilot, screen, "createArguments.owner")
        await wait_for(pilot, lambda: text_of(owner) == "Alice", "Alice typed into the owner")
        assert template.value == MARKER
        assert focused_row(screen) is owner


def label_marked(screen: ComposerScreen, row: FormRow) -> bool:
    """The row's name is drawn marked: it is the open row, its label bold and reversed."""
    form = screen.query_one("#create-form-typed", TypedForm)
    if form.current is not row or form.editor is None:
        return False
    style = form.editor.query_one(".tf-name").styles.text_style
    return bool(style.bold and style.reverse)


async def test_the_focused_row_s_label_is_marked(loaded, make_app):  # noqa: F811  (the fixture imported above)
    app = make_app(loaded)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot, app)
        await choose_template(pilot, screen, "Create", "#richtypes:RichTypes:RichRecord")
        owner = await field(pilot, screen, "createArguments.owner")
        count = await field(pilot, screen, "createArguments.count")
        form = screen.query_one("#create-form-typed", TypedForm)
        form.focus_path(count.path)
        await wait_for(pilot, lambda: focused_row(screen) is count, "the focus in count")
        assert label_marked(screen, count) and not label_marked(screen, owner)
        form.focus_path(owner.path)
        await wait_for(pilot, lambda: focused_row(screen) is owner, "the focus in owner")
        assert label_marked(screen, owner) and not label_marked(screen, count)


async def test_ctrl_u_clears_a_field_and_u_outside_one_picks_the_user(loaded, make_app):  # noqa: F811  (the fixture imported above)
    app = make_app(loaded)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot, app)
        act_as = screen.query_one("#act-as", CompletingInput)
        act_as.focus()
        await pilot.press("end", "ctrl+u")
        assert act_as.value == "" and app.screen is screen
        screen.query_one("#kind", Select).focus()  # no text to clear here: still no user picker
        await pilot.press("ctrl+u")
        await pilot.pause()
        assert app.screen is screen
        await pilot.press("escape", "U")
        await wait_for(pilot, lambda: app.screen is not screen, "the user picker")
        assert "Bob" in screen_text(app)


def preview_text(screen: ComposerScreen) -> str:
    return str(screen.query_one("#preview-head").render())


async def test_an_exercise_opened_after_a_refused_create_starts_clean(loaded, make_app):  # noqa: F811  (the fixture imported above)
    app = make_app(loaded)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot, app)
        await choose_template(pilot, screen, "Create", "#richtypes:RichTypes:RichRecord")
        await pilot.press("ctrl+s")  # refused: every field marked
        await wait_for(pilot, lambda: "createArguments.count" in preview_text(screen), "the problems listed")
        form = screen.query_one("#create-form-typed", TypedForm)
        assert any(row.problem for row in form.rows.rows)
        contract = "00" + "ab" * 32
        app.post_message(ComposeCommand(kind="Exercise", template_id=MARKER, contract_id=contract))
        await wait_for(pilot, lambda: screen.editor.kind == "Exercise", "the prefill")
        await wait_for(
            pilot, lambda: screen.focused is screen.query_one("#choice", CompletingInput).input, "the choice"
        )
        await settled(pilot, screen)
        await wait_for(pilot, lambda: "choice" in preview_text(screen), "the preview of the Exercise")
        assert "createArguments" not in preview_text(screen)
        assert not [p for p in screen.problems if p.field == "createArguments"]


async def test_a_result_beside_another_command_is_marked_as_earlier(loaded, make_app):  # noqa: F811  (the fixture imported above)
    app = make_app(loaded, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot, app)
        await choose_template(pilot, screen, "Create", MARKER)
        owner = await field(pilot, screen, "createArguments.owner")
        screen.query_one("#create-form-typed", TypedForm).focus_path(owner.path)
        await pilot.press(*"Alice", "ctrl+s")
        result = await outcome(pilot, screen, "-ok", "the Marker created")
        assert "Earlier command" not in screen_text(app)
        app.post_message(ComposeCommand(kind="Create", template_id=IOU))
        await wait_for(pilot, lambda: result.has_class("-earlier"), "the result marked")
        await pilot.press("ctrl+r")  # back to the result: it says whose it is
        await wait_for(pilot, lambda: "Earlier command" in screen_text(app), "the mark shown")
        assert isinstance(result, TransactionResult)


async def test_the_choice_field_and_the_body_agree_after_fast_typing_and_escape(loaded, make_app):  # noqa: F811  (the fixture imported above)
    app = make_app(loaded)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot, app)
        while screen.editor.kind != "Exercise":
            await pilot.press("ctrl+t")
        screen.query_one("#template").focus()
        await paste(pilot, AMULET_RULES)
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.focused is screen.query_one("#contract-id"), "the contract id")
        await paste(pilot, "00" + "ab" * 32)
        await wait_for(pilot, lambda: "AmuletRules_Transfer" in screen.editor.choices(), "its choices")
        screen.query_one("#choice").focus()
        await paste(pilot, "AmuletRules_")
        type_at_once(app, *"Bogus", "escape")
        await wait_for(pilot, lambda: screen.focused is None, "out of the field")
        await settled(pilot, screen)
        shown = screen.query_one("#choice", CompletingInput).value
        # the preview follows the form a moment behind it (a debounce); it must come to agree, and stay so
        await wait_for(
            pilot,
            lambda: (
                re.findall(rb'"choice":"([^"]*)"', screen.query_one(RequestPreview).body or b"")
                == [shown.encode()]
            ),
            "the body to follow the field",
        )
        body = screen.query_one(RequestPreview).body
        sent = re.findall(rb'"choice":"([^"]*)"', body)
        assert shown == "AmuletRules_Bogus" and sent == [shown.encode()], (shown, sent, orjson.loads(body))
