"""The update stream (`/v2/updates` and its deprecated `flats` and `trees` forms): offset checks, the elements
between two offsets in either order, read from the store a page at a time, and the tail that follows the ledger
as it grows. The list form collects the stream (waiting for more only when asked to), the websocket form sends it.

Elements leave here as their JSON texts, a page at a time: at most `STORE_PAGE` updates read from the store, cut
once their texts pass `PAGE_BYTES`, so a subscriber holds one page of bounded size whatever the ledger holds.
Pages of a view without interface views (which the engine computes) are shared between the subscribers reading
the same range through the same view (`participant.services.shared_pages`).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, replace

import orjson

from participant.api import GetUpdatesRequest
from participant.auth import Claims
from participant.base import errors, offsets
from participant.projection import shaping, trees
from participant.projection.filters import (
    UpdateView,
    resolve_update_format,
    tree_update_format_or_legacy,
    update_format_or_legacy,
)
from participant.projection.views_ahead import asks_for_views, shaped, update_filters
from participant.services.checkpoints import Checkpoints
from participant.services.common import LIST_WAIT_S, ListLimit
from participant.services.context import Context
from participant.store.rows import UpdateRow

STORE_PAGE = 100  # updates read from the store at a time
PAGE_BYTES = 256 * 1024  # a page's texts stop growing past this: one large update still goes whole

UPDATES = "updates"
FLATS = "flats"
TREES = "trees"


@dataclass(frozen=True)
class Stream:
    """What a request reads: the updates after `begin` up to `end` (None: up to the ledger end, and on as it
    grows) that `view` shows, as `form` renders them."""

    begin: int
    end: int | None
    descending: bool
    view: UpdateView
    form: str

    @property
    def shared_as(self) -> str | None:
        """What the stream's pages are shared under (None: not shared, as a view computing interface views is
        evaluated afresh for each request)."""
        return _shared_as(self.view, self.form)


@dataclass(frozen=True)
class Page:
    """The texts of a page of elements, their offsets, and the offset the page read up to (the last one read
    ascending, the lowest one descending): the next page starts past it."""

    texts: tuple[bytes, ...]
    offsets: tuple[int, ...]
    reached: int

    @property
    def size(self) -> int:
        return sum(map(len, self.texts))


def _shared_as(view: UpdateView, form: str) -> str | None:
    filters = [
        f
        for f in (view.transactions.filter if view.transactions is not None else None, view.reassignments)
        if f is not None
    ]
    if any(f.compute_views is not None for f in filters):
        return None
    return f"{form}:{view!r}"  # the view's fields are plain data: equal texts are equal views


def view_of(ctx: Context, req: GetUpdatesRequest, form: str) -> UpdateView:
    """The view of a request (its update format, or the legacy filter mapped as Canton 3.5 maps it for the
    form), resolved before the caller's claims are read."""
    legacy = tree_update_format_or_legacy if form == TREES else update_format_or_legacy
    return resolve_update_format(legacy(req.update_format, req.filter, req.verbose), ctx.filter_packages)


async def open_stream(ctx: Context, req: GetUpdatesRequest, view: UpdateView, c: Claims, form: str) -> Stream:
    """The stream of a request, authorized and bounded as Canton does (`UpdateServiceRequestValidator`)."""
    view.authorize(c)
    store = ctx.store
    offsets.require_non_negative(req.begin_exclusive, "begin_exclusive")
    if req.end_inclusive is not None:
        offsets.require_positive(
            req.end_inclusive,
            "end_inclusive",
            offsets.POSITIVE if req.descending_order else offsets.POSITIVE_OR_ABSENT,
        )
    elif req.descending_order:
        raise errors.DESCENDING_ORDER_MISSING_END(
            "end_inclusive is not provided when descending_order is true"
        )
    offsets.require_not_after_end("Begin", req.begin_exclusive, store.ledger_end)
    end = store.ledger_end if req.end_inclusive is None else req.end_inclusive
    offsets.require_not_after_end("End", end, store.ledger_end)
    if req.begin_exclusive > end:
        raise errors.INVALID_ARGUMENT(
            f"begin_exclusive ({req.begin_exclusive}) is after end_inclusive ({end})"
        )
    offsets.require_not_pruned(
        req.begin_exclusive,
        await store.pruned_offset(),
        f"Transactions request from {req.begin_exclusive} to {end}",
    )
    return Stream(req.begin_exclusive, req.end_inclusive, req.descending_order, view, form)


def element(update: UpdateRow, view: UpdateView, form: str = UPDATES) -> dict | None:
    """The stream element of an update as the view shows it, or None when it shows nothing of it."""
    if update.kind == "transaction" and view.transactions is not None:
        tx = shaping.visible_transaction(update, view.transactions)
        if tx is None:
            return None
        if form == TREES:
            return {"update": {"TransactionTree": {"value": trees.transaction_tree(tx)}}}
        return {"update": {"Transaction": {"value": tx}}}
    if update.kind == "reassignment" and view.reassignments is not None:
        r = shaping.visible_reassignment(update, view.reassignments)
        return None if r is None else {"update": {"Reassignment": {"value": r}}}
    if update.kind == "topology" and view.topology_parties is not None:
        t = shaping.topology_transaction(update, view.topology_parties)
        return None if t is None else {"update": {"TopologyTransaction": {"value": t}}}
    return None


async def between(ctx: Context, s: Stream, begin: int, end: int) -> AsyncIterator[Page]:
    """The elements of the updates after `begin` up to `end`, a page at a time, in the stream's order."""
    view = s.view
    if view.transactions is None and view.reassignments is None and view.topology_parties is None:
        return
    shared_as = s.shared_as
    with ctx.shared_pages.reader():
        if s.descending:
            upper = end
            while upper > begin:
                page = await _page(ctx, s, shared_as, upper, begin)
                if page is None:
                    return
                upper = page.reached - 1
                yield page
            return
        after = begin
        while after < end:
            page = await _page(ctx, s, shared_as, after, end)
            if page is None:
                return
            after = page.reached
            yield page


async def _page(ctx: Context, s: Stream, shared_as: str | None, start: int, stop: int) -> Page | None:
    """The page that starts at `start` (exclusive ascending, inclusive descending) and goes toward `stop`; None
    when there is no update there."""

    async def read() -> Page | None:
        if s.descending:
            rows = await ctx.store.updates_descending(start, stop, STORE_PAGE)
        else:
            rows = await ctx.store.updates(start, stop, STORE_PAGE)
        return await render(ctx, rows, s.view, s.form) if rows else None

    if shared_as is None:
        return await read()
    return await ctx.shared_pages.get((shared_as, s.descending, start, stop), read)


async def render(ctx: Context, rows: Sequence[UpdateRow], view: UpdateView, form: str) -> Page:
    """The texts of the elements of `rows`, up to the first that takes them past `PAGE_BYTES`, with the interface
    views they show computed off the event loop.

    A page without views is shaped and encoded on a worker thread: a page of `STORE_PAGE` updates is tens of
    milliseconds of Python, which every other request (a `/livez` probe among them) waited behind when 300
    subscribers started reading at once. There the event loop takes the interpreter back at each switch interval.
    A page with views is shaped on the loop around their evaluation, as `shaped` requires."""
    filters = update_filters(view)
    if not asks_for_views(filters):
        return await asyncio.to_thread(lambda: _encoded(rows, _shown(rows, view, form)))
    shown = await shaped(filters, lambda: _shown(rows, view, form), ctx.committer.evaluate)
    return _encoded(rows, shown)


def _shown(rows: Sequence[UpdateRow], view: UpdateView, form: str) -> list[tuple[int, dict]]:
    return [(row.offset, e) for row in rows if (e := element(row, view, form)) is not None]


def _encoded(rows: Sequence[UpdateRow], shown: list[tuple[int, dict]]) -> Page:
    texts: list[bytes] = []
    offsets: list[int] = []
    size = 0
    reached = rows[-1].offset
    for offset, e in shown:
        text = orjson.dumps(e)
        texts.append(text)
        offsets.append(offset)
        size += len(text)
        if size >= PAGE_BYTES:
            reached = offset
            break
    return Page(tuple(texts), tuple(offsets), reached)


async def elements(ctx: Context, s: Stream) -> AsyncIterator[Sequence[bytes]]:
    """The websocket form: up to the end asked for, or, without one, every update as it commits until the
    client goes away, with offset checkpoints (`services.checkpoints`). Each wait starts from the last offset read,
    so nothing is missed or sent twice, and only a page is held at a time."""
    if s.end is not None:
        async for page in between(ctx, s, s.begin, s.end):
            if page.texts:
                yield page.texts
        return
    store, after = ctx.store, s.begin
    checkpoints = Checkpoints(ctx, s.begin)
    while True:
        end = store.ledger_end
        if after < end:
            async for page in between(ctx, s, after, end):
                if page.texts:
                    checkpoints.sent(page.offsets[-1])
                    yield page.texts
            after = end
        if (checkpoint := await checkpoints.at(end)) is not None:
            yield [orjson.dumps({"update": {"OffsetCheckpoint": {"value": checkpoint}}})]
        await store.wait_for_end_past(after, checkpoints.wait_s(after))


async def collect(ctx: Context, s: Stream, limits: ListLimit, idle_timeout: float | None) -> bytes:
    """The list form, as a JSON array: the elements up to the end (at most the list limit, else 413). Without an
    end it goes on collecting what commits until no new element has come for the idle timeout (Canton's default:
    half a second)."""
    take = limits.take
    out: list[bytes] = []
    end = ctx.store.ledger_end if s.end is None else s.end
    async for page in between(ctx, s, s.begin, end):
        out.extend(page.texts[: take - len(out)])
        if len(out) >= take:
            break
    if s.end is None:
        idle = LIST_WAIT_S if idle_timeout is None else idle_timeout
        loop = asyncio.get_running_loop()
        deadline = loop.time() + idle
        while len(out) < take and await ctx.store.wait_for_end_past(end, deadline - loop.time()):
            begin, end = end, ctx.store.ledger_end
            before = len(out)
            async for page in between(ctx, replace(s, descending=False), begin, end):
                out.extend(page.texts[: take - len(out)])
                if len(out) >= take:
                    break
            if len(out) > before:
                deadline = loop.time() + idle
    limits.check(len(out))
    return b"[" + b",".join(out) + b"]"
