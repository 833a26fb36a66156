"""The reads behind the transactions screen, as rows: the newest page, the page below or above the window, the page
from an offset down. Pages come through `app.client.updates` (newest first); a filter the participant does not
apply (command id, text) can leave a page with few rows, so a read goes on, a bounded number of pages, until it has
enough."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from app.client.ledger import LedgerClient
from app.client.updates import update_offset, updates_format, updates_page
from app.update_rows import UpdateRow, row_of
from participant.api import Update

PAGE = 200  # updates asked for at a time
SCANS = 20  # pages read at most for one step, when few updates pass the filter


@dataclass
class UpdateReader:
    client: LedgerClient
    parties: Sequence[str] | None  # None: any party
    templates: Sequence[str]
    interfaces: Sequence[str]
    keep: Callable[[UpdateRow], bool]  # the filter the client applies
    page: int = PAGE  # updates asked for at a time

    def rows(self, updates: list[Update]) -> list[UpdateRow]:
        return [row for u in updates if (row := row_of(u)) is not None and self.keep(row)]

    async def _page(self, before: int | None):
        return await updates_page(
            self.client,
            before=before,
            limit=self.page,
            parties=self.parties,
            templates=self.templates,
            interfaces=self.interfaces,
        )

    async def newest(self) -> tuple[list[UpdateRow], int, int | None]:
        """The newest rows, the offset up to which they cover the ledger, and the `before` of the next older page
        (None: the ledger's beginning was reached)."""
        end = await self.client.ledger_end()
        page = await self._page(None)
        high = max([end, *(update_offset(u) for u in page.updates[:1])])
        rows = self.rows(page.updates)
        low = page.next_before
        if low is not None and len(rows) < self.page:
            more, low = await self.older(low, want=self.page - len(rows), scans=SCANS - 1)
            rows += more
        return rows, high, low

    async def older(
        self, low: int, *, want: int | None = None, scans: int = SCANS
    ) -> tuple[list[UpdateRow], int | None]:
        """Rows below offset `low` (`want` of them, half a page unless said), and the `before` of the page after them
        (None: the beginning)."""
        want = self.page // 2 if want is None else want
        rows: list[UpdateRow] = []
        before: int | None = low
        while before is not None and len(rows) < want and scans > 0:
            page = await self._page(before)
            rows += self.rows(page.updates)
            before, scans = page.next_before, scans - 1
        return rows, before

    async def newer(self, after: int, seen: Callable[[], int]) -> tuple[list[UpdateRow], int, bool]:
        """Rows above offset `after`, a range of `page` offsets at a time (such a range holds at most `page` updates, so
        each page is whole), up to the ledger end or `seen()` (what a stream has seen), whichever is further. Returns
        the rows, the offset they cover up to, and whether that is the end."""
        end = await self.client.ledger_end()
        rows: list[UpdateRow] = []
        scans = SCANS
        while after < (end := max(end, seen())) and len(rows) < self.page and scans > 0:
            top = min(end, after + self.page)
            page = await self._page(top + 1)
            rows += [r for r in self.rows(page.updates) if r.offset > after]
            after, scans = top, scans - 1
        # no await since the loop's test: whoever calls `seen` has not moved past `end` unseen
        return rows, after, after >= max(end, seen())

    async def down_from(self, offset: int) -> tuple[list[UpdateRow], int | None, bool]:
        """Rows from `offset` down, the `before` of the next older page, and whether `offset` is the ledger end."""
        page = await self._page(offset + 1)
        end = await self.client.ledger_end()
        return self.rows(page.updates), page.next_before, offset >= end

    async def offset_of(self, update_id: str) -> int | None:
        """The offset of an update these parties see (None: no such update for them)."""
        fmt = updates_format(self.parties, templates=self.templates, interfaces=self.interfaces)
        answer = await self.client.update_by_id(update_id, fmt)
        return None if answer.update is None else update_offset(answer.update)


__all__ = ["PAGE", "UpdateReader"]
