"""What the server allows a client before its request reaches the application: the size and number of a request's
header fields, and how long its head and body may take to arrive.

uvicorn bounds neither: httptools keeps whatever a header line grows to (a 300 MB line cost the server 600 MB and
held the event loop for seconds at a time), and a connection whose head or body stops arriving is kept open for as
long as the client likes. `guarded(protocol)` adds both to uvicorn's httptools protocol:

- a head larger than `max_header_bytes`, or with more than `max_headers` fields, is answered 431 and the connection
  closed, as soon as the limit is passed;
- a head not complete `header_timeout` seconds after its connection opened (or after its first byte, on a kept-alive
  connection) is answered 408 and closed; a connection that sent nothing at all is closed without an answer;
- a body that stalls (no byte for `body_timeout` seconds) is answered 408 if the application has not answered yet,
  and closed.

Time only counts while the server reads: when the server itself holds reading back (flow control, a pipelined
request waiting for the one before, `Expect: 100-continue` before the application reads), the clock starts again.
Responses are not timed, so a slow reader of a large answer is not cut; nor are websockets, which are another
protocol once upgraded.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

DEFAULT_MAX_HEADER_BYTES = 64 * 1024
DEFAULT_MAX_HEADERS = 100
DEFAULT_HEADER_TIMEOUT_S = 10.0
DEFAULT_BODY_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class RequestLimits:
    max_header_bytes: int = DEFAULT_MAX_HEADER_BYTES
    max_headers: int = DEFAULT_MAX_HEADERS
    header_timeout_s: float = DEFAULT_HEADER_TIMEOUT_S
    body_timeout_s: float = DEFAULT_BODY_TIMEOUT_S


class _Refused(Exception):
    """Raised from a parser callback to stop parsing; the status to answer is in `_refusal`."""


_REASONS = {408: b"Request Timeout", 431: b"Request Header Fields Too Large"}


def guarded(protocol: type, limits: RequestLimits) -> type:
    """`protocol` (uvicorn's httptools protocol or a subclass) with `limits` enforced."""
    import httptools  # here: the limits themselves are read where httptools may be missing

    class GuardedHttpToolsProtocol(protocol):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            self._head_open = True  # from the connection's start, and from each request's first byte
            self._head_bytes = 0
            self._header_count = 0
            self._received_any = False
            self._in_body = False
            self._since = 0.0  # when the head began, or the body last moved
            self._refusal: tuple[int, str] | None = None
            self._timer: asyncio.TimerHandle | None = None

        # A clock runs only while a head or a body is incomplete at the end of a read; a request read whole in
        # one costs no timer.

        def connection_made(self, transport: asyncio.Transport) -> None:
            super().connection_made(transport)
            self._since = self.loop.time()
            self._watch()  # a connection that never sends a byte is timed too

        def data_received(self, data: bytes) -> None:
            self._received_any = True
            head_open_before = self._head_open
            try:
                self._unset_keepalive_if_required()
                self.parser.feed_data(data)
            except httptools.HttpParserUpgrade:
                if self._should_upgrade():
                    self.handle_websocket_upgrade()
                else:
                    self._unsupported_upgrade_warning()
                return
            except httptools.HttpParserError:
                if self._refusal is not None:
                    self._refuse(*self._refusal)
                else:
                    self.logger.warning("Invalid HTTP request received.")
                    self.send_400_response("Invalid HTTP request received.")
                return
            if head_open_before and self._head_open:
                # Counted after parsing, so that a body read with the end of its head never counts as head; what
                # is held meanwhile is at most one read more than the limit.
                self._head_bytes += len(data)
                if self._head_bytes > limits.max_header_bytes:
                    self._refuse(431, f"the request head exceeds {limits.max_header_bytes} bytes")
                    return
            self._watch()

        # The head: its size, its fields and its time.

        def on_message_begin(self) -> None:
            super().on_message_begin()
            if not self._head_open:  # a later request on a kept-alive connection: its head is timed from here
                self._head_open = True
                self._head_bytes = 0
                self._since = self.loop.time()
            self._header_count = 0

        def on_header(self, name: bytes, value: bytes) -> None:
            self._header_count += 1
            if self._header_count > limits.max_headers:
                self._refusal = (431, f"the request has more than {limits.max_headers} header fields")
                raise _Refused()
            super().on_header(name, value)

        def on_headers_complete(self) -> None:
            self._head_open = False
            super().on_headers_complete()
            # A request, not an upgrade (which makes no cycle), now has a body to come, or an empty one.
            self._in_body = self.cycle is not None and self.cycle.scope is self.scope
            self._since = self.loop.time()

        # The body: each part restarts its clock.

        def on_body(self, body: bytes) -> None:
            super().on_body(body)
            self._since = self.loop.time()

        def on_message_complete(self) -> None:
            super().on_message_complete()
            self._in_body = False

        # The clock.

        def _watch(self) -> None:
            """A timer while a head or body is incomplete, none otherwise."""
            timeout = (
                limits.header_timeout_s
                if self._head_open
                else limits.body_timeout_s
                if self._in_body
                else None
            )
            if timeout is None:
                self._cancel_timer()
            elif self._timer is None:
                self._timer = self.loop.call_at(self._since + timeout, self._expire)

        def _expire(self) -> None:
            self._timer = None
            if self.transport.is_closing() or not (self._head_open or self._in_body):
                return
            cycle = self.cycle if self._in_body else None
            now = self.loop.time()
            if self.flow.read_paused or (cycle is not None and cycle.waiting_for_100_continue):
                # The server, not the client, is holding the request back (flow control, a request waiting for the
                # one before it, a body the client may send only once the application asks for it).
                self._since = now
            timeout = limits.header_timeout_s if self._head_open else limits.body_timeout_s
            if now < self._since + timeout:
                self._watch()
            elif self._head_open:
                self._head_timed_out()
            else:
                self._body_stalled()

        def _head_timed_out(self) -> None:
            if self._received_any:
                self._refuse(408, f"the request head did not arrive within {limits.header_timeout_s:g} s")
            else:
                self.transport.close()

        def _body_stalled(self) -> None:
            cycle = self.cycle
            if cycle.response_started:
                self.transport.close()
            else:
                self._refuse(408, f"no part of the request body arrived for {limits.body_timeout_s:g} s")
            cycle.disconnected = True  # the application's read of the body ends, and its answer goes nowhere
            cycle.message_event.set()

        def _cancel_timer(self) -> None:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None

        def connection_lost(self, exc: Exception | None) -> None:
            self._cancel_timer()
            super().connection_lost(exc)

        def handle_websocket_upgrade(self) -> None:
            self._cancel_timer()
            super().handle_websocket_upgrade()

        def _refuse(self, status: int, reason: str) -> None:
            self._cancel_timer()
            self.logger.info("%s: %d", reason, status)
            body = (reason + "\n").encode()
            self.transport.write(
                b"HTTP/1.1 %d %s\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: %d\r\n"
                b"connection: close\r\n\r\n%s" % (status, _REASONS[status], len(body), body)
            )
            self.transport.close()

    return GuardedHttpToolsProtocol
