"""One update looked up by offset or id (Canton's deprecated transaction and transaction-tree lookups are the
same with another format). The stream of updates is `participant.services.update_stream`."""

from __future__ import annotations

from participant.api import (
    GetTransactionByIdRequest,
    GetTransactionByOffsetRequest,
    GetUpdateByIdRequest,
    GetUpdateByOffsetRequest,
    TransactionFormat,
)
from participant.auth import Claims
from participant.base import errors, offsets
from participant.engine import ids
from participant.projection import shaping, trees
from participant.projection.filters import (
    LEDGER_EFFECTS,
    TransactionView,
    UpdateView,
    authorized_transaction_view,
    resolve_update_format,
    transaction_format_or_parties,
)
from participant.projection.views_ahead import shaped, update_filters
from participant.services.context import Context
from participant.services.update_stream import element

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
    tx = None
    if update is not None and view is not None:
        found = update
        tx = await shaped(
            [view.filter], lambda: shaping.visible_transaction(found, view), ctx.committer.evaluate
        )
    if tx is None:
        raise errors.UPDATE_NOT_FOUND(resources=[resource])
    return tx


async def _find_update(ctx: Context, key: int | str, view: UpdateView) -> dict:
    """The update (transaction or reassignment) at an offset or with an id, as the update format shows it; a
    kind of update the format does not ask for is not found, as Canton answers."""
    update, resource = await _lookup(ctx, key)
    found = None
    if update is not None:
        row = update
        found = await shaped(update_filters(view), lambda: element(row, view), ctx.committer.evaluate)
    if found is None:
        raise errors.UPDATE_NOT_FOUND(resources=[resource])
    return found["update"]


def _update_view(ctx: Context, c: Claims, req) -> UpdateView:
    view = resolve_update_format(req.update_format, ctx.filter_packages)
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
    tx = await _find(ctx, req.offset, authorized_transaction_view(fmt, ctx.filter_packages, c))
    return {"transaction": tx}


async def transaction_by_id(ctx: Context, req: GetTransactionByIdRequest, fmt, c: Claims) -> dict:
    _require_update_id(req.update_id)
    tx = await _find(ctx, req.update_id, authorized_transaction_view(fmt, ctx.filter_packages, c))
    return {"transaction": tx}


def tree_lookup_format(parties: list[str]) -> TransactionFormat:
    """The format of a deprecated tree lookup, as Canton (3.5) makes it of the `parties` query parameter: every
    event each party witnesses, in the ledger-effects shape (no parties: a format Canton refuses)."""
    if not parties:
        raise errors.INVALID_ARGUMENT("filtersByParty and filtersForAnyParty cannot be empty simultaneously")
    fmt = transaction_format_or_parties(None, parties)
    return TransactionFormat(event_format=fmt.event_format, transaction_shape=LEDGER_EFFECTS)


async def transaction_tree_by_offset(ctx: Context, offset: int, fmt: TransactionFormat, c: Claims) -> dict:
    offsets.require_positive(offset, "offset")
    tx = await _find(ctx, offset, authorized_transaction_view(fmt, ctx.filter_packages, c))
    return {"transaction": trees.transaction_tree(tx)}


async def transaction_tree_by_id(ctx: Context, update_id: str, fmt: TransactionFormat, c: Claims) -> dict:
    _require_update_id(update_id)
    tx = await _find(ctx, update_id, authorized_transaction_view(fmt, ctx.filter_packages, c))
    return {"transaction": trees.transaction_tree(tx)}
