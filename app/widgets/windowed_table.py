"""The one shape of the app's tables: a header line over rows drawn one line at a time, only those on screen, with a
cursor row. Whatever the rows are and wherever they come from, the tables move, page, scroll, click and style the
same way; this is that way, once.

A table derives from `WindowedTable` and keeps only what is its own: its row source (`count`, `row_at`), how it
draws its header and a row (`render_header`, `render_row`), its layout for a width (`fit_width`), its own keys and
messages. The arithmetic of the window is `app.widgets.row_window`'s; drawn lines are kept in a `LineCache` for the
tables whose lines are worth keeping.
"""

from __future__ import annotations

from typing import Any, ClassVar, Generic, TypeVar

from rich.style import Style
from textual import events
from textual.actions import parse as parse_action
from textual.binding import Binding, BindingType
from textual.geometry import Region
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.timer import Timer

from app.cut import Keep, fit
from app.untrusted import visible
from app.widgets.line_cache import LineCache
from app.widgets.row_window import centred_top, clamp, paged, row_under, rows_on_screen, top_showing

RowT = TypeVar("RowT")
MessageRowT = TypeVar("MessageRowT")

COLUMN_STEP = 12  # cells a left or right key scrolls the columns by
# a jump whose rows are not here (an end, a row found far away) waits this long for them, the screen as it was; past
# it, the screen moves and shows the rows still missing as being read (a screen frozen longer looks hung)
JUMP_WAIT_S = 0.15
REPEATED_MOVES = (
    "cursor",
    "page",
    "scroll_columns",
)  # actions by a count: n presses are one of n times the count


class WindowedTable(Generic[RowT], ScrollView, can_focus=True):
    """Rows from a source of the subclass's, the cursor row the selected one."""

    # a table that names its ends (oldest, newest) rebinds home and end with its own descriptions
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "cursor(-1)", "Up", show=False),
        Binding("down,j", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home,g", "first", "First row", show=False),
        Binding("end,G", "last", "Last row", show=False),
        Binding("left,h", "scroll_columns(-1)", "Scroll left", show=False),
        Binding("right,l", "scroll_columns(1)", "Scroll right", show=False),
    ]

    DEFAULT_CSS = """
    WindowedTable { background: $surface; scrollbar-gutter: stable; }
    """

    cursor: reactive[int] = reactive(0)
    """Position of the selected row."""

    class CursorMoved(Message, Generic[MessageRowT]):
        """The cursor is on another row, or its row arrived; `row` None: no rows, or its row is not here yet.

        Each table names its own subclass, so that a handler of one table's messages hears no other's."""

        def __init__(self, table: WindowedTable[Any], row: MessageRowT | None) -> None:
            super().__init__()
            self.set_sender(table)  # see `ContractTable.WindowNeeded`
            self.table = table
            self.row = row

        @property
        def control(self) -> WindowedTable[Any]:
            return self.table

    class Chosen(Message, Generic[MessageRowT]):
        """A double click on a row (enter is the screen's binding, which users can remap)."""

        def __init__(self, table: WindowedTable[Any], row: MessageRowT) -> None:
            super().__init__()
            self.set_sender(table)
            self.table = table
            self.row = row

        @property
        def control(self) -> WindowedTable[Any]:
            return self.table

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._styles: dict[str, Style] = {}
        self.lines = LineCache()
        """Lines drawn, for the tables that keep them: cleared here when the styles change."""
        self.jump_waiting: tuple[int, int] | None = None
        """(cursor, top) of a jump waiting for its rows, the screen left as it was meanwhile."""
        self._jump_timer: Timer | None = None

    # --- the row source: the table's own ------------------------------------------------------------------------

    @property
    def count(self) -> int:
        """The rows in the table, here or not."""
        raise NotImplementedError

    def row_at(self, position: int) -> RowT | None:
        """The row at `position`, None when it is not here (yet)."""
        raise NotImplementedError

    def rows_here(self, start: int, end: int) -> bool:
        """Every row of positions start .. end - 1 is here: a jump there can be drawn at once. Always, for a source
        in memory; a table whose rows are read elsewhere says."""
        return True

    def fetch_rows(self, start: int, end: int) -> None:
        """Ask for the rows start .. end - 1, which a jump waits for (`rows_arrived` once they are here): the
        tables whose rows are read elsewhere."""

    @property
    def selected(self) -> RowT | None:
        """The cursor's row; None while a jump waits for its rows: a key that acts on the selected row (enter,
        copy) acts on none rather than on the row the screen is about to leave."""
        if self.jump_waiting is not None:
            return None
        return self.row_at(self.cursor)

    def visible_rows(self) -> list[RowT]:
        """The rows on screen that are here."""
        top = int(self.scroll_y)
        return [
            r
            for p in range(top, min(top + self.page_size(), self.count))
            if (r := self.row_at(p)) is not None
        ]

    # --- the cursor and the screen ------------------------------------------------------------------------------

    def page_size(self) -> int:
        """The rows on screen: the lines under the header."""
        return max(1, self.scrollable_content_region.height - 1)

    def watch_cursor(self, old: int, new: int) -> None:
        self.scroll_cursor_into_view()  # a scroll repaints every line by itself
        self.refresh_rows(old, old + 1)
        self.refresh_rows(new, new + 1)
        self.post_message(self.CursorMoved(self, self.row_at(new)))

    def scroll_cursor_into_view(self) -> None:
        top = int(self.scroll_y)
        wanted = top_showing(self.cursor, top, self.page_size())
        if wanted != top:
            self.scroll_to_row(wanted)

    def scroll_to_row(self, top: float) -> None:
        """Scroll so that row `top` is on the first line under the header."""
        # force: Textual ignores a vertical scroll while the scrollbar of its last layout is hidden, as it is when a
        # view of a few rows has just been replaced by a long one; the rows on screen must follow the cursor anyway
        self.scroll_to(y=top, animate=False, force=True)

    def move_to(self, position: int) -> None:
        """Select the row at `position`, scrolling it to the middle of the screen (once its rows are here)."""
        if not self.count:
            return
        position = clamp(position, self.count)
        self.jump(position, centred_top(position, self.page_size()))

    def action_cursor(self, delta: int) -> None:
        if not self.count:
            return
        if self.jump_waiting is None:
            self.cursor = clamp(self.cursor + delta, self.count)
        else:  # from where the jump leads, not from the screen it left
            cursor, top = self.jump_waiting
            cursor = clamp(cursor + delta, self.count)
            self.jump(cursor, top_showing(cursor, top, self.page_size()))

    def action_page(self, direction: int) -> None:
        if not self.count:
            return
        if self.jump_waiting is None:
            cursor, top = paged(self.cursor, self.scroll_y, direction, self.page_size(), self.count)
            self.scroll_to_row(top)
            self.cursor = cursor
        else:
            cursor, top = paged(*self.jump_waiting, direction, self.page_size(), self.count)
            self.jump(cursor, int(top))

    def action_first(self) -> None:
        self.jump(0)

    def action_last(self) -> None:
        if self.count:
            self.jump(self.count - 1)

    # --- jumps: drawn once their rows are here ------------------------------------------------------------------

    def jump(self, cursor: int, top: int | None = None) -> None:
        """Put the cursor on `cursor` and row `top` on the first line (by default, the top that shows the cursor
        from where the screen is or a waiting jump leads). Drawn at once when the rows on that screen are here;
        otherwise they are asked for and the screen stays as it is until they come, `JUMP_WAIT_S` at most from the
        first jump still waiting: a jump never paints a frame of placeholder lines that its rows replace a moment
        later."""
        if not self.count:
            return
        page = self.page_size()
        cursor = clamp(cursor, self.count)
        if top is None:
            here = self.jump_waiting[1] if self.jump_waiting is not None else int(self.scroll_y)
            top = top_showing(cursor, here, page)
        top = max(0, min(top, self.count - page))  # the scroll stops at the last page
        end = min(self.count, top + page)
        if self.rows_here(top, end):
            self._jump_done()
            self._go(cursor, top)
            return
        self.jump_waiting = (cursor, top)
        self.fetch_rows(top, end)
        if self._jump_timer is None:
            self._jump_timer = self.set_timer(JUMP_WAIT_S, self._land)

    def rows_arrived(self) -> None:
        """Rows came (the table's source says): the jump waiting for them, if they are all of its screen, is drawn."""
        if self.jump_waiting is not None:
            _, top = self.jump_waiting
            if self.rows_here(top, min(self.count, top + self.page_size())):
                self._land()

    def forget_jump(self) -> None:
        """The view was replaced: a jump waiting within the one before is not made."""
        self._jump_done()

    def _land(self) -> None:
        """The waiting jump made, its rows here or not (those missing show as being read)."""
        waiting = self.jump_waiting
        self._jump_done()
        if waiting is not None and self.count:
            cursor, top = waiting
            self._go(clamp(cursor, self.count), top)

    def _jump_done(self) -> None:
        self.jump_waiting = None
        if self._jump_timer is not None:
            self._jump_timer.stop()
            self._jump_timer = None

    def _go(self, cursor: int, top: int) -> None:
        self.scroll_to_row(top)
        self.cursor = cursor

    def action_scroll_columns(self, direction: int) -> None:
        self.scroll_to(x=max(0, self.scroll_x + direction * COLUMN_STEP), animate=False, force=True)

    def take_repeats(self, action: str, times: int) -> bool:
        """A key held down, its repeats waiting (the app's `Keys`): a move by rows, pages or columns is made once,
        `times` as far (the same place, each step being clamped at the ends the same way), so that the screen is
        painted once, where the keys lead; a jump to an end is made once."""
        _, name, args = parse_action(action)
        if name in REPEATED_MOVES and len(args) == 1 and isinstance(args[0], int):
            getattr(self, f"action_{name}")(args[0] * times)
        elif name in ("first", "last") and not args:
            getattr(self, f"action_{name}")()
        else:
            return False
        return True

    def on_click(self, event: events.Click) -> None:
        self._jump_done()  # a click is on the rows shown, not where a waiting jump leads
        position = row_under(event.y, int(self.scroll_y), self.count)
        if position is None:
            return
        row = self.row_at(position)
        if position == self.cursor and event.chain >= 2 and row is not None:
            self.post_message(self.Chosen(self, row))
        self.cursor = position

    def on_resize(self) -> None:
        self.fit_width()
        # a panel shown or hidden around the table (a filter box) changes how many rows fit: keep the cursor seen
        self.call_after_refresh(self.scroll_cursor_into_view)

    def fit_width(self) -> None:
        """Lay the table out for its new size (its columns, its virtual width): the table's own."""

    def refresh_rows(self, start: int, end: int) -> None:
        """Repaint the lines of the rows at positions start .. end - 1 that are on screen."""
        lines = rows_on_screen(start, end, int(self.scroll_y), self.page_size())
        if lines is not None:
            first, last = lines
            self.refresh(Region(0, first + 1, self.size.width, last - first))

    # --- drawing ------------------------------------------------------------------------------------------------

    def notify_style_update(self) -> None:
        super().notify_style_update()  # focus, theme or CSS changed: the cursor's colours among others
        self._styles.clear()
        self.lines.clear()

    def component_style(self, name: str) -> Style:
        """The style of one of the table's components ("base": the table's own), computed once per style change
        rather than once per line."""
        style = self._styles.get(name)
        if style is None:
            style = self.rich_style if name == "base" else self.get_component_rich_style(name)
            self._styles[name] = style
        return style

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        scroll_x = int(self.scroll_x)
        if y == 0:
            return self.render_header(width, scroll_x)
        position = int(self.scroll_y) + y - 1
        if position >= self.count:
            return Strip.blank(width, self.component_style("base"))
        return self.render_row(position, width, scroll_x)

    def render_header(self, width: int, scroll_x: int) -> Strip:
        """The header line, `width` cells of it from cell `scroll_x`."""
        raise NotImplementedError

    def render_row(self, position: int, width: int, scroll_x: int) -> Strip:
        """The line of the row at `position` (one of the table's), `width` cells of it from cell `scroll_x`."""
        raise NotImplementedError


def cell(text: str, width: int, *, right: bool = False, keep: Keep = "start") -> str:
    """A cell of `width` terminal cells: one line, the participant's control characters written out (never read as
    markup), a value too long cut with `…` as `app.cut` cuts (never shown as a shorter value)."""
    return fit(visible(text.replace("\n", " ")), width, right=right, keep=keep)
