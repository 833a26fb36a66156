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
import logging
import queue
import sqlite3
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import aiosqlite

from participant.store import sql
from participant.store.batch import Batch
from participant.store.checkpoints import WRITER_AUTOCHECKPOINT, Checkpointer

log = logging.getLogger(__name__)

MAX_BATCH = 256

BatchJob = Callable[["Batch"], Awaitable[Any]]


@dataclass(frozen=True, slots=True)
class SubmitJob:
    """A submission's job. The writer may interpret it while the previous batch is still being written, and reads
    the latest completion of its change (`change_key`) up front, with those of the batch's other submissions, in
    one query. Plain jobs (users, parties) run only once everything before them is durable."""

    change_key: str
    run: BatchJob


Job = SubmitJob | BatchJob


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
        self._lookup: sqlite3.Connection | None = None
        self._thread: threading.Thread | None = None
        self._checkpoints = Checkpointer(path)

    def start(self) -> None:
        self._conn = open_write_connection(self._path)
        self._lookup = open_lookup_connection(self._path)
        self._checkpoints.start()
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
        self._checkpoints.stop()
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if self._lookup is not None:
            self._lookup.close()
            self._lookup = None

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
                               next_seq=self._next_seq if parent is None else parent.next_seq, parent=parent,
                               lookup=self._lookup)
        return self._open

    async def _interpret(self, jobs: list[tuple[Job, asyncio.Future]]) -> None:
        change_keys = [job.change_key for job, _ in jobs if isinstance(job, SubmitJob)]
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
            run = job.run if isinstance(job, SubmitJob) else job
            try:
                batch.results.append((future, await run(batch), None))
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
                self._checkpoints.poke()
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
    """The only connection that writes; used by the writer's thread alone (settings: `sql.READ_PRAGMAS`, `sql.WRITE_PRAGMAS`)."""
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    try:
        for pragma in sql.READ_PRAGMAS + sql.WRITE_PRAGMAS:
            conn.execute(pragma)
        conn.execute(f"PRAGMA wal_autocheckpoint = {WRITER_AUTOCHECKPOINT}")  # the checkpoints' thread does it
    except BaseException:
        conn.close()
        raise
    return conn


def open_lookup_connection(path: str) -> sqlite3.Connection:
    """A read connection used on the event loop's thread itself, for the batches' indexed reads (the completions
    of their changes up front, the contracts and keys their commands use): tens of microseconds of SQLite each,
    where a hop into a reader thread and back costs more CPU and, on a busy machine, waits for that thread to be
    scheduled and to take the GIL."""
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    try:
        for pragma in sql.READ_PRAGMAS:
            conn.execute(pragma)
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
