"""What a new user meets first, found by trying the client as one (in a terminal, fresh HOME, 80×24 and 160×48),
against a real participant: `x` on a contract before Compose was ever opened lands in the choice, as it does once
Compose has been seen; the status line lists every screen's key, 7 included."""

from __future__ import annotations

from app.screens.acs import AcsScreen
from app.screens.composer import ComposerScreen
from app.widgets.completing_input import CompletingInput
from app.widgets.contract_table import ContractTable
from app.widgets.status_bar import StatusBar
from tests.client.test_packages import loaded  # noqa: F401  (the participant with richtypes and splice-amulet)
from tests.daml_lf.conftest import dars_dir  # noqa: F401  (pytest fixtures, used by name)
from tests.tui.conftest import wait_for
from tests.tui.test_composer_keyboard import settled

SMALL = (80, 24)


async def test_x_opening_compose_the_first_time_lands_in_the_choice(loaded, make_app):  # noqa: F811  (the fixture imported above)
    app = make_app(loaded)
    async with app.run_test(size=SMALL) as pilot:
        await wait_for(pilot, lambda: app.connected, "the connection")
        await wait_for(pilot, lambda: isinstance(app.screen, AcsScreen), "the contracts")
        table = app.screen.query_one(ContractTable)
        await wait_for(pilot, lambda: table.selected is not None, "a contract under the cursor")
        row = table.selected
        table.focus()
        await pilot.press("x")  # Compose was never shown in this session
        await wait_for(pilot, lambda: isinstance(app.screen, ComposerScreen), "the composer")
        screen: ComposerScreen = app.screen
        await wait_for(pilot, lambda: screen.packages is not None, "the packages read")
        await settled(pilot, screen)
        choice = screen.query_one("#choice", CompletingInput)
        await wait_for(pilot, lambda: screen.focused is choice.input, "the focus in the choice")
        await pilot.press(*"Iou_Split")
        await pilot.pause()
        template = screen.query_one("#template", CompletingInput)
        assert (choice.value, template.value) == ("Iou_Split", row.template_id)
        assert screen.editor.state().contract_id == row.contract_id


async def test_the_status_line_names_the_parties_screen_s_key(demo_server, make_app):
    app = make_app(demo_server)
    async with app.run_test(size=SMALL) as pilot:
        await wait_for(pilot, lambda: app.connected, "the connection")
        tabs = str(app.screen.query_one(StatusBar).render())
        assert " 6 " in tabs and " 7 " in tabs, tabs
