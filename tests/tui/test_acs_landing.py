"""A filter or a sort that lands the cursor far from the rows the contracts screen read shows the new view with the
rows around the cursor in its first frame: no frame of placeholder lines, caught where the app hands its frames to
the terminal (`App._display`), against a real participant with the demo ledger. The rows the table reads around
its screen are narrowed to the screen itself, so that the demo's contracts are "far" for it."""

from __future__ import annotations

from app.screens import acs
from app.screens.acs import AcsScreen
from app.widgets import contract_table
from app.widgets.contract_table import ContractTable
from tests.tui.conftest import known, wait_for
from tests.tui.test_contract_table_jumps import whole

SIZE = (120, 24)


def narrow_reads(monkeypatch) -> None:
    """The table reads the rows on screen only, and the screen those of the screen the cursor lands on."""
    for module in (acs, contract_table):
        monkeypatch.setattr(module, "FETCH_MARGIN", 0)
    monkeypatch.setattr(contract_table, "NEAR_PAGES", 0)
    monkeypatch.setattr(contract_table, "FAR_PAGES", 0)


def catch_partial_frames(app, table: ContractTable) -> list[tuple[int, int]]:
    """From now on, (cursor, top) of each frame painted with a placeholder line."""
    partial: list[tuple[int, int]] = []
    display = app._display

    def shown(on, renderable) -> None:
        display(on, renderable)
        if renderable is not None and not whole(table):
            partial.append((table.cursor, int(table.scroll_y)))

    setattr(app, "_display", shown)  # noqa: B010  # over Textual's method, on this app only
    return partial


async def _read(pilot, app) -> tuple[AcsScreen, ContractTable]:
    await wait_for(pilot, lambda: isinstance(app.screen, AcsScreen), "the contracts screen")
    screen = app.screen
    table = screen.query_one(ContractTable)
    await wait_for(pilot, lambda: not screen.reading and table.count > 0, "the snapshot read")
    assert table.count > 3 * table.page_size()  # the last screen and the first are apart
    return screen, table


async def test_clearing_a_filter_far_down_draws_the_whole_view_there_at_once(
    demo_server, make_app, monkeypatch
):
    narrow_reads(monkeypatch)
    app = make_app(demo_server, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        screen, table = await _read(pilot, app)
        everything = table.count
        await pilot.press("end")
        await wait_for(pilot, lambda: table.cursor == everything - 1 and whole(table), "the last row")
        last = known(table.selected).contract_id
        await pilot.press("slash", *last, "enter")
        await wait_for(pilot, lambda: table.count == 1 and whole(table), "the one matching row")
        partial = catch_partial_frames(app, table)
        await pilot.press("escape")  # the whole view again, the cursor on the same contract: the last
        await wait_for(
            pilot,
            lambda: table.count == everything and table.cursor == everything - 1 and whole(table),
            "the end",
        )
        assert known(table.selected).contract_id == last
        assert partial == []


async def test_a_contract_found_far_down_is_drawn_with_its_rows(demo_server, make_app, monkeypatch):
    narrow_reads(monkeypatch)
    app = make_app(demo_server, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        screen, table = await _read(pilot, app)
        assert screen.snapshot is not None
        wanted = known((await screen.snapshot.views.window(table.count - 3, 1))[0]).contract_id
        partial = catch_partial_frames(app, table)
        screen.select_contract(wanted)  # as after the inspector returns, or a find by id
        await wait_for(
            pilot,
            lambda: table.selected is not None and table.selected.contract_id == wanted and whole(table),
            "the contract found",
        )
        assert partial == []
