"""Contract service and event query service: one contract by id, and its create and archive events."""

from __future__ import annotations

from starlette.requests import Request
from starlette.routing import Route

from participant.api import GetContractRequest, GetEventsByContractIdRequest
from participant.routes.common import claims, context, decode, json
from participant.services import events


async def contract_by_id(request: Request):
    req = await decode(request, GetContractRequest)
    contract_id = events.check_contract_request(req)
    c = await claims(request)
    return json(await events.contract_by_id(context(request), req, contract_id, c))


async def events_by_contract_id(request: Request):
    ctx = context(request)
    req = await decode(request, GetEventsByContractIdRequest)
    contract_id, event_filter = events.events_request_filter(ctx, req)
    c = await claims(request)
    return json(await events.events_by_contract_id(ctx, contract_id, event_filter, c))


routes = [
    Route("/v2/contracts/contract-by-id", contract_by_id, methods=["POST"]),
    Route("/v2/events/events-by-contract-id", events_by_contract_id, methods=["POST"]),
]
