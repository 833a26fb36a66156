"""Active contract snapshots: offset checks, continuation and page tokens, and the stream of entries.

The list, page and websocket forms of the API all read through `rendered()`, which walks the store page by page,
so memory stays flat whatever the size of the snapshot.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from functools import partial

import orjson

from participant.base import errors, offsets
from participant.projection.filters import EventFilter, format_or_legacy, resolve_event_format
from participant.projection.shaping import AcsRenderer
from participant.projection.views_ahead import Evaluate, shaped
from participant.store.store import Store

TOKEN_VERSION = 1
STORE_PAGE = 2000


def event_filter_of_request(req, registry) -> tuple[EventFilter, object]:
    """The filter of a `GetActiveContractsRequest` (its `eventFormat`, or the legacy `filter`/`verbose` pair), and
    the wire EventFormat in force, which continuation tokens are bound to."""
    event_format = format_or_legacy(req.event_format, req.filter, req.verbose, "event_format")
    return resolve_event_format(event_format, registry), event_format


async def check_offset(store: Store, offset: int) -> None:
    """Canton's bounds for a snapshot offset: not negative, not after the ledger end, not before pruning."""
    offsets.require_start(offset, "active_at_offset", "active_at_offset", store.ledger_end)
    if offset > 0:  # the empty snapshot at the ledger begin is never pruned
        offsets.require_not_pruned(
            offset, await store.pruned_offset(), f"Active contracts request at offset {offset}"
        )


def format_checksum(participant_id: str, offset_as_sent: object, event_format) -> str:
    """What a token is bound to: the participant, the token version, the offset and the event format."""
    fmt = orjson.dumps(event_format.model_dump(mode="json"), option=orjson.OPT_SORT_KEYS)
    material = orjson.dumps([participant_id, TOKEN_VERSION, offset_as_sent]) + fmt
    return hashlib.sha256(material).hexdigest()[:16]


@dataclass(frozen=True)
class Position:
    """Where a token says to resume: after the contract with this activation number.

    The wire form is one compact string, `acs<version><checksum><offset><seq>` with the checksum in 16 hex digits
    and the numbers in 16 hex digits each: valid base64 as the API types it, and cheap to build for every entry
    (the ACS hot path writes the prefix once and only the seq per entry)."""

    after_seq: int
    offset: int
    checksum: str

    def encode(self) -> str:
        return f"{token_prefix(self.offset, self.checksum)}{self.after_seq:016x}"

    @classmethod
    def decode(cls, token: str, field_name: str) -> Position:
        m = _TOKEN.fullmatch(token)
        if m is None:
            kind = (
                "continuation token for GetActiveContractsRequest"
                if field_name == "stream_continuation_token"
                else "page token for GetActiveContractsPageRequest"
            )
            raise errors.INVALID_FIELD(
                f"Invalid field {field_name}: Invalid {kind}", context={"field_name": field_name}
            )
        checksum, offset, after_seq = m.groups()
        return cls(int(after_seq, 16), int(offset, 16), checksum)


_TOKEN = re.compile(f"acs{TOKEN_VERSION}([0-9a-f]{{16}})([0-9a-f]{{16}})([0-9a-f]{{16}})")


def token_prefix(offset: int, checksum: str) -> str:
    """A token without its seq: what every entry of one snapshot shares."""
    return f"acs{TOKEN_VERSION}{checksum}{offset:016x}"


def resume_after(token: str | None, checksum: str) -> int:
    """The activation number a continuation token resumes after (0 without a token)."""
    if not token:
        return 0
    position = Position.decode(token, "stream_continuation_token")
    if position.checksum != checksum:
        raise errors.INVALID_CONTINUATION_TOKEN(
            "The continuation token was prepared with a different active_at_offset, event_format or participant."
        )
    return position.after_seq


# Where the entries of contracts that moved sit in the order of a snapshot (and in its tokens): after every
# contract that never moved (positions are their seqs), first those active on their target, then those in flight,
# each in the order of their latest reassignment event.
MOVED_ACTIVE = 1 << 60
MOVED_IN_FLIGHT = 1 << 61


async def count_candidates(
    store: Store, offset: int, event_filter: EventFilter, *, after_seq: int, cap: int
) -> int:
    """How many contracts active at `offset` (after `after_seq`) the filter's parties are stakeholders of, counted
    up to `cap`: an upper bound of the snapshot's size, read from the indexes without building any entry. Under
    `cap` it may be the looser bound of the stakeholder index (which also counts archived contracts): that spares
    reading every contract when the snapshot is clearly within the caller's limit."""
    if offset <= 0 or cap <= 0:
        return 0
    parties = event_filter.query_parties()
    moved = await store.moved_contracts(offset, parties)
    moved_after = sum(1 for row in moved if _position(row) > after_seq)
    if parties is not None:
        loose = await store.count_stakeholder_rows(parties, after_seq=after_seq, cap=cap) + moved_after
        if loose < cap:
            return loose
    count = await store.count_active_contracts(offset, parties, after_seq=after_seq, cap=cap)
    return min(cap, count + moved_after)


def _position(row: tuple) -> int:
    return (MOVED_ACTIVE if row[10] == "assign" else MOVED_IN_FLIGHT) + row[9]


async def rendered(
    store: Store,
    offset: int,
    event_filter: EventFilter,
    *,
    token_prefix: str | None,
    after_seq: int = 0,
    page_size: int = STORE_PAGE,
    wanted: int | None = None,
    evaluate: Evaluate | None = None,
) -> AsyncIterator[tuple[list[bytes], list[int]]]:
    """Page by page, the JSON text (UTF-8) and seq of every entry active at `offset` that the filter lets through
    (pages may come out empty when the filter excludes a whole store page), or of the first `wanted` at least.
    Where the filter shows every contract the same way, the store renders the entries (`AcsRenderer.entry_format`)
    and reads no more than `wanted`; else the renderer does, row by row, with the interface views of a page
    computed by `evaluate` (off the event loop)."""
    renderer = AcsRenderer(event_filter, token_prefix)
    entry_format = renderer.entry_format()
    parties = event_filter.query_parties()
    if entry_format is not None and parties is not None:
        async for rows in store.acs_entries(
            offset, parties[0], entry_format, after_seq=after_seq, page_size=page_size, limit=wanted
        ):
            yield [entry for _, entry in rows], [seq for seq, _ in rows]
    else:
        async for rows in store.active_contracts(offset, parties, after_seq=after_seq, page_size=page_size):
            yield _encoded(await shaped([event_filter], partial(renderer.render, rows), evaluate))
    moved = await store.moved_contracts(offset, parties)
    if moved:
        ordered = sorted((_position(row), row) for row in moved)
        unsent = [(position, row) for position, row in ordered if position > after_seq]
        for i in range(0, len(unsent), page_size):
            chunk = unsent[i : i + page_size]
            yield _encoded(await shaped([event_filter], partial(renderer.render_moved, chunk), evaluate))


def _encoded(page: tuple[list[str], list[int]]) -> tuple[list[bytes], list[int]]:
    texts, seqs = page
    return [text.encode() for text in texts], seqs
