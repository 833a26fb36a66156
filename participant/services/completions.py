"""The completions of a user's commands (`/v2/commands/completions`): the list form, which collects what is
there and then waits for more until none has come for the idle timeout (Canton always does this for
completions), and the websocket form, which follows the ledger until the client goes away."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass

import orjson

from participant.api import CompletionStreamRequest
from participant.auth import Claims
from participant.base import errors, offsets
from participant.base.timestamps import format_timestamp
from participant.engine import ids
from participant.services.checkpoints import Checkpoints
from participant.services.common import LIST_WAIT_S, ListLimit
from participant.services.context import Context
from participant.store.rows import CompletionRow

STORE_PAGE = 500


@dataclass(frozen=True)
class Subscription:
    """The completions after `begin` of `user_id`'s commands that acted as one of `parties`."""

    begin: int
    user_id: str
    parties: frozenset[str]


async def subscribe(ctx: Context, req: CompletionStreamRequest, c: Claims) -> Subscription:
    """A request checked and authorized as Canton does."""
    if not req.parties:
        raise errors.missing_field("parties")
    ids.require_party_ids(req.parties, "parties")
    parties = frozenset(req.parties)
    user_id = req.user_id if c.read_as_any_party and req.user_id else c.resolve_user_id(req.user_id)
    c.require_read(sorted(parties))
    offsets.require_start(req.begin_exclusive, "begin_exclusive", "Begin", ctx.store.ledger_end)
    offsets.require_not_pruned(
        req.begin_exclusive,
        await ctx.store.pruned_offset(),
        f"Command completions request from {req.begin_exclusive}",
    )
    return Subscription(req.begin_exclusive, user_id, parties)


async def _after(ctx: Context, s: Subscription, after: int) -> AsyncIterator[tuple[int, list[dict]]]:
    """Pages of the completions after `after` stored now, each with the offset it reaches."""
    while True:
        rows = await ctx.store.completions(after, s.user_id, STORE_PAGE)
        if not rows:
            return
        after = rows[-1].offset
        yield after, [completion(r) for r in rows if not s.parties.isdisjoint(r.act_as)]


async def completions(
    ctx: Context, s: Subscription, limits: ListLimit, idle_timeout: float | None
) -> list[dict]:
    """The list form: what is there, then what comes, until the list is full or nothing new came for the idle
    timeout (default half a second, as Canton's)."""
    idle = LIST_WAIT_S if idle_timeout is None else idle_timeout
    loop = asyncio.get_running_loop()
    take, after = limits.take, s.begin
    out: list[dict] = []
    deadline = loop.time() + idle
    while True:
        end = ctx.store.ledger_end  # everything up to here is stored: the reads below see it
        before = len(out)
        async for reached, page in _after(ctx, s, after):
            after = reached
            out.extend(page[: take - len(out)])
            if len(out) >= take:
                break
        if len(out) >= take:
            break
        after = max(after, end)
        if len(out) > before:
            deadline = loop.time() + idle
        if not await ctx.store.wait_for_end_past(after, deadline - loop.time()):
            break
    limits.check(len(out))
    return out


async def stream(ctx: Context, s: Subscription) -> AsyncIterator[list[bytes]]:
    """The websocket form, as JSON texts: every completion from the beginning asked for, then each as it commits,
    with offset checkpoints (`services.checkpoints`)."""
    after = s.begin
    checkpoints = Checkpoints(ctx, s.begin)
    while True:
        end = ctx.store.ledger_end
        async for reached, page in _after(ctx, s, after):
            after = reached
            if page:
                checkpoints.sent(page[-1]["completionResponse"]["Completion"]["value"]["offset"])
                yield [orjson.dumps(c) for c in page]
        after = max(after, end)
        if (checkpoint := await checkpoints.at(after)) is not None:
            yield [orjson.dumps({"completionResponse": {"OffsetCheckpoint": {"value": checkpoint}}})]
        await ctx.store.wait_for_end_past(after, checkpoints.wait_s(after))


def _deduplication_period(stored: dict) -> dict:
    """As Canton prints it: a protobuf Duration comes with its (empty) set of unknown fields."""
    duration = stored.get("DeduplicationDuration")
    if duration is None:
        return stored
    return {"DeduplicationDuration": {"value": {**duration["value"], "unknownFields": {"fields": {}}}}}


def completion(r: CompletionRow) -> dict:
    return {
        "completionResponse": {
            "Completion": {
                "value": {
                    "commandId": r.command_id,
                    "status": {"code": 0, "message": "", "details": []} if r.status is None else r.status,
                    "updateId": r.update_id,
                    "userId": r.user_id,
                    "actAs": list(r.act_as),
                    "submissionId": r.submission_id,
                    "deduplicationPeriod": _deduplication_period(r.dedup_period),
                    "traceContext": None,
                    "offset": r.offset,
                    "synchronizerTime": {
                        "synchronizerId": r.synchronizer_id,
                        "recordTime": format_timestamp(r.record_time),
                    },
                    "paidTrafficCost": 0,
                }
            }
        }
    }
