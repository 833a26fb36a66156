"""State service: the active contract set (list, page and websocket forms), ledger end, pruning, synchronizers."""

from __future__ import annotations

import logging

import orjson
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from participant import acs, errors
from participant.api import GetActiveContractsPageRequest, GetActiveContractsRequest
from participant.auth.authenticator import WS_AUTH_SUBPROTOCOL
from participant.filters import authorize, resolve_event_format
from participant.routes.common import claims, context, decode, decode_bytes, json, list_limit

log = logging.getLogger(__name__)

DEFAULT_PAGE_SIZE = 500
MAX_PAGE_SIZE = 10_000


async def active_contracts(request: Request):
    ctx = context(request)
    limits = list_limit(request)
    req = await decode(request, GetActiveContractsRequest)
    event_filter, event_format = acs.event_filter_of_request(req, ctx.registry)
    authorize(await claims(request), event_filter)
    await acs.check_offset(ctx.store, req.active_at_offset)
    checksum = acs.format_checksum(ctx.identity.participant_id, req.active_at_offset, event_format)
    after = acs.resume_after(req.stream_continuation_token, checksum)

    offset = req.active_at_offset
    prefix = acs.token_prefix(offset, checksum)
    if limits.client is not None and limits.client <= limits.node:  # no 413 possible: at most `limit` entries
        return _list_response(ctx.store, offset, event_filter, prefix, after, limits.client)
    cap = limits.take
    if await acs.count_candidates(ctx.store, offset, event_filter, after_seq=after, cap=cap) <= limits.node:
        return _list_response(ctx.store, offset, event_filter, prefix, after, None)
    # More candidates than the limit: the filter decides, so collect up to limit + 1 entries (bounded).
    texts: list[str] = []
    async for page, _ in acs.rendered(ctx.store, offset, event_filter, token_prefix=prefix, after_seq=after,
                                      page_size=min(cap, acs.STORE_PAGE)):
        texts.extend(page)
        limits.check(min(len(texts), cap))
    return Response(f"[{','.join(texts)}]".encode(), media_type="application/json")


def _list_response(store, offset: int, event_filter, prefix: str, after: int, limit: int | None) -> Response:
    """The list answer streamed page by page from the store: a JSON array of at most `limit` entries."""

    async def chunks():
        sent = 0
        sep = "["
        if limit != 0:
            page_size = acs.STORE_PAGE if limit is None else min(limit, acs.STORE_PAGE)
            async for texts, _ in acs.rendered(store, offset, event_filter, token_prefix=prefix, after_seq=after,
                                               page_size=page_size):
                if limit is not None and sent + len(texts) > limit:
                    texts = texts[:limit - sent]
                if not texts:
                    continue
                texts[0] = sep + texts[0]
                sep = ","
                yield ",".join(texts).encode()
                sent += len(texts)
                if limit is not None and sent >= limit:
                    break
        yield b"[]" if sep == "[" else b"]"

    return StreamingResponse(chunks(), media_type="application/json")


async def active_contracts_page(request: Request):
    ctx = context(request)
    req = await decode(request, GetActiveContractsPageRequest)
    if req.event_format is None:
        raise errors.missing_field("event_format")
    size = DEFAULT_PAGE_SIZE if req.max_page_size is None else req.max_page_size
    if size <= 0:
        raise errors.INVALID_ARGUMENT(f"Requested page size must be positive, but got {size}")
    if size > MAX_PAGE_SIZE:
        raise errors.INVALID_ARGUMENT(f"Requested page size must not exceed {MAX_PAGE_SIZE}, but got {size}")
    event_filter = resolve_event_format(req.event_format, ctx.registry)
    authorize(await claims(request), event_filter)
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
    texts: list[str] = []
    last_seq, more = after, False
    async for page, seqs in acs.rendered(ctx.store, offset, event_filter, token_prefix=None, after_seq=after,
                                         page_size=min(size + 1, acs.STORE_PAGE)):
        room = size - len(texts)
        if len(page) > room:
            texts.extend(page[:room])
            if room:
                last_seq = seqs[room - 1]
            more = True
            break
        texts.extend(page)
        if seqs:
            last_seq = seqs[-1]
    next_token = orjson.dumps(acs.Position(last_seq, offset, checksum).encode()).decode() if more else "null"
    body = f'{{"activeContracts":[{",".join(texts)}],"activeAtOffset":{offset},"nextPageToken":{next_token}}}'
    return Response(body.encode(), media_type="application/json")


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
        authorize(claims_, event_filter)
        await acs.check_offset(ctx.store, req.active_at_offset)
        checksum = acs.format_checksum(ctx.identity.participant_id, req.active_at_offset, event_format)
        after = acs.resume_after(req.stream_continuation_token, checksum)
        prefix = acs.token_prefix(req.active_at_offset, checksum)
        send = websocket.send
        async for texts, _ in acs.rendered(ctx.store, req.active_at_offset, event_filter, token_prefix=prefix,
                                           after_seq=after):
            for text in texts:  # TEXT frames, one per entry
                await send({"type": "websocket.send", "text": text})
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
        (await claims(request)).require_read_unless_admin([party])
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
