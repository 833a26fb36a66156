"""The single writer: every change to the ledger goes through here, and many commit as one (group commit).

A hop into another thread costs more than an fsync, so per-request transactions top out far below what one
transaction per batch reaches. Jobs queue up; the writer runs them one after another against the open `Batch`
(committed state plus what earlier jobs of the batch staged, so they behave as if they had run one by one); the
write process (`participant.store.write_process`) writes a batch as one SQLite transaction, and only then is each
of its jobs answered.

Commits are pipelined: while one batch is being written and synced, the next is interpreted on top of it (its reads
see the flushing batch's changes through `parent`). The next batch is written only after the previous one is
durable, and if that fails, the next one fails too, since it was built on changes that never happened.
"""

from __future__ import annotations

import asyncio
import logging
import os
import pickle
import sqlite3
import subprocess
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import aiosqlite

from participant.store import pragmas, write_process
from participant.store.batch import Batch

log = logging.getLogger(__name__)

MAX_BATCH = 256
# The longest a batch's jobs run on the event loop before letting other requests in. A job's reads use a connection
# on the loop's own thread, so a batch never suspends by itself: 32 Amulet transfers of 5 ms each held the loop for
# 160 ms. Yielding between jobs bounds the wait to about one job's interpretation.
YIELD_AFTER_S = 0.005

BatchJob = Callable[["Batch"], Awaitable[Any]]


@dataclass(frozen=True, slots=True)
class SubmitJob:
    """A submission's job. The writer may interpret it while the previous batch is still being written, and reads
    the latest completion of its change (`change_key`) up front, with those of the batch's other submissions, in
    one query. Plain jobs (users, parties) run only once everything before them is durable."""

    change_key: str
    run: BatchJob


Job = SubmitJob | BatchJob


class CommitFailed(Exception):
    """A group commit that was rolled back, or could not be made because the write process is gone."""


class Writer:
    """Owns the write process; `submit(job)` runs the job in the next group commit and returns its result.

    Jobs are interpreted as they arrive into the open batch. The write process commits one batch at a time; the
    moment its answer arrives (read on the loop, no thread in between) the batch's submitters are answered and the
    open batch is sent, so the next fsync starts without waiting for a writer task to wake up, and batches grow with
    the load instead of being cut at a fixed point of the writer's loop. Reads stay on aiosqlite connections, and
    the batches' indexed reads on a connection of the loop's own thread (`open_lookup_connection`)."""

    def __init__(
        self,
        path: str,
        read_conn: aiosqlite.Connection,
        ledger_end: int,
        next_seq: int,
        on_commit: Callable[[int], None],
    ) -> None:
        self._path = path
        self._read_conn = read_conn
        self._ledger_end = ledger_end  # committed
        self._next_seq = next_seq
        self._on_commit = on_commit
        self._queue: asyncio.Queue[tuple[Job, asyncio.Future]] = asyncio.Queue()
        self._task: asyncio.Task | None = None
        self._open: Batch | None = None  # jobs interpreted but not yet sent to the write process
        self._flushing: Batch | None = None  # with the write process, not durable yet
        self._busy = False  # the writer task is filling the open batch: it may not be handed over now
        self._changed = asyncio.Event()  # set when a flush ends
        self._process = WriteProcess(path, self._flushed)
        self._lookup: sqlite3.Connection | None = None

    async def start(self) -> None:
        await self._process.start()
        self._lookup = open_lookup_connection(self._path)
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
        await self._process.stop()
        if self._lookup is not None:
            self._lookup.close()
            self._lookup = None

    async def submit(self, job: Job) -> Any:
        if self._process.gone is not None:
            raise CommitFailed(self._process.gone)
        future = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((job, future))
        return await future

    async def _run(self) -> None:
        # The write process is a Python interpreter of its own, which takes a quarter of a second to start on a busy
        # machine: the participant starts (and answers reads) meanwhile, and only its first write waits for it.
        try:
            await self._process.ready()
        except CommitFailed as e:
            log.critical("%s: nothing can be written; restart the participant", e)
            self._process.gone = str(e)
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
            self._open = Batch(
                self._read_conn,
                ledger_end=self._ledger_end if parent is None else parent.ledger_end,
                next_seq=self._next_seq if parent is None else parent.next_seq,
                parent=parent,
                lookup=self._lookup,
            )
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
        loop = asyncio.get_running_loop()
        held_since = loop.time()
        for job, future in jobs:
            if future.cancelled():
                continue
            if loop.time() - held_since >= YIELD_AFTER_S:
                await asyncio.sleep(0)
                held_since = loop.time()
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
        """Send the open batch to the write process if it is idle and the writer task is not adding to the
        batch."""
        batch = self._open
        if batch is None or self._busy or self._flushing is not None:
            return
        self._open = None
        if batch.failed is None and self._process.gone is not None:
            batch.failed = CommitFailed(self._process.gone)
        if batch.failed is not None:
            _answer([(future, None, batch.failed) for future, _, _ in batch.results])
            self._changed.set()
        elif batch.dirty:
            self._flushing = batch
            self._process.send(batch.statements())
        else:  # nothing to write; what it read is durable now
            _answer(batch.results)
            self._changed.set()

    def _flushed(self, error: str | None) -> None:
        """On the loop, when the write process answers (or is gone): answer the batch's submitters and send the
        next batch."""
        batch, self._flushing = self._flushing, None
        if batch is None:
            return
        if error is None:
            self._ledger_end, self._next_seq = batch.ledger_end, batch.next_seq
            batch.parent = None  # committed: later batches read it from the database
            self._on_commit(batch.ledger_end)
            _answer(batch.results)
        else:
            log.error(
                "group commit failed (%s); %d submissions answered with an error", error, len(batch.results)
            )
            failure = CommitFailed(error)
            _answer([(future, None, failure) for future, _, _ in batch.results])
            if self._open is not None:  # built on changes that never happened
                self._open.failed = CommitFailed("the group commit this submission was built on failed")
        self._hand_over()
        self._changed.set()


class WriteProcess(asyncio.SubprocessProtocol):
    """The writer's end of `participant.store.write_process`, a child whose standard input takes the statements and
    whose standard output gives the answers, which the event loop hands to `on_answer` as they arrive: None
    (committed) or the error. If the process ends while a batch is with it, nobody can know whether that batch
    committed: the participant writes nothing more (`gone` says why) until it is restarted and reads what the
    database holds."""

    def __init__(self, path: str, on_answer: Callable[[str | None], None]) -> None:
        self._path = path
        self._on_answer = on_answer
        self._transport: asyncio.SubprocessTransport | None = None
        self._received = bytearray()
        self._ready: asyncio.Future[str | None] | None = None
        self._ended: asyncio.Future[None] | None = None
        self._stopping = False
        self.gone: str | None = None

    async def start(self) -> None:
        """Spawn the process; `ready` waits for it to have opened the database."""
        loop = asyncio.get_running_loop()
        self._ready, self._ended = loop.create_future(), loop.create_future()
        self._transport, _ = await loop.subprocess_exec(
            lambda: self,
            sys.executable,
            "-m",
            write_process.__name__,
            self._path,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=None,
            env=_child_environment(),
        )

    async def ready(self) -> None:
        """Wait until the process has opened its connection (`start` only spawned it)."""
        assert self._ready is not None, "started first"
        try:
            error = await self._ready
        except BaseException:  # cancelled while starting
            await self.stop()
            raise
        if error is not None:
            await self.stop()
            raise CommitFailed(f"cannot open {self._path} for writing: {error}")

    async def stop(self) -> None:
        """End the process's input, so that it ends once it has written what it was sent, and wait for it."""
        if self._transport is None:
            return
        self._stopping = True
        transport, self._transport = self._transport, None
        assert self._ended is not None  # set with the transport
        if (stdin := transport.get_pipe_transport(0)) is not None:
            stdin.close()
        try:
            await asyncio.wait_for(asyncio.shield(self._ended), STOP_TIMEOUT_S)
        except TimeoutError:
            log.error("the write process did not end in %s s; killing it", STOP_TIMEOUT_S)
            transport.kill()
            await self._ended
        transport.close()

    def send(self, statements: write_process.Statements) -> None:
        """The transport buffers what the pipe cannot take at once."""
        assert self._transport is not None
        stdin = cast(asyncio.WriteTransport | None, self._transport.get_pipe_transport(0))
        if stdin is not None and not stdin.is_closing():
            stdin.write(write_process.frame(statements))

    # --- asyncio.SubprocessProtocol

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        self._received += data
        header = write_process.HEADER_BYTES
        while len(self._received) >= header:
            size = int.from_bytes(self._received[:header], "big")
            if len(self._received) < header + size:
                break
            answer = pickle.loads(self._received[header : header + size])
            del self._received[: header + size]
            if self._ready is not None and not self._ready.done():
                self._ready.set_result(answer)
            else:
                self._on_answer(answer)

    def connection_lost(self, exc: Exception | None) -> None:
        """The process has ended and its pipes are closed: expected after `stop`, otherwise it is gone, and
        whatever it was writing is answered with an error, and so is everything after."""
        if self._ended is not None and not self._ended.done():
            self._ended.set_result(None)
        if self._stopping or self.gone is not None:
            return
        code = None if self._transport is None else self._transport.get_returncode()
        self.gone = (
            f"the write process ended{'' if code is None else f' with code {code}'}; restart the participant"
        )
        if self._ready is not None and not self._ready.done():
            self._ready.set_result(self.gone)
            return
        log.critical("%s", self.gone)
        self._on_answer(self.gone)


STOP_TIMEOUT_S = 30


def _child_environment() -> dict[str, str]:
    """The server's environment, with the directory this package was imported from first on the path: the write
    process runs the same code, installed or not."""
    root = str(Path(write_process.__file__).resolve().parents[2])
    path = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": root if not path else os.pathsep.join([root, path])}


def open_lookup_connection(path: str) -> sqlite3.Connection:
    """A read connection used on the event loop's thread itself, for the batches' indexed reads (the completions
    of their changes up front, the contracts and keys their commands use): tens of microseconds of SQLite each,
    where a hop into a reader thread and back costs more CPU and, on a busy machine, waits for that thread to be
    scheduled and to take the GIL."""
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    try:
        for pragma in pragmas.READ_PRAGMAS:
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
