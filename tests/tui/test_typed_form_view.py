"""A typed form larger than the screen, against a real participant with the splice-amulet DAR: the filled
AmuletRules_Transfer argument (75 rows), whose rows are drawn only when in view and have widgets only while they
have the focus. Tab goes on from the last row in view to the rows below it, a problem on a row out of view is
reached and scrolled into view, and a row scrolled away and back shows what was typed into it."""

from __future__ import annotations

import orjson
from textual.widgets import Input

from app.compose.form_rows import FormRow
from app.screens.composer import ComposerScreen
from app.widgets.json_editor import JsonEditor
from app.widgets.typed_form import TypedForm
from bench.tui_form import CONTRACT, filled
from tests.client.test_packages import loaded  # noqa: F401  (the participant with richtypes and splice-amulet)
from tests.daml_lf.conftest import dars_dir  # noqa: F401  (pytest fixtures, used by name)
from tests.tui.conftest import SIZE, known, wait_for
from tests.tui.helpers import paste, text_of
from tests.tui.test_composer_keyboard import AMULET_RULES, focused_row
from tests.tui.test_typed_form import open_composer

SENDER = "choiceArgument.transfer.sender"


async def filled_transfer(pilot, app, value: dict) -> tuple[ComposerScreen, TypedForm]:
    """The composer with AmuletRules_Transfer chosen and its argument filled with `value` through the JSON view
    (F2 and back), the focus in the form's first row."""
    screen = await open_composer(pilot, app)
    while screen.editor.kind != "Exercise":
        await pilot.press("ctrl+t")
    screen.query_one("#template").focus()
    await paste(pilot, AMULET_RULES)
    await pilot.press("enter")
    await wait_for(pilot, lambda: screen.focused is screen.query_one("#contract-id"), "the contract id")
    await paste(pilot, CONTRACT)
    await wait_for(pilot, lambda: "AmuletRules_Transfer" in screen.editor.choices(), "its choices")
    screen.query_one("#choice").focus()
    await paste(pilot, "AmuletRules_Transfer")
    await pilot.press("enter")
    await wait_for(pilot, lambda: focused_row(screen) is not None, "the focus in the form")
    await pilot.press("f2")
    json_editor = screen.query_one("#choice-argument", JsonEditor)
    await wait_for(pilot, lambda: json_editor.display, "the JSON view")
    json_editor.set_text(orjson.dumps(value).decode())
    await pilot.press("f2")
    form = screen.query_one("#choice-form-typed", TypedForm)
    await wait_for(pilot, lambda: screen.editor.form_view and len(form.rows.rows) > 70, "the filled form")
    form.focus_path(SENDER)
    await wait_for(pilot, lambda: path_focused(screen) == SENDER, "the focus in the sender")
    return screen, form


def path_focused(screen: ComposerScreen) -> str | None:
    """The focused row's path; None between rows (the row left, the next one's widgets not yet made)."""
    row = focused_row(screen)
    return row.path if row is not None else None


def in_view(screen: ComposerScreen, form: TypedForm, row: FormRow) -> bool:
    """The row's line is inside the composer's scrolled region."""
    line = form.rows.line_of(row)
    return line is not None and screen.editor.region.y <= form.region.y + line < screen.editor.region.bottom


def widget_in_view(screen: ComposerScreen, widget) -> bool:
    return screen.editor.region.contains_region(widget.region)


async def test_tab_goes_on_from_the_last_row_in_view_to_the_rows_below_it(loaded, make_app) -> None:  # noqa: F811  (the fixture imported above)
    app = make_app(loaded)
    async with app.run_test(size=SIZE) as pilot:
        screen, form = await filled_transfer(pilot, app, filled(3))
        focusable = [row for row in form.rows.rows if row.takes_focus]
        below = [row for row in focusable if not in_view(screen, form, row)]
        assert below, "the form fits the screen: nothing to test"
        target = below[0]
        # the last row in view, the focus sent there by the program: the tabs through the rows above it were a
        # render of the whole form each (the order of tabs between rows in view: test_keys_typed_form)
        last_in_view = focusable[focusable.index(target) - 1]
        assert in_view(screen, form, last_in_view)
        form.focus_path(last_in_view.path)
        await wait_for(
            pilot, lambda: path_focused(screen) == last_in_view.path, "the focus in the last row in view"
        )
        assert form.editor is not None and form.editor.row is last_in_view
        assert not in_view(screen, form, target)  # nothing scrolled yet
        await pilot.press("tab")
        await wait_for(
            pilot, lambda: path_focused(screen) not in (last_in_view.path, None), "the focus moved on"
        )
        # to the next row, below the view: not out of the form
        assert path_focused(screen) == target.path
        order = [row.path for row in form.rows.rows]
        editor = form.editor
        assert editor is not None
        await wait_for(pilot, lambda: widget_in_view(screen, editor), "the row scrolled into view")
        assert len(form.query("RowEditor")) == 1  # one row has widgets: the one with the focus
        await pilot.press("shift+tab")
        await wait_for(pilot, lambda: path_focused(screen) not in (target.path, None), "the focus back")
        assert order.index(known(path_focused(screen))) < order.index(target.path)


async def test_a_problem_on_a_row_out_of_view_is_reached_and_shown(loaded, make_app) -> None:  # noqa: F811  (the fixture imported above)
    app = make_app(loaded)
    async with app.run_test(size=SIZE) as pilot:
        value = filled(3)
        value["expectedDso"] = "not a party!"
        screen, form = await filled_transfer(pilot, app, value)
        problems = form.form.problems()
        assert [p.path for p in problems] == ["choiceArgument.expectedDso"]
        bad = form.rows.find("choiceArgument.expectedDso")
        assert bad is not None and not in_view(screen, form, bad)
        await pilot.press("ctrl+g")  # to the first problem
        await wait_for(
            pilot, lambda: path_focused(screen) == "choiceArgument.expectedDso", "the problem's row"
        )
        editor = form.editor
        assert editor is not None
        await wait_for(pilot, lambda: widget_in_view(screen, editor), "the row scrolled into view")
        assert bad.problem and "a party id has letters" in bad.problem


async def test_a_row_scrolled_away_and_back_keeps_what_was_typed(loaded, make_app) -> None:  # noqa: F811  (the fixture imported above)
    app = make_app(loaded)
    async with app.run_test(size=SIZE) as pilot:
        screen, form = await filled_transfer(pilot, app, filled(3))
        await pilot.press("ctrl+u", *"Alice")
        sender = form.rows.find(SENDER)
        assert sender is not None and text_of(sender) == "Alice"
        # the first row far enough down that, scrolled into view, it takes the sender's row out of view (and its
        # widgets with it)
        sender_line, height = form.rows.line_of(sender), screen.editor.region.height
        assert sender_line is not None
        below = next(
            row
            for row in form.rows.rows
            if row.takes_focus and (form.rows.line_of(row) or 0) > sender_line + height
        )
        form.focus_path(below.path)
        await wait_for(pilot, lambda: path_focused(screen) == below.path, "the focus in a row below the view")
        await wait_for(pilot, lambda: not in_view(screen, form, sender), "the sender scrolled away")
        assert form.current is not sender
        # back up: the focus sent by the program to the row after the sender (the shift+tabs up to it were a render
        # of the whole form each), then shift+tab to the sender, whose widgets are made again
        after_sender = next(
            row for row in form.rows.rows[form.rows.rows.index(sender) + 1 :] if row.takes_focus
        )
        form.focus_path(after_sender.path)
        await wait_for(pilot, lambda: path_focused(screen) == after_sender.path, "the focus after the sender")
        await pilot.press("shift+tab")
        await wait_for(
            pilot, lambda: path_focused(screen) not in (after_sender.path, None), "the focus moved back"
        )
        assert path_focused(screen) == SENDER
        editor = form.editor
        assert editor is not None
        assert editor.query_one(Input).value == "Alice" and text_of(sender) == "Alice"
        assert form.form.to_json()["transfer"]["sender"].startswith("Alice::")
