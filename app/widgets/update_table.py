"""The transactions screen's table: the rows of an `UpdateWindow`, drawn line by line (only those on screen), with a
cursor. It asks for more rows (`EdgeReached`) when the cursor comes near either end of the window."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rich.style import Style
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from app.cut import fit
from app.daml import short_party, template_name
from app.untrusted import visible
from app.update_rows import UpdateRow
from app.update_window import UpdateWindow
from app.widgets.table_window import window_line

EDGE_MARGIN = 40  # rows from an end of the window at which the next page is asked for
CACHE_LINES = 400


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


class UpdateTable(ScrollView, can_focus=True):
    BINDINGS = [
        Binding("up,k", "cursor(-1)", "Up", show=False),
        Binding("down,j", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home,g", "first", "Newest", show=False),
        Binding("end,G", "last", "Oldest", show=False),
        Binding("left,h", "scroll_columns(-1)", "Scroll left", show=False),
        Binding("right,l", "scroll_columns(1)", "Scroll right", show=False),
    ]

    COMPONENT_CLASSES = {"update-table--header", "update-table--cursor", "update-table--muted"}

    DEFAULT_CSS = """
    UpdateTable { background: $surface; scrollbar-gutter: stable; }
    UpdateTable > .update-table--header { background: $panel; color: $text; text-style: bold; }
    UpdateTable > .update-table--cursor { background: $block-cursor-blurred-background; }
    UpdateTable:focus > .update-table--cursor { background: $block-cursor-background;
                                                color: $block-cursor-foreground; }
    UpdateTable > .update-table--muted { color: $text-muted; }
    """

    cursor: reactive[int] = reactive(0)
    """Position of the selected row in the window (0: the newest row)."""

    class EdgeReached(Message):
        """The cursor is near the newest (`direction` -1) or the oldest (+1) end of the window."""

        def __init__(self, direction: int) -> None:
            super().__init__()
            self.direction = direction

    class NewestWanted(Message):
        """Home was pressed on a window that does not hold the newest updates: read them."""

    class CursorMoved(Message):
        def __init__(self, row: UpdateRow | None) -> None:
            super().__init__()
            self.row = row

    class Chosen(Message):
        """A double click on a row (enter is the screen's binding)."""

        def __init__(self, row: UpdateRow) -> None:
            super().__init__()
            self.row = row

    def __init__(self, window: UpdateWindow, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.window = window
        # (offset, cursor on it, scroll_x, width): by offset, not position, so that a line drawn once is drawn
        # again from here when live updates push it down the screen
        self._lines: dict[tuple[int, bool, int, int], Strip] = {}
        self._styles: dict[str, Style] = {}
        self.virtual_size = Size(sum(c.width + 1 for c in WIDE) + 1, 1)

    @property
    def selected(self) -> UpdateRow | None:
        rows = self.window.rows
        return rows[self.cursor] if 0 <= self.cursor < len(rows) else None

    def rows_changed(self, cursor: int, *, replaced: bool = False) -> None:
        """The window changed (rows added or dropped; with `replaced`, read afresh, perhaps with another filter that
        shows the same updates otherwise): draw it again with the cursor at `cursor`."""
        if replaced:
            self._lines.clear()
        count = len(self.window)
        self.virtual_size = Size(self.virtual_size.width, count + 1)
        cursor = max(0, min(cursor, count - 1))
        if cursor != self.cursor:
            # keep the cursor's row where it was on screen: rows that join on top push the view down with it
            self.scroll_to(y=max(0, self.scroll_y + cursor - self.cursor), animate=False, force=True)
            self.set_reactive(UpdateTable.cursor, cursor)
        self._scroll_cursor_into_view()
        self.refresh()
        self.post_message(self.CursorMoved(self.selected))

    # --- movement -----------------------------------------------------------------------------------------------

    def _page_size(self) -> int:
        return max(1, self.scrollable_content_region.height - 1)

    def watch_cursor(self, old: int, new: int) -> None:
        self._scroll_cursor_into_view()
        self.refresh()
        self.post_message(self.CursorMoved(self.selected))
        if new < EDGE_MARGIN and not self.window.at_head:
            self.post_message(self.EdgeReached(-1))
        elif new >= len(self.window) - EDGE_MARGIN and not self.window.at_begin:
            self.post_message(self.EdgeReached(1))

    def _scroll_cursor_into_view(self) -> None:
        page = self._page_size()
        top = int(self.scroll_y)
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, force=True)
        elif self.cursor >= top + page:
            self.scroll_to(y=self.cursor - page + 1, animate=False, force=True)

    def action_cursor(self, delta: int) -> None:
        count = len(self.window)
        if count:
            target = self.cursor + delta
            if target < 0 and not self.window.at_head:
                self.post_message(self.EdgeReached(-1))
            self.cursor = max(0, min(count - 1, target))

    def action_page(self, direction: int) -> None:
        self.action_cursor(direction * self._page_size())

    def action_first(self) -> None:
        if not self.window.at_head:
            self.post_message(self.NewestWanted())  # which puts the cursor on the newest once read
        else:
            self.cursor = 0

    def action_last(self) -> None:
        if len(self.window):
            self.cursor = len(self.window) - 1

    def action_scroll_columns(self, direction: int) -> None:
        self.scroll_to(x=max(0, self.scroll_x + direction * 12), animate=False, force=True)

    def on_click(self, event) -> None:
        if event.y >= 1:
            position = int(self.scroll_y) + event.y - 1
            if position < len(self.window):
                if position == self.cursor and event.chain >= 2 and self.selected is not None:
                    self.post_message(self.Chosen(self.selected))
                self.cursor = position

    # --- drawing ------------------------------------------------------------------------------------------------

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()
        self._lines.clear()

    def _style(self, name: str) -> Style:
        style = self._styles.get(name)
        if style is None:
            style = self.rich_style if name == "base" else self.get_component_rich_style(name)
            self._styles[name] = style
        return style

    def columns(self) -> list[Column]:
        return NARROW if self.size.width < NARROW_BELOW else WIDE

    def on_resize(self) -> None:
        columns = self.columns()
        self.virtual_size = Size(sum(c.width + 1 for c in columns) + 1, self.virtual_size.height)
        self.call_after_refresh(self._scroll_cursor_into_view)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        scroll_x = int(self.scroll_x)
        columns = self.columns()
        if y == 0:
            header = self._style("update-table--header")
            line = " " + "".join(_fit(c.label, c.width, c.right) + " " for c in columns)
            return window_line(line, scroll_x, width, header)
        position = int(self.scroll_y) + y - 1
        rows = self.window.rows
        if position >= len(rows):
            return Strip.blank(width, self._style("base"))
        row = rows[position]
        on_cursor = position == self.cursor
        key = (row.offset, on_cursor, scroll_x, width)
        strip = self._lines.get(key)
        if strip is None:
            if len(self._lines) >= CACHE_LINES:
                self._lines.clear()
            style = self._style("base")
            if on_cursor:
                style += self._style("update-table--cursor")
            line = " " + "".join(_fit(c.render(row), c.width, c.right) + " " for c in columns)
            strip = window_line(line, scroll_x, width, style)
            self._lines[key] = strip
        return strip


def _fit(text: str, width: int, right: bool) -> str:
    """A cell of `width` columns; the participant's control characters written out, never read as markup, and a
    value too long cut with `…` (`app.cut`)."""
    return fit(visible(text.replace("\n", " ")), width, right=right)


__all__ = ["NARROW", "WIDE", "UpdateTable"]
