"""The ACS at an offset for a set of parties, read into the workspace's cache below the UI.

The contracts screen asks for an offset (a snapshot read at the ledger end or at any offset, a move through the
history, a step to the next change) and draws what it is told; the reading itself, its progress, and which request
is the current one are decided here. One request at a time: a new one supersedes the one under way, which is
cancelled and tells nothing more (its late progress would describe an offset no longer asked for, and its rows
are no longer the cache's). A failure is told once, with the error the client raised (Canton's error id and
category in it) and what was being done.

The offset read before the current one is kept too (`previous`) while the cache still covers it: the rows of that
offset missing from this one are what the screen shows struck out, gone since then or not yet created here."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from app.workspace.acs_cache import AcsCache
from app.workspace.ledger_end import LedgerEnd
from app.workspace.subscribers import Subscribers

if TYPE_CHECKING:  # imported once connected: the client and its models take a while
    from app.client.ledger import LedgerClient
    from app.timeline import AcsTimeline, Progress
    from app.workspace.kept import Kept, Whose


# --- what subscribers are told, in the order it happens -------------------------------------------------------


@dataclass(frozen=True)
class Reading:
    """A snapshot is being read at `offset`: the cache was emptied for it."""

    offset: int


@dataclass(frozen=True)
class Loaded:
    """Progress of the snapshot at `offset`: `loaded` contracts are in the cache after `seconds`, read in `form`
    ("page", "websocket", "list"). Told after each batch the cache stored."""

    offset: int
    loaded: int
    form: str
    seconds: float


@dataclass(frozen=True)
class Read:
    """The whole snapshot at `offset` is in the cache: `total` entries, read in `seconds`."""

    offset: int
    total: int
    seconds: float


@dataclass(frozen=True)
class Stepping:
    """Looking for the change before (`direction` < 0) or after the offset viewed."""

    direction: int


@dataclass(frozen=True)
class Moving:
    """The cache is being moved to `target` (updates read, or a new snapshot)."""

    target: int


@dataclass(frozen=True)
class Moved:
    """The cache covers `offset` now, viewed after `old`; `previous` is `old` while the cache still covers it (the
    rows are compared with it), None when a new snapshot replaced what the cache held."""

    offset: int
    old: int
    previous: int | None


@dataclass(frozen=True)
class NoChange:
    """A step forward found no change after `offset` up to the ledger end `end`."""

    offset: int
    end: int


@dataclass(frozen=True)
class AtLedgerEnd:
    """Asked for the ledger end, which is the offset viewed already."""

    end: int


@dataclass(frozen=True)
class NoParties:
    """The parties asked for are none: there is nothing to read, and no offset is viewed (the cache keeps what it
    held, read again once parties are asked for)."""


Doing = Literal["open", "read", "step", "move", "end", "other"]


@dataclass(frozen=True)
class Failed:
    """What was being done failed with `error`: opening the cache and reading the ledger end to read at
    (`open`), reading the snapshot (`read`), looking for a change (`step`), moving to `offset` (`move`), reading
    the ledger end to move to (`end`), or anything else (`other`: not the participant's answer, a fault of this
    program). Told once; nothing more of that request follows."""

    error: Exception
    doing: Doing
    offset: int | None = None


AcsEvent = Reading | Loaded | Read | Stepping | Moving | Moved | NoChange | AtLedgerEnd | NoParties | Failed


class AcsLoader:
    """Reads "the ACS at offset O for parties P" into `cache` and tells its subscribers how it goes.

    `client` gives the session's client when a request starts (a reconnection opens a new one); `ledger_end` hears
    of each ledger end read here."""

    def __init__(self, cache: AcsCache, ledger_end: LedgerEnd, client: Callable[[], LedgerClient]) -> None:
        self._cache = cache
        self._ledger_end = ledger_end
        self._client = client
        self.parties: list[str] | None = None
        """The parties whose contracts are read (None: every party), as last asked."""
        self.previous: int | None = None
        """The offset viewed before `offset`, while the cache still covers it."""
        self._reading = False
        self._request = 0  # the current request's number: what an older one tells is dropped
        self._task: asyncio.Task[None] | None = None
        self._end_task: asyncio.Task[None] | None = None
        self._subscribers: Subscribers[AcsEvent] = Subscribers()

    def subscribe(self, callback: Callable[[AcsEvent], None]) -> Callable[[], None]:
        """Hear what the current request does; returns what unsubscribes."""
        return self._subscribers.subscribe(callback)

    @property
    def reading(self) -> bool:
        """A snapshot is being read (the cache holds part of it)."""
        return self._reading

    @property
    def busy(self) -> bool:
        """A request is under way."""
        return self._task is not None and not self._task.done()

    async def settled(self) -> None:
        """Until the request under way, if any, has ended (what a cancelled one might still tell is told by then)."""
        task = self._task
        if task is not None:
            await asyncio.wait([task])

    @property
    def timeline(self) -> AcsTimeline | None:
        return self._cache.timeline

    @property
    def offset(self) -> int | None:
        """The offset the cache shows; None before the first read and once closed. The cache's `viewing`: one
        value, which every screen reads there and this loader moves."""
        return self._cache.viewing

    # --- requests -----------------------------------------------------------------------------------------------

    def load(self, parties: list[str] | None, offset: int | None = None) -> None:
        """Read the snapshot of `parties` (None: every party) at `offset`, the ledger end when None."""
        self.parties = None if parties is None else list(parties)
        if parties is not None and not parties:
            self._start(self._nothing_to_read)
        else:
            self._start(lambda request: self._open_and_load(request, self.parties, offset))

    def show_kept(self, kept: Kept) -> None:
        """The cache holds the last session's rows (`AcsCache.open_kept`): view them where that session did, until
        `resume` brings them up to date."""
        self.parties = None if kept.whose.parties is None else list(kept.whose.parties)
        self._view(kept.whose.viewed)

    def resume(self) -> None:
        """Bring the last session's rows up to the ledger end by the updates since (a new snapshot when the
        participant no longer has them, or when only the first rows were kept); told as a move from the offset they
        were read at."""
        if self._cache.kept is not None and self.offset is not None:
            self._start(lambda request: self._resume(request, self.parties))

    def reload(self) -> None:
        """Read the snapshot at the offset viewed again."""
        offset = self.offset
        if offset is not None and self.timeline is not None:
            self._start(lambda request: self._load(request, offset))

    def move_to(self, target: int) -> None:
        """Make the cache show `target`, comparing it with the offset viewed now (while it can)."""
        if self.timeline is not None and self.offset is not None:
            self._start(lambda request: self._move(request, target))

    def step(self, direction: int) -> None:
        """Move to the change before (`direction` < 0) or after the offset viewed."""
        if self.timeline is not None and self.offset is not None:
            self._start(lambda request: self._step(request, direction))

    def to_ledger_end(self) -> None:
        """Read the ledger end and move there. The reading does not supersede what is under way: only a move does
        (a snapshot being read at the ledger end goes on when the end has not moved)."""
        if self.timeline is None or self.offset is None:
            return
        if self._end_task is not None and not self._end_task.done():
            self._end_task.cancel()
        self._end_task = asyncio.create_task(self._to_ledger_end(self._request))

    def cancel(self) -> bool:
        """Stop the request under way (the cache keeps what it read); True when there was one."""
        running = self.busy
        self._supersede()
        return running

    async def close(self, keep_as: Whose | None = None) -> None:
        """Stop what is under way and delete the cache file, or keep it for the next session (`keep_as`), unless
        it was being filled or moved: then it holds no offset whole."""
        if self.busy or self._reading:
            keep_as = None
        tasks = [t for t in (self._task, self._end_task) if t is not None and not t.done()]
        self._supersede()
        if self._end_task is not None:
            self._end_task.cancel()
        if tasks:
            await asyncio.wait(tasks)  # before the file goes: a cancelled read may still be storing a batch
        self.parties = self.previous = None
        await self._cache.close(keep_as)  # which views no offset any more

    # --- the current request ------------------------------------------------------------------------------------

    def _supersede(self) -> int:
        self._request += 1
        self._reading = False
        if self._task is not None and not self._task.done():
            self._task.cancel()
        return self._request

    def _start(self, make: Callable[[int], Coroutine[Any, Any, None]]) -> None:
        request = self._supersede()
        self._task = asyncio.create_task(self._run(request, make(request)))

    async def _run(self, request: int, work: Coroutine[Any, Any, None]) -> None:
        try:
            await work
        except Exception as e:  # told, not raised: nobody awaits this task
            self._tell(request, Failed(e, "other"))
        finally:
            if request == self._request:
                self._reading = False

    def _tell(self, request: int, event: AcsEvent) -> None:
        if request == self._request:
            self._subscribers.tell(event)

    def _view(self, offset: int) -> None:
        self._cache.view(offset)

    # --- reading ------------------------------------------------------------------------------------------------

    async def _nothing_to_read(self, request: int) -> None:
        # no offset is viewed: the rows the cache still holds are the parties' asked for before, as whom a step, a
        # move or a read again would read (over a timeline of those parties), and which would be kept for the next
        # session as the rows of no party
        self.previous = None
        self._cache.view(None)
        self._tell(request, NoParties())

    async def _open_and_load(self, request: int, parties: list[str] | None, offset: int | None) -> None:
        from app.client import errors

        client = self._client()
        try:
            await self._cache.open(client, parties)
            if offset is None:
                offset = await client.ledger_end()
                self._ledger_end.saw(offset)
        except errors.LedgerApiError as e:
            self._tell(request, Failed(e, "open"))
            return
        await self._load(request, offset)

    async def _load(self, request: int, offset: int) -> None:
        from app.client import errors

        timeline, snapshot = self._cache.timeline, self._cache.snapshot
        assert timeline is not None and snapshot is not None, "the cache is opened first"
        self._reading = True
        self.previous = None
        self._view(offset)
        self._tell(request, Reading(offset))
        started = time.monotonic()

        def progress(p: Progress) -> None:
            self._tell(request, Loaded(offset, p.loaded, p.form, time.monotonic() - started))

        try:
            await timeline.load(offset, progress)
        except errors.LedgerApiError as e:
            self._tell(request, Failed(e, "read", offset))
            return
        total = await snapshot.views.count()
        self._reading = False
        self._tell(request, Read(offset, total, time.monotonic() - started))

    async def _resume(self, request: int, parties: list[str] | None) -> None:
        from app.client import errors

        client = self._client()
        try:
            timeline = await self._cache.open(client, parties)  # over the kept file
            end = await client.ledger_end()
            self._ledger_end.saw(end)
        except errors.LedgerApiError as e:
            self._tell(request, Failed(e, "open"))
            return
        old = self.offset
        assert old is not None
        kept = self._cache.kept
        if kept is not None and kept.first_of is not None:
            # only the first rows were kept: the updates since cannot bring a part of the contracts up to date
            self._cache.kept_current()
            await self._load(request, end)
            return
        hi = timeline.interval.hi
        if hi is not None and end >= hi:
            self._tell(request, Moving(end))
            try:
                await timeline.move_to(end)
            except errors.LedgerApiError:
                pass  # the updates since are gone (pruned): a snapshot instead
            else:
                self.previous = old if timeline.interval.covers(old) else None
                self._cache.kept_current()
                self._view(end)
                self._tell(request, Moved(end, old, self.previous))
                return
        # an end before what was kept: not the ledger the rows were read from (its database made anew)
        self._cache.kept_current()
        await self._load(request, end)

    # --- moving through offsets ---------------------------------------------------------------------------------

    async def _move(self, request: int, target: int) -> None:
        from app.client import errors

        timeline, old = self._cache.timeline, self.offset
        assert timeline is not None and old is not None
        if target == old:
            return
        self._tell(request, Moving(target))
        try:
            await timeline.move_to(target)
        except errors.LedgerApiError as e:
            self._tell(request, Failed(e, "move", target))
            return
        self.previous = old if timeline.interval.covers(old) else None
        self._view(target)  # told at once: whoever sees the new offset hears of the move in the same step
        self._tell(request, Moved(target, old, self.previous))

    async def _step(self, request: int, direction: int) -> None:
        from app.client import errors

        timeline, offset = self._cache.timeline, self.offset
        assert timeline is not None and offset is not None
        end = self._ledger_end.value or offset
        self._tell(request, Stepping(direction))
        try:
            if direction < 0:
                target: int | None = await timeline.previous_change(offset)
            else:
                target = await timeline.next_change(offset, end)
        except errors.LedgerApiError as e:
            self._tell(request, Failed(e, "step", offset))
            return
        if target is None:
            self._tell(request, NoChange(offset, end))
            return
        await self._move(request, target)

    async def _to_ledger_end(self, request: int) -> None:
        from app.client.errors import LedgerApiError

        try:
            end = await self._client().ledger_end()
        except Exception as e:  # told, not raised: nobody awaits this task
            self._tell(request, Failed(e, "end" if isinstance(e, LedgerApiError) else "other"))
            return
        self._ledger_end.saw(end)
        if request != self._request:
            return  # another request came meanwhile: it decides what is shown
        if end == self.offset:
            self._tell(request, AtLedgerEnd(end))
        else:
            self.move_to(end)
