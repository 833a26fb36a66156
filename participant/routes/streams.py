"""The websocket form of a stream (asyncapi): one request message in, one text message per element out, then
close; a stream without an end stays open until the client closes. Errors go out as one `JsCantonError` text
message before the close, as Canton sends them.

A stream's memory is bounded per subscriber: elements are written `SEND_BYTES` at a time, each write waiting while
the connection's send buffer is over its high-water mark (the transport's 64 KiB), so a slow reader pauses its
stream where it is (backpressure: the server holds one page of elements for it, never more) and a fast one yields
to the others between writes (`pacing`). A client that reads nothing answers no keepalive ping either: after
uvicorn's ping interval and timeout (20 s each) its connection is dropped (`protocols.websocket_protocol`)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Iterator, Sequence
from typing import TypeVar

import orjson
import pydantic
from starlette.websockets import WebSocket, WebSocketDisconnect

from participant.auth import Claims
from participant.auth.authenticator import WS_AUTH_SUBPROTOCOL
from participant.base import errors
from participant.protocols.websocket_protocol import SEND_TEXTS
from participant.routes import pacing
from participant.routes.common import decode_bytes, error_response
from participant.services.context import Context

M = TypeVar("M", bound=pydantic.BaseModel)
# a generator, not any iterator: a stream left early (the client gone) is closed, its cursor or queue released
Open = Callable[[Context, M, Claims], Awaitable[AsyncGenerator[Sequence[bytes], None]]]

SEND_BYTES = 64 * 1024  # what one write of a stream carries at most (and one element past it)


async def accept_authenticated(websocket: WebSocket) -> Claims | None:
    """The caller's claims, with the upgrade accepted; or None, with the upgrade refused as the HTTP form of the
    request would be (401 or 403 with the error's body), when its token is missing, invalid or names no user.

    The token is checked before accepting, so an unauthenticated client never has a message read. It waits for a
    turn of the streams' pacer first: hundreds of subscribers connecting at once are checked a few per turn."""
    await pacing.streams.turn(pacing.OPENING)
    try:
        c = await websocket.app.state.context.authenticator.claims_for_websocket(websocket.headers)
    except errors.LedgerError as e:
        if "websocket.http.response" in websocket.scope.get("extensions", {}):
            await websocket.send_denial_response(error_response(e))
        else:
            await websocket.close(code=1008)  # a server without denial responses answers 403
        return None
    offered = [p.strip() for p in websocket.headers.get("sec-websocket-protocol", "").split(",")]
    await websocket.accept(subprotocol=WS_AUTH_SUBPROTOCOL if WS_AUTH_SUBPROTOCOL in offered else None)
    return c


async def serve(websocket: WebSocket, model: type[M], open_stream: Open) -> None:
    """Authenticate the caller, read the request, authorize it through `open_stream` (which checks it and returns
    its pages of elements) and send every element, watching all the while for the client going away."""
    ctx = websocket.app.state.context
    c = await accept_authenticated(websocket)
    if c is None:
        return
    try:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            return
        text = message.get("text")
        try:
            req = decode_bytes(text.encode() if text is not None else message.get("bytes") or b"", model)
        except errors.BadRequestBody as e:
            raise errors.INVALID_ARGUMENT(e.text) from None
        await pacing.streams.turn(pacing.OPENING)
        pages = await open_stream(ctx, req, c)
        if not await _send_until_closed(websocket, pages):
            return
    except WebSocketDisconnect:
        return
    except errors.LedgerError as e:
        await websocket.send_text(orjson.dumps(e.body()).decode())
    await websocket.close()


async def _send_until_closed(websocket: WebSocket, pages: AsyncGenerator[Sequence[bytes], None]) -> bool:
    """Send the pages' elements until they end (True) or the client closes (False). Later client messages are
    read and ignored, as Canton does; reading them is how a close is seen while the stream waits for commits."""
    sending = asyncio.ensure_future(_send_all(websocket, pages))
    closing = asyncio.ensure_future(_until_closed(websocket))
    try:
        await asyncio.wait({sending, closing}, return_when=asyncio.FIRST_COMPLETED)
        if sending.done():
            sending.result()  # a failure of the stream is answered as an error message
            return True
        return False
    finally:
        for task in (sending, closing):
            task.cancel()
        await asyncio.gather(sending, closing, return_exceptions=True)
        await pages.aclose()


async def _send_all(websocket: WebSocket, pages: AsyncIterator[Sequence[bytes]]) -> None:
    async for texts in pages:
        await send_texts(websocket, texts)


async def send_texts(websocket: WebSocket, texts: Sequence[bytes]) -> None:
    """Each JSON text as one text message, `SEND_BYTES` at a time: each write waits for its turn of the event loop
    (`pacing`) and for the client to have read what was written before (the send buffer under its high-water
    mark)."""
    send = websocket.send
    batched = SEND_TEXTS in websocket.scope.get("extensions", {})
    for chunk in _chunks(texts, SEND_BYTES):
        await pacing.streams.turn(sum(map(len, chunk)))
        if batched:
            await send({"type": "websocket.send", SEND_TEXTS: chunk})
        else:
            for text in chunk:
                await send({"type": "websocket.send", "text": text.decode()})


def _chunks(texts: Sequence[bytes], limit: int) -> Iterator[Sequence[bytes]]:
    """`texts` in runs whose size passes `limit` by at most their last text."""
    start, size = 0, 0
    for i, text in enumerate(texts):
        size += len(text)
        if size >= limit:
            yield texts[start : i + 1]
            start, size = i + 1, 0
    if start < len(texts):
        yield texts[start:]


async def _until_closed(websocket: WebSocket) -> None:
    while (await websocket.receive())["type"] != "websocket.disconnect":
        pass
