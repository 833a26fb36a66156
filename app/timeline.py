"""The ACS through time: fills the local snapshot cache from the participant and moves it between offsets.

One snapshot read (page by page) sets the cache at an offset; from there the ACS-delta updates after it, and before
it, extend the interval the cache covers, so stepping from one change to the next costs the few updates in
between. Far jumps (more than `RELOAD_DISTANCE` offsets) read a fresh snapshot instead.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from app.client import errors
from app.client.acs import read_snapshot
from app.client.ledger import LedgerClient, event_format, update_format
from app.snapshot import ACTIVE, CreatedRecord, Move, Store
from participant.api import CreatedEvent, EventFormat, JsGetUpdatesResponse

UPDATES_LIMIT = 200  # Canton's default list limit; lowered when a participant has a smaller one
RELOAD_DISTANCE = 20_000
MAX_BACKFILL = (
    500  # contracts whose create events are fetched one by one when stepping back; more: a new snapshot
)
FIRST_WINDOW = 200


@dataclass
class Progress:
    loaded: int
    form: str  # "page", "websocket", "list"; "updates" when stepping


class AcsTimeline:
    """The ACS of `parties` (None: every party) over time, cached in `store` (a snapshot's)."""

    def __init__(self, client: LedgerClient, store: Store, parties: Sequence[str] | None) -> None:
        self.client = client
        self.store = store
        self.parties = None if parties is None else list(parties)
        self.format: EventFormat = event_format(self.parties)
        self._limit = UPDATES_LIMIT

    @property
    def interval(self):
        return self.store.interval

    async def load(self, offset: int, on_progress: Callable[[Progress], None] | None = None) -> int:
        """Read the snapshot at `offset` into the cache (replacing what it held); returns the number of entries."""
        await self.store.reset(offset)
        loaded = 0
        async for batch in read_snapshot(self.client, offset, self.format):
            loaded += await self.store.add_snapshot_entries(batch.entries)
            if on_progress is not None:
                on_progress(Progress(loaded, batch.form))
        await self.store.index_ids()  # a second for a million contracts: now rather than at the first find
        return loaded

    async def move_to(self, offset: int, on_progress: Callable[[Progress], None] | None = None) -> None:
        """Make the cache cover `offset`: extend it with updates, or read a new snapshot when that is cheaper."""
        interval = self.interval
        if interval.lo is None or interval.hi is None:
            await self.load(offset, on_progress)
        elif offset > interval.hi:
            if offset - interval.hi > RELOAD_DISTANCE:
                await self.load(offset, on_progress)
            else:
                await self._extend_forward(offset, on_progress)
        elif offset < interval.lo:
            lo = interval.lo
            if lo - offset > RELOAD_DISTANCE:
                await self.load(offset, on_progress)
            elif not (await self._extend_backward(offset, on_progress)).done:
                await self._load_before(offset, lo, on_progress)

    async def _load_before(
        self, offset: int, lo: int, on_progress: Callable[[Progress], None] | None = None
    ) -> None:
        """A snapshot at `offset`, then the updates up to `lo` (where the cache was), so that what changed in
        between can still be shown: the way back over a move, which updates alone cannot undo."""
        await self.load(offset, on_progress)
        await self._extend_forward(lo, on_progress)

    async def previous_change(self, offset: int) -> int:
        """The offset of the change before the state seen at `offset` (0: the ledger begin, before any change)."""
        window = 100
        while True:
            known = await self.store.change_before(offset + 1)  # the change that made the state at `offset`
            if known is not None:
                earlier = await self.store.change_before(known)
                if earlier is not None:
                    return earlier
            lo = self.interval.lo or 0
            if lo <= 0:
                return 0
            pruned = await self.client.pruned_offset()
            if lo <= pruned:
                raise errors.LedgerApiError(
                    f"the history before offset {pruned} was pruned from the participant",
                    hint="Earlier states cannot be shown; offsets from the pruning offset on can.",
                )
            target = max(pruned, lo - window)
            extension = await self._extend_backward(target, None)
            if not extension.done:
                # the cache cannot be extended (a move to undo, or too many contracts to fetch): a snapshot at
                # the previous change itself, known from the updates just read
                seen = sorted(set(extension.changes_seen) | {c for c in (known,) if c is not None})
                made = max((c for c in seen if c <= offset), default=None)
                earlier = max((c for c in seen if made is not None and c < made), default=target)
                await self._load_before(earlier, lo)
                return earlier
            window *= 4

    async def next_change(self, offset: int, ledger_end: int) -> int | None:
        """The offset of the next change after `offset` up to `ledger_end`, None when there is none."""
        found = await self.store.change_after(offset)
        hi = self.interval.hi or 0
        while found is None and hi < ledger_end:
            step = min(ledger_end, hi + max(100, (ledger_end - hi) // 4))
            await self._extend_forward(step, None)
            hi = self.interval.hi or step
            found = await self.store.change_after(offset)
        return found

    # --- updates ------------------------------------------------------------------------------------------------

    async def _updates(self, begin: int, end: int) -> list[JsGetUpdatesResponse]:
        """Every update in (begin, end] with events for our parties, in order, a list limit at a time."""
        out: list[JsGetUpdatesResponse] = []
        fmt = update_format(self.format, reassignments=True)
        after = begin
        for _ in range(1_000_000):
            if after >= end:
                break
            try:
                page = await self.client.updates(after, end, fmt, limit=self._limit)
            except errors.ListTooLarge as e:
                self._limit = _node_limit(e) or max(1, self._limit // 2)
                continue
            offsets = [o for o in map(_offset_of, page) if o is not None]
            out.extend(page)
            if len(page) < self._limit or not offsets:
                break
            after = max(offsets)
        return out

    async def _extend_forward(self, hi: int, on_progress: Callable[[Progress], None] | None) -> None:
        old = self.interval.hi or 0
        if hi <= old:
            return
        created: list[CreatedRecord] = []
        archived: list[tuple[str, int]] = []
        changes: list[int] = []
        for update in await self._updates(old, hi):
            moved = update.update.reassignment.value if update.update and update.update.reassignment else None
            if moved is not None and moved.events:
                # transactions before it first: a contract's steps apply in ledger order
                await self.store.apply_forward(moved.offset - 1, created, archived, changes)
                created, archived, changes = [], [], []
                await self._apply_reassignment(moved)
                continue
            tx = update.update.transaction.value if update.update and update.update.transaction else None
            if tx is None or not tx.events:
                continue
            changes.append(tx.offset)
            for event in tx.events:
                if event.created_event is not None:
                    created.append(_record(event.created_event, tx.synchronizer_id, tx.workflow_id or ""))
                elif event.archived_event is not None:
                    archived.append((event.archived_event.contract_id, event.archived_event.offset))
        await self.store.apply_forward(hi, created, archived, changes)
        if on_progress is not None:
            on_progress(Progress(len(changes), "updates"))

    async def _apply_reassignment(self, reassignment) -> None:
        unassigned: list[tuple[str, Move, int | None]] = []
        assigned: list[CreatedRecord] = []
        for event in reassignment.events:
            if event.js_unassigned_event is not None:
                u = event.js_unassigned_event.value
                unassigned.append(
                    (
                        u.contract_id,
                        Move(u.reassignment_id, u.source, u.target, u.submitter or ""),
                        u.reassignment_counter,
                    )
                )
            elif event.js_assignment_event is not None:
                a = event.js_assignment_event
                record = _record(a.created_event, a.target, reassignment.workflow_id or "")
                record.offset, record.counter, record.kind = (
                    reassignment.offset,
                    a.reassignment_counter,
                    ACTIVE,
                )
                assigned.append(record)
        await self.store.apply_reassignment(reassignment.offset, unassigned, assigned)

    async def _extend_backward(self, lo: int, on_progress: Callable[[Progress], None] | None) -> Extension:
        """Extend the cache down to `lo`; not done when that would undo a move or take more than `MAX_BACKFILL`
        lookups."""
        old = self.interval.lo or 0
        if lo >= old:
            return Extension(True, [])
        archived: dict[str, int] = {}
        created_in_range: set[str] = set()
        changes: list[int] = []
        updates = await self._updates(lo, old)
        seen = [o for o in map(_offset_of, updates) if o is not None]
        for update in updates:
            if update.update and update.update.reassignment:
                return Extension(
                    False, seen
                )  # undoing a move needs the state before it: a snapshot at `lo` tells that directly
            tx = update.update.transaction.value if update.update and update.update.transaction else None
            if tx is None or not tx.events:
                continue
            changes.append(tx.offset)
            for event in tx.events:
                if event.created_event is not None:
                    created_in_range.add(event.created_event.contract_id)
                elif event.archived_event is not None:
                    archived[event.archived_event.contract_id] = event.archived_event.offset
        # Contracts archived in (lo, old] but created at or before lo were active at lo: the cache lacks them.
        candidates = [cid for cid in archived if cid not in created_in_range]
        missing = await self.store.unknown_ids(candidates)
        if len(missing) > MAX_BACKFILL:
            return Extension(False, seen)
        records: list[CreatedRecord] = []
        for cid in missing:
            try:
                events = await self.client.events_by_contract_id(cid, self.format)
            except errors.NotFound:
                continue  # pruned meanwhile: nothing to show for it
            if events.created is None:
                continue
            record = _record(events.created.created_event, events.created.synchronizer_id, "")
            record.archived_offset = archived[cid]
            records.append(record)
        await self.store.apply_backward(lo, records, changes)
        if on_progress is not None:
            on_progress(Progress(len(changes), "updates"))
        return Extension(True, seen)


class Extension(NamedTuple):
    """The outcome of extending the cache backward, and the offsets of the updates read on the way."""

    done: bool
    changes_seen: list[int]


def _offset_of(update: JsGetUpdatesResponse) -> int | None:
    u = update.update
    if u is None:
        return None
    value = u.value
    inner = getattr(value, "value", None)
    return getattr(inner, "offset", None)


def _node_limit(e: errors.StatusError) -> int | None:
    m = re.search(r"node limit \((\d+)\)", e.message)
    return int(m.group(1)) if m else None


def _record(event: CreatedEvent, synchronizer: str, workflow_id: str) -> CreatedRecord:
    return CreatedRecord(
        contract_id=event.contract_id,
        template_id=event.template_id,
        offset=event.offset,
        created_at=event.created_at,
        signatories=list(event.signatories),
        observers=list(event.observers),
        payload=event.create_argument,
        synchronizer=synchronizer,
        counter=0,
        workflow_id=workflow_id,
    )
