"""How a logged request reads: its status, timing and size in a few characters, its bodies pretty-printed.

Shared by the requests list and the detail view of one request; no widgets here.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import orjson

from app.client.requests_log import MAX_BODY_BYTES, RequestRecord
from app.counting import count

LEDGER_END_PATH = "/v2/state/ledger-end"

# status families → component class suffixes of the list (and colors of the detail view)
OK, REDIRECT, CLIENT, SERVER, FAILED, IN_FLIGHT = "ok", "redirect", "client", "server", "failed", "in-flight"
CANCELLED = "cancelled"  # given up by the app (a newer load superseded it), not failed
CANCELLED_ERROR = "cancelled"  # what the client logs as the error of such a request


def family(record: RequestRecord) -> str:
    if record.error == CANCELLED_ERROR:
        return CANCELLED
    if record.error:
        return FAILED
    status = record.status
    if status is None:
        return IN_FLIGHT
    if status < 300 or status == 101:
        return OK
    if status < 400:
        return REDIRECT
    return CLIENT if status < 500 else SERVER


def status_text(record: RequestRecord) -> str:
    if record.error == CANCELLED_ERROR:
        return "—"
    if record.error:
        return "ERR"
    if record.status is None:
        return "…"
    return str(record.status)


def duration_text(record: RequestRecord) -> str:
    ms = record.duration_ms
    if ms is None:
        return ""
    if ms < 1000:
        return f"{ms:.0f} ms"
    return f"{ms / 1000:.1f} s" if ms < 100_000 else f"{ms / 1000:.0f} s"


def size_text(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    kb = size / 1024
    if kb < 1024:
        return f"{kb:.1f} KB" if kb < 100 else f"{kb:.0f} KB"
    mb = kb / 1024
    return f"{mb:.1f} MB" if mb < 100 else f"{mb:.0f} MB"


def started_text(record: RequestRecord) -> str:
    t = record.started
    return time.strftime("%H:%M:%S", time.localtime(t)) + f".{int(t * 1000) % 1000:03d}"


def target(record: RequestRecord) -> str:
    """The path with its query, as the list shows it."""
    query = record.url.partition("?")[2]
    return f"{record.path}?{query}" if query else record.path


def is_ledger_end_read(record: RequestRecord) -> bool:
    """A successful (or running, or given up) ledger-end read: what the app's polling sends every few seconds.
    A failed one is never counted as such: it is the first sign of a participant going away."""
    return (
        record.method == "GET"
        and record.path == LEDGER_END_PATH
        and family(record) in (OK, IN_FLIGHT, CANCELLED)
    )


def canton_error(record: RequestRecord) -> dict | None:
    """The JsCantonError of a failed answer, when the body is one."""
    if record.status is None or record.status < 400 or not record.response_body.lstrip().startswith(b"{"):
        return None
    try:
        body = orjson.loads(record.response_body)
    except orjson.JSONDecodeError:
        return None
    return body if isinstance(body, dict) and "code" in body and "cause" in body else None


def note(record: RequestRecord) -> str:
    """What the last column says: the transport failure, Canton's error id, or what a stream delivered."""
    if record.error:
        return record.error
    error = canton_error(record)
    if error is not None:
        return str(error.get("code") or "")
    if record.status is not None and record.status >= 400:
        body = " ".join(record.response_body[:200].decode("utf-8", "replace").split())
        return "HTML page" if "<html" in body.lower() else body[:80]
    if record.status == 101:
        return record.response_body[:80].decode("utf-8", "replace")
    return ""


def matches(record: RequestRecord, text: str) -> bool:
    """The list's filter: words that must all occur in the method, path, status (or its family, "4xx"), or note."""
    if not text:
        return True
    status = status_text(record)
    fam = f"{status[0]}xx" if status.isdigit() else (record.error and "error" or "in flight")
    haystack = f"{record.method} {target(record)} {status} {fam} {note(record)}".lower()
    return all(word in haystack for word in text.lower().split())


@dataclass(frozen=True)
class Body:
    text: str
    language: str | None  # "json" when the body parsed as JSON and is shown pretty-printed
    note: str  # "" or what the reader must know: truncated, binary, empty


def body_of(
    content: bytes, *, truncated: bool = False, size: int | None = None, content_type: str = ""
) -> Body:
    """A body for reading: JSON pretty-printed, text as is. `truncated`: the log kept only the start of it."""
    if not content:
        return Body("", None, "")
    note_text = ""
    if truncated:
        of = f" of {size:,}" if size and size > len(content) else ""
        note_text = f"truncated: the first {count(len(content), 'byte')}{of} are kept"
    elif "json" in content_type or content.lstrip()[:1] in (b"{", b"["):
        try:
            pretty = orjson.dumps(orjson.loads(content), option=orjson.OPT_INDENT_2).decode()
            return Body(pretty, "json", "")
        except orjson.JSONDecodeError:
            note_text = "not valid JSON"
    return Body(content.decode("utf-8", "replace"), None, note_text)


DROPPED = Body("", None, "let go to keep the session's log small (the newest requests keep their bodies)")


def request_body(record: RequestRecord) -> Body:
    if record.bodies_dropped:
        return DROPPED
    cut = record.truncated and len(record.request_body) >= MAX_BODY_BYTES
    return body_of(
        record.request_body, truncated=cut, content_type=_header(record.request_headers, "content-type")
    )


def response_body(record: RequestRecord) -> Body:
    if record.bodies_dropped:
        return DROPPED
    cut = record.response_size > len(record.response_body) and record.status != 101
    return body_of(
        record.response_body,
        truncated=cut,
        size=record.response_size,
        content_type=_header(record.response_headers, "content-type"),
    )


def _header(headers: dict[str, str], name: str) -> str:
    return next((v for k, v in headers.items() if k.lower() == name), "")
