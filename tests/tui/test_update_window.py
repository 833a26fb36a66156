"""The transactions screen's window of rows and its filter line, without a participant: the window stays within
its capacity and contiguous however many updates come, the cursor stays on its row, and the filter reads as typed."""

from __future__ import annotations

from app.update_filter import UpdateFilter, parse_filter
from app.update_rows import TOPOLOGY, TRANSACTION, UpdateRow
from app.update_window import UpdateWindow

ALICE = frozenset({"Alice::1220"})


def row(
    offset: int, *, kind: str = TRANSACTION, command_id: str = "", choices: tuple[str, ...] = ()
) -> UpdateRow:
    return UpdateRow(
        offset=offset,
        update_id="",
        record_time="2026-01-01T00:00:00Z",
        kind=kind,
        command_id=command_id,
        workflow_id="",
        templates=("pkg:Iou:Iou",),
        choices=choices,
        created=1,
        archived=0,
        acting=("Alice::1220",),
        submitter="",
        parties=ALICE,
        contracts=(),
    )


def rows(first: int, last: int) -> list[UpdateRow]:
    return [row(o) for o in range(last, first - 1, -1)]


def test_a_million_live_updates_keep_the_window_at_its_capacity_and_contiguous() -> None:
    window = UpdateWindow(capacity=1_000)
    window.reset(rows(1, 100), high=100, low=None, at_head=True)
    cursor = 0
    for start in range(101, 1_000_001, 1_000):
        cursor = window.add_live(rows(start, start + 999), cursor, high=start + 999, tail=True)
        assert len(window) <= 1_000
    assert cursor == 0 and window.newest == 1_000_100
    assert [r.offset for r in window.rows] == list(range(1_000_100, 999_100, -1))
    assert window.low == 999_101 and not window.at_begin  # what was let go is read again when scrolled to


def test_live_updates_keep_the_cursor_on_its_row_and_repeat_nothing() -> None:
    window = UpdateWindow(capacity=100)
    window.reset(rows(1, 50), high=50, low=None, at_head=True)
    cursor = window.add_live(rows(51, 53), 10, high=53, tail=True)
    assert cursor == 13 and window.rows[cursor].offset == 40
    # the same updates again (a stream reopened from an earlier offset) and older ones change nothing
    assert window.add_live(rows(45, 53), cursor, high=53, tail=True) == cursor
    assert [r.offset for r in window.rows[:4]] == [53, 52, 51, 50]
    # on the newest row with `tail`, the cursor stays on the newest; without, on its row
    assert window.add_live(rows(54, 54), 0, high=54, tail=True) == 0
    assert window.add_live(rows(55, 55), 0, high=55, tail=False) == 1


def test_updates_that_would_push_the_cursors_row_out_are_counted_not_shown() -> None:
    window = UpdateWindow(capacity=100)
    window.reset(rows(1, 100), high=100, low=None, at_head=True)
    assert window.add_live(rows(101, 120), 90, high=120, tail=True) == 90
    assert not window.at_head and window.unseen == 20 and window.newest == 100
    window.add_live(rows(121, 121), 90, high=121, tail=True)
    assert window.unseen == 21
    # read again from where the window stopped, up to the head
    cursor = window.add_newer(rows(101, 121), high=121, at_head=True, cursor=90)
    assert window.at_head and window.unseen == 0 and window.newest == 121 and cursor == 99


def test_paging_back_slides_the_window() -> None:
    window = UpdateWindow(capacity=100)
    window.reset(rows(901, 1000), high=1000, low=901, at_head=True)
    cursor = window.add_older(rows(851, 900), low=851, cursor=99)
    assert len(window) == 100 and window.oldest == 851 and window.newest == 950
    assert not window.at_head and window.high == 950
    assert window.rows[cursor].offset == 901  # the row the cursor was on
    window.add_older(rows(1, 850), low=None, cursor=cursor)
    assert window.at_begin and window.oldest == 1 and len(window) == 100


def test_the_filter_line() -> None:
    f = parse_filter(
        "p:Alice party:Bob::1220ab t:#model-tests:Iou:Iou interface:#pkg:M:I c:abc USD  transfer"
    )
    assert f.parties == ("Alice", "Bob::1220ab")
    assert f.templates == ("#model-tests:Iou:Iou",) and f.interfaces == ("#pkg:M:I",)
    assert f.commands == ("abc",) and f.text == "USD transfer"
    assert parse_filter(f.describe()) == f
    assert parse_filter("").empty and parse_filter("zz:top").text == "zz:top"


def test_the_filter_in_the_rows() -> None:
    transfer = row(7, command_id="pay-42", choices=("Iou_Transfer",))
    assert UpdateFilter(commands=("pay",)).matches(transfer)
    assert not UpdateFilter(commands=("other",)).matches(transfer)
    assert UpdateFilter(text="iou_transfer ALICE").matches(transfer)
    assert not UpdateFilter(text="transfer bob").matches(transfer)
    topology = row(8, kind=TOPOLOGY)
    assert UpdateFilter().matches(topology)
    assert not UpdateFilter(templates=("#model-tests:Iou:Iou",)).matches(topology)


def test_a_cell_writes_out_control_characters_and_fits_wide_ones() -> None:
    from rich.cells import cell_len

    from app.widgets.windowed_table import cell

    text = cell("cmd\x1b[31m[b]red[/b]", 30)
    assert "\x1b" not in text and "[b]red[/b]" in text and cell_len(text) == 30
    assert cell_len(cell("アリス::1220", 8)) == 8
