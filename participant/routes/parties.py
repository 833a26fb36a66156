"""Party management service: allocate and list parties, and the participant's own id."""

from __future__ import annotations

import uuid

from starlette.requests import Request
from starlette.routing import Route

from participant import errors
from participant.api import AllocatePartyRequest
from participant.engine import ids
from participant.routes.common import (
    admin_errors,
    claims,
    context,
    decode,
    json,
    next_page_token,
    page_request,
)
from participant.store import admin
from participant.store.rows import PartyRow

MAX_PAGE_SIZE = 10_000


def wire_party(p: PartyRow) -> dict:
    return {
        "party": p.party,
        "isLocal": True,
        "localMetadata": {"resourceVersion": str(p.resource_version), "annotations": p.annotations},
        "identityProviderId": p.identity_provider_id,
    }


async def allocate_party(request: Request):
    ctx = context(request)
    req = await decode(request, AllocatePartyRequest)
    c = await claims(request)
    if not (c.admin or c.idp_admin):
        if not req.user_id or req.user_id != c.user_id:  # self-allocation names the token's own user
            raise errors.PERMISSION_DENIED("allocating a party needs ParticipantAdmin or self-allocation")
    if req.synchronizer_id and ctx.identity.synchronizer(req.synchronizer_id) is None:
        raise errors.INVALID_ARGUMENT(f"Synchronizer id not found: {req.synchronizer_id}")
    hint = req.party_id_hint or f"party-{uuid.uuid4()}"
    party = ctx.identity.party(hint)
    annotations = dict(req.local_metadata.annotations) if req.local_metadata else {}
    with admin_errors():
        await admin.allocate_party(ctx.store, party, annotations, req.identity_provider_id, req.user_id)
    return json({"partyDetails": wire_party(PartyRow(party, annotations, 0, req.identity_provider_id))})


async def list_parties(request: Request):
    (await claims(request)).require_admin()
    size, after = page_request(request, MAX_PAGE_SIZE)
    prefix = request.query_params.get("filter-party", "")
    parties = await context(request).store.parties(after, size + 1, prefix)
    last = parties[size - 1].party if len(parties) > size else None
    return json({"partyDetails": [wire_party(p) for p in parties[:size]], "nextPageToken": next_page_token(last)})


async def get_parties(request: Request):
    ctx = context(request)
    wanted = [request.path_params["party"], *request.query_params.getlist("parties")]
    ids.require_party_ids(wanted)
    c = await claims(request)
    c.require_read_unless_admin(wanted)
    found = [row for p in dict.fromkeys(wanted) if (row := await ctx.store.party(p)) is not None]
    return json({"partyDetails": [wire_party(p) for p in found]})


async def participant_id(request: Request):
    await claims(request)
    return json({"participantId": context(request).identity.participant_id})


routes = [
    Route("/v2/parties", allocate_party, methods=["POST"]),
    Route("/v2/parties", list_parties, methods=["GET"]),
    Route("/v2/parties/participant-id", participant_id, methods=["GET"]),
    Route("/v2/parties/{party}", get_parties, methods=["GET"]),
]
