"""A table that shows a window of a view far larger than memory: it renders only the lines on screen and asks for
the rows it lacks (`WindowNeeded`); whoever owns the data answers with `set_rows`.

Textual's DataTable holds every row (13 s and 80 MB for 100,000 rows here); this one holds a few screens' worth,
whatever the view's size.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from app.cut import cut, fit
from app.snapshot import ADDED, ASSIGNED, CHANGED, REMOVED, UNASSIGNED, Row
from app.untrusted import visible
from app.widgets.table_window import window_line, window_segments

CACHE_ROWS = 2000
FETCH_MARGIN = 60
CACHE_LINES = 400  # rendered lines kept (a few screens); a repaint of lines already drawn costs a dict lookup


@dataclass
class Column:
    key: str  # "contract", "template", ..., "payload.<field>"
    label: str
    width: int
    render: Callable[[Row], str]
    right: bool = False
    keep_end: bool = False  # cut from the left (`…` first): where a value's end tells it apart
    widest: int = 0  # cells of its widest value, when known: the column grows toward it as the screen allows


class ContractTable(ScrollView, can_focus=True):
    """The rows of a snapshot view; the cursor row is the selected contract."""

    BINDINGS = [
        Binding("up,k", "cursor(-1)", "Up", show=False),
        Binding("down,j", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home,g", "first", "First row", show=False),
        Binding("end,G", "last", "Last row", show=False),
        Binding("left,h", "scroll_columns(-1)", "Scroll left", show=False),
        Binding("right,l", "scroll_columns(1)", "Scroll right", show=False),
    ]

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
    ContractTable {
        background: $surface;
        scrollbar-gutter: stable;
    }
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

    cursor: reactive[int] = reactive(0)
    """Position of the selected row in the view."""

    class WindowNeeded(Message):
        """Rows `start` .. `start + count - 1` are not here: fetch them and call `set_rows`."""

        def __init__(self, table: ContractTable, start: int, count: int, generation: int) -> None:
            super().__init__()
            self.table = table
            self.start = start
            self.count = count
            self.generation = generation

    class CursorMoved(Message):
        def __init__(self, table: ContractTable, row: Row | None) -> None:
            super().__init__()
            self.table = table
            self.row = row

    class Chosen(Message):
        """A double click on a row (enter is the screen's binding, which users can remap)."""

        def __init__(self, table: ContractTable, row: Row) -> None:
            super().__init__()
            self.table = table
            self.row = row

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.columns: list[Column] = []
        """The columns as laid out for the screen's width (`lay_out`)."""
        self._given: list[Column] = []
        self.sort_key = "arrival"
        self.descending = False
        self.count = 0
        self.generation = 0
        self._rows: dict[int, Row] = {}
        self._pending: set[int] = set()
        self._lines: dict[tuple[int, bool, int, int], Strip] = {}  # (position, cursor on it, scroll_x, width)
        self._styles: dict[str, Style] = {}

    # --- data ---------------------------------------------------------------------------------------------------

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
        self.count = count
        self._given = columns
        self.columns = lay_out(columns, self.scrollable_content_region.width)
        self.sort_key = sort_key
        self.descending = descending
        if not keep_rows:
            self._rows.clear()
        self._pending.clear()
        self._lines.clear()
        self.virtual_size = Size(self._line_width(), count + 1)
        if cursor is not None:
            self.cursor = max(0, min(cursor, count - 1))
        elif self.cursor >= count:
            self.cursor = max(0, count - 1)
        self._scroll_cursor_into_view()
        # and again once laid out: a view that needs a horizontal scrollbar now has one line fewer for its rows
        # than the page measured above
        self.call_after_refresh(self._scroll_cursor_into_view)
        self.refresh()
        return self.generation

    def grow(self, count: int) -> None:
        """More rows appended to the same view (while a snapshot is read): keep what is here."""
        if count == self.count:
            return
        old, self.count = self.count, count
        self.virtual_size = Size(self.virtual_size.width, count + 1)
        self._pending.clear()
        self._refresh_positions(old, count)  # the rows on screen stay as they are

    def set_rows(self, start: int, rows: list[Row], generation: int) -> None:
        if generation != self.generation:
            return  # an answer for a view that was replaced meanwhile
        for row in rows:
            self._rows[row.position] = row
            self._pending.discard(row.position)
        for position in range(start, start + len(rows)):
            self._pending.discard(position)
        top = int(self.scroll_y)
        if len(self._rows) > CACHE_ROWS:
            for position in sorted(self._rows, key=lambda p: abs(p - top), reverse=True)[
                : len(self._rows) - CACHE_ROWS
            ]:
                del self._rows[position]
        self._refresh_positions(start, start + len(rows))
        if start <= self.cursor < start + len(rows):
            self.post_message(self.CursorMoved(self, self._rows.get(self.cursor)))

    def row_at(self, position: int) -> Row | None:
        return self._rows.get(position)

    @property
    def selected(self) -> Row | None:
        return self._rows.get(self.cursor)

    def visible_rows(self) -> list[Row]:
        top = int(self.scroll_y)
        return [r for p in range(top, top + self._page_size()) if (r := self._rows.get(p)) is not None]

    # --- movement -----------------------------------------------------------------------------------------------

    def _page_size(self) -> int:
        return max(1, self.scrollable_content_region.height - 1)

    def watch_cursor(self, old: int, new: int) -> None:
        self._scroll_cursor_into_view()  # a scroll repaints every line by itself
        self.refresh_row(old)
        self.refresh_row(new)
        self.post_message(self.CursorMoved(self, self._rows.get(new)))

    def _line_width(self) -> int:
        return sum(c.width + 1 for c in self.columns) + 2

    def on_resize(self) -> None:
        columns = lay_out(self._given, self.scrollable_content_region.width)
        if (
            columns != self.columns
        ):  # another width: the columns that grow toward their values take another room
            self.columns = columns
            self._lines.clear()
            self.virtual_size = Size(self._line_width(), self.count + 1)
            self.refresh()
        # a panel shown or hidden around the table (the filter box) changes how many rows fit: keep the cursor seen
        self.call_after_refresh(self._scroll_cursor_into_view)

    def _scroll_cursor_into_view(self) -> None:
        page = self._page_size()
        top = int(self.scroll_y)
        if self.cursor < top:
            self._scroll_to_row(self.cursor)
        elif self.cursor >= top + page:
            self._scroll_to_row(self.cursor - page + 1)

    def _scroll_to_row(self, y: float) -> None:
        # force: Textual ignores a vertical scroll while the scrollbar of its last layout is hidden, as it is when a
        # view of a few rows has just been replaced by a long one; the rows on screen must follow the cursor anyway
        self.scroll_to(y=y, animate=False, force=True)

    def action_cursor(self, delta: int) -> None:
        if self.count:
            self.cursor = max(0, min(self.count - 1, self.cursor + delta))

    def action_page(self, direction: int) -> None:
        if self.count:
            page = self._page_size()
            self._scroll_to_row(max(0, self.scroll_y + direction * page))
            self.cursor = max(0, min(self.count - 1, self.cursor + direction * page))

    def action_first(self) -> None:
        self.cursor = 0

    def action_last(self) -> None:
        if self.count:
            self.cursor = self.count - 1

    def action_scroll_columns(self, direction: int) -> None:
        self.scroll_to(x=max(0, self.scroll_x + direction * 12), animate=False, force=True)

    def move_to(self, position: int) -> None:
        """Select the row at `position`, scrolling it to the middle of the screen."""
        if not self.count:
            return
        position = max(0, min(self.count - 1, position))
        self._scroll_to_row(max(0, position - self._page_size() // 2))
        self.cursor = position

    def on_click(self, event) -> None:
        line = event.y
        if line >= 1:
            position = int(self.scroll_y) + line - 1
            if position < self.count:
                if position == self.cursor and event.chain >= 2 and self.selected is not None:
                    self.post_message(self.Chosen(self, self.selected))
                self.cursor = position

    # --- rendering ----------------------------------------------------------------------------------------------

    def notify_style_update(self) -> None:
        super().notify_style_update()  # focus, theme or CSS changed: the cursor's colours among others
        self._styles.clear()
        self._lines.clear()

    def _style(self, name: str) -> Style:
        """The widget's style or a component's, computed once per style change (not once per line)."""
        style = self._styles.get(name)
        if style is None:
            style = self.rich_style if name == "base" else self.get_component_rich_style(name)
            self._styles[name] = style
        return style

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        scroll_x = int(self.scroll_x)
        if y == 0:
            return self._header(width, scroll_x)
        position = int(self.scroll_y) + y - 1
        if position >= self.count:
            return Strip.blank(width, self._style("base"))
        row = self._rows.get(position)
        if row is None:
            self._request(position)
            style = self._style("contract-table--placeholder")
            if position == self.cursor:
                style += self._style("contract-table--cursor")
            return Strip([Segment(fit("  …", width), style)], width)
        key = (position, position == self.cursor, scroll_x, width)
        strip = self._lines.get(key)
        if strip is None:
            if len(self._lines) >= CACHE_LINES:
                self._lines.clear()
            strip = self._lines[key] = self._row_strip(row, position, width, scroll_x)
        return strip

    def _header(self, width: int, scroll_x: int) -> Strip:
        header = self._style("contract-table--header")
        sorted_style = self._style("contract-table--sorted")
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
        base = self._style("base")
        mark = row_mark(row)
        component = _MARK_STYLES.get(mark)
        if component is not None:
            base += self._style(component)
        mark += " "
        if position == self.cursor:
            base += self._style("contract-table--cursor")
        cells = [mark]
        for column in self.columns:
            try:
                text = column.render(row)
            except Exception:  # noqa: BLE001 - a payload of an unexpected shape shows as such, never a crash
                text = "?"
            cells.append(_fit(text, column) + " ")
        return window_line("".join(cells), scroll_x, width, base)

    def _request(self, position: int) -> None:
        if position in self._pending:
            return
        page = self._page_size()
        start = max(0, position - FETCH_MARGIN)
        count = min(self.count - start, page + 2 * FETCH_MARGIN)
        self._pending.update(range(start, start + count))
        self.post_message(self.WindowNeeded(self, start, count, self.generation))

    def refresh_row(self, position: int) -> None:
        self._refresh_positions(position, position + 1)

    def _refresh_positions(self, start: int, end: int) -> None:
        """Repaint the lines of the rows at positions start .. end - 1 that are on screen."""
        top = int(self.scroll_y)
        first, last = max(start, top), min(end, top + self._page_size())
        if first < last:
            self.refresh(Region(0, first - top + 1, self.size.width, last - first))


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
    """A cell: one line of the column's width, the participant's control characters written out, cut as `app.cut`
    cuts (a value too long ends in `…`, never shows as a shorter value)."""
    keep = "end" if column.keep_end else "start"
    return fit(visible(text.replace("\n", " ")), column.width, right=column.right, keep=keep)
