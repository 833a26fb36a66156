"""Updates: the transactions and reassignments between two offsets (list form: offset checks, paging through the
store, visibility), and one update looked up by offset or id (Canton's deprecated transaction lookups are the
same with another format)."""

from __future__ import annotations

from participant import errors, offsets, shaping
from participant.api import (
    GetTransactionByIdRequest,
    GetTransactionByOffsetRequest,
    GetUpdateByIdRequest,
    GetUpdateByOffsetRequest,
    GetUpdatesRequest,
)
from participant.auth import Claims
from participant.context import Context
from participant.engine import ids
from participant.filters import (
    TransactionView,
    UpdateView,
    authorized_transaction_view,
    resolve_update_format,
    transaction_format_or_parties,
    update_format_or_legacy,
)
from participant.services.common import ListLimit

STORE_PAGE = 500


def updates_view(ctx: Context, req: GetUpdatesRequest) -> UpdateView:
    """The view of an updates request (its update format, or the legacy filter and verbose flag), resolved
    before the caller's claims are read."""
    return resolve_update_format(update_format_or_legacy(req.update_format, req.filter, req.verbose), ctx.registry)


async def updates(ctx: Context, req: GetUpdatesRequest, view: UpdateView, c: Claims, limits: ListLimit) -> list[dict]:
    view.authorize(c)
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
    offsets.require_not_pruned(req.begin_exclusive, await store.pruned_offset(),
                               f"Transactions request from {req.begin_exclusive} to {end}")

    take = limits.take
    out: list[dict] = []
    after = req.begin_exclusive
    while (view.transactions is not None or view.reassignments is not None) and len(out) < take and after < end:
        rows = await store.updates(after, end, STORE_PAGE)
        if not rows:
            break
        for update in rows:
            after = update.offset
            element = _element(update, view)
            if element is not None:
                out.append({"update": element})
                if len(out) >= take:
                    break
    limits.check(len(out))
    if req.descending_order:
        out.reverse()
    return out


def _element(update, view: UpdateView) -> dict | None:
    """The update as the view shows it (`{"Transaction": ..}` or `{"Reassignment": ..}`), or None."""
    if update.kind == "transaction" and view.transactions is not None:
        tx = shaping.visible_transaction(update, view.transactions)
        return None if tx is None else {"Transaction": {"value": tx}}
    if update.kind == "reassignment" and view.reassignments is not None:
        r = shaping.visible_reassignment(update, view.reassignments)
        return None if r is None else {"Reassignment": {"value": r}}
    return None


# --- one update, by offset or by id

def _require_update_id(update_id: str) -> str:
    if not update_id:
        raise errors.missing_field("update_id")
    if not ids.is_update_id(update_id):
        raise errors.INVALID_ARGUMENT(f"Invalid update id {update_id!r}: expected a SHA-256 multihash in hex")
    return update_id


async def _lookup(ctx: Context, key: int | str):
    if isinstance(key, int):
        return await ctx.store.update_at(key), ("OFFSET", str(key))
    return await ctx.store.update_by_id(key), ("UPDATE_ID", key)


async def _find(ctx: Context, key: int | str, view: TransactionView | None) -> dict:
    """The transaction at an offset (int) or with an update id (str) as the view shows it. No such update, no
    transactions asked for, or none of its events visible (pruned history included) all answer the same."""
    update, resource = await _lookup(ctx, key)
    tx = None if update is None or view is None else shaping.visible_transaction(update, view)
    if tx is None:
        raise errors.UPDATE_NOT_FOUND(resources=[resource])
    return tx


async def _find_update(ctx: Context, key: int | str, view: UpdateView) -> dict:
    """The update (transaction or reassignment) at an offset or with an id, as the update format shows it; a
    kind of update the format does not ask for is not found, as Canton answers."""
    update, resource = await _lookup(ctx, key)
    element = None if update is None else _element(update, view)
    if element is None:
        raise errors.UPDATE_NOT_FOUND(resources=[resource])
    return element


def _update_view(ctx: Context, c: Claims, req) -> UpdateView:
    view = resolve_update_format(req.update_format, ctx.registry)
    view.authorize(c)
    return view


async def update_by_offset(ctx: Context, req: GetUpdateByOffsetRequest, c: Claims) -> dict:
    offsets.require_positive(req.offset, "offset")
    return {"update": await _find_update(ctx, req.offset, _update_view(ctx, c, req))}


async def update_by_id(ctx: Context, req: GetUpdateByIdRequest, c: Claims) -> dict:
    _require_update_id(req.update_id)
    return {"update": await _find_update(ctx, req.update_id, _update_view(ctx, c, req))}


def transaction_lookup_format(req: GetTransactionByOffsetRequest | GetTransactionByIdRequest):
    """The transaction format of a deprecated lookup (or its requesting parties), read before the claims."""
    return transaction_format_or_parties(req.transaction_format, req.requesting_parties)


async def transaction_by_offset(ctx: Context, req: GetTransactionByOffsetRequest, fmt, c: Claims) -> dict:
    offsets.require_positive(req.offset, "offset")
    tx = await _find(ctx, req.offset, authorized_transaction_view(fmt, ctx.registry, c))
    return {"transaction": tx}


async def transaction_by_id(ctx: Context, req: GetTransactionByIdRequest, fmt, c: Claims) -> dict:
    _require_update_id(req.update_id)
    tx = await _find(ctx, req.update_id, authorized_transaction_view(fmt, ctx.registry, c))
    return {"transaction": tx}
