"""Offset checkpoints in the streams that follow the ledger (the websocket forms of `/v2/updates`, its flats and
trees, and of the completions), as Canton sends them: when a stream has caught up with the ledger end and the end
is past the last offset the client was told about (updates it cannot see committed since), the stream says so with
`OffsetCheckpoint {offset, synchronizerTimes}`, at most once per interval (Canton's offset checkpoint cache
refreshes every 15 s by default). A client resumes from the checkpoint's offset instead of re-reading what it was
not shown, and learns the synchronizer's record time there."""

from __future__ import annotations

import asyncio

from participant.base.timestamps import format_timestamp
from participant.services.context import Context


class Checkpoints:
    """The checkpoint state of one stream: what the client knows (`told`) and when the next checkpoint may go."""

    def __init__(self, ctx: Context, begin: int) -> None:
        self._ctx = ctx
        self._interval = ctx.settings.offset_checkpoint_interval_s
        self._loop = asyncio.get_running_loop()
        self._due = self._loop.time()
        self.told = begin

    def sent(self, offset: int) -> None:
        """An element at `offset` was sent."""
        self.told = max(self.told, offset)

    def wait_s(self, end: int) -> float | None:
        """How long the stream may wait for the ledger to move before a checkpoint at `end` is due (None: no
        checkpoint is pending, only a new update can wake it)."""
        if end <= self.told:
            return None
        return max(0.0, self._due - self._loop.time())

    async def at(self, end: int) -> dict | None:
        """The checkpoint at `end` if one is due now (the stream has read everything up to `end`)."""
        if end <= self.told or self._loop.time() < self._due:
            return None
        update = await self._ctx.store.update_at(end)
        self.told, self._due = end, self._loop.time() + self._interval
        times = (
            []
            if update is None
            else [
                {"synchronizerId": update.synchronizer_id, "recordTime": format_timestamp(update.record_time)}
            ]
        )
        return {"offset": end, "synchronizerTimes": times}
