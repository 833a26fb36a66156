"""Update service: the update stream (list and websocket forms, with the deprecated flats and trees), its pages,
and one update, transaction or transaction tree looked up by offset or id."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket

from participant.api import (
    GetTransactionByIdRequest,
    GetTransactionByOffsetRequest,
    GetUpdateByIdRequest,
    GetUpdateByOffsetRequest,
    GetUpdatesPageRequest,
    GetUpdatesRequest,
)
from participant.routes import streams
from participant.routes.common import claims, context, decode, json, list_limit, path_int, stream_idle_timeout
from participant.services import update_stream, updates_page
from participant.services import updates as service


def _list(form: str):
    async def updates(request: Request):
        ctx = context(request)
        limits = list_limit(request)
        idle = stream_idle_timeout(request)
        req = await decode(request, GetUpdatesRequest)
        view = update_stream.view_of(ctx, req, form)
        c = await claims(request)
        s = await update_stream.open_stream(ctx, req, view, c, form)
        return Response(await update_stream.collect(ctx, s, limits, idle), media_type="application/json")

    return updates


def _websocket(form: str):
    async def open_stream(ctx, req: GetUpdatesRequest, c):
        s = await update_stream.open_stream(ctx, req, update_stream.view_of(ctx, req, form), c, form)
        return update_stream.elements(ctx, s)

    async def updates(websocket: WebSocket):
        await streams.serve(websocket, GetUpdatesRequest, open_stream)

    return updates


async def get_updates_page(request: Request):
    ctx = context(request)
    req = await decode(request, GetUpdatesPageRequest)
    selected = updates_page.page_selection(ctx, req)
    c = await claims(request)
    return Response(await updates_page.page(ctx, req, selected, c), media_type="application/json")


async def update_by_offset(request: Request):
    req = await decode(request, GetUpdateByOffsetRequest)
    c = await claims(request)
    return json(await service.update_by_offset(context(request), req, c))


async def update_by_id(request: Request):
    req = await decode(request, GetUpdateByIdRequest)
    c = await claims(request)
    return json(await service.update_by_id(context(request), req, c))


async def transaction_by_offset(request: Request):
    req = await decode(request, GetTransactionByOffsetRequest)
    fmt = service.transaction_lookup_format(req)
    c = await claims(request)
    return json(await service.transaction_by_offset(context(request), req, fmt, c))


async def transaction_by_id(request: Request):
    req = await decode(request, GetTransactionByIdRequest)
    fmt = service.transaction_lookup_format(req)
    c = await claims(request)
    return json(await service.transaction_by_id(context(request), req, fmt, c))


async def transaction_tree_by_offset(request: Request):
    offset = path_int(request, "offset")
    fmt = service.tree_lookup_format(request.query_params.getlist("parties"))
    c = await claims(request)
    return json(await service.transaction_tree_by_offset(context(request), offset, fmt, c))


async def transaction_tree_by_id(request: Request):
    fmt = service.tree_lookup_format(request.query_params.getlist("parties"))
    c = await claims(request)
    return json(
        await service.transaction_tree_by_id(context(request), request.path_params["update_id"], fmt, c)
    )


routes = [
    Route("/v2/updates", _list(update_stream.UPDATES), methods=["POST"]),
    WebSocketRoute("/v2/updates", _websocket(update_stream.UPDATES)),
    Route("/v2/updates/flats", _list(update_stream.FLATS), methods=["POST"]),
    WebSocketRoute("/v2/updates/flats", _websocket(update_stream.FLATS)),
    Route("/v2/updates/trees", _list(update_stream.TREES), methods=["POST"]),
    WebSocketRoute("/v2/updates/trees", _websocket(update_stream.TREES)),
    Route("/v2/updates/get-updates-page", get_updates_page, methods=["POST"]),
    Route("/v2/updates/update-by-offset", update_by_offset, methods=["POST"]),
    Route("/v2/updates/update-by-id", update_by_id, methods=["POST"]),
    Route("/v2/updates/transaction-by-offset", transaction_by_offset, methods=["POST"]),
    Route("/v2/updates/transaction-by-id", transaction_by_id, methods=["POST"]),
    Route("/v2/updates/transaction-tree-by-offset/{offset}", transaction_tree_by_offset, methods=["GET"]),
    Route("/v2/updates/transaction-tree-by-id/{update_id}", transaction_tree_by_id, methods=["GET"]),
]
