"""Rendered pages of a stream shared by its subscribers: when many clients read the same range of the ledger
through the same view (a crowd catching up from the start, or every tail waking at the same new ledger end), the
range is read from the store and rendered once, and each subscriber sends the same bytes.

A page is kept while it is among the most recently used ones that fit in `max_bytes`, and while someone reads
(the last reader to stop drops them all: nothing is kept for nobody); one being read is awaited by everyone who
asks for it meanwhile (a reader that goes away does not cancel it for the others). What a subscriber holds beyond
that is the one page it is sending, so memory grows with the number of distinct pages in flight, not with the
number of subscribers."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable, Iterator
from contextlib import contextmanager
from typing import Generic, Protocol, TypeVar


class Sized(Protocol):
    @property
    def size(self) -> int: ...


P = TypeVar("P", bound=Sized)

DEFAULT_MAX_BYTES = 32 * 1024 * 1024


class SharedPages(Generic[P]):
    def __init__(self, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.max_bytes = max_bytes
        self.held_bytes = 0
        self._pages: OrderedDict[Hashable, P] = OrderedDict()
        self._reading: dict[Hashable, asyncio.Future[P | None]] = {}
        self.readers = 0

    @contextmanager
    def reader(self) -> Iterator[None]:
        """While a stream reads pages; when the last one stops, the kept pages are dropped."""
        self.readers += 1
        try:
            yield
        finally:
            self.readers -= 1
            if not self.readers:
                self.clear()

    def __len__(self) -> int:
        return len(self._pages)

    async def get(self, key: Hashable, read: Callable[[], Awaitable[P | None]]) -> P | None:
        """The page of `key`: kept, being read, or read now by `read` (None, for nothing there, is not kept)."""
        page = self._pages.get(key)
        if page is not None:
            self._pages.move_to_end(key)
            return page
        reading = self._reading.get(key)
        if reading is None:
            reading = asyncio.ensure_future(read())
            self._reading[key] = reading
            reading.add_done_callback(lambda done: self._read(key, done))
        return await asyncio.shield(reading)

    def _read(self, key: Hashable, done: asyncio.Future[P | None]) -> None:
        del self._reading[key]
        if done.cancelled() or done.exception() is not None:  # seen, so never reported as unretrieved
            return
        page = done.result()
        if page is None or page.size > self.max_bytes:
            return
        self._pages[key] = page
        self.held_bytes += page.size
        while self.held_bytes > self.max_bytes:
            _, dropped = self._pages.popitem(last=False)
            self.held_bytes -= dropped.size

    def clear(self) -> None:
        self._pages.clear()
        self.held_bytes = 0
