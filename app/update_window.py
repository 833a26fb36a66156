"""The transactions screen's rows: a window of at most `capacity` consecutive updates (consecutive among those that
pass the filter), newest first, that slides as the user scrolls and as the ledger grows. Memory stays bounded
however long the screen follows the ledger or however far back it pages.

The window is contiguous: every update that passes the filter with an offset in (`low`, `high`] is one of its rows.
So it takes live updates on top only while it holds the newest (`at_head`); scrolled away from there, it counts
them (`unseen`) and the screen reads them again when the user comes back."""

from __future__ import annotations

from collections.abc import Iterable

from app.update_rows import UpdateRow

CAPACITY = 1_000


class UpdateWindow:
    def __init__(self, capacity: int = CAPACITY) -> None:
        self.capacity = capacity
        self.rows: list[UpdateRow] = []  # newest first
        self.high = 0
        """Every offset up to this one has been read (the next newer page starts after it)."""
        self.low: int | None = 0
        """The next older page ends below this offset; None: nothing older is left (the ledger's beginning)."""
        self.at_head = True
        """Nothing newer than `high` is known: updates that commit now join on top."""
        self.unseen = 0
        """Updates that arrived live while the window was away from the head (not in it)."""

    def __len__(self) -> int:
        return len(self.rows)

    @property
    def at_begin(self) -> bool:
        return self.low is None

    @property
    def newest(self) -> int | None:
        return self.rows[0].offset if self.rows else None

    @property
    def oldest(self) -> int | None:
        return self.rows[-1].offset if self.rows else None

    def reset(self, rows: Iterable[UpdateRow], *, high: int, low: int | None, at_head: bool) -> None:
        """Rows read afresh, covering the offsets in (`low`, `high`], replacing the window."""
        ordered = _newest_first(rows)
        self.rows = ordered
        self.high = max(high, ordered[0].offset if ordered else 0)
        self.low = low
        self.at_head = at_head
        self.unseen = 0
        self._trim_oldest()

    def detach(self) -> None:
        """Stop taking live updates on top (the rows shown are no longer the newest, or are about to be replaced)."""
        self.at_head = False

    def index_of(self, offset: int) -> int | None:
        """The position of the row at `offset`, or of the first one older than it (None: all are newer)."""
        for i, row in enumerate(self.rows):  # at most `capacity` rows
            if row.offset <= offset:
                return i
        return None

    def add_live(self, rows: Iterable[UpdateRow], cursor: int, *, high: int, tail: bool) -> int:
        """Updates that just committed, up to offset `high` (an offset checkpoint may say more than the rows);
        those the window holds already are dropped. Returns where the cursor goes: it stays on the row it was on,
        or with `tail` on the newest row if it was there. Updates that would push the cursor's row out of the window
        are counted in `unseen` instead, and the window leaves the head."""
        fresh = [r for r in _newest_first(rows) if r.offset > self.high]
        if not self.at_head:
            self.unseen += len(fresh)
            return cursor
        following = tail and cursor == 0
        moved = 0 if following else cursor + len(fresh)
        if moved >= self.capacity:
            self.at_head = False
            self.unseen += len(fresh)
            return cursor
        self.rows[:0] = fresh
        self.high = max(self.high, high, fresh[0].offset if fresh else 0)
        self._trim_oldest()
        return moved

    def add_older(self, rows: Iterable[UpdateRow], *, low: int | None, cursor: int) -> int:
        """The page below `self.low`, which reaches down to `low` (None: the beginning). Returns the cursor's new
        position: past its capacity the window drops its newest rows, and leaves the head."""
        bound = self.low
        older = [r for r in _newest_first(rows) if bound is None or r.offset < bound]
        self.rows.extend(older)
        self.low = low
        dropped = len(self.rows) - self.capacity
        if dropped > 0:
            del self.rows[:dropped]
            self.at_head = False
            self.high = self.rows[0].offset
            return max(0, cursor - dropped)
        return cursor

    def add_newer(self, rows: Iterable[UpdateRow], *, high: int, at_head: bool, cursor: int) -> int:
        """The page above `self.high`, which reaches up to `high`; `at_head`: nothing newer is known. Returns the
        cursor's new position (it stays on its row unless that row is dropped)."""
        newer = [r for r in _newest_first(rows) if self.high < r.offset <= high]
        self.rows[:0] = newer
        self.high = max(self.high, high)
        self._trim_oldest()
        self.at_head = at_head
        if at_head:
            self.unseen = 0
        return min(cursor + len(newer), max(0, len(self.rows) - 1))

    def _trim_oldest(self) -> None:
        if len(self.rows) > self.capacity:
            del self.rows[self.capacity :]
            self.low = self.rows[-1].offset


def _newest_first(rows: Iterable[UpdateRow]) -> list[UpdateRow]:
    return sorted(rows, key=lambda r: r.offset, reverse=True)


__all__ = ["CAPACITY", "UpdateWindow"]
