"""The requests pane: every HTTP request of the session as it happens, filterable, each one open to read in full or
to copy as curl."""

from __future__ import annotations

from collections.abc import Callable

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.reactive import reactive
from textual.timer import Timer
from textual.widgets import Input, Label

from app.client.requests_log import RequestLog, RequestRecord
from app.counting import count as counted
from app.screens.base import LedgerScreen
from app.screens.request_detail import RequestDetailScreen, copy_body, copy_curl
from app.widgets import request_text as rt
from app.widgets.keys import FieldInput, KeyFooter
from app.widgets.request_list import RequestList
from app.widgets.status_bar import StatusBar
from app.widgets.untrusted_text import plain

FLUSH_S = 0.1  # arrivals are drawn in batches at most this often


class RequestsScreen(LedgerScreen):
    TITLE_TEXT = "Requests"
    HELP = """\
**Requests** lists every HTTP request of this session, oldest at the top — the ones you cause and the ones the app
sends by itself: the contract reads (page by page, or the websocket), the identity checks at start, and the
ledger-end reads every 2 s. While the cursor is on the last line the list follows new requests (`G` or `end` goes
back there); move up and it stays put.

Each line shows when the request started, its method and path, the status — green 2xx, yellow 4xx, red 5xx,
`ERR` on red when no answer came at all (refused, reset, timed out), `…` while it is in flight — how long it took,
the size of the answer, and a note: Canton's error id for a failed request, the failure of a transport error, the
message count of a websocket.

The ledger-end reads are **hidden by default** (they would fill the list every 2 s); `p` shows them. A ledger-end
read that fails is always shown: it is the first sign of a participant going away.

`/` filters by words that must all occur in the method, path, status or note (`404`, `4xx`, `error`,
`CONTRACT_NOT_FOUND`, `page`). `enter` opens a request: headers (the token is never shown), both bodies
(JSON pretty-printed), status and timing. `y` copies it as a curl command that reads the token from
`$LEDGER_TOKEN`; `b` copies the answer's body. `c` clears the list.

The log keeps the last 500 requests, bodies up to 256 KB each.
"""

    BINDINGS = [
        Binding("enter", "open", "Open", id="requests.open"),
        Binding("slash", "filter", "Filter", id="requests.filter", key_display="/"),
        Binding("p", "toggle_polls", "Ledger-end reads", id="requests.polls"),
        Binding("y", "copy_curl", "Copy curl", id="requests.copy_curl"),
        Binding("b", "copy_body", "Copy body", id="requests.copy_body"),
        Binding("c", "clear", "Clear", id="requests.clear"),
        Binding("escape", "escape", "Clear filter", show=False, id="requests.escape"),
    ]

    DEFAULT_CSS = """
    RequestsScreen #requests-info { height: 1; padding: 0 1; background: $boost; }
    RequestsScreen #requests-info Label { width: auto; margin-right: 2; text-wrap: nowrap; text-overflow: ellipsis; }
    /* the hint takes the room the count and the filter leave, cut with `…` on a narrow screen (auto-sized, it
       ran off the edge unmarked) */
    RequestsScreen #requests-info #requests-hidden { color: $text-muted; width: 1fr; }
    RequestsScreen #requests-filter-label { color: $accent; max-width: 40%; }
    RequestsScreen RequestList { height: 1fr; }
    RequestsScreen #requests-filter { dock: bottom; display: none; margin-bottom: 1; }
    RequestsScreen #requests-filter.shown { display: block; }
    """

    AUTO_FOCUS = "RequestList"

    show_polls: reactive[bool] = reactive(False)
    """Show the successful ledger-end reads (the app polls every few seconds)."""

    def __init__(self) -> None:
        super().__init__()
        self.text = ""
        self._pending: dict[int, RequestRecord] = {}
        self._resync = False
        self._flush_timer: Timer | None = None
        self._unsubscribe: Callable[[], None] | None = None

    def compose(self) -> ComposeResult:
        yield StatusBar(mode="requests")
        with Horizontal(id="requests-info"):
            yield Label("", id="requests-count")
            yield Label("", id="requests-hidden")
            yield Label("", id="requests-filter-label")
        yield RequestList(id="requests-list")
        yield FieldInput(
            free_text=True,
            placeholder="filter: words in method, path, status or note, e.g. 4xx or page (enter keeps, "
            "escape clears)",
            id="requests-filter",
        )
        yield KeyFooter()

    @property
    def request_log(self) -> RequestLog:
        return self.ledger_app.request_log

    @property
    def request_list(self) -> RequestList:
        return self.query_one(RequestList)

    def on_mount(self) -> None:
        self._unsubscribe = self.request_log.subscribe(self._seen)
        self._rebuild()

    def on_unmount(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()

    def on_screen_resume(self) -> None:
        self._flush()

    # --- arrivals -------------------------------------------------------------------------------------------------

    def _seen(self, record: RequestRecord) -> None:
        """Called by the log inside the client's request: only note it, draw later in a batch."""
        self._pending[record.id] = record
        if len(self._pending) > self.request_log.max_entries:
            # away from the screen for long: read the log afresh when back rather than replay every change
            self._pending.clear()
            self._resync = True
        if self._flush_timer is None and self.is_current:
            self._flush_timer = self.set_timer(FLUSH_S, self._flush)

    def _flush(self) -> None:
        self._flush_timer = None
        if not self.is_current:
            return  # drawn when the screen shows again (on_screen_resume)
        if self._resync:
            self._rebuild()
            return
        if not self._pending:
            return
        request_list = self.request_list
        first = self.request_log.first_id
        request_list.drop_before(first)
        for record_id in sorted(self._pending):
            record = self._pending[record_id]
            if record_id < first:
                continue
            if self._shown(record):
                request_list.upsert(record)
            else:
                request_list.remove_record(record_id)
        self._pending.clear()
        self._show_info()

    def _shown(self, record: RequestRecord) -> bool:
        if not self.show_polls and rt.is_ledger_end_read(record):
            return False
        return rt.matches(record, self.text)

    def _rebuild(self) -> None:
        self._pending.clear()
        self._resync = False
        self.request_list.reset([r for r in self.request_log.entries if self._shown(r)])
        self._show_info()

    def _show_info(self) -> None:
        shown = self.request_list.count
        total = len(self.request_log)
        count = counted(total, "request") if shown == total else f"{shown:,} of {counted(total, 'request')}"
        self.query_one("#requests-count", Label).update(
            plain(f"{count} · the log keeps the last {self.request_log.max_entries:,}")
        )
        hidden = "" if self.show_polls else "ledger-end reads hidden: p shows them"
        self.query_one("#requests-hidden", Label).update(plain(hidden))
        self.query_one("#requests-filter-label", Label).update(
            plain(f"matching “{self.text}”" if self.text else "")
        )

    def watch_show_polls(self) -> None:
        if self.is_mounted:
            self._rebuild()

    # --- actions --------------------------------------------------------------------------------------------------

    def action_toggle_polls(self) -> None:
        self.show_polls = not self.show_polls
        self.notify(
            "Showing the ledger-end reads." if self.show_polls else "Hiding the ledger-end reads.", timeout=2
        )

    def action_filter(self) -> None:
        box = self.query_one("#requests-filter", Input)
        box.add_class("shown")
        box.value = self.text
        box.focus()

    @on(Input.Changed, "#requests-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.text = event.value.strip()
        self._rebuild()

    @on(Input.Submitted, "#requests-filter")
    def _filter_kept(self, event: Input.Submitted) -> None:
        if not self.text:
            event.input.remove_class("shown")
        self.request_list.focus()

    def action_escape(self) -> None:
        box = self.query_one("#requests-filter", Input)
        if self.text or box.has_class("shown"):
            box.value = ""
            box.remove_class("shown")
            self.text = ""
            self._rebuild()
        self.request_list.focus()

    def action_open(self) -> None:
        record = self.request_list.selected
        if record is not None:
            self.app.push_screen(RequestDetailScreen(record))

    @on(RequestList.Chosen)
    def _chosen(self, event: RequestList.Chosen) -> None:
        self.app.push_screen(RequestDetailScreen(event.row))

    def action_copy_curl(self) -> None:
        record = self.request_list.selected
        if record is not None:
            copy_curl(self.app, record)

    def action_copy_body(self) -> None:
        record = self.request_list.selected
        if record is not None:
            copy_body(self.app, record)

    def action_clear(self) -> None:
        self.request_log.clear()
        self._rebuild()
        self.notify("Cleared the request log.", timeout=2)


__all__ = ["RequestsScreen"]
