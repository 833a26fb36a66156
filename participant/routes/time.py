"""`/x-ledger-tui/v1/time`: the static clock of a participant started with `--static-time` (ours, not Canton's;
see `participant.services.time`). Without `--static-time` these routes do not exist: 404 as any unknown path."""

from __future__ import annotations

from starlette.requests import Request
from starlette.routing import Route

from participant.routes.common import claims, context, decode, json
from participant.services import time


async def get_time(request: Request):
    c = await claims(request)
    return json(time.current_time(context(request), c))


async def set_time(request: Request):
    c = await claims(request)
    req = await decode(request, time.SetLedgerTimeRequest)
    await time.set_time(context(request), req, c)
    return json({})  # as the gRPC service's Empty


routes = [
    Route("/x-ledger-tui/v1/time", get_time, methods=["GET"]),
    Route("/x-ledger-tui/v1/time", set_time, methods=["POST"]),
]
