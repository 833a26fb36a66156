"""Active contract snapshots: offset checks, continuation and page tokens, and the stream of entries.

The list, page and websocket forms of the API all read through `snapshot()`, which walks the store page by page,
so memory stays flat whatever the size of the snapshot.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

import orjson

from participant import errors
from participant.filters import EventFilter, resolve_event_format
from participant.shaping import acs_entry
from participant.store.store import Store

TOKEN_VERSION = 1
STORE_PAGE = 1000


def event_filter_of_request(req, registry) -> tuple[EventFilter, object]:
    """The filter of a `GetActiveContractsRequest`, applying the rules for the legacy `filter`/`verbose` pair.

    Returns the filter and the effective wire EventFormat (what continuation tokens are bound to)."""
    if req.event_format is not None:
        if req.filter is not None:
            raise errors.INVALID_ARGUMENT(
                "Both event_format and filter are set. Please use either backwards compatible arguments "
                "(filter and verbose) or event_format, but not both.")
        if req.verbose:
            raise errors.INVALID_ARGUMENT(
                "Both event_format and verbose are set. Please use either backwards compatible arguments "
                "(filter and verbose) or event_format, but not both.")
        event_format = req.event_format
    elif req.filter is not None:
        from participant.api.filters import EventFormat

        event_format = EventFormat(filters_by_party=req.filter.filters_by_party,
                                   filters_for_any_party=req.filter.filters_for_any_party, verbose=req.verbose)
    else:
        raise errors.INVALID_ARGUMENT(
            "Either filter/verbose or event_format is required. Please use either backwards compatible arguments "
            "(filter and verbose) or event_format.")
    return resolve_event_format(event_format, registry), event_format


def authorize_filter(claims, event_filter: EventFilter) -> None:
    claims.require_read(event_filter.read_parties())
    if event_filter.any_party is not None:
        claims.require_read_any_party()


async def check_offset(store: Store, offset: int) -> None:
    """Canton's bounds for a snapshot offset: not negative, not after the ledger end, not before pruning."""
    if offset < 0:
        raise errors.NEGATIVE_OFFSET(f"active_at_offset must not be negative, got {offset}",
                                     context={"field_name": "active_at_offset"})
    if offset > store.ledger_end:
        raise errors.OFFSET_AFTER_LEDGER_END(
            f"active_at_offset offset ({offset}) is after ledger end ({store.ledger_end})")
    pruned = await store.pruned_offset()
    if 0 < offset < pruned:
        raise errors.PARTICIPANT_PRUNED_DATA_ACCESSED(
            f"Active contracts request at offset {offset} precedes pruned offset {pruned}",
            context={"earliest_offset": str(pruned)})


def format_checksum(participant_id: str, offset_as_sent: object, event_format) -> str:
    """What a token is bound to: the participant, the token version, the offset and the event format."""
    fmt = orjson.dumps(event_format.model_dump(mode="json"), option=orjson.OPT_SORT_KEYS)
    material = orjson.dumps([participant_id, TOKEN_VERSION, offset_as_sent]) + fmt
    return hashlib.sha256(material).hexdigest()[:16]


@dataclass(frozen=True)
class Position:
    """Where a token says to resume: after the contract with this activation number."""

    after_seq: int
    offset: int
    checksum: str

    def encode(self) -> str:
        return base64.b64encode(orjson.dumps([TOKEN_VERSION, self.after_seq, self.offset, self.checksum])).decode()

    @classmethod
    def decode(cls, token: str, field_name: str) -> Position:
        try:
            version, after_seq, offset, checksum = orjson.loads(base64.b64decode(token, validate=True))
            if version != TOKEN_VERSION or not isinstance(after_seq, int) or not isinstance(offset, int):
                raise ValueError
            return cls(after_seq, offset, str(checksum))
        except (ValueError, TypeError, binascii.Error, orjson.JSONDecodeError):
            kind = "continuation token for GetActiveContractsRequest" if field_name == "stream_continuation_token" \
                else "page token for GetActiveContractsPageRequest"
            raise errors.INVALID_FIELD(f"Invalid field {field_name}: Invalid {kind}",
                                       context={"field_name": field_name}) from None


def resume_after(token: str | None, checksum: str) -> int:
    """The activation number a continuation token resumes after (0 without a token)."""
    if not token:
        return 0
    position = Position.decode(token, "stream_continuation_token")
    if position.checksum != checksum:
        raise errors.INVALID_CONTINUATION_TOKEN(
            "The continuation token was prepared with a different active_at_offset, event_format or participant.")
    return position.after_seq


async def snapshot(store: Store, offset: int, event_filter: EventFilter, *, checksum: str, after_seq: int = 0,
                   page_size: int = STORE_PAGE) -> AsyncIterator[tuple[int, dict]]:
    """(activation number, entry) for every contract active at `offset` that the filter lets through."""
    if offset == 0:
        return
    async for page in store.active_contracts(offset, event_filter.query_parties(), after_seq=after_seq,
                                             page_size=page_size):
        for row in page:
            token = Position(row.seq, offset, checksum).encode()
            entry = acs_entry(row, event_filter, token)
            if entry is not None:
                yield row.seq, entry
