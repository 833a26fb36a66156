"""Party management service: allocate, list, look up and update parties, and the participant's own id."""

from __future__ import annotations

from starlette.requests import Request
from starlette.routing import Route

from participant.api import AllocatePartyRequest, UpdatePartyDetailsRequest
from participant.routes.common import claims, context, decode, json, page_query
from participant.services import node, parties


async def allocate_party(request: Request):
    req = await decode(request, AllocatePartyRequest)
    c = await claims(request)
    return json(await parties.allocate_party(context(request), req, c))


async def list_parties(request: Request):
    c = await claims(request)
    prefix = request.query_params.get("filter-party", "")
    return json(await parties.list_parties(context(request), page_query(request), prefix, c))


async def get_parties(request: Request):
    wanted = parties.require_parties([request.path_params["party"], *request.query_params.getlist("parties")])
    c = await claims(request)
    return json(await parties.get_parties(context(request), wanted, c))


async def update_party(request: Request):
    req = await decode(request, UpdatePartyDetailsRequest)
    parties.require_party_in_body(request.path_params["party"], req.party_details)
    c = await claims(request)
    return json(await parties.update_party(context(request), req, c))


async def participant_id(request: Request):
    c = await claims(request)
    return json(node.participant_id(context(request), c))


routes = [
    Route("/v2/parties", allocate_party, methods=["POST"]),
    Route("/v2/parties", list_parties, methods=["GET"]),
    Route("/v2/parties/participant-id", participant_id, methods=["GET"]),
    Route("/v2/parties/{party}", get_parties, methods=["GET"]),
    Route("/v2/parties/{party}", update_party, methods=["PATCH"]),
]
