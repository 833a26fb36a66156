"""A jump farther than the rows the contract table holds (End before its rows are read, a row found far away) is drawn
once its rows are here: no frame of placeholder lines in between, caught where the app hands its frames to the terminal
(`App._display`), on a real snapshot cache file answering the table's reads as the contracts screen does. Rows that
take too long come under a screen that has moved and says it is reading them. The rows of both ends are read with
the view and kept: Home and End are drawn at once from anywhere."""

from __future__ import annotations

import asyncio

from textual import work
from textual.app import App

from app.snapshot import Snapshot
from app.widgets import contract_table, windowed_table
from app.widgets.contract_table import ContractTable
from tests.tui.conftest import wait_for
from tests.tui.test_contract_table_ahead import Browser, show_view, snapshot_of
from tests.tui.test_snapshot import _entry

CONTRACTS = 3_000  # far more than the table reads ahead of the screen (five pages)
HELD = 400  # rows the table keeps (2,000 in the app): paging around the middle reads more than that
SIZE = (120, 24)
PATIENT_S = 60.0  # a jump's wait for its rows in the tests that look at the screen while it waits: never over


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


async def _browse(tmp_path, monkeypatch, run, *, reads_held: bool = False) -> None:
    """`run` on the table over a view of CONTRACTS rows, its first rows given with it; every read it asks for
    answered, or with `reads_held` none yet (until the test releases them)."""
    monkeypatch.setattr(contract_table, "CACHE_ROWS", HELD)
    async with snapshot_of(tmp_path / "cache.db", CONTRACTS) as (snapshot, count):
        app = HeldBrowser(snapshot)
        async with app.run_test(size=SIZE) as pilot:
            table = app.query_one(ContractTable)
            table.focus()
            if reads_held:
                app.release.clear()
            await show_view(table, snapshot, count)
            await pilot.pause()
            await pilot.pause()
            if not reads_held:
                await app.workers.wait_for_complete()
                await pilot.pause()
            await run(app, pilot, table, Frames(app, table))


async def test_end_whose_rows_are_not_read_yet_keeps_the_screen_until_they_come(tmp_path, monkeypatch):
    monkeypatch.setattr(windowed_table, "JUMP_WAIT_S", PATIENT_S)

    async def run(app: HeldBrowser, pilot, table: ContractTable, frames: Frames) -> None:
        assert table.row_at(CONTRACTS - 1) is None  # asked for with the view, not read yet
        await pilot.press("end")
        assert table.cursor == 0 and int(table.scroll_y) == 0  # the screen as it was
        app.release.set()
        await wait_for(pilot, lambda: table.cursor == CONTRACTS - 1 and whole(table), "the last rows")
        assert table.selected is not None and table.selected.contract_id == contract_id(CONTRACTS - 1)
        assert frames.partial == []

    await _browse(tmp_path, monkeypatch, run, reads_held=True)


async def test_the_ends_rows_are_kept_and_home_and_end_drawn_at_once_from_anywhere(tmp_path, monkeypatch):
    async def run(app: HeldBrowser, pilot, table: ContractTable, frames: Frames) -> None:
        table.move_to(1_500)
        await wait_for(pilot, lambda: table.cursor == 1_500 and whole(table), "the middle rows")
        # pages down and up from there: more rows read ahead than the table holds
        for key in ["pagedown"] * 4 + ["pageup"] * 8:
            await pilot.press(key)
            await app.workers.wait_for_complete()
            await pilot.pause()
        app.release.clear()  # nothing is read from now on
        for key, row in (("end", CONTRACTS - 1), ("home", 0), ("end", CONTRACTS - 1)):
            await pilot.press(key)
            assert table.cursor == row and whole(table), key
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
    monkeypatch.setattr(windowed_table, "JUMP_WAIT_S", PATIENT_S)

    async def run(app: HeldBrowser, pilot, table: ContractTable, frames: Frames) -> None:
        app.release.clear()
        table.move_to(2_000)  # a contract found
        await pilot.press("up", "up")
        # the screen has not moved: the rows it would show are not here
        assert table.cursor == 0 and int(table.scroll_y) == 0
        assert table.selected is None  # not the row the screen is about to leave: enter there opens nothing
        assert table.jump_waiting == (1_998, 2_000 - table.page_size() // 2)
        app.release.set()
        await wait_for(pilot, lambda: table.cursor == 1_998 and whole(table), "two rows above the one found")
        assert frames.partial == []

    await _browse(tmp_path, monkeypatch, run)


async def test_rows_that_take_too_long_come_under_a_screen_that_says_it_reads_them(tmp_path, monkeypatch):
    async def run(app: HeldBrowser, pilot, table: ContractTable, frames: Frames) -> None:
        app.release.clear()
        table.move_to(2_000)
        # past `JUMP_WAIT_S` the screen moves, the cursor's line saying why its row is not there
        await wait_for(pilot, lambda: table.cursor == 2_000, "the cursor on the row found")
        await pilot.pause()
        cursor_line = table.cursor - int(table.scroll_y) + 1  # under the header
        assert "reading rows…" in table.render_line(cursor_line).text
        app.release.set()
        await wait_for(pilot, lambda: whole(table), "the rows around it")
        assert table.selected is not None and table.selected.contract_id == contract_id(2_000)

    await _browse(tmp_path, monkeypatch, run)


async def test_a_contract_found_comes_with_the_rows_around_it(tmp_path):
    async with snapshot_of(tmp_path / "cache.db", CONTRACTS) as (snapshot, _):
        found = await snapshot.views.rows_around(contract_id(2_000), 30, 50)
        assert found is not None
        position, start, rows = found
        assert (position, start) == (2_000, 1_970)
        assert [r.contract_id for r in rows] == [contract_id(p) for p in range(1_970, 2_050)]
        near_the_end = await snapshot.views.rows_around(contract_id(CONTRACTS - 2), 5, 50)
        assert near_the_end is not None and len(near_the_end[2]) == 7  # as far as the view goes
        assert await snapshot.views.rows_around("f" * 66, 5, 5) is None
