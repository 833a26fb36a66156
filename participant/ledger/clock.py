"""The ledger's clock: where ledger time and record time come from.

Wall clock by default, as Canton's. With `serve --static-time` a static clock instead, as Canton's static time
(its `TimeService`): it starts at 1970-01-01T00:00:00Z and moves only when set, and every transaction takes it as
both its ledger time and its record time, so that a script that reads the time and then submits sees the same
instant in its transaction. The server owns one clock and hands it to the committer (ledger and record times), the
party service (the record time of a party's topology transaction) and the time endpoints.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Protocol

from participant.base import errors
from participant.base.timestamps import format_timestamp, now, parse_timestamp
from participant.store import sql
from participant.store.store import Store

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# The static clock's time, kept so that a restart goes on from where the clock was set (`meta` table).
STATIC_TIME_KEY = "static_time"


class LedgerClock(Protocol):
    static: bool
    """Whether the clock moves only when set."""

    def now(self) -> datetime: ...


class WallClock:
    static = False

    def now(self) -> datetime:
        return now()


class StaticClock:
    """A clock that stands still until `set`; its settings are durable in the store."""

    static = True

    def __init__(self, store: Store, time: datetime = EPOCH) -> None:
        self._store = store
        self._time = time

    @classmethod
    async def restore(cls, store: Store) -> StaticClock:
        """The clock of `store`'s ledger: the epoch for a new ledger, else where it was last set, and never before
        the ledger's last record time (a ledger served with the wall clock before): record times never go back."""
        time = EPOCH
        stored = await store.meta(STATIC_TIME_KEY)
        if stored is not None:
            time = max(time, parse_timestamp(stored))
        end = store.ledger_end
        if end > 0:
            last = await store.update_at(end)
            if last is not None:
                time = max(time, last.record_time)
        return cls(store, time)

    def now(self) -> datetime:
        return self._time

    async def set(self, current: datetime, new: datetime) -> None:
        """Move the clock from `current` to `new`, as Canton's `TimeService.SetTime`: refused when `current` is not
        the clock's time (someone else moved it meanwhile) or `new` is before it (record times only grow with
        offsets, and Canton refuses it too). Checked and applied in the writer, in order with the commits: every
        transaction committed after this returns has the new time."""

        async def job(batch) -> None:
            if new < current:
                raise errors.INVALID_ARGUMENT(
                    f"new_time [{format_timestamp(new)}] is before current_time [{format_timestamp(current)}]. "
                    "Setting time backwards is not allowed."
                )
            if current != self._time:
                raise errors.INVALID_ARGUMENT(
                    f"current_time mismatch. Provided: {format_timestamp(current)}. "
                    f"Actual: {format_timestamp(self._time)}"
                )
            batch.write(sql.SET_META, (STATIC_TIME_KEY, format_timestamp(new)))
            self._time = new

        await self._store.write(job)
