"""The requests list: one line per logged request, oldest at the top, following the newest like `tail -f` while the
cursor sits on the last line.

Requests arrive several a second and the log holds hundreds, so the list changes in place: a request is inserted,
updated when it finishes, dropped when the log forgets it, and only the lines on screen are drawn.
"""

from __future__ import annotations

from bisect import bisect_left

from rich.segment import Segment
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from app.client.requests_log import RequestRecord
from app.cut import fit
from app.untrusted import visible
from app.widgets import request_text as rt
from app.widgets.table_window import window_segments

# (label, width, right-aligned); the path column takes what the others leave
_ID, _STARTED, _METHOD, _STATUS, _TIME, _SIZE = (
    ("#", 5, True),
    ("started", 12, False),
    ("method", 6, False),
    ("status", 6, False),
    ("time", 8, True),
    ("size", 8, True),
)
_FIXED = (_ID, _STARTED, _METHOD, _STATUS)
_PATH_MIN = 34
_NOTE_MIN = 24


class RequestList(ScrollView, can_focus=True):
    """Logged requests in id order; the cursor row is the selected request."""

    BINDINGS = [
        Binding("up,k", "cursor(-1)", "Up", show=False),
        Binding("down,j", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home,g", "first", "Oldest", show=False),
        Binding("end,G", "last", "Newest (follow)", show=False),
        Binding("left,h", "scroll_columns(-1)", "Scroll left", show=False),
        Binding("right,l", "scroll_columns(1)", "Scroll right", show=False),
    ]

    COMPONENT_CLASSES = {
        "request-list--header",
        "request-list--cursor",
        "request-list--dim",
        "request-list--ok",
        "request-list--redirect",
        "request-list--client",
        "request-list--server",
        "request-list--failed",
        "request-list--in-flight",
        "request-list--cancelled",
    }

    DEFAULT_CSS = """
    RequestList { background: $surface; scrollbar-gutter: stable; }
    RequestList > .request-list--header { background: $panel; color: $text; text-style: bold; }
    RequestList > .request-list--cursor { background: $block-cursor-blurred-background; }
    RequestList:focus > .request-list--cursor { background: $block-cursor-background;
                                                color: $block-cursor-foreground; }
    RequestList > .request-list--dim { color: $text-muted; }
    RequestList > .request-list--ok { color: $success; }
    RequestList > .request-list--redirect { color: $accent; }
    RequestList > .request-list--client { color: $warning; text-style: bold; }
    RequestList > .request-list--server { color: $error; text-style: bold; }
    RequestList > .request-list--failed { color: $error; text-style: bold reverse; }
    RequestList > .request-list--in-flight { color: $accent; text-style: italic; }
    RequestList > .request-list--cancelled { color: $text-disabled; }
    """

    cursor: reactive[int] = reactive(0)
    """Position of the selected request in the list."""

    class Chosen(Message):
        """Enter (or a double click) on a request."""

        def __init__(self, request_list: RequestList, record: RequestRecord) -> None:
            super().__init__()
            self.request_list = request_list
            self.record = record

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._records: list[RequestRecord] = []
        self._ids: list[int] = []
        self._cells: dict[int, tuple[bool, list[str]]] = {}  # id → (finished, texts) of what was drawn

    # --- data ---------------------------------------------------------------------------------------------------

    @property
    def count(self) -> int:
        return len(self._records)

    @property
    def records(self) -> list[RequestRecord]:
        return list(self._records)

    @property
    def selected(self) -> RequestRecord | None:
        return self._records[self.cursor] if 0 <= self.cursor < len(self._records) else None

    @property
    def following(self) -> bool:
        """The cursor is on the newest request, so newer ones move it along."""
        return self.cursor >= len(self._records) - 1

    def position_of(self, record_id: int) -> int | None:
        i = bisect_left(self._ids, record_id)
        return i if i < len(self._ids) and self._ids[i] == record_id else None

    def reset(self, records: list[RequestRecord]) -> None:
        """Show these records (in id order), keeping the cursor on the selected one if it is still there."""
        following = self.following
        selected = self.selected
        self._records = sorted(records, key=lambda r: r.id)
        self._ids = [r.id for r in self._records]
        self._cells = {i: c for i, c in self._cells.items() if self.position_of(i) is not None}
        self._resize()
        position = None if following or selected is None else self.position_of(selected.id)
        self._set_cursor(len(self._records) - 1 if position is None else position)
        self.refresh()

    def upsert(self, record: RequestRecord) -> None:
        """A request started (insert it) or finished (redraw its line)."""
        i = bisect_left(self._ids, record.id)
        if i < len(self._ids) and self._ids[i] == record.id:
            self._records[i] = record
            self._cells.pop(record.id, None)
            self._refresh_position(i)
            return
        following = self.following
        self._records.insert(i, record)
        self._ids.insert(i, record.id)
        self._resize()
        if following and i == len(self._ids) - 1:
            self._set_cursor(i)
        elif i <= self.cursor and len(self._ids) > 1:
            self._set_cursor(self.cursor + 1)  # stay on the same request
        self.refresh()

    def remove(self, record_id: int) -> None:
        i = self.position_of(record_id)
        if i is None:
            return
        del self._records[i]
        del self._ids[i]
        self._cells.pop(record_id, None)
        self._after_removal(i, 1)

    def drop_before(self, first_id: int) -> None:
        """Forget the requests the log no longer holds (ids below `first_id`)."""
        n = bisect_left(self._ids, first_id)
        if not n:
            return
        for record_id in self._ids[:n]:
            self._cells.pop(record_id, None)
        del self._records[:n]
        del self._ids[:n]
        self._after_removal(0, n)

    def _after_removal(self, at: int, n: int) -> None:
        self._resize()
        if self.cursor >= at + n:
            self._set_cursor(self.cursor - n)
        else:
            self._set_cursor(min(self.cursor, len(self._records) - 1))
        self.refresh()

    def _set_cursor(self, position: int) -> None:
        position = max(0, position)
        if position == self.cursor:
            self._scroll_cursor_into_view()
        self.cursor = position

    def _resize(self) -> None:
        self.virtual_size = Size(
            self._line_width(self.scrollable_content_region.width), len(self._records) + 1
        )

    # --- movement -----------------------------------------------------------------------------------------------

    def _page_size(self) -> int:
        return max(1, self.scrollable_content_region.height - 1)

    def watch_cursor(self) -> None:
        self._scroll_cursor_into_view()
        self.refresh()

    def _scroll_cursor_into_view(self) -> None:
        page = self._page_size()
        top = int(self.scroll_y)
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, force=True)
        elif self.cursor >= top + page:
            self.scroll_to(y=self.cursor - page + 1, animate=False, force=True)

    def action_cursor(self, delta: int) -> None:
        if self._records:
            self.cursor = max(0, min(len(self._records) - 1, self.cursor + delta))

    def action_page(self, direction: int) -> None:
        if self._records:
            page = self._page_size()
            self.scroll_to(y=max(0, self.scroll_y + direction * page), animate=False, force=True)
            self.cursor = max(0, min(len(self._records) - 1, self.cursor + direction * page))

    def action_first(self) -> None:
        self.cursor = 0

    def action_last(self) -> None:
        self.cursor = max(0, len(self._records) - 1)

    def action_scroll_columns(self, direction: int) -> None:
        self.scroll_to(x=max(0, self.scroll_x + direction * 12), animate=False, force=True)

    def on_click(self, event) -> None:
        if event.y < 1:
            return
        position = int(self.scroll_y) + event.y - 1
        if position < len(self._records):
            if position == self.cursor and event.chain >= 2:
                self.post_message(self.Chosen(self, self._records[position]))
            self.cursor = position

    def on_resize(self) -> None:
        self._resize()

    # --- rendering ----------------------------------------------------------------------------------------------

    def _widths(self, width: int) -> tuple[int, int]:
        fixed = sum(w + 1 for _, w, _ in (*_FIXED, _TIME, _SIZE)) + 1
        path = max(_PATH_MIN, min(56, width - fixed - _NOTE_MIN))
        return path, max(_NOTE_MIN, width - fixed - path - 1)

    def _line_width(self, width: int) -> int:
        path, note = self._widths(width)
        return sum(w + 1 for _, w, _ in (*_FIXED, _TIME, _SIZE)) + 1 + path + 1 + note

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        scroll_x = int(self.scroll_x)
        path_w, note_w = self._widths(width)
        if y == 0:
            header = self.get_component_rich_style("request-list--header")
            labels = [_fit(label, w, right) for label, w, right in _FIXED]
            labels += [
                _fit("path", path_w, False),
                _fit(_TIME[0], _TIME[1], True),
                _fit(_SIZE[0], _SIZE[1], True),
                _fit("note", note_w, False),
            ]
            return window_segments([Segment(" " + " ".join(labels), header)], scroll_x, width, header)
        position = int(self.scroll_y) + y - 1
        if position >= len(self._records):
            return Strip.blank(width, self.rich_style)
        return self._row(self._records[position], position, width, scroll_x, path_w, note_w)

    def _texts(self, record: RequestRecord) -> list[str]:
        cached = self._cells.get(record.id)
        if cached is not None and cached[0] == record.done:
            return cached[1]
        texts = [
            str(record.id),
            rt.started_text(record),
            record.method,
            rt.status_text(record),
            rt.target(record),
            rt.duration_text(record),
            rt.size_text(record.response_size) if record.status is not None else "",
            rt.note(record),
        ]
        self._cells[record.id] = (record.done, texts)
        return texts

    def _row(
        self, record: RequestRecord, position: int, width: int, scroll_x: int, path_w: int, note_w: int
    ) -> Strip:
        base = self.rich_style
        if position == self.cursor:
            base += self.get_component_rich_style("request-list--cursor")
        dim = base + self.get_component_rich_style("request-list--dim")
        fam = rt.family(record)
        status_style = base + self.get_component_rich_style(f"request-list--{fam}")
        if fam in (rt.OK, rt.IN_FLIGHT, rt.CANCELLED):
            note_style = dim
        else:
            note_style = base + self.get_component_rich_style(
                "request-list--server" if fam == rt.FAILED else f"request-list--{fam}"
            )
        rid, started, method, status, path, took, size, note = self._texts(record)
        segments = [
            Segment(" " + _fit(rid, _ID[1], True) + " ", dim),
            Segment(_fit(started, _STARTED[1], False) + " ", dim),
            Segment(_fit(method, _METHOD[1], False) + " ", base),
            Segment(_fit(status, _STATUS[1] - 1, False), status_style),
            Segment("  ", base),
            Segment(_fit(path, path_w, False) + " ", base),
            Segment(_fit(took, _TIME[1], True) + " ", dim),
            Segment(_fit(size, _SIZE[1], True) + " ", dim),
            Segment(_fit(note, note_w, False), note_style),
        ]
        return window_segments(segments, scroll_x, width, base)

    def _refresh_position(self, position: int) -> None:
        top = int(self.scroll_y)
        if top <= position < top + self._page_size():
            self.refresh(Region(0, position - top + 1, self.size.width, 1))


def _fit(text: str, width: int, right: bool) -> str:
    """A cell: one line of `width` cells; notes quote the participant, so control characters are written out; a
    value too long is cut with `…` (`app.cut`)."""
    return fit(visible(text.replace("\n", " ")), width, right=right)
