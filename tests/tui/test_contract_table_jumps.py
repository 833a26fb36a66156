"""A jump farther than the rows the contract table holds (End, Home after End, a row found far away) is drawn once its
rows are here: no frame of placeholder lines in between, caught where the app hands its frames to the terminal
(`App._display`), on a real snapshot cache file answering the table's reads as the contracts screen does. Rows that
take too long come under a screen that has moved and says it is reading them."""

from __future__ import annotations

import asyncio

from textual import work
from textual.app import App

from app.snapshot import Snapshot, ViewSpec
from app.widgets import contract_table
from app.widgets.acs_columns import BUILTIN
from app.widgets.contract_table import FETCH_MARGIN, ContractTable
from tests.tui.conftest import wait_for
from tests.tui.test_contract_table_ahead import Browser
from tests.tui.test_snapshot import _entry

CONTRACTS = 3_000  # far more than the table reads ahead of the screen (five pages)
HELD = 150  # rows the table keeps (2,000 in the app): paging up from the end lets the first rows go
SIZE = (120, 24)


def contract_id(position: int) -> str:
    return _entry(position)["contractEntry"]["JsActiveContract"]["createdEvent"]["contractId"]


def whole(table: ContractTable) -> bool:
    """The cursor's row and every row on screen are here (no placeholder line)."""
    top = int(table.scroll_y)
    on_screen = range(top, min(table.count, top + table.page_size()))
    return table.row_at(table.cursor) is not None and all(table.row_at(p) is not None for p in on_screen)


class Frames:
    """Each frame the app paints: whether the table's rows were all there in it."""

    def __init__(self, app: App, table: ContractTable) -> None:
        self.partial: list[tuple[int, int]] = []  # (cursor, top) of each frame with a placeholder line
        display = app._display

        def shown(screen, renderable) -> None:
            display(screen, renderable)
            if renderable is not None and not whole(table):
                self.partial.append((table.cursor, int(table.scroll_y)))

        setattr(app, "_display", shown)  # noqa: B010  # over Textual's method, on this app only


class HeldBrowser(Browser):
    """Its reads wait until `release` is set: rows as slow as the test wants them."""

    def __init__(self, snapshot: Snapshot) -> None:
        super().__init__(snapshot)
        self.release = asyncio.Event()
        self.release.set()

    @work(group="window")
    async def _read(self, start: int, count: int, generation: int) -> None:
        await self.release.wait()
        rows = await self.snapshot.views.window(start, count)
        self.query_one(ContractTable).set_rows(start, rows, generation)


async def _browse(tmp_path, monkeypatch, run, browser: type[Browser] = HeldBrowser) -> None:
    monkeypatch.setattr(contract_table, "CACHE_ROWS", HELD)
    snapshot = await Snapshot.open(tmp_path / "cache.db")
    try:
        await snapshot.store.reset(10)
        await snapshot.store.add_snapshot_entries([_entry(i) for i in range(CONTRACTS)])
        count = await snapshot.views.build_view(ViewSpec(offset=10))
        app = browser(snapshot)
        async with app.run_test(size=SIZE) as pilot:
            table = app.query_one(ContractTable)
            table.focus()
            first = await snapshot.views.window(0, table.page_size() + 2 * FETCH_MARGIN)
            columns = [BUILTIN["template"], BUILTIN["payload"], BUILTIN["contract"]]
            generation = table.set_view(count, columns, sort_key="arrival", descending=False)
            table.set_rows(0, first, generation)
            await pilot.pause()
            await pilot.pause()
            await app.workers.wait_for_complete()
            await pilot.pause()
            await run(app, pilot, table, Frames(app, table))
    finally:
        await snapshot.close()


async def test_end_and_home_far_away_paint_no_placeholder_frame(tmp_path, monkeypatch):
    async def run(app, pilot, table: ContractTable, frames: Frames) -> None:
        assert table.row_at(CONTRACTS - 1) is None  # not read yet: the jump waits for it
        await pilot.press("end")
        await wait_for(pilot, lambda: table.cursor == CONTRACTS - 1 and whole(table), "the last rows")
        assert table.selected is not None and table.selected.contract_id == contract_id(CONTRACTS - 1)
        # a few pages up: the rows above are read ahead, and the rows held are those nearest the screen
        for _ in range(3):
            await pilot.press("pageup")
            await app.workers.wait_for_complete()
            await pilot.pause()
        assert table.row_at(0) is None  # gone: Home waits for them too
        await pilot.press("home")
        await wait_for(pilot, lambda: table.cursor == 0 and whole(table), "the first rows")
        assert frames.partial == []

    await _browse(tmp_path, monkeypatch, run)


async def test_a_row_found_far_away_is_drawn_with_its_rows(tmp_path, monkeypatch):
    async def run(app, pilot, table: ContractTable, frames: Frames) -> None:
        table.move_to(2_000)  # what the contracts screen does with a contract found by id
        await wait_for(pilot, lambda: table.cursor == 2_000 and whole(table), "the row found")
        assert table.selected is not None and table.selected.contract_id == contract_id(2_000)
        assert int(table.scroll_y) == 2_000 - table.page_size() // 2  # in the middle of the screen
        assert frames.partial == []

    await _browse(tmp_path, monkeypatch, run)


async def test_keys_while_a_jump_waits_move_from_where_it_leads(tmp_path, monkeypatch):
    async def run(app: HeldBrowser, pilot, table: ContractTable, frames: Frames) -> None:
        app.release.clear()
        await pilot.press("end", "up", "up")
        # the screen has not moved: the rows it would show are not here
        assert table.cursor == 0 and int(table.scroll_y) == 0
        assert table.selected is None  # not the row the screen is about to leave: enter there opens nothing
        assert table.jump_waiting == (CONTRACTS - 3, CONTRACTS - table.page_size())
        app.release.set()
        await wait_for(
            pilot, lambda: table.cursor == CONTRACTS - 3 and whole(table), "two rows above the end"
        )
        assert frames.partial == []

    await _browse(tmp_path, monkeypatch, run)


async def test_rows_that_take_too_long_come_under_a_screen_that_says_it_reads_them(tmp_path, monkeypatch):
    async def run(app: HeldBrowser, pilot, table: ContractTable, frames: Frames) -> None:
        app.release.clear()
        await pilot.press("end")
        # past `JUMP_WAIT_S` the screen moves, the cursor's line saying why its row is not there
        await wait_for(pilot, lambda: table.cursor == CONTRACTS - 1, "the cursor on the last row")
        await pilot.pause()
        cursor_line = table.cursor - int(table.scroll_y) + 1  # under the header
        assert "reading rows…" in table.render_line(cursor_line).text
        app.release.set()
        await wait_for(pilot, lambda: whole(table), "the last rows")
        assert table.selected is not None and table.selected.contract_id == contract_id(CONTRACTS - 1)

    await _browse(tmp_path, monkeypatch, run)
