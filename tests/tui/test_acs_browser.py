"""The contracts screen against a real participant with the demo ledger."""

from __future__ import annotations

from app.screens.acs import AcsScreen
from app.snapshot import ADDED, REMOVED
from app.widgets.contract_table import ContractTable
from tests.tui.conftest import SIZE, screen_text, wait_for


def _loaded(app) -> bool:
    screen = app.screen
    return isinstance(screen, AcsScreen) and not screen.loading and screen.query_one(ContractTable).count > 0


async def test_browses_the_ledger_end_as_the_user(demo_server, make_app):
    app = make_app(demo_server, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: _loaded(app), "the first rows")
        screen = app.screen
        table = screen.query_one(ContractTable)
        await wait_for(pilot, lambda: table.row_at(0) is not None, "a rendered row")
        text = screen_text(app)
        assert "user Alice" in text
        assert f"ledger end {app.status_ledger_end}" in text
        assert "Iou:Iou" in text
        row = table.row_at(0)
        assert any(p.startswith("Alice::") for p in row.signatories + row.observers)


async def test_steps_back_to_the_previous_change_and_marks_the_difference(demo_server, make_app):
    app = make_app(demo_server, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: _loaded(app), "the first rows")
        screen: AcsScreen = app.screen
        end = screen.offset
        await pilot.press("left_square_bracket")
        await wait_for(pilot, lambda: screen.offset != end and not screen.loading, "an earlier offset")
        assert screen.offset < end
        table = screen.query_one(ContractTable)
        await wait_for(pilot, lambda: table.selected is not None, "the first changed row")
        assert table.selected.status in (ADDED, REMOVED)
        assert f"viewing {screen.offset}" in screen_text(app)
        await pilot.press("e")
        await wait_for(pilot, lambda: screen.offset == app.status_ledger_end, "the ledger end again")
