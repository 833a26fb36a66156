"""The event loop shared fairly between the streams and everything else: the websocket streams together write at
most `budget` bytes in one turn of the loop (and open a few: `OPENING`), and a stream past it waits for a later
turn.

Without it a crowd of streams fills every turn with writes: each of 300 subscribers writing 64 KiB per turn makes
a turn last tens of milliseconds, and a plain request, which needs a few turns (read, route, answer), waits
hundreds. Bounded per turn, a request waits a few milliseconds whatever the number of subscribers, and the streams
still get every turn the rest of the server leaves free."""

from __future__ import annotations

import asyncio
from collections import deque

TURN_BYTES = 512 * 1024  # what the streams write together in one turn of the event loop, about a millisecond
# An opening stream's checks (its token, then its request's format and offsets) cost about what a 64 KiB write
# does: a crowd connecting at once is let through eight per turn.
OPENING = 64 * 1024


class Pacer:
    def __init__(self, budget: int = TURN_BYTES) -> None:
        self.budget = budget
        self._used = 0
        self._waiting: deque[tuple[asyncio.Future[None], int]] = deque()
        self._turn_scheduled = False
        self._loop: asyncio.AbstractEventLoop | None = None

    async def turn(self, n_bytes: int) -> None:
        """Return when `n_bytes` may be written (or work of that cost done): at once while this turn's budget
        lasts and nobody waits, else in a later turn, in the order asked."""
        loop = asyncio.get_running_loop()
        if loop is not self._loop:  # a new loop (a server started again in one process): nothing carries over
            self._loop, self._used, self._turn_scheduled = loop, 0, False
            self._waiting.clear()
        if not self._waiting and self._used < self.budget:
            self._used += n_bytes
            self._next_turn(loop)
            return
        waiter = loop.create_future()
        self._waiting.append((waiter, n_bytes))
        self._next_turn(loop)
        await waiter

    def _next_turn(self, loop: asyncio.AbstractEventLoop) -> None:
        if not self._turn_scheduled:
            self._turn_scheduled = True
            loop.call_soon(self._new_turn, loop)  # runs in the next turn: callbacks added now wait for it

    def _new_turn(self, loop: asyncio.AbstractEventLoop) -> None:
        """A new turn: the budget is whole again, and the first waiters within it go on (in the next turn)."""
        self._turn_scheduled = False
        self._used = 0
        while self._waiting and self._used < self.budget:
            waiter, n_bytes = self._waiting.popleft()
            if not waiter.done():  # a stream cancelled while waiting has gone away
                waiter.set_result(None)
                self._used += n_bytes
        if self._waiting:
            self._next_turn(loop)


streams = Pacer()  # the one every websocket stream of the server shares
