"""The cache file: its schema, and filling it (a snapshot, then the updates after and before it). All SQLite work
runs in one worker thread, in order; the event loop only awaits it (`Store.run`)."""

from __future__ import annotations

import asyncio
import collections
import hashlib
import itertools
import sqlite3
import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self, TypeVar

import orjson

from app.private_files import create_private_file, private_dir
from app.snapshot.records import UNASSIGNED, CreatedRecord, Move, record_of_entry

T = TypeVar("T")

STORE_SLICE = 200  # snapshot entries stored at a time: about 8 ms of the worker's time

SCHEMA = """
PRAGMA journal_mode = OFF;
PRAGMA synchronous = OFF;
PRAGMA temp_store = FILE;
PRAGMA cache_size = -4096;  -- 4 MB, which also bounds what a sort holds in memory: 16 MB raised the peak by 20 MB
CREATE TABLE strings (id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE);
-- narrow rows, so that scanning a million of them to build a view stays cheap
CREATE TABLE contracts (
    seq INTEGER PRIMARY KEY,           -- arrival order: activation order within a snapshot
    cid_key INTEGER NOT NULL,          -- 64-bit hash of the contract id, indexed
    template INTEGER NOT NULL,         -- strings.id
    created_offset INTEGER NOT NULL,   -- the offset that activated the contract
    archived_offset INTEGER,           -- NULL while active at hi
    kind INTEGER NOT NULL,
    signatories INTEGER NOT NULL,      -- strings.id of a JSON array
    observers INTEGER NOT NULL,
    synchronizer INTEGER NOT NULL,
    counter INTEGER
);
CREATE TABLE details (
    seq INTEGER PRIMARY KEY,
    cid TEXT NOT NULL,
    created_at TEXT NOT NULL,
    workflow_id TEXT NOT NULL,
    payload TEXT NOT NULL,             -- createArgument as JSON
    search TEXT NOT NULL               -- the words `/` matches: id, template, parties, payload values
);
CREATE TABLE changes (offset INTEGER PRIMARY KEY);  -- offsets in (lo, hi] where this ACS changed
-- the reassignment of a row that is one half of it (incomplete unassigned or assigned)
CREATE TABLE moves (
    seq INTEGER PRIMARY KEY,
    reassignment_id TEXT NOT NULL,
    source TEXT NOT NULL,
    target TEXT NOT NULL,
    submitter TEXT NOT NULL
);
CREATE TABLE moved_on (seq INTEGER PRIMARY KEY);  -- rows whose state ended by a reassignment, not an archive
"""


def cid_key(contract_id: str) -> int:
    return int.from_bytes(hashlib.blake2b(contract_id.encode(), digest_size=8).digest(), "big", signed=True)


@dataclass
class Interval:
    lo: int | None = None
    hi: int | None = None

    def covers(self, offset: int) -> bool:
        return self.lo is not None and self.hi is not None and self.lo <= offset <= self.hi


@dataclass
class _Prepared:
    key: int
    row: tuple
    detail: tuple
    contract_id: str
    move: tuple | None = None


class Store:
    """One cache file and what fills it. Its face, on the event loop: `open`, `close`, the filling (`reset`,
    `add_snapshot_entries`, `index_ids`, `apply_forward`, `apply_reassignment`, `apply_backward`), `interval` (the
    offsets it covers), `unknown_ids`, `template_ids`, `change_before` and `change_after`. For what reads it (the
    views), in its worker thread: `run` (where the rest is called), `db`, `string_id`, `seq_of`, `seqs_of`,
    `ensure_id_index`, and `when_changed` (told of each change that invalidates what was read)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="snapshot")
        self._jobs_lock = threading.Lock()
        self._first: collections.deque[_Job] = collections.deque()
        self._queued: collections.deque[_Job] = collections.deque()
        self._db: sqlite3.Connection | None = None
        self.interval = Interval()
        self._strings: dict[str, int] = {}
        self._template_ids: set[str] = set()  # of every row stored since the last reset
        self._seq = itertools.count(1)
        self._indexed = False
        self._listeners: list[Callable[[bool], None]] = []

    @classmethod
    async def open(cls, path: Path) -> Self:
        store = cls(path)
        await store.run(store._open)
        return store

    @classmethod
    async def reopen(cls, path: Path, interval: Interval) -> Self:
        """The cache file a session kept at `path` (`keep`), covering `interval`, to be filled on from there."""
        store = cls(path)
        store.interval = Interval(interval.lo, interval.hi)
        await store.run(store._reopen)
        return store

    def _reopen(self) -> None:
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        db = self._db
        for pragma in SCHEMA.split(";")[:4]:  # the connection's settings, not the tables, which are there
            db.execute(pragma)
        self._strings = {text: sid for sid, text in db.execute("SELECT id, text FROM strings")}
        self._template_ids = {
            text
            for (text,) in db.execute(
                "SELECT text FROM strings WHERE id IN (SELECT DISTINCT template FROM contracts)"
            )
        }
        self._seq = itertools.count(
            (first_value(db.execute("SELECT max(seq) FROM contracts").fetchone()) or 0) + 1
        )
        self._indexed = (
            db.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'contracts_cid'"
            ).fetchone()
            is not None
        )

    async def keep(self, path: Path, write: Callable[[sqlite3.Connection], None]) -> None:
        """Close the file and keep it at `path` (one there already is replaced), after `write` has added what
        the next session needs to know of it."""
        await self.run(self._keep, path, write)
        self._executor.shutdown(wait=False)

    def _keep(self, path: Path, write: Callable[[sqlite3.Connection], None]) -> None:
        if self._db is None:
            return
        write(self._db)
        self._db.close()
        self._db = None
        self.path.replace(path)
        self.path = path

    async def keep_first(
        self, path: Path, offset: int, rows: int, write: Callable[[sqlite3.Connection, int], None]
    ) -> None:
        """Close the file and keep at `path` only the first `rows` contracts of the state at `offset`, in arrival
        order (the rows a start shows first), in a new file, after `write` has added what the next session needs
        to know of it and the number of contracts of that state; the file itself is deleted. As with `keep`, the
        new file takes the kept name only once written whole."""
        await self.run(self._keep_first, path, offset, rows, write)
        self._executor.shutdown(wait=False)

    def _keep_first(
        self, path: Path, offset: int, rows: int, write: Callable[[sqlite3.Connection, int], None]
    ) -> None:
        if self._db is None:
            return
        # named as this process's cache files are: one left by a process killed meanwhile is deleted as theirs are
        part = self.path.with_name(f"{self.path.stem}-first.db")
        try:
            total = self._copy_first(part, offset, rows)
            db = sqlite3.connect(part, isolation_level=None)
            try:
                write(db, total)
            finally:
                db.close()
            part.replace(path)
        finally:
            part.unlink(missing_ok=True)
            self._close()

    def _copy_first(self, part: Path, offset: int, rows: int) -> int:
        """The first `rows` contracts of the state at `offset` copied to a new cache file at `part`, with what
        they refer to; returns the number of contracts of that state."""
        db = self.db
        visible = "created_offset <= :o AND (archived_offset IS NULL OR archived_offset > :o)"
        total = first_value(
            db.execute(f"SELECT count(*) FROM contracts WHERE {visible}", {"o": offset}).fetchone()
        )
        part.unlink(missing_ok=True)
        create_private_file(part)
        new = sqlite3.connect(part, isolation_level=None)
        try:
            new.executescript(SCHEMA)
        finally:
            new.close()
        db.execute("ATTACH DATABASE ? AS part", (str(part),))
        try:
            db.execute("BEGIN")
            db.execute(
                f"INSERT INTO part.contracts SELECT * FROM main.contracts WHERE {visible} ORDER BY seq LIMIT :n",
                {"o": offset, "n": rows},
            )
            for table in ("details", "moves", "moved_on"):
                db.execute(
                    f"INSERT INTO part.{table} SELECT * FROM main.{table} "
                    "WHERE seq IN (SELECT seq FROM part.contracts)"
                )
            db.execute(
                "INSERT INTO part.strings SELECT * FROM main.strings WHERE id IN ("
                "SELECT template FROM part.contracts UNION SELECT signatories FROM part.contracts "
                "UNION SELECT observers FROM part.contracts UNION SELECT synchronizer FROM part.contracts)"
            )
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        finally:
            db.execute("DETACH DATABASE part")
        return int(total or 0)

    def _open(self) -> None:
        private_dir(self.path.parent)
        for suffix in ("", "-journal", "-wal", "-shm"):
            Path(f"{self.path}{suffix}").unlink(missing_ok=True)
        create_private_file(self.path)  # payloads are nobody else's business
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self._db.executescript(SCHEMA)

    async def close(self) -> None:
        """Close the file and delete it."""
        await self.run(self._close)
        self._executor.shutdown(wait=False)

    def _close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
        for suffix in ("", "-journal", "-wal", "-shm"):
            Path(f"{self.path}{suffix}").unlink(missing_ok=True)

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """`fn(*args)` in the cache's worker thread, after what was asked before: every read and write of the file
        runs there, in order."""
        return await self._submit(self._queued, fn, args)

    async def run_first(self, fn: Callable[..., T], *args: Any) -> T:
        """`fn(*args)` in the worker thread before whatever `run` asked that has not started yet (what runs goes on
        to its end): a read of the rows a screen waits for, which would otherwise wait behind the batches of a
        snapshot being stored. It sees the file as it is then: what was asked to be written after it is not there
        yet, and a view asked to be built after it not built (whoever asks knows the view it read: the table's
        generation)."""
        return await self._submit(self._first, fn, args)

    async def _submit(self, queue: collections.deque[_Job], fn: Callable[..., T], args: tuple) -> T:
        loop = asyncio.get_running_loop()
        job = _Job(fn, args, loop.create_future())
        with self._jobs_lock:
            queue.append(job)
        try:
            self._executor.submit(self._run_next)  # each call runs one job, the first asked first
        except RuntimeError:  # closed
            with self._jobs_lock:
                queue.remove(job)
            raise
        return await job.future

    def _run_next(self) -> None:
        with self._jobs_lock:
            job = (self._first or self._queued).popleft()
        try:
            result = job.fn(*job.args)
        except BaseException as e:  # noqa: BLE001 - handed to whoever awaits it, as run_in_executor does
            job.future.get_loop().call_soon_threadsafe(_settle, job.future, None, e)
        else:
            job.future.get_loop().call_soon_threadsafe(_settle, job.future, result, None)

    @property
    def db(self) -> sqlite3.Connection:
        """The file's connection (in the worker thread)."""
        assert self._db is not None, "snapshot is closed"
        return self._db

    def when_changed(self, listener: Callable[[bool], None]) -> None:
        """Call `listener` (in the worker thread) after each change of what the cache holds: with True when it was
        emptied for a new snapshot, with False when updates extended it."""
        self._listeners.append(listener)

    def _changed(self, emptied: bool) -> None:
        for listener in self._listeners:
            listener(emptied)

    def string_id(self, text: str) -> int | None:
        """The id under which `text` (a template id, a party list) is stored, if any row holds it."""
        return self._strings.get(text)

    # --- filling ------------------------------------------------------------------------------------------------

    async def reset(self, offset: int) -> None:
        """Forget everything: the cache is about to be filled from a snapshot at `offset`."""
        await self.run(self._reset, offset)

    def _reset(self, offset: int) -> None:
        db = self.db
        db.execute("BEGIN")
        for table in ("contracts", "details", "changes", "moves", "moved_on"):
            db.execute(f"DELETE FROM {table}")
        db.execute("DROP INDEX IF EXISTS contracts_cid")
        db.execute("COMMIT")
        self._indexed = False
        self._template_ids.clear()
        self.interval = Interval(offset, offset)
        self._changed(emptied=True)

    async def add_snapshot_entries(self, entries: list[dict[str, Any]]) -> int:
        """Store a batch of snapshot elements (at the offset given to `reset`); returns how many were stored. In
        slices: a read asked meanwhile (`run_first`) waits for one slice, not the batch."""
        stored = 0
        for start in range(0, len(entries), STORE_SLICE):
            stored += await self.run(self._add_entries, entries[start : start + STORE_SLICE])
        return stored

    def _add_entries(self, entries: list[dict[str, Any]]) -> int:
        records = [r for r in map(record_of_entry, entries) if r is not None]
        self._insert(records)
        return len(records)

    def _intern(self, text: str) -> int:
        sid = self._strings.get(text)
        if sid is None:
            db = self.db
            row = db.execute("SELECT id FROM strings WHERE text = ?", (text,)).fetchone()
            if row:
                sid = int(row[0])
            else:
                inserted = db.execute("INSERT INTO strings (text) VALUES (?)", (text,)).lastrowid
                assert inserted is not None  # an INSERT's row
                sid = inserted
            self._strings[text] = sid
        return sid

    def _template_id(self, template_id: str) -> int:
        self._template_ids.add(template_id)
        return self._intern(template_id)

    async def template_ids(self) -> list[str]:
        """The templates of the contracts the cache holds, at any offset (what a view of it may show)."""
        return await self.run(lambda: sorted(self._template_ids))

    def _prepare(self, r: CreatedRecord) -> _Prepared:
        seq = next(self._seq)
        key = cid_key(r.contract_id)
        signatories = orjson.dumps(r.signatories).decode()
        observers = orjson.dumps(r.observers).decode()
        payload = orjson.dumps(r.payload).decode()
        row = (
            seq,
            key,
            self._template_id(r.template_id),
            r.offset,
            r.archived_offset,
            r.kind,
            self._intern(signatories),
            self._intern(observers),
            self._intern(r.synchronizer),
            r.counter,
        )
        # what `/` matches: the texts at hand, joined (walking the payload for its values alone cost more than
        # storing the row; the field names it also matches are rarely what anyone types)
        search = f"{r.contract_id} {r.template_id.split(':', 1)[-1]} {signatories} {observers} {payload}"
        detail = (seq, r.contract_id, r.created_at, r.workflow_id, payload, search)
        move = (
            None
            if r.move is None
            else (seq, r.move.reassignment_id, r.move.source, r.move.target, r.move.submitter)
        )
        return _Prepared(key, row, detail, r.contract_id, move)

    def _insert(self, records: Iterable[CreatedRecord]) -> None:
        prepared = [self._prepare(r) for r in records]
        if not prepared:
            return
        db = self.db
        db.execute("BEGIN")
        db.executemany("INSERT INTO contracts VALUES (?,?,?,?,?,?,?,?,?,?)", [p.row for p in prepared])
        db.executemany("INSERT INTO details VALUES (?,?,?,?,?,?)", [p.detail for p in prepared])
        db.executemany(
            "INSERT INTO moves VALUES (?,?,?,?,?)", [p.move for p in prepared if p.move is not None]
        )
        db.execute("COMMIT")

    async def index_ids(self) -> None:
        """Build the index by contract id now (after a snapshot is stored, before anyone looks one up)."""
        await self.run(self.ensure_id_index)

    def ensure_id_index(self) -> None:
        """The index by contract id, built once it is needed: a snapshot is stored faster without it (the rows
        of a snapshot are all new), and one CREATE INDEX is cheaper than a million index updates."""
        if not self._indexed:
            self.db.execute("CREATE INDEX IF NOT EXISTS contracts_cid ON contracts (cid_key)")
            self._indexed = True

    def seq_of(self, contract_id: str) -> int | None:
        """The row of a contract's latest state (a contract that moved between synchronizers has one per step)."""
        seqs = self.seqs_of(contract_id)
        return seqs[0] if seqs else None

    def seqs_of(self, contract_id: str) -> list[int]:
        """The rows of a contract, latest first."""
        self.ensure_id_index()
        return [
            seq
            for seq, cid in self.db.execute(
                "SELECT c.seq, d.cid FROM contracts c JOIN details d USING (seq) WHERE c.cid_key = ? ORDER BY c.seq DESC",
                (cid_key(contract_id),),
            )
            if cid == contract_id
        ]

    async def apply_forward(
        self,
        hi: int,
        created: Sequence[CreatedRecord],
        archived: Sequence[tuple[str, int]],
        change_offsets: Iterable[int],
    ) -> None:
        """Extend the interval to `hi` with the updates in (old hi, hi]: contracts created and archived there."""
        await self.run(self._apply_forward, hi, list(created), list(archived), list(change_offsets))

    def _apply_forward(
        self,
        hi: int,
        created: list[CreatedRecord],
        archived: list[tuple[str, int]],
        change_offsets: list[int],
    ) -> None:
        new = [r for r in created if self.seq_of(r.contract_id) is None]
        self._insert(new)
        db = self.db
        db.execute("BEGIN")
        for contract_id, offset in archived:
            seq = self.seq_of(contract_id)
            if seq is not None:
                db.execute(
                    "UPDATE contracts SET archived_offset = ? WHERE seq = ? AND archived_offset IS NULL",
                    (offset, seq),
                )
        db.executemany("INSERT OR IGNORE INTO changes VALUES (?)", [(o,) for o in change_offsets])
        db.execute("COMMIT")
        self.interval.hi = max(hi, self.interval.hi or hi)
        self._changed(emptied=False)

    async def apply_reassignment(
        self,
        offset: int,
        unassigned: Sequence[tuple[str, Move, int | None]],
        assigned: Sequence[CreatedRecord],
    ) -> None:
        """Extend the interval to `offset` with a reassignment there. Each step of a move is a new state of the
        contract: the row it was in ends at `offset` and a new one starts, so that any offset still shows the
        contract as it was then. `unassigned`: (contract id, the move, the new counter) of contracts that left
        their synchronizer (incomplete until assigned); `assigned`: the contracts active on their target now."""
        await self.run(self._apply_reassignment, offset, list(unassigned), list(assigned))

    def _apply_reassignment(
        self, offset: int, unassigned: list[tuple[str, Move, int | None]], assigned: list[CreatedRecord]
    ) -> None:
        db = self.db
        records: list[CreatedRecord] = []
        ended: list[int] = []
        for contract_id, move, counter in unassigned:
            seq = self.seq_of(contract_id)
            if seq is None:
                continue  # not one of ours at the time
            (template, created, sigs, obs, created_at, workflow_id, payload) = db.execute(
                "SELECT t.text, c.created_offset, s.text, o.text, d.created_at, d.workflow_id, d.payload "
                "FROM contracts c JOIN details d USING (seq) JOIN strings t ON t.id = c.template "
                "JOIN strings s ON s.id = c.signatories JOIN strings o ON o.id = c.observers WHERE c.seq = ?",
                (seq,),
            ).fetchone()
            ended.append(seq)
            records.append(
                CreatedRecord(
                    contract_id,
                    template,
                    offset,
                    created_at,
                    orjson.loads(sigs),
                    orjson.loads(obs),
                    orjson.loads(payload),
                    synchronizer=move.source,
                    counter=counter,
                    kind=UNASSIGNED,
                    workflow_id=workflow_id,
                    move=move,
                )
            )
        for record in assigned:
            seq = self.seq_of(record.contract_id)
            if seq is not None:
                ended.append(seq)
            records.append(record)
        db.execute("BEGIN")
        db.executemany(
            "UPDATE contracts SET archived_offset = ? WHERE seq = ? AND archived_offset IS NULL",
            [(offset, seq) for seq in ended],
        )
        db.executemany("INSERT OR IGNORE INTO moved_on VALUES (?)", [(seq,) for seq in ended])
        db.execute("INSERT OR IGNORE INTO changes VALUES (?)", (offset,))
        db.execute("COMMIT")
        self._insert(records)
        self.interval.hi = max(offset, self.interval.hi or offset)
        self._changed(emptied=False)

    async def unknown_ids(self, contract_ids: Sequence[str]) -> list[str]:
        """Those of `contract_ids` that the cache does not hold."""
        return await self.run(lambda: [c for c in contract_ids if self.seq_of(c) is None])

    async def apply_backward(
        self, lo: int, archived_before: Sequence[CreatedRecord], change_offsets: Iterable[int]
    ) -> None:
        """Extend the interval down to `lo` with the updates in (lo, old lo]. `archived_before` are the contracts
        active at `lo` but archived in that range (their create events, with `archived_offset` set); contracts
        created in that range are in the cache already (or were archived in it too, and never visible)."""
        await self.run(self._apply_backward, lo, list(archived_before), list(change_offsets))

    def _apply_backward(
        self, lo: int, archived_before: list[CreatedRecord], change_offsets: list[int]
    ) -> None:
        self._insert([r for r in archived_before if self.seq_of(r.contract_id) is None])
        db = self.db
        db.execute("BEGIN")
        db.executemany("INSERT OR IGNORE INTO changes VALUES (?)", [(o,) for o in change_offsets])
        db.execute("COMMIT")
        self.interval.lo = min(lo, self.interval.lo if self.interval.lo is not None else lo)
        self._changed(emptied=False)

    # --- change offsets -----------------------------------------------------------------------------------------

    async def change_before(self, offset: int) -> int | None:
        """The last offset below `offset` (within the interval) where this ACS changed."""
        return await self.run(
            lambda: first_value(
                self.db.execute("SELECT max(offset) FROM changes WHERE offset < ?", (offset,)).fetchone()
            )
        )

    async def change_after(self, offset: int) -> int | None:
        return await self.run(
            lambda: first_value(
                self.db.execute("SELECT min(offset) FROM changes WHERE offset > ?", (offset,)).fetchone()
            )
        )


@dataclass
class _Job:
    fn: Callable[..., Any]
    args: tuple
    future: asyncio.Future[Any]


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.done():  # its awaiter was cancelled meanwhile
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


def first_value(row: tuple | None) -> Any:
    return None if row is None else row[0]
