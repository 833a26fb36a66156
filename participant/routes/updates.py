"""Update service, list form: the transactions between two offsets, in ACS-delta or ledger-effects shape."""

from __future__ import annotations

from starlette.requests import Request
from starlette.routing import Route

from participant import errors, shaping
from participant.api import GetUpdatesRequest
from participant.filters import EventFilter, resolve_event_format
from participant.routes._http import claims, context, decode, json, query_int

STORE_PAGE = 500


def _format(req: GetUpdatesRequest, registry) -> tuple[str, EventFilter] | None:
    """The transaction shape and filter of the request (None when it asks for no transactions)."""
    if req.update_format is not None:
        if req.filter is not None:
            raise errors.INVALID_ARGUMENT(
                "Both update_format and filter are set. Please use either backwards compatible arguments "
                "(filter and verbose) or update_format, but not both.")
        if req.verbose:
            raise errors.INVALID_ARGUMENT(
                "Both update_format and verbose are set. Please use either backwards compatible arguments "
                "(filter and verbose) or update_format, but not both.")
        tf = req.update_format.include_transactions
        if tf is None:
            return None
        if tf.event_format is None:
            raise errors.MISSING_FIELD("event_format", context={"field_name": "event_format"})
        if tf.transaction_shape == "TRANSACTION_SHAPE_UNSPECIFIED":
            raise errors.MISSING_FIELD("transaction_shape", context={"field_name": "transaction_shape"})
        return tf.transaction_shape, resolve_event_format(tf.event_format, registry)
    if req.filter is None:
        raise errors.INVALID_ARGUMENT(
            "Either filter/verbose or update_format is required. Please use either backwards compatible "
            "arguments (filter and verbose) or update_format.")
    from participant.api import EventFormat

    legacy = EventFormat(filters_by_party=req.filter.filters_by_party,
                         filters_for_any_party=req.filter.filters_for_any_party, verbose=req.verbose)
    return shaping.ACS_DELTA, resolve_event_format(legacy, registry)  # 3.5 maps the legacy filter to ACS_DELTA


async def updates(request: Request):
    ctx = context(request)
    limit = query_int(request, "limit")
    query_int(request, "stream_idle_timeout_ms")
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

    node_limit = ctx.settings.max_list_elements
    take = node_limit + 1 if limit is None else min(limit, node_limit + 1)
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
    if len(out) > node_limit:
        raise errors.JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED(
            f"The number of matching elements ({len(out)}) is greater than the node limit ({node_limit}).")
    if req.descending_order:
        out.reverse()
    return json(out)


def _submitter_sees(update, event_filter: EventFilter) -> bool:
    """The command id is shown only to the submitting parties."""
    return event_filter.any_party is not None or bool(set(update.act_as) & set(event_filter.by_party))


routes = [Route("/v2/updates", updates, methods=["POST"])]
