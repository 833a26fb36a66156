"""The single writer: every change to the ledger goes through here, and many commit as one (group commit).

A hop into another thread costs more than an fsync, so per-request transactions top out far below what one
transaction per batch reaches. Jobs queue up; the writer runs them one after another against the open `Batch`
(committed state plus what earlier jobs of the batch staged, so they behave as if they had run one by one); the
writer's thread writes a batch as one SQLite transaction, and only then is each of its jobs answered.

Commits are pipelined: while one batch is being written and synced, the next is interpreted on top of it (its reads
see the flushing batch's changes through `parent`). The next batch is written only after the previous one is
durable, and if that fails, the next one fails too, since it was built on changes that never happened.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import queue
import sqlite3
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import aiosqlite

from participant.engine.ledger import Contract, CreateNode, Transaction
from participant.store import sql
from participant.store.rows import ContractRow, UpdateRow, contract_params

log = logging.getLogger(__name__)

MAX_BATCH = 256
BUSY_TIMEOUT_MS = 10_000

# A job may carry a `change_key` attribute: it is then a submission, which the writer may interpret while the
# previous batch is still being written, and whose change's latest completion it reads up front, with those of the
# other submissions of the batch, in one query. Other jobs run only once everything before them is durable.
Job = Callable[["Batch"], Awaitable[Any]]


@dataclass
class Batch:
    """Changes staged by the jobs of one group commit, and reads that see them."""

    conn: aiosqlite.Connection  # for reads: sees committed state only
    ledger_end: int
    next_seq: int
    parent: Batch | None = None  # the batch being written while this one is interpreted
    created: dict[str, Contract] = field(default_factory=dict)
    archived: set[str] = field(default_factory=set)
    keys: dict[tuple[str, str], str | None] = field(default_factory=dict)
    change_keys: dict[str, tuple[int, str]] = field(default_factory=dict)
    # Latest completion of the change keys the batch's jobs declared, read in one query up front.
    known_completions: dict[str, tuple[int, str, str] | None] = field(default_factory=dict)
    # Rows by table. Contracts created and archived in the same batch are inserted already archived, so that the
    # statements can run table by table without breaking the unique index on active keys.
    updates: list[tuple] = field(default_factory=list)
    archives: list[tuple] = field(default_factory=list)
    contracts: dict[str, list] = field(default_factory=dict)
    stakeholders: list[tuple] = field(default_factory=list)
    completions: list[tuple] = field(default_factory=list)
    other: list[tuple[str, tuple]] = field(default_factory=list)  # in staging order
    # (future, result, error) of each job interpreted into the batch, answered once the batch is durable
    results: list[tuple[asyncio.Future, Any, BaseException | None]] = field(default_factory=list)
    failed: BaseException | None = None  # set when the batch this one was built on failed to commit

    # --- reads (the engine's ContractSource)

    def _chain(self):
        batch = self
        while batch is not None:
            yield batch
            batch = batch.parent

    def _archived_here(self, contract_id: str) -> bool:
        return any(contract_id in b.archived for b in self._chain())

    async def active_contract(self, contract_id: str) -> Contract | None:
        for b in self._chain():
            if contract_id in b.archived:
                return None
            if (c := b.created.get(contract_id)) is not None:
                return c
        rows = await self.conn.execute_fetchall(sql.ACTIVE_CONTRACT, (contract_id,))
        return ContractRow(*rows[0]).contract() if rows else None

    async def active_contract_by_key(self, template_id: str, key_hash: str) -> Contract | None:
        for b in self._chain():
            staged = b.keys.get((template_id, key_hash), ...)
            if staged is not ...:
                return None if staged is None else b.created[staged]
        rows = await self.conn.execute_fetchall(sql.ACTIVE_CONTRACT_BY_KEY, (template_id, key_hash))
        if not rows or self._archived_here(ContractRow(*rows[0]).contract_id):
            return None
        return ContractRow(*rows[0]).contract()

    async def latest_completion(self, change_key: str) -> tuple[int, str, str | None] | None:
        """(offset, submission id, record time) of the latest success of this change; time is None if staged."""
        for b in self._chain():
            if (staged := b.change_keys.get(change_key)) is not None:
                return staged[0], staged[1], None
        if change_key in self.known_completions:
            return self.known_completions[change_key]
        rows = await self.conn.execute_fetchall(sql.LATEST_COMPLETION, (change_key,))
        return rows[0] if rows else None

    async def prefetch_completions(self, change_keys: list[str]) -> None:
        known: dict[str, tuple[int, str, str] | None] = dict.fromkeys(change_keys)
        for i in range(0, len(change_keys), 500):
            chunk = change_keys[i:i + 500]
            statement = sql.LATEST_COMPLETIONS.format(marks=", ".join("?" * len(chunk)))
            for key, offset, submission_id, record_time in await self.conn.execute_fetchall(statement, chunk):
                known[key] = (offset, submission_id, record_time)
        # Valid for the batch's whole life: whatever was not committed when it was read is in `_chain()`.
        self.known_completions.update(known)

    # --- staging: synchronous, so a job either stages all of its changes or none

    @property
    def dirty(self) -> bool:
        return bool(self.updates or self.other)

    def write(self, statement: str, params: tuple) -> None:
        self.other.append((statement, params))

    def stage_transaction(self, update: UpdateRow, tx: Transaction, change_key: str,
                          completion: tuple) -> None:
        """Stage a transaction at the next offset, which the caller has put in `update.offset`."""
        assert update.offset == self.ledger_end + 1
        self.ledger_end = update.offset
        self.updates.append(update.params())
        create_node = {n.contract.contract_id: n.node_id for n in tx.nodes if isinstance(n, CreateNode)}
        archive_node = {n.contract_id: n.node_id for n in tx.nodes if getattr(n, "consuming", False)}
        for c in tx.created:
            if tx.is_transient(c.contract_id):
                continue
            seq = self.next_seq
            self.next_seq += 1
            params = contract_params(seq, c, update.workflow_id, update.offset, create_node[c.contract_id])
            self.contracts[c.contract_id] = [*params, None, None]
            self.stakeholders.extend((p, seq) for p in sorted(c.stakeholders))
            self.created[c.contract_id] = c
            if c.key_hash:
                self.keys[(c.template_id, c.key_hash)] = c.contract_id
        for cid in tx.archived:
            if tx.is_transient(cid):
                continue
            self.archived.add(cid)
            if (staged := self.contracts.get(cid)) is not None:
                staged[-2:] = [update.offset, archive_node[cid]]
                created = self.created[cid]
                if created.key_hash:
                    self.keys[(created.template_id, created.key_hash)] = None
            else:
                self.archives.append((update.offset, archive_node[cid], cid))
        self.completions.append(completion)
        self.change_keys[change_key] = (update.offset, update.submission_id)

    def commit_to(self, write_conn: sqlite3.Connection) -> None:
        """Write everything staged as one transaction (in the writer's thread)."""
        steps = [(statement, rows) for statement, rows in (
            (sql.INSERT_UPDATE, self.updates),
            (sql.ARCHIVE_CONTRACT, self.archives),
            (sql.INSERT_CONTRACT, list(self.contracts.values())),
            (sql.INSERT_STAKEHOLDER, self.stakeholders),
            (sql.INSERT_COMPLETION, self.completions),
        ) if rows]
        _write_transaction(write_conn, steps, self.other)


def _write_transaction(conn: sqlite3.Connection, steps: list[tuple[str, list[tuple]]],
                       others: list[tuple[str, tuple]]) -> None:
    """Runs in the connection's thread: all or nothing."""
    limit = conn.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)
    conn.execute("BEGIN IMMEDIATE")
    try:
        for statement, rows in steps:
            for chunk_statement, params in _multi_row(statement, rows, limit):
                conn.execute(chunk_statement, params)
        for statement, params in others:
            conn.execute(statement, params)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _multi_row(statement: str, rows: list[tuple], max_variables: int):
    """One statement for many rows. sqlite3's executemany takes the GIL back for every row, and while the event
    loop is busy each of those waits its turn; one statement per table keeps a group commit to a few waits."""
    width = len(rows[0]) if rows else 0
    if width == 0:
        return
    per_chunk = max(1, max_variables // width)
    for i in range(0, len(rows), per_chunk):
        chunk = rows[i:i + per_chunk]
        yield _statement_for(statement, len(chunk)), [v for row in chunk for v in row]


@functools.lru_cache(maxsize=4096)
def _statement_for(statement: str, count: int) -> str:
    head, _, group = statement.partition(" VALUES ")
    if statement == sql.ARCHIVE_CONTRACT:
        return _ARCHIVE_MANY.format(values=", ".join(["(?, ?, ?)"] * count))
    return f"{head} VALUES {', '.join([group] * count)}"


# Archives as one statement: UPDATE ... FROM a VALUES list of (offset, node id, contract id).
_ARCHIVE_MANY = (
    "UPDATE contracts SET archive_offset = v.column1, archive_node_id = v.column2 "
    "FROM (VALUES {values}) AS v WHERE contracts.contract_id = v.column3"
)


class Writer:
    """Owns the write connection; `submit(job)` runs the job in the next group commit and returns its result.

    Jobs are interpreted as they arrive into the open batch. A dedicated thread with the only write connection
    commits one batch at a time; the moment it is done it answers that batch's submitters (one callback on the
    loop) and takes the open batch, so the next fsync starts without waiting for a writer task to wake up, and
    batches grow with the load instead of being cut at a fixed point of the writer's loop.

    Why not aiosqlite for writes: its hop is a future resolved by `call_soon_threadsafe` which the awaiting task
    then handles on a later loop iteration, and handing over the next batch needs yet another iteration; here the
    thread's one callback answers the batch and hands over the next. Reads stay on aiosqlite connections."""

    def __init__(self, path: str, read_conn: aiosqlite.Connection, ledger_end: int, next_seq: int,
                 on_commit: Callable[[int], None]) -> None:
        self._path = path
        self._read_conn = read_conn
        self._ledger_end = ledger_end  # committed
        self._next_seq = next_seq
        self._on_commit = on_commit
        self._queue: asyncio.Queue[tuple[Job, asyncio.Future]] = asyncio.Queue()
        self._task: asyncio.Task | None = None
        self._open: Batch | None = None  # jobs interpreted but not yet handed to the thread
        self._flushing: Batch | None = None  # with the thread, not durable yet
        self._busy = False  # the writer task is filling the open batch: it may not be handed over now
        self._changed = asyncio.Event()  # set when a flush ends
        self._requests: queue.SimpleQueue[Batch | None] = queue.SimpleQueue()
        self._conn: sqlite3.Connection | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._conn = open_write_connection(self._path)
        loop = asyncio.get_running_loop()
        self._thread = threading.Thread(target=self._flush_loop, args=(loop,), name="ledger-write", daemon=True)
        self._thread.start()
        self._task = asyncio.create_task(self._run(), name="ledger-writer")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
            self._task = None
        await self._drain()  # what was staged is written, and its submitters answered
        if self._thread is not None:
            self._requests.put(None)
            self._thread.join()
            self._thread = None
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    async def submit(self, job: Job) -> Any:
        future = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((job, future))
        return await future

    async def _run(self) -> None:
        while True:
            jobs = [await self._queue.get()]
            while len(jobs) < MAX_BATCH and not self._queue.empty():
                jobs.append(self._queue.get_nowait())
            self._busy = True
            try:
                await self._interpret(jobs)
            finally:
                self._busy = False
                self._hand_over()

    def _batch(self) -> Batch:
        """The open batch, built on the one being written if any."""
        if self._open is None:
            parent = self._flushing
            self._open = Batch(self._read_conn, ledger_end=self._ledger_end if parent is None else parent.ledger_end,
                               next_seq=self._next_seq if parent is None else parent.next_seq, parent=parent)
        return self._open

    async def _interpret(self, jobs: list[tuple[Job, asyncio.Future]]) -> None:
        change_keys = [key for job, _ in jobs if (key := getattr(job, "change_key", None)) is not None]
        if len(change_keys) < len(jobs):  # other jobs run on durable state only
            await self._drain()
        batch = self._batch()
        if change_keys:
            try:
                await batch.prefetch_completions(change_keys)
            except Exception:  # the jobs read one by one instead
                log.exception("prefetching completions failed")
        for job, future in jobs:
            if future.cancelled():
                continue
            try:
                batch.results.append((future, await job(batch), None))
            except Exception as e:  # the job's own failure: nothing it staged, others go on
                batch.results.append((future, None, e))

    async def _drain(self) -> None:
        """Wait until everything interpreted so far is durable (or failed) and answered."""
        busy, self._busy = self._busy, False
        self._hand_over()
        while self._flushing is not None or self._open is not None:
            self._changed.clear()
            await self._changed.wait()
        self._busy = busy

    def _hand_over(self) -> None:
        """Give the open batch to the thread if it is idle and the writer task is not adding to the batch."""
        batch = self._open
        if batch is None or self._busy or self._flushing is not None:
            return
        self._open = None
        if batch.failed is not None:
            _answer([(future, None, batch.failed) for future, _, _ in batch.results])
        elif batch.dirty:
            self._flushing = batch
            self._requests.put(batch)
        else:  # nothing to write; what it read is durable now
            _answer(batch.results)

    def _flush_loop(self, loop: asyncio.AbstractEventLoop) -> None:
        """The thread: write each batch handed over as one transaction, then tell the loop."""
        while (batch := self._requests.get()) is not None:
            try:
                batch.commit_to(self._conn)
                error = None
            except BaseException as e:  # rolled back: nothing of the batch is stored
                error = e
            try:
                loop.call_soon_threadsafe(self._flushed, batch, error)
            except RuntimeError:  # the loop is closed: nobody is waiting any more
                return

    def _flushed(self, batch: Batch, error: BaseException | None) -> None:
        """On the loop: answer the batch's submitters and hand over the next batch."""
        self._flushing = None
        if error is None:
            self._ledger_end, self._next_seq = batch.ledger_end, batch.next_seq
            batch.parent = None  # committed: later batches read it from the database
            self._on_commit(batch.ledger_end)
            _answer(batch.results)
        else:
            log.error("group commit failed; %d submissions answered with an error", len(batch.results),
                      exc_info=error)
            _answer([(future, None, error) for future, _, _ in batch.results])
            if self._open is not None:  # built on changes that never happened
                self._open.failed = RuntimeError("the group commit this submission was built on failed")
        self._hand_over()
        self._changed.set()


def open_write_connection(path: str) -> sqlite3.Connection:
    """The only connection that writes; used by the writer's thread alone. Settings as `store.connect`'s."""
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute("PRAGMA foreign_keys = ON")
    except BaseException:
        conn.close()
        raise
    return conn


def _answer(results: list[tuple[asyncio.Future, Any, BaseException | None]]) -> None:
    for future, result, error in results:
        if future.done():
            continue
        if error is None:
            future.set_result(result)
        else:
            future.set_exception(error)
