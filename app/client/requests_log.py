"""The session's HTTP requests, kept for the requests pane: what was sent, what came back, how long it took.

Bodies are kept up to a bound each and the log holds a bounded number of entries, so a long session or a large
snapshot read costs a fixed amount of memory. The token never enters the log: headers are stored redacted.
"""

from __future__ import annotations

import shlex
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

MAX_ENTRIES = 500
MAX_BODY_BYTES = 256 * 1024
MAX_TOTAL_BODY_BYTES = (
    16 * 1024 * 1024
)  # past this, the oldest requests give up their bodies (not their lines)
REDACTED = "<token>"


@dataclass
class RequestRecord:
    id: int
    method: str
    url: str
    path: str
    started: float  # time.time()
    request_headers: dict[str, str]
    request_body: bytes = b""
    status: int | None = None  # None while in flight or when no answer came
    error: str = ""  # transport failure, when there was no answer
    duration_ms: float | None = None
    response_headers: dict[str, str] = field(default_factory=dict)
    response_body: bytes = b""
    response_size: int = 0
    truncated: bool = False
    bodies_dropped: bool = False  # the log let the bodies go to stay within its memory budget
    stream: bool = False  # a stream (the websocket ACS), in flight as long as it sends

    @property
    def body_bytes(self) -> int:
        return len(self.request_body) + len(self.response_body)

    @property
    def done(self) -> bool:
        return self.status is not None or bool(self.error)

    def as_curl(self) -> str:
        """The request as a curl command line; the token is a shell variable, never the value."""
        parts = ["curl", "-sS", "-X", self.method, shlex.quote(self.url)]
        for name, value in self.request_headers.items():
            if name.lower() == "authorization":
                parts += ["-H", '"Authorization: Bearer $LEDGER_TOKEN"']
            elif name.lower() in ("content-type", "accept"):
                parts += ["-H", shlex.quote(f"{name}: {value}")]
        if self.request_body:
            parts += ["--data-binary", shlex.quote(self.request_body.decode("utf-8", "replace"))]
        return " ".join(parts)


def redact_headers(headers) -> dict[str, str]:
    out = {}
    for name, value in headers.items():
        out[name] = f"Bearer {REDACTED}" if name.lower() == "authorization" else value
    return out


class RequestLog:
    """A bounded, observable list of `RequestRecord`s."""

    def __init__(self, max_entries: int = MAX_ENTRIES, max_body_bytes: int = MAX_TOTAL_BODY_BYTES) -> None:
        self._entries: deque[RequestRecord] = deque(maxlen=max_entries)
        self.max_body_bytes = max_body_bytes
        self._body_bytes = 0
        self.max_entries = max_entries
        self._next_id = 1
        self._listeners: list[Callable[[RequestRecord], None]] = []
        self.in_flight = 0

    def subscribe(self, listener: Callable[[RequestRecord], None]) -> Callable[[], None]:
        """Call `listener` whenever a request starts or ends; returns the function that unsubscribes."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    @property
    def entries(self) -> list[RequestRecord]:
        return list(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def first_id(self) -> int:
        """The id of the oldest record kept: records with smaller ids were dropped (the log is bounded) or
        cleared. Ids grow by one per request, so a viewer can tell what it holds that the log no longer does."""
        return self._entries[0].id if self._entries else self._next_id

    def get(self, record_id: int) -> RequestRecord | None:
        return next((r for r in self._entries if r.id == record_id), None)

    def clear(self) -> None:
        self._entries.clear()
        self._body_bytes = 0

    def start(
        self, method: str, url: str, path: str, headers, body: bytes, *, stream: bool = False
    ) -> RequestRecord:
        record = RequestRecord(
            self._next_id,
            method,
            url,
            path,
            time.time(),
            redact_headers(headers),
            body[:MAX_BODY_BYTES],
            truncated=len(body) > MAX_BODY_BYTES,
            stream=stream,
        )
        self._next_id += 1
        if len(self._entries) == self._entries.maxlen:
            self._body_bytes -= self._entries[0].body_bytes  # about to fall off the end
        self._entries.append(record)
        self._body_bytes += record.body_bytes
        self.in_flight += 1
        self._notify(record)
        return record

    def finish(
        self,
        record: RequestRecord,
        *,
        status: int | None = None,
        headers=None,
        body: bytes = b"",
        size: int | None = None,
        error: str = "",
    ) -> None:
        record.status = status
        record.error = error
        record.duration_ms = (time.time() - record.started) * 1000
        record.response_headers = dict(headers or {})
        kept = body[:MAX_BODY_BYTES]
        self._body_bytes += len(kept) - len(record.response_body)
        record.response_body = kept
        record.response_size = len(body) if size is None else size
        record.truncated = record.truncated or record.response_size > MAX_BODY_BYTES
        self.in_flight = max(0, self.in_flight - 1)
        self._shed()
        self._notify(record)

    def _shed(self) -> None:
        """Drop the bodies of the oldest requests until the kept bodies fit the budget: a long session, or a
        snapshot read of a thousand pages, costs a bounded amount of memory."""
        for old in self._entries:
            if self._body_bytes <= self.max_body_bytes:
                return
            if old.done and old.body_bytes:
                self._body_bytes -= old.body_bytes
                old.request_body = old.response_body = b""
                old.bodies_dropped = True

    @property
    def body_bytes(self) -> int:
        return self._body_bytes

    def _notify(self, record: RequestRecord) -> None:
        for listener in list(self._listeners):
            listener(record)
