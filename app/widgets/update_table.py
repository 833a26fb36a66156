"""The transactions screen's table: the rows of an `UpdateWindow`, drawn line by line (only those on screen), with a
cursor. It asks for more rows (`EdgeReached`) when the cursor comes near either end of the window."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.strip import Strip

from app.daml import short_party, template_name
from app.update_rows import UpdateRow
from app.update_window import UpdateWindow
from app.widgets.row_window import clamp
from app.widgets.table_window import window_line
from app.widgets.windowed_table import WindowedTable, cell

EDGE_MARGIN = 40  # rows from an end of the window at which the next page is asked for


@dataclass(frozen=True)
class Column:
    label: str
    width: int
    render: Callable[[UpdateRow], str]
    right: bool = False


def _time(row: UpdateRow) -> str:
    # 2026-11-26T11:12:15.123456Z → 2026-11-26 11:12:15.123
    text = row.record_time.replace("T", " ").rstrip("Z")
    head, dot, fraction = text.partition(".")
    return head + (dot + fraction[:3] if dot else "")


def _time_of_day(row: UpdateRow) -> str:
    return _time(row).rpartition(" ")[2]


def _changes(row: UpdateRow) -> str:
    return f"+{row.created} -{row.archived}" if row.kind == "transaction" else ""


def _who(row: UpdateRow) -> str:
    return ", ".join(short_party(p) for p in row.who)


def _columns(time: Column, templates: int) -> list[Column]:
    # what tells updates apart first: on a narrow terminal the rest is a scroll (or the line under the table) away
    return [
        Column("offset", 8, lambda r: str(r.offset), right=True),
        time,
        Column("kind", 11, lambda r: r.kind),
        Column("templates", templates, lambda r: ", ".join(template_name(t) for t in r.templates) or "—"),
        Column("choices", 18, lambda r: ", ".join(r.choices) or "—"),
        Column("+new -arch", 10, _changes),
        Column("command id", 18, lambda r: r.command_id or "—"),
        Column("workflow", 12, lambda r: r.workflow_id or "—"),
        Column("acting (root actors)", 24, lambda r: _who(r) or "—"),
    ]


WIDE = _columns(Column("record time", 23, _time), 24)
NARROW = _columns(Column("record time", 12, _time_of_day), 16)  # the day is on the line under the table
NARROW_BELOW = 150  # columns of the table's area under which NARROW is used


class UpdateTable(WindowedTable[UpdateRow]):
    BINDINGS = [
        Binding("home,g", "first", "Newest", show=False),
        Binding("end,G", "last", "Oldest", show=False),
    ]

    COMPONENT_CLASSES = {"update-table--header", "update-table--cursor", "update-table--muted"}

    DEFAULT_CSS = """
    UpdateTable > .update-table--header { background: $panel; color: $text; text-style: bold; }
    UpdateTable > .update-table--cursor { background: $block-cursor-blurred-background; }
    UpdateTable:focus > .update-table--cursor { background: $block-cursor-background;
                                                color: $block-cursor-foreground; }
    UpdateTable > .update-table--muted { color: $text-muted; }
    """

    class EdgeReached(Message):
        """The cursor is near the newest (`direction` -1) or the oldest (+1) end of the window."""

        def __init__(self, direction: int) -> None:
            super().__init__()
            self.direction = direction

    class NewestWanted(Message):
        """Home was pressed on a window that does not hold the newest updates: read them."""

    class CursorMoved(WindowedTable.CursorMoved[UpdateRow]):
        pass

    class Chosen(WindowedTable.Chosen[UpdateRow]):
        pass

    def __init__(self, window: UpdateWindow, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.window = window
        """The rows, newest first: the cursor's position 0 is the newest row."""
        self.virtual_size = Size(sum(c.width + 1 for c in WIDE) + 1, 1)

    @property
    def count(self) -> int:
        return len(self.window)

    def row_at(self, position: int) -> UpdateRow | None:
        rows = self.window.rows
        return rows[position] if 0 <= position < len(rows) else None

    def rows_changed(self, cursor: int, *, replaced: bool = False) -> None:
        """The window changed (rows added or dropped; with `replaced`, read afresh, perhaps with another filter that
        shows the same updates otherwise): draw it again with the cursor at `cursor`."""
        if replaced:
            self.lines.clear()
        count = len(self.window)
        self.virtual_size = Size(self.virtual_size.width, count + 1)
        cursor = clamp(cursor, count)
        if cursor != self.cursor:
            # keep the cursor's row where it was on screen: rows that join on top push the view down with it
            self.scroll_to_row(max(0, self.scroll_y + cursor - self.cursor))
            self.set_reactive(UpdateTable.cursor, cursor)
        self.scroll_cursor_into_view()
        self.refresh()
        self.post_message(self.CursorMoved(self, self.selected))

    # --- movement: the window reads more as the cursor nears an end ---------------------------------------------

    def watch_cursor(self, old: int, new: int) -> None:
        super().watch_cursor(old, new)
        if new < EDGE_MARGIN and not self.window.at_head:
            self.post_message(self.EdgeReached(-1))
        elif new >= len(self.window) - EDGE_MARGIN and not self.window.at_begin:
            self.post_message(self.EdgeReached(1))

    def action_cursor(self, delta: int) -> None:
        if self.count and self.cursor + delta < 0 and not self.window.at_head:
            self.post_message(self.EdgeReached(-1))
        super().action_cursor(delta)

    def action_page(self, direction: int) -> None:
        self.action_cursor(direction * self.page_size())

    def action_first(self) -> None:
        if not self.window.at_head:
            self.post_message(self.NewestWanted())  # which puts the cursor on the newest once read
        else:
            self.cursor = 0

    # --- drawing ------------------------------------------------------------------------------------------------

    def columns(self) -> list[Column]:
        return NARROW if self.size.width < NARROW_BELOW else WIDE

    def fit_width(self) -> None:
        columns = self.columns()
        self.virtual_size = Size(sum(c.width + 1 for c in columns) + 1, self.virtual_size.height)

    def render_header(self, width: int, scroll_x: int) -> Strip:
        line = " " + "".join(cell(c.label, c.width, right=c.right) + " " for c in self.columns())
        return window_line(line, scroll_x, width, self.component_style("update-table--header"))

    def render_row(self, position: int, width: int, scroll_x: int) -> Strip:
        row = self.window.rows[position]
        on_cursor = position == self.cursor
        # by offset, not position, so that a line drawn once is drawn again from here when live updates push it
        # down the screen
        key = (row.offset, on_cursor, scroll_x, width)
        strip = self.lines.get(key)
        if strip is None:
            style = self.component_style("base")
            if on_cursor:
                style += self.component_style("update-table--cursor")
            line = " " + "".join(cell(c.render(row), c.width, right=c.right) + " " for c in self.columns())
            strip = self.lines.put(key, window_line(line, scroll_x, width, style))
        return strip


__all__ = ["NARROW", "WIDE", "UpdateTable"]
