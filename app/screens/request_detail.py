"""One logged request in full: request line, status and timing, Canton's error, headers (the token redacted) and
both bodies, JSON pretty-printed with highlighting. Follows the request if it is still in flight."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Label, Static

from app.client.errors import category_words
from app.client.requests_log import RequestRecord
from app.counting import count
from app.screens.base import LedgerScreen
from app.untrusted import visible
from app.widgets import request_text as rt
from app.widgets.json_view import BodyView
from app.widgets.keys import KeyFooter
from app.widgets.status_bar import StatusBar
from app.widgets.untrusted_text import plain, visible_lines

_FAMILY_STYLE = {
    rt.OK: "bold green",
    rt.REDIRECT: "bold cyan",
    rt.CLIENT: "bold yellow",
    rt.SERVER: "bold red",
    rt.FAILED: "bold white on red",
    rt.IN_FLIGHT: "italic cyan",
    rt.CANCELLED: "dim",
}


def copy_curl(app: App, record: RequestRecord) -> None:
    if record.url.startswith(("ws://", "wss://")):
        # curl cannot hold a websocket open and send the request message: hand over the message itself
        app.copy_to_clipboard(record.request_body.decode("utf-8", "replace"))
        app.notify(
            "A websocket cannot be replayed with curl: copied the request message it sent, which the "
            "POST form of the same path accepts as its body.",
            title="Copied",
            timeout=6,
        )
        return
    app.copy_to_clipboard(record.as_curl())
    app.notify(
        "Copied the request as a curl command; it reads the token from $LEDGER_TOKEN.",
        title="Copied",
        timeout=4,
    )


def copy_body(app: App, record: RequestRecord) -> None:
    if not record.done:
        app.notify("The request is still in flight: no answer to copy yet.", timeout=3)
        return
    if not record.response_body:
        app.notify("The answer has no body.", timeout=3)
        return
    body = rt.response_body(record)
    app.copy_to_clipboard(body.text)
    app.notify(
        f"Copied the answer's body ({rt.size_text(len(body.text.encode()))})"
        + (f"; {body.note}" if body.note else "")
        + ".",
        title="Copied",
        timeout=4,
    )


class RequestDetailScreen(LedgerScreen):
    TITLE_TEXT = "Request"
    HELP = """\
One request of the session in full: the request line, the status with Canton's error id, category and cause when it
failed, how long it took, then the request (left) and the answer (right), each with its headers and body.

The token is never shown: the `Authorization` header reads `Bearer <token>`. JSON bodies are pretty-printed; a body
larger than the log keeps (256 KB) is shown cut, and says so. `tab` moves between the two bodies, which scroll and
select like any text (`ctrl+c` copies a selection).

`y` copies the request as a curl command that reads the token from `$LEDGER_TOKEN`; `b` copies the answer's body.
`escape` goes back to the list.
"""

    BINDINGS = [
        Binding("y", "copy_curl", "Copy curl", id="requests.copy_curl"),
        Binding("b", "copy_body", "Copy body", id="requests.copy_body"),
        Binding("escape", "back", "Back", id="requests.back"),
    ]

    DEFAULT_CSS = """
    RequestDetailScreen #detail-summary { height: auto; padding: 0 1; background: $boost; }
    RequestDetailScreen #detail-panes { height: 1fr; }
    RequestDetailScreen .detail-pane { width: 1fr; height: 1fr; border: round $primary-darken-2; }
    RequestDetailScreen .detail-pane:focus-within { border: round $primary; }
    RequestDetailScreen .detail-title { text-style: bold; padding: 0 1; }
    RequestDetailScreen .detail-note { color: $warning; padding: 0 1; }
    RequestDetailScreen .detail-headers { height: auto; max-height: 40%; padding: 0 1; color: $text-muted; }
    RequestDetailScreen BodyView { height: 1fr; border: none; padding: 0; }
    RequestDetailScreen BodyView:focus { border: none; }
    RequestDetailScreen .detail-empty { color: $text-muted; padding: 0 1; }
    """

    def __init__(self, record: RequestRecord) -> None:
        super().__init__()
        self.record = record
        self._unsubscribe: Callable[[], None] | None = None

    def compose(self) -> ComposeResult:
        record = self.record
        yield StatusBar(mode="requests", crumb=f"#{record.id} {record.method} {record.path}")
        yield Static(self._summary(), id="detail-summary")
        with Horizontal(id="detail-panes"):
            with Vertical(classes="detail-pane", id="detail-request"):
                yield from self._pane("Request", record.request_headers, rt.request_body(record), "request")
            with Vertical(classes="detail-pane", id="detail-response"):
                yield from self._response_pane()
        yield KeyFooter()

    def _response_pane(self) -> ComposeResult:
        record = self.record
        if not record.done:
            yield Label("Response", classes="detail-title")
            yield Label("in flight: shown when it finishes", classes="detail-empty")
        elif record.error:
            yield Label("Response", classes="detail-title")
            yield Label(plain(f"no answer: {record.error}"), classes="detail-note")
        else:
            yield from self._pane("Response", record.response_headers, rt.response_body(record), "response")

    def _pane(self, title: str, headers: dict[str, str], body: rt.Body, kind: str) -> ComposeResult:
        size = f" · {rt.size_text(len(body.text.encode()))}" if body.text and body.language != "json" else ""
        yield Label(
            plain(f"{title} · {count(len(headers), 'header')}{size}"),
            classes="detail-title",
        )
        header_text = Text()
        for name, value in headers.items():
            header_text.append(f"{visible(name)}: ", style="bold")
            header_text.append(f"{visible(value)}\n")
        header_text.rstrip()
        yield Static(header_text if header_text.plain else Text("no headers"), classes="detail-headers")
        if body.note:
            yield Label(plain(body.note), classes="detail-note")
        if not body.text:
            yield Label("no body", classes="detail-empty")
            return
        # shown with the participant's control characters written out (JSON escapes C0 only); copied as it came
        yield BodyView(visible_lines(body.text), json=body.language == "json", id=f"detail-{kind}-body")

    def _summary(self) -> Text:
        record = self.record
        t = Text(no_wrap=False)
        t.append(f"{record.method} ", style="bold")
        t.append(visible(record.url))
        t.append("\n")
        t.append(f" {rt.status_text(record)} ", style=_FAMILY_STYLE[rt.family(record)])
        if record.error:
            t.append(f"  {visible(record.error)}", style="red")
        elif not record.done:
            t.append("  in flight")
        facts = [f"started {rt.started_text(record)}"]
        if record.duration_ms is not None:
            facts.append(f"took {rt.duration_text(record)}")
        if record.done and not record.error:
            facts.append(f"answer {rt.size_text(record.response_size)}")
        if record.request_body:
            facts.append(f"request body {rt.size_text(len(record.request_body))}")
        t.append("   " + " · ".join(facts), style="dim")
        error = rt.canton_error(record)
        if error is not None:
            category = error.get("errorCategory")
            words = category_words(category if isinstance(category, int) else None)
            t.append("\n")
            t.append(visible(str(error.get("code"))), style="bold")
            if words:
                t.append(f" · category {category} ({words})", style="dim")
            t.append(f"\n{visible_lines(str(error.get('cause')))}")
        return t

    def on_mount(self) -> None:
        if not self.record.done:
            self._unsubscribe = self.ledger_app.request_log.subscribe(self._seen)
        self._focus_body()

    def _focus_body(self) -> None:
        for kind in ("response", "request"):
            areas = self.query(f"#detail-{kind}-body")
            if areas:
                areas.first().focus()
                return

    def on_unmount(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()

    def _seen(self, record: RequestRecord) -> None:
        if record.id == self.record.id and record.done:
            self.call_later(self._finished)

    async def _finished(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self.query_one("#detail-summary", Static).update(self._summary())
        pane = self.query_one("#detail-response", Vertical)
        await pane.remove_children()
        await pane.mount_all(list(self._response_pane()))
        self._focus_body()

    def action_copy_curl(self) -> None:
        copy_curl(self.app, self.record)

    def action_copy_body(self) -> None:
        copy_body(self.app, self.record)

    def action_back(self) -> None:
        self.dismiss()


__all__ = ["RequestDetailScreen", "copy_body", "copy_curl"]
