"""Update service: the transactions between two offsets (list form), and one update looked up by offset or id."""

from __future__ import annotations

from starlette.requests import Request
from starlette.routing import Route

from participant.api import (
    GetTransactionByIdRequest,
    GetTransactionByOffsetRequest,
    GetUpdateByIdRequest,
    GetUpdateByOffsetRequest,
    GetUpdatesRequest,
)
from participant.routes.common import claims, context, decode, json, list_limit
from participant.services import updates as service


async def updates(request: Request):
    ctx = context(request)
    limits = list_limit(request)
    req = await decode(request, GetUpdatesRequest)
    view = service.updates_view(ctx, req)
    c = await claims(request)
    return json(await service.updates(ctx, req, view, c, limits))


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


routes = [
    Route("/v2/updates", updates, methods=["POST"]),
    Route("/v2/updates/update-by-offset", update_by_offset, methods=["POST"]),
    Route("/v2/updates/update-by-id", update_by_id, methods=["POST"]),
    Route("/v2/updates/transaction-by-offset", transaction_by_offset, methods=["POST"]),
    Route("/v2/updates/transaction-by-id", transaction_by_id, methods=["POST"]),
]
