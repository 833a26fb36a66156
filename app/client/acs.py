"""Reading a whole ACS snapshot, however large, in batches: the page endpoint where the participant has it (3.5),
the websocket form otherwise (3.4), the list form as the last resort.

Batches are raw JSON elements (dicts shaped as `JsGetActiveContractsResponse`), not wire models: reading a million
entries through pydantic costs about 34 µs each (half a minute) against about 3 µs with orjson, and the consumer,
the local snapshot cache, keeps only a few columns of each. The shape is checked entry by entry all the same.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import orjson

from app.client import errors
from app.client.http import encode
from app.client.ledger import LedgerClient, parse_json
from app.client.websocket import subprotocols, ws_url
from app.counting import count as counted
from participant.api import EventFormat, GetActiveContractsPageRequest, GetActiveContractsRequest

FIRST_PAGE = 100  # small, so the first rows show at once
# Parsing a page holds the event loop (and the GIL) for its whole length: about 11 ms for 1,000 entries here, 80 ms
# for 5,000. Pages are small so that the screen keeps answering keys while a large snapshot is read, and each page
# is handed on as it comes: what is held at once (the parsed entries, then their cache rows) stays small, about 20 MB
# less at the peak than batches of 5,000 (the screen limits its own repaints). The next page is always requested
# before a batch is handed on, so the participant prepares it while the cache stores the batch.
PAGE = 1_000
PAGE_BATCH = PAGE
WS_BATCH = 2_000
WS_MAX_MESSAGE = 64 * 1024 * 1024
WS_STALL_S = 60.0  # a snapshot stream silent this long is given up
PAGE_PATH = "/v2/state/active-contracts-page"
LIST_PATH = "/v2/state/active-contracts"


@dataclass
class Batch:
    entries: list[dict[str, Any]]
    form: str  # "page", "websocket" or "list": how the snapshot is being read


def check_entry(entry: Any, where: str) -> dict[str, Any]:
    """An ACS element, or `UnreadableAnswer` (a Canton error inside a stream is raised as such)."""
    if isinstance(entry, dict):
        if isinstance(entry.get("contractEntry"), dict):
            return entry
        if "code" in entry and "cause" in entry:
            raise stream_error(entry, where)
    raise errors.UnreadableAnswer(
        f"{where} sent an element that is not an active contract: {str(entry)[:200]}", path=where
    )


def stream_error(body: dict, where: str) -> errors.StatusError:
    """A JsCantonError received inside a stream, as the exception its HTTP form would have raised."""
    from app.client.http import status_error

    status = _HTTP_OF_GRPC.get(body.get("grpcCodeValue") or 0, 500)
    return status_error(status, "application/json", orjson.dumps(body), "GET", where)


_HTTP_OF_GRPC = {
    3: 400,
    9: 400,
    11: 400,
    16: 401,
    7: 403,
    5: 404,
    10: 409,
    6: 409,
    8: 429,
    13: 500,
    14: 503,
    4: 504,
}


async def read_snapshot(
    client: LedgerClient, offset: int, fmt: EventFormat, *, on_form: Callable[[str], None] | None = None
) -> AsyncIterator[Batch]:
    """The snapshot at `offset` in batches. Offset 0 (ledger begin) is the empty set."""
    if offset <= 0:
        return
    caps = client.capabilities
    if caps.acs_page is not False:
        try:
            async for batch in _pages(client, offset, fmt):
                yield batch
            caps.acs_page = True
            return
        except errors.EndpointMissing:
            caps.acs_page = False
    try:
        async for batch in _websocket(client, offset, fmt):
            yield batch
    except _NoWebsocket:
        async for batch in _list(client, offset, fmt):
            yield batch


async def _page(
    client: LedgerClient, offset: int, fmt: EventFormat, size: int, token: str | None
) -> tuple[list[dict[str, Any]], str | None]:
    """One page: its entries and the token of the next one (None after the last)."""
    body = GetActiveContractsPageRequest(
        active_at_offset=offset, event_format=fmt, max_page_size=size, page_token=token
    )
    content = await client.http.request("GET", PAGE_PATH, body)
    page = parse_json(content, "GET", PAGE_PATH)
    if not isinstance(page, dict) or not isinstance(page.get("activeContracts"), list):
        raise errors.UnreadableAnswer(f"GET {PAGE_PATH} answered no activeContracts", path=PAGE_PATH)
    return [check_entry(e, PAGE_PATH) for e in page["activeContracts"]], page.get("nextPageToken") or None


async def _pages(client: LedgerClient, offset: int, fmt: EventFormat) -> AsyncIterator[Batch]:
    next_page: asyncio.Task | None = asyncio.ensure_future(_page(client, offset, fmt, FIRST_PAGE, None))
    batch: list[dict[str, Any]] = []
    first = True
    try:
        for _ in range(10_000_000):
            if next_page is None:
                break
            entries, token = await next_page
            next_page = asyncio.ensure_future(_page(client, offset, fmt, PAGE, token)) if token else None
            batch.extend(entries)
            if first or len(batch) >= PAGE_BATCH:
                first = False
                yield Batch(batch, "page")
                batch = []
        if batch:
            yield Batch(batch, "page")
    finally:
        if next_page is not None:  # the reader stopped early (cancelled, or failed on a batch)
            next_page.cancel()
            next_page.add_done_callback(_retrieve)


def _retrieve(task: asyncio.Task) -> None:
    """Take a prefetch's outcome, so that a failure nobody waits for is not reported as unhandled."""
    if not task.cancelled():
        task.exception()


class _NoWebsocket(Exception):
    """The websocket could not be opened at all (a proxy refusing the upgrade): try the list form."""


async def _websocket(client: LedgerClient, offset: int, fmt: EventFormat) -> AsyncIterator[Batch]:
    # imported here: a participant with the page endpoint never needs them, and they take tens of milliseconds
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosedOK, InvalidStatus, WebSocketException

    request = encode(GetActiveContractsRequest(active_at_offset=offset, event_format=fmt))
    protocols = await subprotocols(client.tokens)
    url = ws_url(client.base_url, LIST_PATH)
    log = client.log
    record = log.start(
        "GET",
        url,
        LIST_PATH + " (websocket)",
        {"Authorization": "Bearer"} if client.tokens else {},
        request,
        stream=True,
    )
    received = 0
    count = 0
    try:
        try:
            ws = await connect(
                url, subprotocols=protocols, max_size=WS_MAX_MESSAGE, open_timeout=10, compression=None
            )
        except InvalidStatus as e:
            status = e.response.status_code
            log.finish(record, status=status, body=bytes(e.response.body or b""))
            if status == 404:
                raise errors.EndpointMissing(
                    404, "the websocket ACS is not served here", path=LIST_PATH
                ) from None
            raise _NoWebsocket() from None
        except (OSError, WebSocketException, TimeoutError) as e:
            log.finish(record, error=f"websocket: {e}")
            raise errors.TransportError(
                f"websocket {url}: {e}", path=LIST_PATH, hint="Is the participant running at this URL?"
            ) from None
        async with ws:
            await ws.send(request.decode())
            batch: list[dict[str, Any]] = []
            try:
                while True:
                    try:
                        message = await asyncio.wait_for(ws.recv(), WS_STALL_S)
                    except ConnectionClosedOK:
                        break
                    except TimeoutError:
                        raise errors.RequestTimeout(
                            f"the websocket ACS sent nothing for {WS_STALL_S:.0f} s after {counted(count, 'entry')}",
                            path=LIST_PATH,
                            hint="The participant may be overloaded; reload to try again.",
                        ) from None
                    received += len(message)
                    count += 1
                    batch.append(check_entry(orjson.loads(message), LIST_PATH))
                    if len(batch) >= WS_BATCH:
                        yield Batch(batch, "websocket")
                        batch = []
                        await asyncio.sleep(0)
            except orjson.JSONDecodeError as e:
                raise errors.UnreadableAnswer(
                    f"the websocket ACS sent a message that is not JSON ({e})", path=LIST_PATH
                ) from None
            except WebSocketException as e:
                raise errors.TransportError(
                    f"the websocket ACS broke after {counted(count, 'entry')}: {e}", path=LIST_PATH
                ) from None
            if batch:
                yield Batch(batch, "websocket")
        log.finish(record, status=101, body=counted(count, "message").encode(), size=received)
    except errors.StatusError as e:
        # a Canton error sent inside the stream: logged as the answer its HTTP form would have given
        if not record.done:
            body = e.canton.model_dump_json(by_alias=True).encode() if e.canton is not None else b""
            log.finish(
                record,
                status=e.status,
                headers={"content-type": "application/json"},
                body=body,
                size=received,
            )
        raise
    except (asyncio.CancelledError, GeneratorExit):
        if not record.done:
            log.finish(record, error="cancelled", size=received)  # the reader stopped reading: not a failure
        raise
    except BaseException as e:
        if not record.done:
            log.finish(record, error=f"{type(e).__name__}: {e}" if str(e) else type(e).__name__)
        raise


async def _list(client: LedgerClient, offset: int, fmt: EventFormat) -> AsyncIterator[Batch]:
    body = GetActiveContractsRequest(active_at_offset=offset, event_format=fmt)
    content = await client.http.request("POST", LIST_PATH, body)
    items = parse_json(content, "POST", LIST_PATH)
    if not isinstance(items, list):
        raise errors.UnreadableAnswer(f"POST {LIST_PATH} answered no list", path=LIST_PATH)
    yield Batch([check_entry(e, LIST_PATH) for e in items], "list")
