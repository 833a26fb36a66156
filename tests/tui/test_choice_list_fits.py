"""The composer's choice list, open under a choice field low on the screen (reached with tab from a CreateAndExercise's
create arguments: the editor scrolls it into view at its bottom edge), fits between the status line and the footer
and leaves the field in view, at 80x24 and 160x48: it opens above the field when there is more room there, and
scrolls within itself (it was ten lines wherever the field was, pushed up over the field and the footer)."""

from __future__ import annotations

import pytest
from textual.geometry import Region
from textual.widgets import OptionList

from app.widgets.completing_input import CompletingInput
from app.widgets.keys import KeyFooter
from app.widgets.status_bar import StatusBar
from tests.client.test_packages import loaded  # noqa: F401  (the participant with richtypes and splice-amulet)
from tests.daml_lf.conftest import dars_dir  # noqa: F401  (pytest fixtures, used by name)
from tests.tui.conftest import wait_for
from tests.tui.test_composer_keyboard import AMULET_RULES
from tests.tui.test_typed_form import choose_template, open_composer


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_the_choice_list_fits_above_the_footer_and_leaves_the_field_in_view(loaded, make_app, size):  # noqa: F811  (the fixture imported above)
    app = make_app(loaded)
    async with app.run_test(size=size) as pilot:
        screen = await open_composer(pilot, app)
        await choose_template(pilot, screen, "CreateAndExercise", AMULET_RULES)
        choice = screen.query_one("#choice", CompletingInput)
        editor = screen.editor
        # the choice on the editor's last line, as tabbing down to it leaves it
        assert choice.region.y >= editor.region.bottom, "below the editor's view at first"
        editor.scroll_to_widget(choice, animate=False)  # the least scroll that shows it: to the bottom edge
        await wait_for(
            pilot,
            lambda: (
                editor.region.contains_region(choice.region)
                and choice.region.bottom >= editor.region.bottom - 2
            ),
            "the choice at the editor's bottom",
        )
        choice.input.focus(scroll_visible=False)
        await pilot.pause()
        await pilot.press("down")
        options = choice.query_one(OptionList)
        await wait_for(pilot, lambda: choice.is_open and options.option_count > 8, "the choices listed")
        listed = options.region
        status = screen.query_one(StatusBar).region
        footer = screen.query_one(KeyFooter).region
        assert listed.y >= status.bottom, (listed, status)
        assert listed.bottom <= footer.y, (listed, footer)
        assert not listed.overlaps(choice.input.region), (listed, choice.input.region)
        assert listed.height >= 5, listed  # a few choices at once, and the rest a scroll away
        assert Region(0, 0, *size).contains_region(listed)


async def test_a_list_opened_as_the_focus_scrolls_its_field_into_view_follows_the_field(loaded, make_app):  # noqa: F811  (the fixture imported above)
    """The choice field below the editor's view, focused as a tab focuses it: the editor scrolls it into view
    (animated) while its list opens; the list ends next to the field where it came to rest, not where it was."""
    app = make_app(loaded)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_composer(pilot, app)
        await choose_template(pilot, screen, "CreateAndExercise", AMULET_RULES)
        choice = screen.query_one("#choice", CompletingInput)
        editor = screen.editor
        assert choice.region.y >= editor.region.bottom, "below the editor's view at first"
        choice.input.focus()  # scrolled into view, as a tab does
        await wait_for(
            pilot,
            lambda: (
                choice.is_open
                and editor.region.contains_region(choice.input.region)
                and not editor.is_scrolling
            ),
            "the field in view, its list open",
        )

        def next_to_the_field() -> bool:
            listed, field = choice.query_one(OptionList).region, choice.input.region
            return listed.y == field.bottom or listed.bottom == field.y

        await wait_for(pilot, next_to_the_field, "the list next to the field")
        listed = choice.query_one(OptionList).region
        assert listed.bottom <= screen.query_one(KeyFooter).region.y, listed
        assert listed.y >= screen.query_one(StatusBar).region.bottom, listed
