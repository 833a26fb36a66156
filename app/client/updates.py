"""The ledger's history as updates: pages of it newest first (`updates_page`), and its tail as it commits
(`follow`). No UI: the Transactions screen and the headless `updates` command both read through here.

Pages come from `POST /v2/updates/get-updates-page` where the participant has it (3.5); a 3.4 participant is read
through windows of offsets of the `POST /v2/updates` list. The tail is the websocket `/v2/updates` stream, opened
again after the last offset seen whenever it breaks, so that a reader sees every update once, in order.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncGenerator, Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import orjson

from app.client import errors
from app.client.http import encode
from app.client.ledger import LEDGER_EFFECTS, LedgerClient, read
from app.client.websocket import subprotocols, ws_url
from participant.api import (
    CumulativeFilter,
    EventFormat,
    Filters,
    GetUpdatesPageRequest,
    GetUpdatesRequest,
    IdentifierFilter,
    JsGetUpdatesPageResponse,
    JsGetUpdatesResponse,
    ParticipantAuthorizationTopologyFormat,
    TopologyFormat,
    TransactionFormat,
    TransactionShape,
    Update,
    UpdateFormat,
)

PAGE_PATH = "/v2/updates/get-updates-page"
LIST_PATH = "/v2/updates"
MAX_PAGE = 2_000  # Canton's bound on maxPageSize
MAX_WINDOW = 100_000  # offsets one list request of a 3.4 participant covers at most
WS_MAX_MESSAGE = 64 * 1024 * 1024
CLOSE_POLICY = 1008
CLOSE_NORMAL = 1000  # a participant going away (restarting) closes with 1001 or 1012 instead


@dataclass
class UpdatesPage:
    """Updates newest first, and the `before` of the next (older) page; None when none is older."""

    updates: list[Update]
    next_before: int | None


@dataclass(frozen=True)
class StreamState:
    """What `follow` is doing: "live" once a stream is open, "reconnecting" (with its cause) after it broke."""

    status: Literal["live", "reconnecting"]
    cause: str = ""
    attempt: int = 0


@dataclass(frozen=True)
class Backoff:
    """Delays between attempts to open the stream again: doubling from `base_s` up to `max_s`, jittered."""

    base_s: float = 0.2
    max_s: float = 5.0

    def delay(self, attempt: int) -> float:
        return min(self.max_s, self.base_s * 2 ** min(attempt, 30)) * (0.75 + random.random() / 2)


def update_offset(update: Update) -> int:
    """The offset of an update of any kind, an offset checkpoint included."""
    for alternative in (update.transaction, update.reassignment, update.topology_transaction):
        if alternative is not None:
            return alternative.value.offset
    if update.offset_checkpoint is not None:
        return update.offset_checkpoint.value.offset
    raise errors.UnreadableAnswer("an update of a kind this client does not know", path=LIST_PATH)


def updates_format(
    parties: Sequence[str] | None,
    *,
    templates: Sequence[str] = (),
    interfaces: Sequence[str] = (),
    shape: TransactionShape = LEDGER_EFFECTS,
) -> UpdateFormat:
    """Transactions in `shape` and reassignments for `parties` (None: any party), of the given templates and
    interfaces (none: all), and the topology events of these parties where some are named."""
    filters = [CumulativeFilter(identifier_filter=IdentifierFilter.template(t, False)) for t in templates]
    filters += [
        CumulativeFilter(
            identifier_filter=IdentifierFilter.interface(
                i, include_interface_view=True, include_created_event_blob=False
            )
        )
        for i in interfaces
    ]
    if not filters:
        filters = [CumulativeFilter(identifier_filter=IdentifierFilter.wildcard(False))]
    by_party = Filters(cumulative=filters)
    if parties is None:
        fmt = EventFormat(filters_by_party={}, filters_for_any_party=by_party, verbose=True)
    else:
        fmt = EventFormat(filters_by_party={p: by_party for p in parties}, verbose=True)
    topology = (
        TopologyFormat(
            include_participant_authorization_events=ParticipantAuthorizationTopologyFormat(
                parties=list(parties)
            )
        )
        if parties
        else None
    )
    return UpdateFormat(
        include_transactions=TransactionFormat(event_format=fmt, transaction_shape=shape),
        include_reassignments=fmt,
        include_topology_events=topology,
    )


async def updates_page(
    client: LedgerClient,
    *,
    before: int | None,
    limit: int,
    parties: Sequence[str] | None,
    templates: Sequence[str] = (),
    interfaces: Sequence[str] = (),
    shape: TransactionShape = LEDGER_EFFECTS,
) -> UpdatesPage:
    """At most `limit` updates with offsets below `before` (None: from the ledger end), newest first."""
    if limit <= 0:
        raise ValueError(f"limit must be positive, got {limit}")
    if before is not None and before <= 1:
        return UpdatesPage([], None)
    fmt = updates_format(parties, templates=templates, interfaces=interfaces, shape=shape)
    caps = client.capabilities
    if caps.updates_page is not False:
        try:
            page = await _from_pages(client, before, limit, fmt)
        except errors.EndpointMissing:
            caps.updates_page = False
        else:
            caps.updates_page = True
            return page
    return await _from_list(client, before, limit, fmt)


async def _from_pages(client: LedgerClient, before: int | None, limit: int, fmt: UpdateFormat) -> UpdatesPage:
    size = min(limit, MAX_PAGE)
    end = None if before is None else before - 1
    out: list[Update] = []
    token: str | None = None
    while True:
        # every follow-up repeats the first request with the token: the token is bound to it
        request = GetUpdatesPageRequest(
            end_offset_inclusive=end,
            max_page_size=size,
            update_format=fmt,
            descending_order=True,
            page_token=token,
        )
        content = await client.http.request("POST", PAGE_PATH, request)
        page = read(JsGetUpdatesPageResponse, content, "POST", PAGE_PATH)
        found = [
            u.update for u in page.updates if u.update is not None and u.update.offset_checkpoint is None
        ]
        room = limit - len(out)
        if len(found) > room:
            out += found[:room]
            return UpdatesPage(out, update_offset(out[-1]))
        out += found
        token = page.next_page_token or None
        if token is None:
            return UpdatesPage(out, None)
        if len(out) == limit:
            return UpdatesPage(out, page.lowest_page_offset_exclusive + 1)


async def _from_list(client: LedgerClient, before: int | None, limit: int, fmt: UpdateFormat) -> UpdatesPage:
    """Windows of offsets read through the list, newest window first. A window of n offsets holds at most n
    updates, so one as wide as what is still wanted never outgrows the list limit; a window that held few is
    widened for the next, and one refused as too large (413) is narrowed."""
    end = (await client.ledger_end()) if before is None else before - 1
    out: list[Update] = []
    width = limit
    while end > 0 and len(out) < limit:
        begin = max(0, end - width)
        try:
            elements = await client.updates(begin, end, fmt)
        except errors.ListTooLarge:
            if width <= 1:
                raise
            width //= 2
            continue
        found = [e.update for e in elements if e.update is not None and e.update.offset_checkpoint is None]
        found.reverse()
        room = limit - len(out)
        if len(found) > room:
            out += found[:room]
            return UpdatesPage(out, update_offset(out[-1]))
        out += found
        end = begin
        if 2 * len(found) < width:
            width = min(MAX_WINDOW, 2 * width)
        width = max(width, limit - len(out))
    return UpdatesPage(out, end + 1 if end > 0 else None)


async def follow(
    client: LedgerClient,
    *,
    after: int,
    parties: Sequence[str] | None,
    templates: Sequence[str] = (),
    interfaces: Sequence[str] = (),
    shape: TransactionShape = LEDGER_EFFECTS,
    on_state: Callable[[StreamState], None] | None = None,
    backoff: Backoff = Backoff(),
    until: int | None = None,
) -> AsyncGenerator[Update, None]:
    """The updates after offset `after` as they commit, in order, and the offset checkpoints between them (an
    `Update` whose `offset_checkpoint` is set: every update up to it has been seen). With `until`, the updates up
    to that offset (inclusive), and then the iteration ends.

    When the stream breaks (the connection drops, the participant restarts) it is opened again after the last
    offset seen, with backoff, for as long as the reader reads: nothing is missed and nothing comes twice. A
    refusal (a bad filter, missing rights, a pruned offset) is raised as the `LedgerApiError` it is."""
    # imported here: paging never needs them, and they take tens of milliseconds
    from websockets.asyncio.client import connect
    from websockets.exceptions import (
        ConnectionClosedError,
        ConnectionClosedOK,
        InvalidStatus,
        WebSocketException,
    )

    fmt = updates_format(parties, templates=templates, interfaces=interfaces, shape=shape)
    last = after
    attempt = 0
    refreshed = False
    url = ws_url(client.base_url, LIST_PATH)
    while until is None or last < until:
        request = encode(GetUpdatesRequest(begin_exclusive=last, end_inclusive=until, update_format=fmt))
        cause = ""
        try:
            async with connect(
                url,
                subprotocols=await subprotocols(client.tokens),
                max_size=WS_MAX_MESSAGE,
                open_timeout=10,
                compression=None,
            ) as ws:
                await ws.send(request.decode())
                if on_state is not None:
                    on_state(StreamState("live"))
                attempt = 0
                refreshed = False
                while True:
                    try:
                        message = await ws.recv()
                    except ConnectionClosedOK:
                        if until is not None and ws.close_code == CLOSE_NORMAL:
                            return  # a stream with an end closes once it has sent everything up to it
                        break
                    update = _element(message)
                    offset = update_offset(update)
                    if offset <= last:
                        continue  # already seen (a checkpoint at the offset of the last update, say)
                    last = offset
                    yield update
            cause = "the participant closed the stream"
        except InvalidStatus as e:
            status = e.response.status_code
            if status == 401 and client.tokens is not None and not refreshed:
                refreshed = True
                await client.tokens.refresh()
                continue
            if status < 500 and status != 429:
                raise _refused(status, bytes(e.response.body or b"")) from None
            cause = f"the participant answered {status}"
        except errors.LedgerApiError as e:
            if not e.retryable:
                raise
            cause = str(e)
        except ConnectionClosedError as e:
            if e.rcvd is not None and e.rcvd.code == CLOSE_POLICY:
                # a participant that cannot refuse the upgrade itself accepts it and closes: the token is refused
                raise errors.PermissionDenied(
                    403,
                    f"the update stream was refused: {e.rcvd.reason or 'policy violation'}",
                    path=LIST_PATH,
                ) from None
            cause = f"the stream broke: {e}"
        except (OSError, WebSocketException, TimeoutError) as e:
            cause = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
        if on_state is not None:
            on_state(StreamState("reconnecting", cause, attempt + 1))
        await asyncio.sleep(backoff.delay(attempt))
        attempt += 1


def _element(message: str | bytes) -> Update:
    """One stream message as an `Update`; a Canton error sent inside the stream is raised as its HTTP form."""
    try:
        data = orjson.loads(message)
    except orjson.JSONDecodeError as e:
        raise errors.UnreadableAnswer(
            f"the update stream sent a message that is not JSON ({e})", path=LIST_PATH
        ) from None
    if isinstance(data, dict) and "code" in data and "cause" in data:
        from app.client.acs import stream_error

        raise stream_error(data, LIST_PATH)
    element = read(JsGetUpdatesResponse, data, "GET", LIST_PATH)
    if element.update is None:
        raise errors.UnreadableAnswer("the update stream sent an element without an update", path=LIST_PATH)
    return element.update


def _refused(status: int, body: bytes) -> errors.StatusError:
    from app.client.http import status_error

    return status_error(status, "application/json", body, "GET", LIST_PATH)
