"""The requests list: one line per logged request, oldest at the top, following the newest like `tail -f` while the
cursor sits on the last line.

Requests arrive several a second and the log holds hundreds, so the list changes in place: a request is inserted,
updated when it finishes, dropped when the log forgets it, and only the lines on screen are drawn.
"""

from __future__ import annotations

from bisect import bisect_left

from rich.segment import Segment
from textual.binding import Binding
from textual.geometry import Size
from textual.strip import Strip

from app.client.requests_log import RequestRecord
from app.widgets import request_text as rt
from app.widgets.table_window import window_segments
from app.widgets.windowed_table import WindowedTable, cell

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


class RequestList(WindowedTable[RequestRecord]):
    """Logged requests in id order; the cursor row is the selected request."""

    BINDINGS = [
        Binding("home,g", "first", "Oldest", show=False),
        Binding("end,G", "last", "Newest (follow)", show=False),
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

    class CursorMoved(WindowedTable.CursorMoved[RequestRecord]):
        pass

    class Chosen(WindowedTable.Chosen[RequestRecord]):
        """A double click on a request (enter is the screen's binding)."""

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._records: list[RequestRecord] = []
        self._ids: list[int] = []
        self._cells: dict[int, tuple[bool, list[str]]] = {}  # id → (finished, texts) of what was drawn

    # --- data ---------------------------------------------------------------------------------------------------

    @property
    def count(self) -> int:
        return len(self._records)

    def row_at(self, position: int) -> RequestRecord | None:
        return self._records[position] if 0 <= position < len(self._records) else None

    @property
    def records(self) -> list[RequestRecord]:
        return list(self._records)

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
            self.refresh_rows(i, i + 1)
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

    def remove_record(self, record_id: int) -> None:
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
            self.scroll_cursor_into_view()
        self.cursor = position

    def _resize(self) -> None:
        self.virtual_size = Size(
            self._line_width(self.scrollable_content_region.width), len(self._records) + 1
        )

    def fit_width(self) -> None:
        self._resize()

    # --- drawing ------------------------------------------------------------------------------------------------

    def _widths(self, width: int) -> tuple[int, int]:
        fixed = sum(w + 1 for _, w, _ in (*_FIXED, _TIME, _SIZE)) + 1
        path = max(_PATH_MIN, min(56, width - fixed - _NOTE_MIN))
        return path, max(_NOTE_MIN, width - fixed - path - 1)

    def _line_width(self, width: int) -> int:
        path, note = self._widths(width)
        return sum(w + 1 for _, w, _ in (*_FIXED, _TIME, _SIZE)) + 1 + path + 1 + note

    def render_header(self, width: int, scroll_x: int) -> Strip:
        path_w, note_w = self._widths(width)
        header = self.component_style("request-list--header")
        labels = [cell(label, w, right=right) for label, w, right in _FIXED]
        labels += [
            cell("path", path_w),
            cell(_TIME[0], _TIME[1], right=True),
            cell(_SIZE[0], _SIZE[1], right=True),
            cell("note", note_w),
        ]
        return window_segments([Segment(" " + " ".join(labels), header)], scroll_x, width, header)

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

    def render_row(self, position: int, width: int, scroll_x: int) -> Strip:
        record = self._records[position]
        path_w, note_w = self._widths(width)
        base = self.component_style("base")
        if position == self.cursor:
            base += self.component_style("request-list--cursor")
        dim = base + self.component_style("request-list--dim")
        fam = rt.family(record)
        status_style = base + self.component_style(f"request-list--{fam}")
        if fam in (rt.OK, rt.IN_FLIGHT, rt.CANCELLED):
            note_style = dim
        else:
            note_style = base + self.component_style(
                "request-list--server" if fam == rt.FAILED else f"request-list--{fam}"
            )
        rid, started, method, status, path, took, size, note = self._texts(record)
        segments = [
            Segment(" " + cell(rid, _ID[1], right=True) + " ", dim),
            Segment(cell(started, _STARTED[1]) + " ", dim),
            Segment(cell(method, _METHOD[1]) + " ", base),
            Segment(cell(status, _STATUS[1] - 1), status_style),
            Segment("  ", base),
            Segment(cell(path, path_w) + " ", base),
            Segment(cell(took, _TIME[1], right=True) + " ", dim),
            Segment(cell(size, _SIZE[1], right=True) + " ", dim),
            Segment(cell(note, note_w), note_style),
        ]
        return window_segments(segments, scroll_x, width, base)
