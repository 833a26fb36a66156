"""The ledger end the app last saw: one value for every screen, written in one place."""

from __future__ import annotations

from collections.abc import Callable

from app.workspace.subscribers import Subscribers


class LedgerEnd:
    """Every reader that learns an offset of the ledger (the poll, a submission's transaction, the contracts screen
    reading the end before a snapshot) reports it here; the end moves forward only (a ledger end never goes back,
    and a report that arrives late must not undo a newer one), and those who subscribed hear of each move."""

    def __init__(self) -> None:
        self._value: int | None = None
        self._subscribers: Subscribers[int] = Subscribers()

    @property
    def value(self) -> int | None:
        """None until the first report."""
        return self._value

    def saw(self, offset: int) -> bool:
        """An offset the ledger has reached; True when it moved the end."""
        if self._value is not None and offset <= self._value:
            return False
        self._value = offset
        self._subscribers.tell(offset)
        return True

    def subscribe(self, callback: Callable[[int], None]) -> Callable[[], None]:
        return self._subscribers.subscribe(callback)
