"""A table that shows a window of a view far larger than memory: it renders only the lines on screen and asks for
the rows it lacks (`WindowNeeded`); whoever owns the data answers with `set_rows`.

Textual's DataTable holds every row (13 s and 80 MB for 100,000 rows here); this one holds a few screens' worth,
whatever the view's size.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from rich.segment import Segment
from textual.geometry import Size
from textual.message import Message
from textual.strip import Strip

from app.cut import Keep, cut, fit
from app.snapshot import ADDED, ASSIGNED, CHANGED, REMOVED, UNASSIGNED, Row
from app.untrusted import visible
from app.widgets.row_window import clamp, missing_runs, spans_to_read
from app.widgets.table_window import window_line, window_segments
from app.widgets.windowed_table import WindowedTable, cell

CACHE_ROWS = 2000
FETCH_MARGIN = 60
# rows read ahead of the screen: once fewer than NEAR pages beyond it on a side are here, the missing rows up to FAR
# pages beyond are asked for; a key held down pages a few times between two reads, and has two pages' time for one
NEAR_PAGES = 2
FAR_PAGES = 5


@dataclass
class Column:
    key: str  # "contract", "template", ..., "payload.<field>"
    label: str
    width: int
    render: Callable[[Row], str]
    right: bool = False
    keep_end: bool = False  # cut from the left (`…` first): where a value's end tells it apart
    widest: int = 0  # cells of its widest value, when known: the column grows toward it as the screen allows


class ContractTable(WindowedTable[Row]):
    """The rows of a snapshot view; the cursor row is the selected contract."""

    COMPONENT_CLASSES = {
        "contract-table--header",
        "contract-table--sorted",
        "contract-table--cursor",
        "contract-table--added",
        "contract-table--removed",
        "contract-table--incomplete",
        "contract-table--changed",
        "contract-table--placeholder",
    }

    DEFAULT_CSS = """
    ContractTable > .contract-table--header { background: $panel; color: $text; text-style: bold; }
    ContractTable > .contract-table--sorted { background: $panel; color: $accent; text-style: bold; }
    ContractTable > .contract-table--cursor { background: $block-cursor-blurred-background; }
    ContractTable:focus > .contract-table--cursor { background: $block-cursor-background;
                                                    color: $block-cursor-foreground; }
    ContractTable > .contract-table--added { color: $success; }
    ContractTable > .contract-table--removed { color: $error; text-style: strike; }
    ContractTable > .contract-table--incomplete { color: $warning; }
    ContractTable > .contract-table--changed { color: $accent; }
    ContractTable > .contract-table--placeholder { color: $text-disabled; }
    """

    class WindowNeeded(Message):
        """Rows `start` .. `start + count - 1` are not here: fetch them and call `set_rows`."""

        def __init__(self, table: ContractTable, start: int, count: int, generation: int) -> None:
            super().__init__()
            # the table's message wherever it is made: made while the screen draws the table (a row missing) or
            # while the app hands it a held key's repeats, Textual took the screen or the app for its sender, and
            # a message stops bubbling at its sender's child: a handler above the screen never heard it
            self.set_sender(table)
            self.table = table
            self.start = start
            self.count = count
            self.generation = generation

    class CursorMoved(WindowedTable.CursorMoved[Row]):
        pass

    class Chosen(WindowedTable.Chosen[Row]):
        pass

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.columns: list[Column] = []
        """The columns as laid out for the screen's width (`lay_out`)."""
        self._given: list[Column] = []
        self.sort_key = "arrival"
        self.descending = False
        self._count = 0
        self.generation = 0
        self._rows: dict[int, Row] = {}
        self._pending: set[int] = set()

    # --- data ---------------------------------------------------------------------------------------------------

    @property
    def count(self) -> int:
        return self._count

    def set_view(
        self,
        count: int,
        columns: list[Column],
        *,
        sort_key: str,
        descending: bool,
        keep_rows: bool = False,
        cursor: int | None = None,
    ) -> int:
        """Show a view of `count` rows; returns the generation that `set_rows` must quote."""
        self.generation += 1
        self.forget_jump()
        self._count = count
        self._given = columns
        self.columns = lay_out(columns, self.scrollable_content_region.width)
        self.sort_key = sort_key
        self.descending = descending
        if not keep_rows:
            self._rows.clear()
        self._pending.clear()
        self.lines.clear()
        self.virtual_size = Size(self._line_width(), count + 1)
        if cursor is not None:
            self.cursor = clamp(cursor, count)
        elif self.cursor >= count:
            self.cursor = max(0, count - 1)
        self.scroll_cursor_into_view()
        # and again once laid out: a view that needs a horizontal scrollbar now has one line fewer for its rows
        # than the page measured above
        self.call_after_refresh(self.scroll_cursor_into_view)
        self.call_after_refresh(self._read_ends)
        self.refresh()
        return self.generation

    def grow(self, count: int) -> None:
        """More rows appended to the same view (while a snapshot is read): keep what is here."""
        if count == self._count:
            return
        old, self._count = self._count, count
        self.virtual_size = Size(self.virtual_size.width, count + 1)
        self._pending.clear()
        self.refresh_rows(old, count)  # the rows on screen stay as they are
        self.call_after_refresh(self._read_ends)  # a new end

    def set_rows(self, start: int, rows: list[Row], generation: int) -> None:
        if generation != self.generation:
            return  # an answer for a view that was replaced meanwhile
        for row in rows:
            self._rows[row.position] = row
            self._pending.discard(row.position)
        for position in range(start, start + len(rows)):
            self._pending.discard(position)
        # the rows kept are those nearest the screen, the ends' and where a jump waiting for its rows leads
        tops = [int(self.scroll_y), 0, max(0, self._count - self.page_size())]
        if self.jump_waiting is not None:
            tops.append(self.jump_waiting[1])
        if len(self._rows) > CACHE_ROWS:
            for position in sorted(self._rows, key=lambda p: min(abs(p - t) for t in tops), reverse=True)[
                : len(self._rows) - CACHE_ROWS
            ]:
                del self._rows[position]
        self.refresh_rows(start, start + len(rows))
        if start <= self.cursor < start + len(rows):
            self.post_message(self.CursorMoved(self, self._rows.get(self.cursor)))
        self.rows_arrived()

    def row_at(self, position: int) -> Row | None:
        return self._rows.get(position)

    def rows_here(self, start: int, end: int) -> bool:
        rows = self._rows
        return all(p in rows for p in range(start, end))

    def fetch_rows(self, start: int, end: int) -> None:
        """The rows a jump waits for, with a margin either side (what is missing of them, not asked for yet): one
        read for the screen, the rows around it read ahead once it is drawn there."""
        self._ask(
            missing_runs(max(0, start - FETCH_MARGIN), min(self._count, end + FETCH_MARGIN), self._missing)
        )

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        # once the frame is painted: a read in the cache's thread meanwhile would take turns with it for the GIL
        # (the rows on screen, if missing, are asked for as they are drawn)
        self.call_after_refresh(self._read_ahead)

    def _read_ahead(self) -> None:
        """Ask for the rows around the screen before they are scrolled to. Asked for only when drawn, the rows a
        PgDn brings were missing every few pages: a frame of placeholders, a read, and a second frame."""
        top = int(self.scroll_y)
        self._ask(spans_to_read(top, self.page_size(), self._count, self._missing, NEAR_PAGES, FAR_PAGES))

    def _read_ends(self) -> None:
        """Ask for the first and the last screens' rows, unless here: Home and End are drawn at once, wherever the
        screen is (while a snapshot is read, the end moves on with each growth: its new rows are read then)."""
        page = self.page_size()
        ends = [(0, min(self._count, page)), (max(0, self._count - page - FETCH_MARGIN), self._count)]
        self._ask([run for start, end in ends for run in missing_runs(start, end, self._missing)])

    def _ask(self, runs: list[tuple[int, int]]) -> None:
        """Ask for each run of rows (start, past the end), noted as asked for until they come."""
        for start, end in runs:
            self._pending.update(range(start, end))
            self.post_message(self.WindowNeeded(self, start, end - start, self.generation))

    def _missing(self, position: int) -> bool:
        return position not in self._rows and position not in self._pending

    def _request(self, position: int) -> None:
        if position in self._pending:
            return
        start = max(0, position - FETCH_MARGIN)
        count = min(self._count - start, self.page_size() + 2 * FETCH_MARGIN)
        self._pending.update(range(start, start + count))
        self.post_message(self.WindowNeeded(self, start, count, self.generation))

    # --- layout -------------------------------------------------------------------------------------------------

    def _line_width(self) -> int:
        return sum(c.width + 1 for c in self.columns) + 2

    def fit_width(self) -> None:
        columns = lay_out(self._given, self.scrollable_content_region.width)
        if (
            columns != self.columns
        ):  # another width: the columns that grow toward their values take another room
            self.columns = columns
            self.lines.clear()
            self.virtual_size = Size(self._line_width(), self._count + 1)
            self.refresh()

    # --- drawing ------------------------------------------------------------------------------------------------

    def render_row(self, position: int, width: int, scroll_x: int) -> Strip:
        row = self._rows.get(position)
        if row is None:
            self._request(position)
            style = self.component_style("contract-table--placeholder")
            text = "  …"
            # the cursor's line says why: a jump whose rows took longer than it waits for them (`JUMP_WAIT_S`)
            if position == self.cursor:
                style += self.component_style("contract-table--cursor")
                text = "  reading rows…"
            return Strip([Segment(fit(text, width), style)], width)
        key = (position, position == self.cursor, scroll_x, width)  # a view's row stays at its position
        strip = self.lines.get(key)
        if strip is None:
            strip = self.lines.put(key, self._row_strip(row, position, width, scroll_x))
        return strip

    def render_header(self, width: int, scroll_x: int) -> Strip:
        header = self.component_style("contract-table--header")
        sorted_style = self.component_style("contract-table--sorted")
        segments = [Segment("  ", header)]
        for column in self.columns:
            style = header
            if column.key == self.sort_key:
                # the name gives way, never the arrow: "amou… ▼"
                arrow = " ▼" if self.descending else " ▲"
                label = cut(visible(column.label), max(1, column.width - len(arrow))) + arrow
                style = sorted_style
            else:
                label = column.label
            segments.append(Segment(_fit(label, column) + " ", style))
        return window_segments(segments, scroll_x, width, header)

    def _row_strip(self, row: Row, position: int, width: int, scroll_x: int) -> Strip:
        base = self.component_style("base")
        mark = row_mark(row)
        component = _MARK_STYLES.get(mark)
        if component is not None:
            base += self.component_style(component)
        mark += " "
        if position == self.cursor:
            base += self.component_style("contract-table--cursor")
        cells = [mark]
        for column in self.columns:
            try:
                text = column.render(row)
            except Exception:  # noqa: BLE001 - a payload of an unexpected shape shows as such, never a crash
                text = "?"
            # the cell rule called here, not through a helper: a call less per cell of every line drawn
            keep: Keep = "end" if column.keep_end else "start"
            cells.append(cell(text, column.width, right=column.right, keep=keep) + " ")
        return window_line("".join(cells), scroll_x, width, base)


def lay_out(columns: list[Column], width: int) -> list[Column]:
    """The columns for a table `width` cells wide: one that knows its widest value (the template's) grows toward it
    while the columns before it and the one after it still fit on screen, up to 30% of the width (one long name
    does not push every other column away), and is never narrower than it was built; the rest keep their widths."""
    out = list(columns)
    for i, column in enumerate(columns):
        if column.widest <= column.width:
            continue
        before = 2 + sum(c.width + 1 for c in out[:i])  # the row's mark, then each column and its gap
        after = out[i + 1].width + 1 if i + 1 < len(out) else 0
        room = min(width - before - after - 1, width * 3 // 10)
        out[i] = replace(column, width=max(column.width, min(column.widest, room)))
    return out


def row_mark(row: Row) -> str:
    """The mark in front of a row: `+` a contract not there at the offset compared with, `-` one gone since (its
    state there, struck out), `~` one in flight (or assigned and not yet seen unassigned), `*` the same contract in
    another state (moved between synchronizers); blank otherwise. A move that left the contract in flight shows
    `~`, as the same state reached directly does."""
    if row.status == ADDED:
        return "+"
    if row.status == REMOVED:
        return "-"
    if row.kind in (UNASSIGNED, ASSIGNED):
        return "~"
    if row.status == CHANGED:
        return "*"
    return " "


_MARK_STYLES = {
    "+": "contract-table--added",
    "-": "contract-table--removed",
    "~": "contract-table--incomplete",
    "*": "contract-table--changed",
}


def _fit(text: str, column: Column) -> str:
    """A cell of the column: its width, its alignment, cut at the end that tells its values apart the least."""
    return cell(text, column.width, right=column.right, keep="end" if column.keep_end else "start")
