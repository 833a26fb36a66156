"""A group commit in the making: the changes its jobs staged, the reads that see them, and how they are written
as one SQLite transaction of a few multi-row statements."""

from __future__ import annotations

import asyncio
import functools
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import aiosqlite

from participant.base.transactions import (
    AssignNode,
    Contract,
    CreateNode,
    ExerciseNode,
    Reassignment,
    ReassignmentData,
    Transaction,
    UnassignedContract,
    UnassignNode,
)
from participant.store import sql
from participant.store.fetch import fetch_all
from participant.store.rows import ARCHIVE_COLUMNS, CompletionRow, ContractRow, UpdateRow, contract_params


def _max_variables() -> int:
    """How many values one statement may bind: the SQLite library's limit, the same for all its connections."""
    conn = sqlite3.connect(":memory:")
    try:
        return conn.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)
    finally:
        conn.close()


MAX_VARIABLES = _max_variables()


@dataclass
class Batch:
    """Changes staged by the jobs of one group commit, and reads that see them."""

    conn: aiosqlite.Connection  # for reads: sees committed state only
    ledger_end: int
    next_seq: int
    parent: Batch | None = None  # the batch being written while this one is interpreted
    created: dict[str, Contract] = field(default_factory=dict)
    archived: set[str] = field(default_factory=set)
    reassigned: dict[str, Contract] = field(
        default_factory=dict
    )  # contracts as the batch's reassignments left them
    reassignments: dict[str, ReassignmentData] = field(default_factory=dict)
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
    reassignment_events: list[tuple] = field(default_factory=list)
    completions: list[tuple] = field(default_factory=list)
    other: list[tuple[str, tuple]] = field(default_factory=list)  # in staging order
    # Users, parties and identity provider configs as this batch's admin jobs left them (None: deleted), so that
    # two updates in one batch see each other (their checks would otherwise both read committed state).
    admin: dict[tuple[str, str], Any] = field(default_factory=dict)
    # (future, result, error) of each job interpreted into the batch, answered once the batch is durable
    results: list[tuple[asyncio.Future, Any, BaseException | None]] = field(default_factory=list)
    failed: BaseException | None = None  # set when the batch this one was built on failed to commit
    lookup: sqlite3.Connection | None = None  # for the reads below, on the loop's thread; else `conn`

    # --- reads (the engine's ContractSource)

    async def _fetch(self, statement: str, params) -> list:
        """Indexed reads of a few rows: on the loop's own thread when the writer gave the batch a connection for
        that (a hop into a reader thread and back costs more than the read), else through `conn`."""
        if self.lookup is not None:
            return self.lookup.execute(statement, params).fetchall()
        return await fetch_all(self.conn, statement, params)

    def _chain(self) -> Iterator[Batch]:
        batch: Batch | None = self
        while batch is not None:
            yield batch
            batch = batch.parent

    def _archived_here(self, contract_id: str) -> bool:
        return any(contract_id in b.archived for b in self._chain())

    async def active_contract(self, contract_id: str) -> Contract | None:
        """The contract unless it is archived; one in flight has `in_flight` set."""
        for b in self._chain():
            if contract_id in b.archived:
                return None
            if (c := b.reassigned.get(contract_id)) is not None:
                return c
            if (c := b.created.get(contract_id)) is not None:
                return c
        rows = await self._fetch(sql.ACTIVE_CONTRACT, (contract_id,))
        if not rows:
            return None
        *columns, in_flight = rows[0]
        contract = ContractRow(*columns).contract()
        return replace(contract, in_flight=in_flight) if in_flight else contract

    contract_state = active_contract

    async def reassignment(self, reassignment_id: str) -> ReassignmentData | None:
        for b in self._chain():
            if (staged := b.reassignments.get(reassignment_id)) is not None:
                return staged
        rows = await self._fetch(sql.REASSIGNMENT_BY_ID, (reassignment_id,))
        unassigned = [r for r in rows if r[0] == "unassign"]
        if not unassigned:
            return None
        _, _, source, target, submitter, _ = unassigned[0]
        return ReassignmentData(
            reassignment_id,
            source,
            target,
            submitter,
            tuple(UnassignedContract(r[1], r[5]) for r in unassigned),
            completed=any(r[0] == "assign" for r in rows),
        )

    async def active_contract_by_key(self, template_id: str, key_hash: str) -> Contract | None:
        for b in self._chain():
            staged = b.keys.get((template_id, key_hash), ...)
            if staged is not ...:
                return None if staged is None else b.created[staged]
        rows = await self._fetch(sql.ACTIVE_CONTRACT_BY_KEY, (template_id, key_hash))
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
        rows = await self._fetch(sql.LATEST_COMPLETION, (change_key,))
        return rows[0] if rows else None

    async def prefetch_completions(self, change_keys: list[str]) -> None:
        known: dict[str, tuple[int, str, str] | None] = dict.fromkeys(change_keys)
        for i in range(0, len(change_keys), 500):
            chunk = change_keys[i : i + 500]
            statement = sql.latest_completions(len(chunk))
            for key, offset, submission_id, record_time in await self._fetch(statement, chunk):
                known[key] = (offset, submission_id, record_time)
        # Valid for the batch's whole life: whatever was not committed when it was read is in `_chain()`.
        self.known_completions.update(known)

    # --- staging: synchronous, so a job either stages all of its changes or none

    @property
    def dirty(self) -> bool:
        return bool(self.updates or self.other)

    def write(self, statement: str, params: tuple) -> None:
        self.other.append((statement, params))

    def stage_transaction(self, update: UpdateRow, tx: Transaction, completion: CompletionRow) -> None:
        """Stage a transaction at the next offset, which the caller has put in `update.offset`."""
        assert update.offset == self.ledger_end + 1
        self.ledger_end = update.offset
        self.updates.append(update.params())
        create_node = {n.contract.contract_id: n.node_id for n in tx.nodes if isinstance(n, CreateNode)}
        archive_node = {
            n.contract_id: n.node_id for n in tx.nodes if isinstance(n, ExerciseNode) and n.consuming
        }
        for c in tx.created:
            if tx.is_transient(c.contract_id):
                continue
            seq = self.next_seq
            self.next_seq += 1
            self.contracts[c.contract_id] = contract_params(
                seq, c, update.workflow_id, update.offset, create_node[c.contract_id]
            )
            self.stakeholders.extend((p, seq) for p in sorted(c.stakeholders))
            self.created[c.contract_id] = c
            if c.key_hash:
                self.keys[(c.template_id, c.key_hash)] = c.contract_id
        for cid in tx.archived:
            if tx.is_transient(cid):
                continue
            self.archived.add(cid)
            if (staged := self.contracts.get(cid)) is not None:
                staged[ARCHIVE_COLUMNS] = [update.offset, archive_node[cid]]
                created = self.created[cid]
                if created.key_hash:
                    self.keys[(created.template_id, created.key_hash)] = None
            else:
                self.archives.append((update.offset, archive_node[cid], cid))
        self.completions.append(completion.params())
        self.change_keys[completion.change_key] = (update.offset, update.submission_id)

    def stage_reassignment(
        self, update: UpdateRow, reassignment: Reassignment, completion: CompletionRow
    ) -> None:
        """Stage a reassignment at the next offset (in `update.offset`): its events and the contracts' new state."""
        assert update.offset == self.ledger_end + 1
        self.ledger_end = update.offset
        self.updates.append(update.params())
        r = reassignment
        nodes: Sequence[UnassignNode | AssignNode] = r.nodes
        for node, after in zip(nodes, r.contracts_after(), strict=True):
            cid = node.contract.contract_id
            self.reassignment_events.append(
                (
                    update.offset,
                    node.node_id,
                    r.kind,
                    r.reassignment_id,
                    cid,
                    cid,
                    cid,
                    r.source,
                    r.target,
                    r.submitter,
                    node.counter,
                )
            )
            self.other.append(
                (
                    sql.REASSIGN_CONTRACT,
                    (
                        after.synchronizer_id,
                        after.reassignment_counter,
                        after.in_flight or None,
                        update.offset,
                        cid,
                    ),
                )
            )
            self.reassigned[cid] = after
        if r.kind == "unassign":
            self.reassignments[r.reassignment_id] = ReassignmentData(
                r.reassignment_id,
                r.source,
                r.target,
                r.submitter,
                tuple(UnassignedContract(n.contract.contract_id, n.counter) for n in r.nodes),
                completed=False,
            )
        else:
            data = self.reassignments.get(r.reassignment_id)
            self.reassignments[r.reassignment_id] = ReassignmentData(
                r.reassignment_id,
                r.source,
                r.target,
                r.submitter if data is None else data.submitter,
                tuple(UnassignedContract(n.contract.contract_id, n.counter) for n in r.nodes),
                completed=True,
            )
        self.completions.append(completion.params())
        self.change_keys[completion.change_key] = (update.offset, update.submission_id)

    def stage_topology(self, update: UpdateRow) -> None:
        """A topology transaction (a party allocation's) at the next offset, which the caller has put in
        `update.offset`."""
        assert update.offset == self.ledger_end + 1
        self.ledger_end = update.offset
        self.updates.append(update.params())

    def stage_rejection(self, update: UpdateRow, completion: CompletionRow) -> None:
        """A submission that failed after it was accepted: its failed completion takes the next offset (a
        `rejection` update, which no stream shows), and nothing else changes."""
        assert update.offset == self.ledger_end + 1
        self.ledger_end = update.offset
        self.updates.append(update.params())
        self.completions.append(completion.params())

    def statements(self) -> list[tuple[str, Sequence]]:
        """Everything staged, as the statements of one transaction: a few multi-row statements, then the rest."""
        statements = []
        for statement, rows in (
            (sql.INSERT_UPDATE, self.updates),
            (sql.ARCHIVE_CONTRACT, self.archives),
            (sql.INSERT_CONTRACT, list(self.contracts.values())),
            (sql.INSERT_STAKEHOLDER, self.stakeholders),
            (sql.INSERT_REASSIGNMENT_EVENT, self.reassignment_events),
            (sql.INSERT_COMPLETION, self.completions),
        ):
            statements.extend(_multi_row(statement, rows))
        statements.extend(self.other)
        return statements


def _multi_row(statement: str, rows: Sequence[Sequence[Any]], max_variables: int = MAX_VARIABLES):
    """One statement for many rows: sqlite3's executemany costs Python work for every row, and one statement per
    table keeps a group commit to a few calls."""
    width = len(rows[0]) if rows else 0
    if width == 0:
        return
    per_chunk = max(1, max_variables // width)
    for i in range(0, len(rows), per_chunk):
        chunk = rows[i : i + per_chunk]
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
    "FROM (VALUES {values}) AS v WHERE " + sql.by_id("contracts.contract_id", "v.column3")
)
