"""Update service, list form: the transactions between two offsets, in ACS-delta or ledger-effects shape."""

from __future__ import annotations

from starlette.requests import Request
from starlette.routing import Route

from participant import errors, shaping
from participant.api import EventFormat, GetUpdatesRequest
from participant.filters import EventFilter, format_or_legacy, resolve_event_format
from participant.routes._http import claims, context, decode, json, list_limit

STORE_PAGE = 500


def _format(req: GetUpdatesRequest, registry) -> tuple[str, EventFilter] | None:
    """The transaction shape and filter of the request (None when it asks for no transactions)."""
    fmt = format_or_legacy(req.update_format, req.filter, req.verbose, "update_format")
    if isinstance(fmt, EventFormat):  # the legacy filter: 3.5 answers ACS_DELTA transactions for it
        return shaping.ACS_DELTA, resolve_event_format(fmt, registry)
    tf = fmt.include_transactions
    if tf is None:
        return None
    if tf.event_format is None:
        raise errors.MISSING_FIELD("event_format", context={"field_name": "event_format"})
    if tf.transaction_shape == "TRANSACTION_SHAPE_UNSPECIFIED":
        raise errors.MISSING_FIELD("transaction_shape", context={"field_name": "transaction_shape"})
    return tf.transaction_shape, resolve_event_format(tf.event_format, registry)


async def updates(request: Request):
    ctx = context(request)
    limits = list_limit(request)
    req = await decode(request, GetUpdatesRequest)
    fmt = _format(req, ctx.registry)
    c = await claims(request)
    if fmt is not None:
        c.require_read(fmt[1].read_parties())
        if fmt[1].any_party is not None:
            c.require_read_any_party()
    store = ctx.store
    if req.begin_exclusive < 0:
        raise errors.NEGATIVE_OFFSET(f"begin_exclusive must not be negative, got {req.begin_exclusive}")
    if req.end_inclusive is not None and req.end_inclusive <= 0:
        raise errors.NON_POSITIVE_OFFSET(f"end_inclusive must be positive, got {req.end_inclusive}")
    if req.descending_order and req.end_inclusive is None:
        raise errors.DESCENDING_ORDER_MISSING_END("end_inclusive is not provided when descending_order is true")
    if req.begin_exclusive > store.ledger_end:
        raise errors.OFFSET_AFTER_LEDGER_END(
            f"Begin offset ({req.begin_exclusive}) is after ledger end ({store.ledger_end})")
    end = store.ledger_end if req.end_inclusive is None else req.end_inclusive
    if end > store.ledger_end:
        raise errors.OFFSET_AFTER_LEDGER_END(f"End offset ({end}) is after ledger end ({store.ledger_end})")
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
    while fmt is not None and len(out) < take and after < end:
        rows = await store.updates(after, end, STORE_PAGE)
        if not rows:
            break
        for update in rows:
            after = update.offset
            shape, event_filter = fmt
            tx = shaping.transaction(update, shape, event_filter, show_command_id=_submitter_sees(update, event_filter))
            if tx["events"]:
                out.append({"update": {"Transaction": {"value": tx}}})
                if len(out) >= take:
                    break
    limits.check(len(out))
    if req.descending_order:
        out.reverse()
    return json(out)


def _submitter_sees(update, event_filter: EventFilter) -> bool:
    """The command id is shown only to the submitting parties."""
    return event_filter.any_party is not None or bool(set(update.act_as) & set(event_filter.by_party))


routes = [Route("/v2/updates", updates, methods=["POST"])]
