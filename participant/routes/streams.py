"""The websocket form of a stream (asyncapi): one request message in, one text message per element out, then
close; a stream without an end stays open until the client closes. Errors go out as one `JsCantonError` text
message before the close, as Canton sends them."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TypeVar

import orjson
import pydantic
from starlette.websockets import WebSocket, WebSocketDisconnect

from participant.auth import Claims
from participant.auth.authenticator import WS_AUTH_SUBPROTOCOL
from participant.base import errors
from participant.routes.common import decode_bytes, error_response
from participant.services.context import Context

M = TypeVar("M", bound=pydantic.BaseModel)
Open = Callable[[Context, M, Claims], Awaitable[AsyncIterator[list[dict]]]]


async def accept_authenticated(websocket: WebSocket) -> Claims | None:
    """The caller's claims, with the upgrade accepted; or None, with the upgrade refused as the HTTP form of the
    request would be (401 or 403 with the error's body), when its token is missing, invalid or names no user.

    The token is checked before accepting, so an unauthenticated client never has a message read."""
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
        pages = await open_stream(ctx, req, c)
        if not await _send_until_closed(websocket, pages):
            return
    except WebSocketDisconnect:
        return
    except errors.LedgerError as e:
        await websocket.send_text(orjson.dumps(e.body()).decode())
    await websocket.close()


async def _send_until_closed(websocket: WebSocket, pages: AsyncIterator[list[dict]]) -> bool:
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


async def _send_all(websocket: WebSocket, pages: AsyncIterator[list[dict]]) -> None:
    send = websocket.send
    async for page in pages:
        for item in page:
            await send({"type": "websocket.send", "text": orjson.dumps(item).decode()})


async def _until_closed(websocket: WebSocket) -> None:
    while (await websocket.receive())["type"] != "websocket.disconnect":
        pass
