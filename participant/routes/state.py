"""State service: the active contract set (list, page and websocket forms), ledger end, pruning, synchronizers."""

from __future__ import annotations

import logging

import orjson
from starlette.requests import Request
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from participant import acs, errors
from participant.api import GetActiveContractsPageRequest, GetActiveContractsRequest
from participant.auth.authenticator import WS_AUTH_SUBPROTOCOL
from participant.routes._http import claims, context, decode, decode_bytes, json, query_int

log = logging.getLogger(__name__)

DEFAULT_PAGE_SIZE = 500
MAX_PAGE_SIZE = 10_000


async def active_contracts(request: Request):
    ctx = context(request)
    limit = query_int(request, "limit")
    query_int(request, "stream_idle_timeout_ms")  # a finite snapshot completes without waiting
    if limit is not None and limit < 0:
        raise errors.BadRequestBody(f"limit must not be negative, got {limit}", where="query parameter limit")
    req = await decode(request, GetActiveContractsRequest)
    event_filter, event_format = acs.event_filter_of_request(req, ctx.registry)
    acs.authorize_filter(await claims(request), event_filter)
    await acs.check_offset(ctx.store, req.active_at_offset)
    checksum = acs.format_checksum(ctx.identity.participant_id, req.active_at_offset, event_format)
    after = acs.resume_after(req.stream_continuation_token, checksum)

    node_limit = ctx.settings.max_list_elements
    take = node_limit + 1 if limit is None else min(limit, node_limit + 1)
    entries = []
    if take > 0:
        async for _, entry in acs.snapshot(ctx.store, req.active_at_offset, event_filter, checksum=checksum,
                                           after_seq=after, page_size=min(take, acs.STORE_PAGE)):
            entries.append(entry)
            if len(entries) >= take:
                break
    if len(entries) > node_limit:
        raise errors.JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED(
            f"The number of matching elements ({len(entries)}) is greater than the node limit ({node_limit}).")
    return json(entries)


async def active_contracts_page(request: Request):
    ctx = context(request)
    req = await decode(request, GetActiveContractsPageRequest)
    if req.event_format is None:
        raise errors.MISSING_FIELD("event_format", context={"field_name": "event_format"})
    size = DEFAULT_PAGE_SIZE if req.max_page_size is None else req.max_page_size
    if size <= 0:
        raise errors.INVALID_ARGUMENT(f"Requested page size must be positive, but got {size}")
    if size > MAX_PAGE_SIZE:
        raise errors.INVALID_ARGUMENT(f"Requested page size must not exceed {MAX_PAGE_SIZE}, but got {size}")
    event_filter = acs.resolve_event_format(req.event_format, ctx.registry)
    acs.authorize_filter(await claims(request), event_filter)
    checksum = acs.format_checksum(ctx.identity.participant_id, req.active_at_offset, req.event_format)
    if req.page_token:
        position = acs.Position.decode(req.page_token, "page_token")
        if position.checksum != checksum:
            raise errors.INVALID_ACS_PAGE_TOKEN(
                "The page token was prepared with different event_format or active_at_offset.")
        offset, after = position.offset, position.after_seq
    else:
        offset, after = req.active_at_offset or ctx.store.ledger_end, 0
    await acs.check_offset(ctx.store, offset)
    page, last_seq, more = [], after, False
    async for seq, entry in acs.snapshot(ctx.store, offset, event_filter, checksum=checksum, after_seq=after,
                                         page_size=min(size + 1, acs.STORE_PAGE)):
        if len(page) == size:
            more = True
            break
        entry["streamContinuationToken"] = ""
        page.append(entry)
        last_seq = seq
    next_token = acs.Position(last_seq, offset, checksum).encode() if more else None
    return json({"activeContracts": page, "activeAtOffset": offset, "nextPageToken": next_token})


async def active_contracts_stream(websocket: WebSocket):
    """The websocket form: one request message in, one message per entry out, then close."""
    ctx = websocket.app.state.context
    offered = [p.strip() for p in websocket.headers.get("sec-websocket-protocol", "").split(",")]
    await websocket.accept(subprotocol=WS_AUTH_SUBPROTOCOL if WS_AUTH_SUBPROTOCOL in offered else None)
    try:
        message = await websocket.receive_text()
        try:
            req = decode_bytes(message.encode(), GetActiveContractsRequest)
        except errors.BadRequestBody as e:
            raise errors.INVALID_ARGUMENT(e.text) from None
        claims_ = await ctx.authenticator.claims_for_websocket(websocket.headers)
        event_filter, event_format = acs.event_filter_of_request(req, ctx.registry)
        acs.authorize_filter(claims_, event_filter)
        await acs.check_offset(ctx.store, req.active_at_offset)
        checksum = acs.format_checksum(ctx.identity.participant_id, req.active_at_offset, event_format)
        after = acs.resume_after(req.stream_continuation_token, checksum)
        async for _, entry in acs.snapshot(ctx.store, req.active_at_offset, event_filter, checksum=checksum,
                                           after_seq=after):
            await websocket.send_text(orjson.dumps(entry).decode())
    except WebSocketDisconnect:
        return
    except errors.LedgerError as e:
        await websocket.send_text(orjson.dumps(e.body()).decode())
    except errors.BadRequestBody as e:
        await websocket.send_text(orjson.dumps(errors.INVALID_ARGUMENT(e.text).body()).decode())
    await websocket.close()


async def ledger_end(request: Request):
    await claims(request)
    return json({"offset": context(request).store.ledger_end})


async def latest_pruned_offsets(request: Request):
    await claims(request)
    pruned = await context(request).store.pruned_offset()
    return json({"participantPrunedUpToInclusive": pruned, "allDivulgedContractsPrunedUpToInclusive": pruned})


async def connected_synchronizers(request: Request):
    ctx = context(request)
    party = request.query_params.get("party")
    permission = "PARTICIPANT_PERMISSION_UNSPECIFIED"
    if party:
        c = await claims(request)
        if not (c.admin or c.idp_admin or c.can_read(party)):
            raise errors.PERMISSION_DENIED(f"no right to read as {party}")
        if await ctx.store.party(party) is not None:
            permission = "PARTICIPANT_PERMISSION_SUBMISSION"
    return json({"connectedSynchronizers": [
        {"synchronizerAlias": s.alias, "synchronizerId": s.id, "permission": permission}
        for s in ctx.identity.synchronizers
    ]})


routes = [
    Route("/v2/state/active-contracts", active_contracts, methods=["POST"]),
    WebSocketRoute("/v2/state/active-contracts", active_contracts_stream),
    Route("/v2/state/active-contracts-page", active_contracts_page, methods=["GET"]),
    Route("/v2/state/ledger-end", ledger_end, methods=["GET"]),
    Route("/v2/state/latest-pruned-offsets", latest_pruned_offsets, methods=["GET"]),
    Route("/v2/state/connected-synchronizers", connected_synchronizers, methods=["GET"]),
]
