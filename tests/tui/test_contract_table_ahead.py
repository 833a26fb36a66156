"""The contract table reads its rows ahead of the screen: paging through a view larger than the rows it holds never
draws a placeholder line, on a real snapshot cache file answering the table's reads as the contracts screen does."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from textual import on, work
from textual.app import App, ComposeResult
from textual.strip import Strip

from app.snapshot import Snapshot, ViewSpec
from app.widgets import contract_table
from app.widgets.acs_columns import BUILTIN
from app.widgets.contract_table import FETCH_MARGIN, ContractTable
from tests.tui.test_snapshot import _entry

CONTRACTS = 500
SIZE = (120, 24)
HELD = 300  # rows the table keeps (2,000 in the app): paging back up finds them gone too


class CountingTable(ContractTable):
    """A contract table that notes each line it drew as a placeholder (its row not here yet)."""

    def __init__(self) -> None:
        super().__init__()
        self.placeholders: list[int] = []

    def render_row(self, position: int, width: int, scroll_x: int) -> Strip:
        if self.row_at(position) is None:
            self.placeholders.append(position)
        return super().render_row(position, width, scroll_x)


class Browser(App[None]):
    """The table (`TABLE`) over a snapshot's view, its reads answered as `AcsScreen` answers them."""

    TABLE: type[ContractTable] = CountingTable

    def __init__(self, snapshot: Snapshot) -> None:
        super().__init__()
        self.snapshot = snapshot

    def compose(self) -> ComposeResult:
        yield self.TABLE()

    @on(ContractTable.WindowNeeded)
    def _window_needed(self, event: ContractTable.WindowNeeded) -> None:
        self._read(event.start, event.count, event.generation)

    @work(group="window")
    async def _read(self, start: int, count: int, generation: int) -> None:
        rows = await self.snapshot.views.window(start, count)
        self.query_one(ContractTable).set_rows(start, rows, generation)


@asynccontextmanager
async def snapshot_of(path: Path, contracts: int) -> AsyncIterator[tuple[Snapshot, int]]:
    """A snapshot cache file at `path` holding `contracts` rows, viewed in their order of arrival: the snapshot and
    the view's count."""
    snapshot = await Snapshot.open(path)
    try:
        await snapshot.store.reset(10)
        await snapshot.store.add_snapshot_entries([_entry(i) for i in range(contracts)])
        yield snapshot, await snapshot.views.build_view(ViewSpec(offset=10))
    finally:
        await snapshot.close()


async def show_view(table: ContractTable, snapshot: Snapshot, count: int) -> None:
    """The view given to the table with its first rows, as the contracts screen gives them."""
    first = await snapshot.views.window(0, table.page_size() + 2 * FETCH_MARGIN)
    columns = [BUILTIN["template"], BUILTIN["payload"], BUILTIN["contract"]]
    generation = table.set_view(count, columns, sort_key="arrival", descending=False)
    table.set_rows(0, first, generation)


async def _settle(app: Browser, pilot) -> None:
    """Every read asked for answered and drawn: the frame, the reads asked for once it is painted, their rows."""
    await pilot.pause()
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()


async def test_paging_down_and_back_up_never_draws_a_placeholder(tmp_path, monkeypatch):
    monkeypatch.setattr(contract_table, "CACHE_ROWS", HELD)
    async with snapshot_of(tmp_path / "cache.db", CONTRACTS) as (snapshot, count):
        app = Browser(snapshot)
        async with app.run_test(size=SIZE) as pilot:
            table = app.query_one(CountingTable)
            table.focus()
            await show_view(table, snapshot, count)
            await _settle(app, pilot)
            pages = count // table.page_size() + 1
            for key, last in (("pagedown", count - 1), ("pageup", 0)):
                for _ in range(pages):
                    await pilot.press(key)
                    await _settle(app, pilot)
                    assert table.placeholders == [], f"{key} to row {table.cursor} drew placeholders"
                assert table.cursor == last
                assert (
                    table.selected is not None
                    and table.selected.contract_id
                    == _entry(last)["contractEntry"]["JsActiveContract"]["createdEvent"]["contractId"]
                )
