"""The "ledger end moved" notification: tailing streams and waiting completion lists sleep on it instead of
polling the database.

The writer fires it once per durable group commit. Firing is one attribute read when nobody waits, and one future
resolved for all waiters otherwise: nothing is allocated per transaction."""

from __future__ import annotations

import asyncio


class LedgerEndSignal:
    def __init__(self) -> None:
        self._moved: asyncio.Future | None = None  # made by the first waiter, resolved by the next commit

    def fire(self) -> None:
        moved = self._moved
        if moved is not None:
            self._moved = None
            if not moved.done():
                moved.set_result(None)

    async def wait(self, timeout: float | None) -> bool:
        """Sleep until the next commit (True) or for `timeout` seconds (False); None waits without limit."""
        moved = self._moved
        if moved is None:
            moved = self._moved = asyncio.get_running_loop().create_future()
        try:
            # shielded: one waiter timing out or going away must not cancel the future the others share
            await asyncio.wait_for(asyncio.shield(moved), timeout)
        except TimeoutError:
            return False
        return True
