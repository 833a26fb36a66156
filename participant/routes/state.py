"""State service: the active contract set (list, page and websocket forms), ledger end, pruning, synchronizers."""

from __future__ import annotations

import logging

import orjson
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from participant.api import GetActiveContractsPageRequest, GetActiveContractsRequest
from participant.base import errors
from participant.routes import pacing
from participant.routes.common import claims, context, decode, decode_bytes, json, list_limit
from participant.routes.streams import accept_authenticated, send_texts
from participant.services import acs as service
from participant.services import state

log = logging.getLogger(__name__)


async def active_contracts(request: Request):
    ctx = context(request)
    limits = list_limit(request)
    req = await decode(request, GetActiveContractsRequest)
    selected = service.selection(ctx, req)
    c = await claims(request)
    answer = await service.active_contracts(ctx, await service.snapshot(ctx, req, selected, c), limits)
    if isinstance(answer, bytes):
        return Response(answer, media_type="application/json")
    return StreamingResponse(answer, media_type="application/json")


async def active_contracts_page(request: Request):
    ctx = context(request)
    req = await decode(request, GetActiveContractsPageRequest)
    selected = service.page_selection(ctx, req)
    c = await claims(request)
    return StreamingResponse(
        await service.active_contracts_page(ctx, req, selected, c), media_type="application/json"
    )


async def active_contracts_stream(websocket: WebSocket):
    """The websocket form: one request message in, one message per entry out, then close."""
    ctx = websocket.app.state.context
    c = await accept_authenticated(websocket)
    if c is None:
        return
    try:
        message = await websocket.receive_text()
        try:
            req = decode_bytes(message.encode(), GetActiveContractsRequest)
        except errors.BadRequestBody as e:
            raise errors.INVALID_ARGUMENT(e.text) from None
        await pacing.streams.turn(pacing.OPENING)
        snap = await service.snapshot(ctx, req, service.selection(ctx, req), c)
        async for texts in service.entries(ctx, snap):  # one text message per entry
            await send_texts(websocket, texts)
    except WebSocketDisconnect:
        return
    except errors.LedgerError as e:
        await websocket.send_text(orjson.dumps(e.body()).decode())
    except errors.BadRequestBody as e:
        await websocket.send_text(orjson.dumps(errors.INVALID_ARGUMENT(e.text).body()).decode())
    await websocket.close()


async def ledger_end(request: Request):
    await claims(request)
    return json(state.ledger_end(context(request)))


async def latest_pruned_offsets(request: Request):
    await claims(request)
    return json(await state.latest_pruned_offsets(context(request)))


async def connected_synchronizers(request: Request):
    party = request.query_params.get("party")
    c = await claims(request) if party else None  # without a party, no token is needed
    return json(await state.connected_synchronizers(context(request), party, c))


routes = [
    Route("/v2/state/active-contracts", active_contracts, methods=["POST"]),
    WebSocketRoute("/v2/state/active-contracts", active_contracts_stream),
    Route("/v2/state/active-contracts-page", active_contracts_page, methods=["GET"]),
    Route("/v2/state/ledger-end", ledger_end, methods=["GET"]),
    Route("/v2/state/latest-pruned-offsets", latest_pruned_offsets, methods=["GET"]),
    Route("/v2/state/connected-synchronizers", connected_synchronizers, methods=["GET"]),
]
