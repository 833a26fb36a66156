"""The single writer: every change to the ledger goes through here, and many commit as one (group commit).

A hop into aiosqlite's thread costs more than an fsync, so per-request transactions top out far below what one
transaction per batch reaches. Jobs queue up; the writer takes all that are waiting, runs them one after another
against a `Batch` (committed state plus what earlier jobs of the batch staged, so they behave as if they had run
one by one), writes everything in one SQLite transaction, and only then answers each job.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import aiosqlite

from participant.engine.ledger import Contract, CreateNode, Transaction
from participant.store import sql
from participant.store.rows import ContractRow, UpdateRow, contract_params

log = logging.getLogger(__name__)

MAX_BATCH = 256

# A job may carry a `change_key` attribute: the writer then reads that change's latest completion up front,
# together with those of the other jobs of the batch, in one query.
Job = Callable[["Batch"], Awaitable[Any]]


@dataclass
class Batch:
    """Changes staged by the jobs of one group commit, and reads that see them."""

    conn: aiosqlite.Connection
    ledger_end: int
    next_seq: int
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

    # --- reads (the engine's ContractSource)

    async def active_contract(self, contract_id: str) -> Contract | None:
        if contract_id in self.archived:
            return None
        if (c := self.created.get(contract_id)) is not None:
            return c
        rows = await self.conn.execute_fetchall(sql.ACTIVE_CONTRACT, (contract_id,))
        return ContractRow(*rows[0]).contract() if rows else None

    async def active_contract_by_key(self, template_id: str, key_hash: str) -> Contract | None:
        staged = self.keys.get((template_id, key_hash), ...)
        if staged is not ...:
            return None if staged is None else self.created[staged]
        rows = await self.conn.execute_fetchall(sql.ACTIVE_CONTRACT_BY_KEY, (template_id, key_hash))
        if not rows or ContractRow(*rows[0]).contract_id in self.archived:
            return None
        return ContractRow(*rows[0]).contract()

    async def latest_completion(self, change_key: str) -> tuple[int, str, str | None] | None:
        """(offset, submission id, record time) of the latest success of this change; time is None if staged."""
        if (staged := self.change_keys.get(change_key)) is not None:
            return staged[0], staged[1], None
        if change_key in self.known_completions:
            return self.known_completions[change_key]
        rows = await self.conn.execute_fetchall(sql.LATEST_COMPLETION, (change_key,))
        return rows[0] if rows else None

    async def prefetch_completions(self, change_keys: list[str]) -> None:
        self.known_completions = dict.fromkeys(change_keys)
        for i in range(0, len(change_keys), 500):
            chunk = change_keys[i:i + 500]
            statement = sql.LATEST_COMPLETIONS.format(marks=", ".join("?" * len(chunk)))
            for key, offset, submission_id, record_time in await self.conn.execute_fetchall(statement, chunk):
                self.known_completions[key] = (offset, submission_id, record_time)

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

    async def flush(self) -> None:
        """Write everything staged as one transaction, in one hop into the connection's thread."""
        steps = [(statement, rows) for statement, rows in (
            (sql.INSERT_UPDATE, self.updates),
            (sql.ARCHIVE_CONTRACT, self.archives),
            (sql.INSERT_CONTRACT, list(self.contracts.values())),
            (sql.INSERT_STAKEHOLDER, self.stakeholders),
            (sql.INSERT_COMPLETION, self.completions),
        ) if rows]
        steps += [(statement, [params]) for statement, params in self.other]
        await run_in_thread(self.conn, _write_transaction, steps)


def _write_transaction(conn: sqlite3.Connection, steps: list[tuple[str, list[tuple]]]) -> None:
    """Runs in the connection's thread: all or nothing."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        for statement, rows in steps:
            conn.executemany(statement, rows)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


async def run_in_thread(conn: aiosqlite.Connection, fn: Callable[..., Any], *args: Any) -> Any:
    """Run `fn(sqlite3_connection, *args)` in aiosqlite's thread for that connection.

    Each hop into that thread costs more than the statements of a whole group commit, so a commit is one hop.
    aiosqlite has no public call for this; `_execute` is what its own methods use."""
    return await conn._execute(lambda: fn(conn._conn, *args))


class Writer:
    """Owns the write connection; `submit(job)` runs the job in the next group commit and returns its result."""

    def __init__(self, conn: aiosqlite.Connection, ledger_end: int, next_seq: int,
                 on_commit: Callable[[int], None]) -> None:
        self._conn = conn
        self._ledger_end = ledger_end
        self._next_seq = next_seq
        self._on_commit = on_commit
        self._queue: asyncio.Queue[tuple[Job, asyncio.Future]] = asyncio.Queue()
        self._task: asyncio.Task | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="ledger-writer")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
            self._task = None

    async def submit(self, job: Job) -> Any:
        future = asyncio.get_running_loop().create_future()
        await self._queue.put((job, future))
        return await future

    async def _run(self) -> None:
        while True:
            jobs = [await self._queue.get()]
            while len(jobs) < MAX_BATCH and not self._queue.empty():
                jobs.append(self._queue.get_nowait())
            await self._run_batch(jobs)

    async def _run_batch(self, jobs: list[tuple[Job, asyncio.Future]]) -> None:
        batch = Batch(self._conn, ledger_end=self._ledger_end, next_seq=self._next_seq)
        results: list[tuple[asyncio.Future, Any, BaseException | None]] = []
        change_keys = [key for job, _ in jobs if (key := getattr(job, "change_key", None)) is not None]
        if change_keys:
            try:
                await batch.prefetch_completions(change_keys)
            except Exception:  # the jobs read one by one instead
                log.exception("prefetching completions failed")
                batch.known_completions = {}
        for job, future in jobs:
            if future.cancelled():
                continue
            try:
                results.append((future, await job(batch), None))
            except Exception as e:  # the job's own failure: nothing it staged, others go on
                results.append((future, None, e))
        try:
            if batch.dirty:
                await batch.flush()
        except Exception as e:
            # The transaction was rolled back in the connection's thread; nothing of the batch is stored.
            log.exception("group commit failed; %d submissions answered with an error", len(results))
            for future, _, _ in results:
                if not future.done():
                    future.set_exception(e)
            return
        if batch.ledger_end != self._ledger_end:
            self._ledger_end = batch.ledger_end
            self._on_commit(batch.ledger_end)
        self._next_seq = batch.next_seq
        for future, result, error in results:
            if future.done():
                continue
            if error is None:
                future.set_result(result)
            else:
                future.set_exception(error)
