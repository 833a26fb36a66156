"""The active contract set as the API reads it: one snapshot use case (authorization, offset bounds, the
continuation token) shared by the list, page and websocket forms, each then reading the entries page by page
from `participant.projection.acs.rendered`. Entries are the JSON texts (UTF-8 bytes) the store or the renderer makes; answers
are assembled from them as bytes, so that no entry is parsed, dumped or encoded twice."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import orjson

from participant.api import GetActiveContractsPageRequest, GetActiveContractsRequest
from participant.auth import Claims
from participant.base import errors
from participant.projection import acs
from participant.projection.filters import EventFilter, authorize, resolve_event_format
from participant.services.common import ListLimit
from participant.services.context import Context

DEFAULT_PAGE_SIZE = 500
MAX_PAGE_SIZE = 10_000


@dataclass(frozen=True)
class Snapshot:
    """What a list or websocket read walks: the entries active at `offset` that the filter lets through, after
    the activation number `after_seq`, each carrying a continuation token that starts with `token_prefix`."""

    offset: int
    event_filter: EventFilter
    token_prefix: str
    after_seq: int


def selection(ctx: Context, req: GetActiveContractsRequest) -> tuple[EventFilter, object]:
    """The filter of the request and the wire EventFormat in force (see `acs.event_filter_of_request`)."""
    return acs.event_filter_of_request(req, ctx.filter_packages)


async def snapshot(
    ctx: Context, req: GetActiveContractsRequest, selected: tuple[EventFilter, object], c: Claims
) -> Snapshot:
    """The snapshot a list or websocket request reads, authorized and bounded as Canton does."""
    event_filter, event_format = selected
    authorize(c, event_filter)
    await acs.check_offset(ctx.store, req.active_at_offset)
    checksum = acs.format_checksum(ctx.identity.participant_id, req.active_at_offset, event_format)
    after = acs.resume_after(req.stream_continuation_token, checksum)
    return Snapshot(
        req.active_at_offset, event_filter, acs.token_prefix(req.active_at_offset, checksum), after
    )


async def entries(ctx: Context, snap: Snapshot) -> AsyncIterator[list[bytes]]:
    """The JSON texts of the snapshot's entries, a store page at a time (the websocket form sends each)."""
    async for texts, _ in acs.rendered(
        ctx.store,
        snap.offset,
        snap.event_filter,
        token_prefix=snap.token_prefix,
        after_seq=snap.after_seq,
        evaluate=ctx.committer.evaluate,
    ):
        if texts:
            yield texts


async def active_contracts(ctx: Context, snap: Snapshot, limits: ListLimit) -> bytes | AsyncIterator[bytes]:
    """The list form: a JSON array, either streamed (chunks of bytes, when no 413 is possible any more) or
    collected whole (when more candidates than the node's limit exist and the filter decides)."""
    if limits.client is not None and limits.client <= limits.node:  # no 413 possible: at most `limit` entries
        return _list_chunks(ctx, snap, limits.client)
    cap = limits.take
    if (
        await acs.count_candidates(
            ctx.store, snap.offset, snap.event_filter, after_seq=snap.after_seq, cap=cap
        )
        <= limits.node
    ):
        return _list_chunks(ctx, snap, None)
    # More candidates than the limit: the filter decides, so collect up to limit + 1 entries (bounded).
    texts: list[bytes] = []
    async for page, _ in acs.rendered(
        ctx.store,
        snap.offset,
        snap.event_filter,
        token_prefix=snap.token_prefix,
        after_seq=snap.after_seq,
        page_size=min(cap, acs.STORE_PAGE),
        wanted=cap,
        evaluate=ctx.committer.evaluate,
    ):
        texts.extend(page)
        limits.check(min(len(texts), cap))
    return b"[" + b",".join(texts) + b"]"


async def _list_chunks(ctx: Context, snap: Snapshot, limit: int | None) -> AsyncIterator[bytes]:
    """The list answer page by page from the store: a JSON array of at most `limit` entries."""
    sent = 0
    sep = b"["
    if limit != 0:
        page_size = acs.STORE_PAGE if limit is None else min(limit, acs.STORE_PAGE)
        async for texts, _ in acs.rendered(
            ctx.store,
            snap.offset,
            snap.event_filter,
            token_prefix=snap.token_prefix,
            after_seq=snap.after_seq,
            page_size=page_size,
            wanted=limit,
            evaluate=ctx.committer.evaluate,
        ):
            if limit is not None and sent + len(texts) > limit:
                texts = texts[: limit - sent]
            if not texts:
                continue
            texts[0] = sep + texts[0]
            sep = b","
            yield b",".join(texts)
            sent += len(texts)
            if limit is not None and sent >= limit:
                break
    yield b"[]" if sep == b"[" else b"]"


def page_selection(ctx: Context, req: GetActiveContractsPageRequest) -> tuple[int, EventFilter]:
    """The page size and the filter of a page request, checked before the caller's claims are read."""
    if req.event_format is None:
        raise errors.missing_field("event_format")
    size = DEFAULT_PAGE_SIZE if req.max_page_size is None else req.max_page_size
    if size <= 0:
        raise errors.INVALID_ARGUMENT(f"Requested page size must be positive, but got {size}")
    if size > MAX_PAGE_SIZE:
        raise errors.INVALID_ARGUMENT(f"Requested page size must not exceed {MAX_PAGE_SIZE}, but got {size}")
    return size, resolve_event_format(req.event_format, ctx.filter_packages)


async def active_contracts_page(
    ctx: Context, req: GetActiveContractsPageRequest, selected: tuple[int, EventFilter], c: Claims
) -> AsyncIterator[bytes]:
    """The page form: at most `size` entries and the token of the next page, as one JSON object streamed a store
    page at a time, so that the client reads while the rest is rendered (every check is made before the first
    byte)."""
    size, event_filter = selected
    authorize(c, event_filter)
    checksum = acs.format_checksum(ctx.identity.participant_id, req.active_at_offset, req.event_format)
    if req.page_token:
        position = acs.Position.decode(req.page_token, "page_token")
        if position.checksum != checksum:
            raise errors.INVALID_ACS_PAGE_TOKEN(
                "The page token was prepared with different event_format or active_at_offset."
            )
        offset, after = position.offset, position.after_seq
    else:
        offset, after = req.active_at_offset or ctx.store.ledger_end, 0
    await acs.check_offset(ctx.store, offset)
    return _page_chunks(ctx, event_filter, offset, after, size, checksum)


async def _page_chunks(
    ctx: Context, event_filter: EventFilter, offset: int, after: int, size: int, checksum: str
) -> AsyncIterator[bytes]:
    """The page answer's bytes; the last store page of entries is held back to go out with the tail, so that a
    page of one store page is one chunk."""
    sent, last_seq, more = 0, after, False
    held: list[bytes] | None = None
    async for texts, seqs in acs.rendered(
        ctx.store,
        offset,
        event_filter,
        token_prefix=None,
        after_seq=after,
        page_size=min(size + 1, acs.STORE_PAGE),
        wanted=size + 1,
        evaluate=ctx.committer.evaluate,
    ):
        room = size - sent
        if len(texts) > room:
            texts, seqs, more = texts[:room], seqs[:room], True
        if texts:
            texts[0] = (b"," if sent else b'{"activeContracts":[') + texts[0]
            if held is not None:
                yield b",".join(held)
            held = texts
            sent += len(texts)
            last_seq = seqs[-1]
        if more:
            break
    next_token = orjson.dumps(acs.Position(last_seq, offset, checksum).encode()) if more else b"null"
    tail = b'],"activeAtOffset":%d,"nextPageToken":%s}' % (offset, next_token)
    if held is None:
        yield b'{"activeContracts":[' + tail
    else:
        held[-1] += tail
        yield b",".join(held)
