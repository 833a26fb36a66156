"""Update service: the transactions between two offsets (list form), and one update looked up by offset or id."""

from __future__ import annotations

from starlette.requests import Request
from starlette.routing import Route

from participant import errors, offsets, shaping
from participant.api import GetUpdatesRequest
from participant.filters import resolve_update_format, update_format_or_legacy
from participant.routes._http import claims, context, decode, json, list_limit

STORE_PAGE = 500


async def updates(request: Request):
    ctx = context(request)
    limits = list_limit(request)
    req = await decode(request, GetUpdatesRequest)
    view = resolve_update_format(update_format_or_legacy(req.update_format, req.filter, req.verbose), ctx.registry)
    view.authorize(await claims(request))
    store = ctx.store
    offsets.require_non_negative(req.begin_exclusive, "begin_exclusive")
    if req.end_inclusive is not None:
        offsets.require_positive(req.end_inclusive, "end_inclusive",
                                 offsets.POSITIVE if req.descending_order else offsets.POSITIVE_OR_ABSENT)
    elif req.descending_order:
        raise errors.DESCENDING_ORDER_MISSING_END("end_inclusive is not provided when descending_order is true")
    offsets.require_not_after_end("Begin", req.begin_exclusive, store.ledger_end)
    end = store.ledger_end if req.end_inclusive is None else req.end_inclusive
    offsets.require_not_after_end("End", end, store.ledger_end)
    if req.begin_exclusive > end:
        raise errors.INVALID_ARGUMENT(
            f"begin_exclusive ({req.begin_exclusive}) is after end_inclusive ({end})")
    pruned = await store.pruned_offset()
    if req.begin_exclusive < pruned:
        raise errors.PARTICIPANT_PRUNED_DATA_ACCESSED(
            f"Transactions request from {req.begin_exclusive} to {end} precedes pruned offset {pruned}",
            context={"earliest_offset": str(pruned)})

    take = limits.take
    out: list[dict] = []
    after = req.begin_exclusive
    while view.transactions is not None and len(out) < take and after < end:
        rows = await store.updates(after, end, STORE_PAGE)
        if not rows:
            break
        for update in rows:
            after = update.offset
            tx = shaping.visible_transaction(update, view.transactions)
            if tx is not None:
                out.append({"update": {"Transaction": {"value": tx}}})
                if len(out) >= take:
                    break
    limits.check(len(out))
    if req.descending_order:
        out.reverse()
    return json(out)


routes = [Route("/v2/updates", updates, methods=["POST"])]
