"""The composer against a real participant: a second submit of an unchanged command asks first, and the focused
control shows by shape, not by colour alone."""

from __future__ import annotations

import json

from textual.widgets import Input, OptionList, Select

from app.compose.commands import CommandForm, new_command_id
from app.screens.dialogs import ChoiceDialog
from app.widgets.json_editor import JsonEditor
from app.widgets.transaction_result import TransactionResult
from tests.tui.conftest import SIZE, wait_for
from tests.tui.test_composer import IOU, open_composer, outcome, submissions


def create_form(app, amount: str) -> CommandForm:
    alice = app.session.identity.act_as[0]
    arguments = {"issuer": alice, "owner": alice, "currency": "EUR", "amount": amount, "observers": []}
    return CommandForm(
        kind="Create",
        template_id=IOU,
        act_as=alice,
        command_id=new_command_id(),
        create_arguments=json.dumps(arguments),
    )


async def test_submitting_the_same_command_again_asks_first(demo_writable, make_app):
    app = make_app(demo_writable, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot, app)
        screen.editor.load(create_form(app, "3.0"))
        await pilot.press("ctrl+s")
        await outcome(pilot, screen, "-ok", "the first transaction")
        sent = len(submissions(app))
        end = await app.session.client.ledger_end()
        first_id = submissions(app)[-1].request_body

        await pilot.press("ctrl+s")  # the same form, with only its fresh commandId changed
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceDialog), "the question")
        assert app.screen.title_text == "Submit the same command again?"
        await pilot.press("enter")  # the default: no
        await wait_for(pilot, lambda: app.screen is screen and not screen.submitting, "the form again")
        assert len(submissions(app)) == sent
        assert await app.session.client.ledger_end() == end

        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceDialog), "the question again")
        await pilot.press("down", "enter")  # yes
        await wait_for(
            pilot, lambda: len(submissions(app)) == sent + 1 and not screen.submitting, "the resubmit"
        )
        assert submissions(app)[-1].status == 200 and submissions(app)[-1].request_body != first_id
        assert await app.session.client.ledger_end() > end

        screen.editor.load(create_form(app, "4.0"))  # a changed form goes straight through
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: len(submissions(app)) == sent + 2, "the changed command sent")
        assert not isinstance(app.screen, ChoiceDialog)
        await outcome(pilot, screen, "-ok", "its transaction")


def border_types(widget) -> set[str]:
    return {edge[0] for edge in widget.styles.border}


def label_style(widget) -> set[str]:
    label = widget.parent.query_one(".field-label")
    style = label.styles.text_style
    return {name for name in ("bold", "reverse") if getattr(style, name)}


async def test_the_focused_control_shows_by_shape(demo_writable, make_app):
    app = make_app(demo_writable, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot, app)
        kind = screen.query_one("#kind", Select)
        template = screen.query_one("#template")
        template_input = template if isinstance(template, Input) else template.query_one(Input)
        # the compact kind selector: its row's label turns bold and reversed while it has the focus
        kind.focus()
        await pilot.pause()
        assert label_style(kind) == {"bold", "reverse"}
        assert label_style(template) == set()
        template_input.focus()
        await pilot.pause()
        assert label_style(kind) == set() and label_style(template) == {"bold", "reverse"}
        # a bordered editor: a heavy border while focused, the usual tall one otherwise
        create = screen.query_one("#create-arguments", JsonEditor).area
        assert border_types(create) == {"tall"}
        create.focus()
        await pilot.pause()
        assert border_types(create) == {"heavy"}

        # the result list: a heavy border when focused, space kept for it (blank) when not
        screen.editor.load(create_form(app, "5.0"))
        await pilot.press("ctrl+s")
        result = await outcome(pilot, screen, "-ok", "the transaction")
        events = result.query_one(OptionList)
        assert screen.focused is events and border_types(events) == {"heavy"}
        template_input.focus()
        await pilot.pause()
        assert border_types(events) == {"blank"}
        assert isinstance(result, TransactionResult)
