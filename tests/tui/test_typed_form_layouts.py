"""What a key typed into a typed form costs the screen: the screen is laid out again (Textual's
`Screen._refresh_layout`, counted where Textual calls it) only when the form's lines change in number, never for a
key that only changes a value; and what is typed still shows as it did (a text longer than its field scrolls)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.screen import Screen

from app.widgets.keys import FieldInput
from app.widgets.typed_form import TypedForm
from tests.daml_lf.conftest import dars_dir  # noqa: F401  (a pytest fixture, used by name)
from tests.tui.conftest import SIZE, screen_text, wait_for
from tests.tui.helpers import text_of
from tests.tui.test_typed_form import (  # noqa: F401  (rich_reader: a pytest fixture, used by name)
    RICH_RECORD,
    choose_template,
    open_composer,
    rich_reader,
    type_into,
)


class Layouts:
    """The screen layouts Textual makes: `count` every one, `sizing` those that size widgets again (not only move
    them after a scroll)."""

    def __init__(self) -> None:
        self.count = 0
        self.sizing = 0


@pytest.fixture
def layouts(monkeypatch) -> Iterator[Layouts]:
    counted = Layouts()
    original = Screen._refresh_layout

    def refresh_layout(screen: Screen, size=None, scroll: bool = False) -> None:
        counted.count += 1
        if not scroll or screen._layout_widgets or screen._layout_required:
            counted.sizing += 1
        original(screen, size, scroll)

    monkeypatch.setattr(Screen, "_refresh_layout", refresh_layout)
    yield counted


async def test_keys_that_change_a_value_lay_nothing_out_and_a_problem_line_does(
    rich_reader,  # noqa: F811  (the fixture imported above)
    make_app,
    layouts: Layouts,
) -> None:
    app = make_app(rich_reader)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot, app)
        await choose_template(pilot, screen, "Create", RICH_RECORD)
        label = await type_into(pilot, screen, "createArguments.label", "a")
        count = await type_into(pilot, screen, "createArguments.count", "1")
        # the preview says what is still missing once, before the keys counted: the keys change none of it
        screen.refresh_preview()
        await pilot.pause()

        layouts.count = 0
        await pilot.press(*"2345678")  # the Int64 `count`, still a whole number
        await wait_for(pilot, lambda: text_of(count) == "12345678", "the digits typed")
        screen.refresh_preview()  # the preview following (it may have meanwhile, at a pause between keys)
        await pilot.pause()
        assert layouts.count == 0, f"{layouts.count} layouts of the screen for 7 keys that changed a value"
        assert count.problem is None

        await pilot.press("x")  # not a whole number: a problem line under the row
        await wait_for(pilot, lambda: count.problem is not None, "the problem")
        shown = f"⚠ {count.problem}"[:40]
        await wait_for(pilot, lambda: shown in screen_text(app), "the problem line shown")
        form = screen.query_one("#create-form-typed", TypedForm)
        # the form grew by a line: laid out, its last line moved down rather than cut
        await wait_for(pilot, lambda: form.size.height == len(form.rows.lines), "the form laid out anew")
        assert layouts.count >= 1

        await type_into(pilot, screen, "createArguments.label", "")
        layouts.count = 0
        await pilot.press(*"bcdef")
        await wait_for(pilot, lambda: text_of(label) == "abcdef", "the letters typed")
        await pilot.pause()
        assert layouts.count == 0, f"{layouts.count} layouts of the screen for 5 keys that changed a value"


class NarrowField(App):
    CSS = "Horizontal { width: 20; height: 1; } FieldInput { width: 1fr; }"

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield FieldInput(compact=True)


async def test_a_text_longer_than_its_field_scrolls_to_the_cursor_as_it_is_typed(layouts: Layouts) -> None:
    app = NarrowField()
    async with app.run_test(size=(40, 3)) as pilot:
        field = app.query_one(FieldInput)
        field.focus()
        await pilot.pause()
        layouts.sizing = 0
        await pilot.press(*"abcdefghijklmnopqrstuvwxyz0123")
        await wait_for(pilot, lambda: field.value == "abcdefghijklmnopqrstuvwxyz0123", "the keys typed")
        await pilot.pause()
        assert layouts.sizing == 0  # (its text scrolled within it: Textual moves what scrolled)
        assert field.scroll_x == 11  # 30 characters and the cursor after them, in 20 cells
        assert screen_text(app).splitlines()[0].startswith("lmnopqrstuvwxyz0123")
        await pilot.press("home")
        await wait_for(pilot, lambda: field.scroll_x == 0, "the field scrolled back to its start")
        assert screen_text(app).splitlines()[0].startswith("abcdefghijklmnopqrst")
