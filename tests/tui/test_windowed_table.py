"""The shape every table shares (`app.widgets.windowed_table`): its arithmetic alone, then a table of its own over a
list driven by Pilot (keys, paging, clicks, messages, an empty source), then the three tables' live follow as the
source grows under a cursor on its last row."""

from __future__ import annotations

import time

import pytest
from rich.segment import Segment
from textual import on
from textual.app import App, ComposeResult
from textual.geometry import Size
from textual.strip import Strip

from app.client.requests_log import RequestRecord
from app.update_rows import UpdateRow
from app.update_window import UpdateWindow
from app.widgets.contract_table import ContractTable
from app.widgets.request_list import RequestList
from app.widgets.row_window import (
    centred_top,
    clamp,
    missing_runs,
    paged,
    row_under,
    rows_on_screen,
    spans_to_read,
    top_showing,
)
from app.widgets.update_table import UpdateTable
from app.widgets.windowed_table import WindowedTable
from tests.tui.conftest import known, wait_for

HEIGHT = 12
PAGE = HEIGHT - 1  # the lines under the header


# --- the arithmetic ---------------------------------------------------------------------------------------------


def test_clamp_keeps_a_position_within_the_rows_and_an_empty_table_at_zero():
    assert [clamp(p, 5) for p in (-3, 0, 4, 5, 99)] == [0, 0, 4, 4, 4]
    assert clamp(7, 0) == 0 and clamp(-1, 0) == 0


def test_the_screen_moves_only_as_far_as_the_cursor_needs():
    assert top_showing(cursor=12, top=10, page=5) == 10  # on screen: no scroll
    assert top_showing(cursor=3, top=10, page=5) == 3  # above: on the first line
    assert top_showing(cursor=20, top=10, page=5) == 16  # below: on the last line
    assert centred_top(20, 10) == 15 and centred_top(2, 10) == 0


def test_a_page_past_either_end_stops_the_cursor_on_the_last_or_first_row():
    assert paged(cursor=95, top=90, direction=1, page=10, count=100) == (99, 100)
    assert paged(cursor=3, top=0, direction=-1, page=10, count=100) == (0, 0)
    assert paged(cursor=0, top=0, direction=1, page=10, count=0) == (0, 10)


def test_lines_and_rows():
    assert row_under(0, top=5, count=10) is None  # the header
    assert row_under(1, top=5, count=10) == 5
    assert row_under(6, top=5, count=10) is None  # under the last row
    assert rows_on_screen(0, 3, top=5, page=4) is None
    assert rows_on_screen(6, 20, top=5, page=4) == (1, 4)


def test_rows_are_read_ahead_once_fewer_than_a_page_beyond_the_screen_are_here():
    def held(start: int, end: int):
        return lambda p: not start <= p < end

    assert missing_runs(0, 10, lambda p: p in (2, 3, 7)) == [(2, 4), (7, 8)]
    # rows 0 .. 29 here, 10 on screen from row 10: a page beyond it either side, nothing to read
    assert spans_to_read(10, 10, 1000, held(0, 30), near=1, far=4) == []
    # a page down: the page below is not all here, so the rows up to four pages below the screen are read
    assert spans_to_read(20, 10, 1000, held(0, 30), near=1, far=4) == [(30, 70)]
    # a jump: the screen's rows first, then below it, then above it; never past either end
    assert spans_to_read(990, 10, 1000, held(0, 30), near=1, far=4) == [(990, 1000), (950, 990)]
    assert spans_to_read(500, 10, 1000, held(0, 30), near=1, far=4) == [(500, 510), (510, 550), (460, 500)]


# --- a table of its own, over a list ----------------------------------------------------------------------------


class ListTable(WindowedTable[str]):
    class CursorMoved(WindowedTable.CursorMoved[str]):
        pass

    class Chosen(WindowedTable.Chosen[str]):
        pass

    def __init__(self, rows: list[str]) -> None:
        super().__init__()
        self.rows = rows
        self.virtual_size = Size(20, len(rows) + 1)

    @property
    def count(self) -> int:
        return len(self.rows)

    def row_at(self, position: int) -> str | None:
        return self.rows[position] if 0 <= position < len(self.rows) else None

    def render_header(self, width: int, scroll_x: int) -> Strip:
        return Strip([Segment("row".ljust(width))], width)

    def render_row(self, position: int, width: int, scroll_x: int) -> Strip:
        mark = ">" if position == self.cursor else " "
        return Strip([Segment((mark + self.rows[position]).ljust(width))], width)


class OtherTable(ListTable):
    class CursorMoved(WindowedTable.CursorMoved[str]):  # not ListTable's
        pass


class Tables(App[None]):
    def __init__(self, rows: list[str], others: list[str] | None = None) -> None:
        super().__init__()
        self.rows = rows
        self.others = others
        self.moved: list[str | None] = []
        self.chosen: list[str] = []

    def compose(self) -> ComposeResult:
        yield ListTable(self.rows)
        if self.others is not None:
            yield OtherTable(self.others)

    @on(ListTable.CursorMoved)
    def _moved(self, event: ListTable.CursorMoved) -> None:
        self.moved.append(event.row)

    @on(ListTable.Chosen)
    def _chosen(self, event: ListTable.Chosen) -> None:
        self.chosen.append(event.row)


def rows(n: int) -> list[str]:
    return [f"row {i}" for i in range(n)]


def on_screen(table: WindowedTable) -> bool:
    top = int(table.scroll_y)
    return top <= table.cursor < top + table.page_size()


async def test_the_cursor_stops_at_both_ends():
    app = Tables(rows(30))
    async with app.run_test(size=(40, HEIGHT)) as pilot:
        table = app.query_one(ListTable)
        assert table.page_size() == PAGE
        await pilot.press("up", "k")
        assert table.cursor == 0 and table.selected == "row 0"
        await pilot.press("end")
        assert table.cursor == 29 and on_screen(table)
        await pilot.press("down", "j")
        assert table.cursor == 29
        await pilot.press("home")
        assert table.cursor == 0 and int(table.scroll_y) == 0
        await pilot.press("G", "g")
        assert table.cursor == 0


async def test_paging_past_the_end_stops_on_the_last_row_and_back_on_the_first():
    app = Tables(rows(30))
    async with app.run_test(size=(40, HEIGHT)) as pilot:
        table = app.query_one(ListTable)
        await pilot.press("pagedown")
        assert table.cursor == PAGE and on_screen(table)
        await pilot.press("pagedown", "pagedown", "pagedown")
        assert table.cursor == 29 and on_screen(table)
        assert table.visible_rows()[-1] == "row 29"
        await pilot.press("pageup", "pageup", "pageup", "pageup")
        assert table.cursor == 0 and on_screen(table)


async def test_an_empty_source_draws_blank_lines_and_ignores_the_keys():
    app = Tables([])
    async with app.run_test(size=(40, HEIGHT)) as pilot:
        table = app.query_one(ListTable)
        await pilot.press("down", "pagedown", "end", "up", "pageup", "home")
        await pilot.click(ListTable, offset=(5, 3), times=2)
        assert table.cursor == 0 and table.selected is None and table.visible_rows() == []
        assert table.render_line(3).text.strip() == ""
        assert app.chosen == []
        table.move_to(5)
        assert table.cursor == 0


async def test_a_click_selects_a_row_and_a_double_click_chooses_it():
    app = Tables(rows(30))
    async with app.run_test(size=(40, HEIGHT)) as pilot:
        table = app.query_one(ListTable)
        await pilot.click(ListTable, offset=(5, 4))
        assert table.cursor == 3 and app.chosen == []
        await pilot.click(ListTable, offset=(5, 4), times=2)
        assert app.chosen == ["row 3"]
        await pilot.click(ListTable, offset=(5, 0))  # the header
        assert table.cursor == 3


async def test_each_table_hears_its_own_cursor_messages():
    """A table's messages are its own subclasses: a screen listening to one table's cursor does not hear another's
    (a handler of the base's message would hear every table's)."""
    app = Tables(rows(30), others=rows(30))
    async with app.run_test(size=(40, 2 * HEIGHT)) as pilot:
        await pilot.pause()
        app.moved.clear()
        app.query_one(OtherTable).cursor = 5
        await pilot.pause()
        assert app.moved == []
        app.query_one(ListTable).cursor = 4
        await pilot.pause()
        assert app.moved == ["row 4"]


async def test_the_cursor_lines_are_repainted_as_it_moves():
    app = Tables(rows(30))
    async with app.run_test(size=(40, HEIGHT)) as pilot:
        table = app.query_one(ListTable)
        await pilot.press("down", "down")
        await pilot.pause()
        lines = [strip.text for strip in app.screen._compositor.render_strips()]
        assert [line[0] for line in lines[1:4]] == [" ", " ", ">"]
        assert table.cursor == 2


# --- live follow: a source that grows under a cursor on its last row --------------------------------------------


def record(i: int) -> RequestRecord:
    return RequestRecord(
        i, "GET", f"http://h/v2/r{i}", f"/v2/r{i}", time.time(), {}, status=200, duration_ms=1.0
    )


class Requests(App[None]):
    def compose(self) -> ComposeResult:
        yield RequestList()


async def test_requests_follow_the_newest_while_the_cursor_is_on_it_and_stay_put_otherwise():
    app = Requests()
    async with app.run_test(size=(120, HEIGHT)) as pilot:
        requests = app.query_one(RequestList)
        requests.reset([record(i) for i in range(5)])
        assert requests.cursor == 4 and requests.following
        for i in range(5, 40):
            requests.upsert(record(i))
            await pilot.pause()
        assert requests.cursor == 39 and known(requests.selected).id == 39 and on_screen(requests)

        await pilot.press("home", "down")  # on request 1: arrivals leave it there
        requests.upsert(record(40))
        await pilot.pause()
        assert requests.cursor == 1 and known(requests.selected).id == 1 and not requests.following
        requests.drop_before(1)  # the log forgot request 0: the cursor keeps its request
        await pilot.pause()
        assert known(requests.selected).id == 1 and requests.cursor == 0

        await pilot.press("end")
        requests.remove_record(40)  # the newest gone from under the cursor: the one before it
        await pilot.pause()
        assert known(requests.selected).id == 39 and requests.following


def update(offset: int) -> UpdateRow:
    return UpdateRow(
        offset=offset,
        update_id=f"u{offset}",
        record_time="2026-11-26T11:12:15.123456Z",
        kind="transaction",
        command_id="",
        workflow_id="",
        templates=(),
        choices=(),
        created=1,
        archived=0,
        acting=(),
        submitter="",
        parties=frozenset(),
        contracts=(),
    )


class Updates(App[None]):
    def __init__(self, window: UpdateWindow) -> None:
        super().__init__()
        self.window = window

    def compose(self) -> ComposeResult:
        yield UpdateTable(self.window)


@pytest.mark.parametrize("tail", [True, False])
async def test_updates_joining_on_top_keep_the_cursor_on_the_newest_or_on_its_own_row(tail):
    window = UpdateWindow()
    window.reset([update(o) for o in range(1, 31)], high=30, low=None, at_head=True)
    app = Updates(window)
    async with app.run_test(size=(120, HEIGHT)) as pilot:
        table = app.query_one(UpdateTable)
        table.rows_changed(0, replaced=True)
        await pilot.pause()
        for high in range(31, 61):
            table.rows_changed(window.add_live([update(high)], table.cursor, high=high, tail=tail))
            await pilot.pause()
        newest = table.selected
        assert newest is not None and newest.offset == (60 if tail else 30) and on_screen(table)


async def test_a_contract_view_growing_under_the_cursor_leaves_it_where_it_is():
    app = Contracts()
    async with app.run_test(size=(120, HEIGHT)) as pilot:
        table = app.query_one(ContractTable)
        table.set_view(20, [], sort_key="arrival", descending=False)
        # no rows ever come to this table: an end waits for them (`JUMP_WAIT_S`), then goes there all the same
        await pilot.press("end")
        await wait_for(pilot, lambda: table.cursor == 19, "the last row")
        table.grow(200)
        await pilot.pause()
        assert table.count == 200 and table.cursor == 19 and on_screen(table)
        await pilot.press("end")
        await wait_for(pilot, lambda: table.cursor == 199, "the new last row")
        assert on_screen(table)


class Contracts(App[None]):
    def compose(self) -> ComposeResult:
        yield ContractTable()
