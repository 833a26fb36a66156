"""A key held down, repeated faster than the screen is painted: the repeats waiting behind the key in flight are
given to the focused table at once (`app.app.keys`, `WindowedTable.take_repeats`), which moves as far as they lead
and is drawn there once, instead of page after page long after the last key. On a real snapshot cache file
answering the table's reads as the contracts screen does, keys posted at once as a terminal delivers a burst."""

from __future__ import annotations

from textual import events
from textual.app import App
from textual.binding import Binding
from textual.strip import Strip

from app.app.keys import Keys
from app.snapshot import Snapshot
from app.widgets.contract_table import ContractTable
from tests.tui.conftest import wait_for
from tests.tui.test_contract_table_ahead import Browser, show_view, snapshot_of

CONTRACTS = 1_000
SIZE = (120, 24)
HELD = 12  # PgDns of a key held down, waiting behind the first


class RecordingTable(ContractTable):
    """Notes where its cursor went and which rows it drew."""

    def __init__(self) -> None:
        super().__init__()
        self.moves: list[int] = []
        self.drawn: set[int] = set()

    def watch_cursor(self, old: int, new: int) -> None:
        super().watch_cursor(old, new)
        self.moves.append(new)

    def render_row(self, position: int, width: int, scroll_x: int) -> Strip:
        self.drawn.add(position)
        return super().render_row(position, width, scroll_x)


class KeyedBrowser(Browser):
    """The table over a snapshot's view, its keys handled by the app's `Keys` as in the ledger app."""

    TABLE = RecordingTable

    def __init__(self, snapshot: Snapshot, bindings: list[Binding] | None = None) -> None:
        super().__init__(snapshot)
        self.keys = Keys(self)
        self.noted: list[str] = []
        for binding in bindings or []:
            self._bindings.bind(binding.key, binding.action, priority=binding.priority)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key):
            await self.keys.handle(event, super().on_event)
            return
        await super().on_event(event)

    def action_note(self, what: str) -> None:
        self.noted.append(what)


def burst(app: App, *keys: str) -> None:
    """Keys posted at once: none waits for the app to handle the one before (a held key's repeats piled up)."""
    for key in keys:
        app.post_message(events.Key(key, None))


async def _browse(tmp_path, run, bindings: list[Binding] | None = None) -> None:
    async with snapshot_of(tmp_path / "cache.db", CONTRACTS) as (snapshot, count):
        app = KeyedBrowser(snapshot, bindings)
        async with app.run_test(size=SIZE) as pilot:
            table = app.query_one(RecordingTable)
            table.focus()
            await show_view(table, snapshot, count)
            # laid out (a horizontal scrollbar takes a line from the rows) and every read done
            await pilot.pause()
            await pilot.pause()
            await app.workers.wait_for_complete()
            await pilot.pause()
            table.moves.clear()
            table.drawn.clear()
            await run(app, pilot, table)


async def test_pgdns_piled_up_land_where_they_lead_drawn_once(tmp_path):
    async def run(app: KeyedBrowser, pilot, table: RecordingTable) -> None:
        burst(app, *["pagedown"] * HELD)

        def landed() -> bool:
            top = int(table.scroll_y)
            return (
                app.keys.idle
                and len(table.moves) >= 2
                and all(table.row_at(p) for p in range(top, top + table.page_size()))
            )

        await wait_for(pilot, landed, "the last page down, its rows read")
        await pilot.pause()
        page = table.page_size()
        shown = range(HELD * page, (HELD + 1) * page)
        # the first key moved alone (nothing waited behind it yet); the eleven behind it, once
        assert table.moves == [page, HELD * page]
        assert table.cursor == HELD * page and int(table.scroll_y) == HELD * page
        # the pages between were never drawn: no frame showed a place the keys had already left
        passed = set(range(2 * page, HELD * page))
        assert not table.drawn & passed, sorted(table.drawn & passed)[:5]
        assert set(shown) <= table.drawn

    await _browse(tmp_path, run)


async def test_runs_of_different_keys_keep_their_order(tmp_path):
    async def run(app: KeyedBrowser, pilot, table: RecordingTable) -> None:
        page = table.page_size()
        burst(app, "pagedown", "pagedown", "pagedown", "down", "pagedown", "pagedown", "pageup", "up", "up")
        target = 3 * page + 1 + 2 * page - page - 2
        await wait_for(pilot, lambda: app.keys.idle and table.cursor == target, f"row {target}")
        assert table.moves == [page, 3 * page, 3 * page + 1, 5 * page + 1, 4 * page + 1, target]

    await _browse(tmp_path, run)


async def test_a_key_a_priority_binding_takes_is_handled_key_by_key(tmp_path):
    async def run(app: KeyedBrowser, pilot, table: RecordingTable) -> None:
        burst(app, *["pagedown"] * 5)
        await wait_for(pilot, lambda: app.keys.idle and len(app.noted) == 5, "five notes")
        assert table.moves == []

    await _browse(tmp_path, run, [Binding("pagedown", "note('pgdn')", priority=True)])
