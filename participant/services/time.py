"""The ledger's clock over HTTP: our extension endpoints of a participant started with `--static-time`.

Canton has a time service for static time on its gRPC Ledger API only (`TimeService.GetTime` and `SetTime`); the
JSON Ledger API v2 has none. These endpoints are ours (paths under `/x-ledger-tui/v1/`, never Canton's), shaped as
that gRPC service: reading needs any authenticated user, setting a participant admin, and a setting names the time
it expects to move from. The bodies are not in Canton's OpenAPI spec, so their models live here, not in
`participant.api`.
"""

from __future__ import annotations

from datetime import datetime

from participant.api.base import Timestamp, WireModel
from participant.auth import Claims
from participant.base import errors
from participant.base.timestamps import format_timestamp, parse_timestamp
from participant.ledger.clock import StaticClock
from participant.services.context import Context


class LedgerTime(WireModel):
    """`GET /x-ledger-tui/v1/time`: the static clock's time."""

    current_time: Timestamp


class SetLedgerTimeRequest(WireModel):
    """`POST /x-ledger-tui/v1/time`: move the clock from `currentTime` (what the caller read) to `newTime`."""

    current_time: Timestamp
    new_time: Timestamp


def _static_clock(ctx: Context) -> StaticClock:
    clock = ctx.clock
    assert isinstance(clock, StaticClock), "the time endpoints are routed with --static-time only"
    return clock


def _timestamp(text: str, field: str) -> datetime:
    try:
        return parse_timestamp(text)
    except ValueError:
        raise errors.INVALID_ARGUMENT(
            f"{field}: {text[:64]!r} is not an RFC 3339 timestamp (e.g. 1970-01-01T00:00:00Z)"
        ) from None


def current_time(ctx: Context, c: Claims) -> LedgerTime:
    return LedgerTime(current_time=format_timestamp(_static_clock(ctx).now()))


async def set_time(ctx: Context, req: SetLedgerTimeRequest, c: Claims) -> None:
    c.require_admin()
    current = _timestamp(req.current_time, "current_time")
    new = _timestamp(req.new_time, "new_time")
    await _static_clock(ctx).set(current, new)
