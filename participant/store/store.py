"""The store: the only owner of the SQLite database. Reads go through a reader connection; writes through the
single `Writer`, whose group commits are durable (WAL, synchronous=FULL) before anyone is answered."""

from __future__ import annotations

import asyncio
import heapq
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import aiosqlite
import orjson

from participant.base.timestamps import parse_timestamp
from participant.store import pragmas, sql
from participant.store.fetch import fetch_all
from participant.store.ledger_end import LedgerEndSignal
from participant.store.private_files import create_private_file, private_dir
from participant.store.rows import (
    CompletionRow,
    ContractRow,
    IdpRow,
    PartyRow,
    UpdateRow,
    UserRow,
)
from participant.store.schema import NotADatabase, migrate
from participant.store.writer import Job, Writer


async def connect(path: Path | str, *, read_only: bool = False) -> aiosqlite.Connection:
    target = f"file:{Path(path).as_posix()}?mode=ro" if read_only else path
    conn = await aiosqlite.connect(target, isolation_level=None, uri=read_only)  # transactions are explicit
    try:
        for pragma in pragmas.READ_PRAGMAS + (() if read_only else pragmas.WRITE_PRAGMAS):
            await conn.execute(pragma)
    except sqlite3.DatabaseError as e:
        await conn.close()  # its thread would otherwise keep the process alive
        raise NotADatabase(f"{path} is not a participant database ({e})") from None
    except BaseException:
        await conn.close()
        raise
    return conn


async def read_meta(path: Path | str, key: str) -> str | None:
    """A value of `meta`, read without creating or migrating anything (for the CLI)."""
    conn = await connect(path, read_only=True)
    try:
        rows = await fetch_all(conn, sql.GET_META, (key,))
    except sqlite3.DatabaseError as e:
        raise NotADatabase(f"{path} is not a participant database ({e})") from None
    finally:
        await conn.close()
    return rows[0][0] if rows else None


class Store:
    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._read: aiosqlite.Connection | None = None
        self._write: aiosqlite.Connection | None = None
        self._writer_read: aiosqlite.Connection | None = None  # the writer's reads, while it also writes
        self._writer: Writer | None = None
        self.ledger_end = 0
        self.users_version = 0  # bumped by every change to users or rights, for caches of claims
        self.ledger_end_moved = LedgerEndSignal()

    async def open(self) -> None:
        private_dir(self.path.parent)
        # SQLite creates the -wal and -shm files with the database file's mode: made 0600 here, all three are.
        create_private_file(self.path)
        self._write = await connect(self.path)
        try:
            await migrate(self._write)
            self.ledger_end = await self._scalar(self._write, sql.LEDGER_END)
            next_seq = await self._scalar(self._write, sql.NEXT_SEQ)
            self._read = await connect(self.path)
            self._writer_read = await connect(self.path)
            # From here on the writer's own connection is the only one that writes.
            await self._write.close()
            self._write = None
            self._writer = Writer(str(self.path), self._writer_read, self.ledger_end, next_seq, self._advance)
            await self._writer.start()
        except BaseException:
            await self.close()
            raise

    async def close(self) -> None:
        if self._writer is not None:
            await self._writer.stop()
        for conn in (self._read, self._writer_read, self._write):
            if conn is not None:
                await conn.close()
        self._read = self._write = self._writer_read = self._writer = None

    async def __aenter__(self) -> Store:
        await self.open()
        return self

    async def __aexit__(self, *exc) -> None:
        await self.close()

    def _advance(self, ledger_end: int) -> None:
        self.ledger_end = ledger_end
        self.ledger_end_moved.fire()

    async def wait_for_end_past(self, offset: int, timeout: float | None) -> bool:
        """Wait until the ledger end is past `offset` (True) or `timeout` seconds went by (False; None: no
        limit)."""
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        while self.ledger_end <= offset:
            left = None if deadline is None else deadline - loop.time()
            if left is not None and left <= 0:
                return False
            await self.ledger_end_moved.wait(left)
        return True

    @staticmethod
    async def _scalar(conn: aiosqlite.Connection, statement: str, params: tuple = ()):
        row = await (await conn.execute(statement, params)).fetchone()
        return None if row is None else row[0]

    # One hop into the connection's thread per query: execute_fetchall runs the query and fetches in one go.
    async def _one(self, statement: str, params: tuple = ()):
        rows = await fetch_all(self.read, statement, params)
        return rows[0] if rows else None

    async def _all(self, statement: str, params: tuple | dict = ()):
        return await fetch_all(self.read, statement, params)

    @property
    def read(self) -> aiosqlite.Connection:
        assert self._read is not None, "store is not open"
        return self._read

    # --- writes

    async def write(self, job: Job):
        """Run the job on the batch of the next group commit; its result is returned once the commit is durable."""
        assert self._writer is not None, "store is not open"
        return await self._writer.submit(job)

    # --- metadata

    async def meta(self, key: str) -> str | None:
        return await self._scalar(self.read, sql.GET_META, (key,))

    async def set_meta_once(self, key: str, value: str) -> str:
        """Set `key` unless it is set already; returns the value in force (used for identities made at first start)."""

        async def job(batch):
            current = await self._scalar(batch.conn, sql.GET_META, (key,))
            if current is not None:
                return current
            batch.write(sql.SET_META, (key, value))
            return value

        return await self.write(job)

    async def set_meta(self, key: str, value: str) -> None:
        """Set `key`, durably, in order with the commits."""

        async def job(batch):
            batch.write(sql.SET_META, (key, value))

        await self.write(job)

    async def pruned_offset(self) -> int:
        return int(await self.meta("pruned_offset") or 0)

    # --- contracts

    async def contract(self, contract_id: str) -> ContractRow | None:
        row = await self._one(sql.CONTRACT_BY_ID, (contract_id,))
        return None if row is None else ContractRow(*row)

    async def active_contracts(
        self, offset: int, parties: list[str] | None, *, after_seq: int = 0, page_size: int = 500
    ) -> AsyncIterator[list[tuple]]:
        """Pages of the contracts active at `offset` in activation order, all or those of `parties`' stakeholders,
        as plain tuples of `sql.ACS_ROW_COLUMNS` (seq first)."""
        if offset <= 0:
            return
        async for page in self._prefetched(
            lambda after, n: self._acs_page(offset, parties, after, n), after_seq, page_size
        ):
            yield page

    async def acs_entries(
        self,
        offset: int,
        party: str,
        entry_format: str,
        *,
        after_seq: int = 0,
        page_size: int = 500,
        limit: int | None = None,
    ) -> AsyncIterator[list[tuple[int, bytes]]]:
        """Pages of (seq, entry) of the contracts active at `offset` that `party` is a stakeholder of, in
        activation order, each entry rendered by SQLite with `entry_format` (see `sql.ACS_ENTRIES_OF_PARTY`); at
        most `limit` entries in all, when given."""
        if offset <= 0:
            return
        params = {"offset": offset, "party": party, "format": entry_format}
        async for page in self._prefetched(
            lambda after, n: self._all(sql.ACS_ENTRIES_OF_PARTY, {**params, "after": after, "limit": n}),
            after_seq,
            page_size,
            limit,
        ):
            yield page

    @staticmethod
    async def _prefetched(
        read_page, after_seq: int, page_size: int, limit: int | None = None
    ) -> AsyncIterator[list[tuple]]:
        """The pages `read_page(after_seq, n)` returns (at most n rows, seq first) until one is short or `limit`
        rows are read. The next page is read while the caller works on this one (never past `limit`: a read cannot
        be called off once in SQLite's thread); memory stays at two pages whatever the snapshot's size."""
        pending: asyncio.Future | None = None
        left = limit

        def size() -> int:
            return page_size if left is None else min(page_size, left)

        try:
            n = size()
            if n <= 0:
                return
            while True:
                page = await (pending if pending is not None else read_page(after_seq, n))
                pending = None
                if left is not None:
                    left -= len(page)
                if len(page) == n and size() > 0:
                    after_seq, n = page[-1][0], size()
                    pending = asyncio.ensure_future(read_page(after_seq, n))
                if page:
                    yield page
                if pending is None:
                    return
        finally:
            if pending is not None:
                pending.cancel()

    async def _acs_page(self, offset: int, parties: list[str] | None, after: int, limit: int) -> list[tuple]:
        """One page: one statement for all contracts or one party, else each party's stakeholder index merged in
        seq order."""
        params = {"after": after, "offset": offset, "limit": limit}
        if parties is None:
            return await self._all(sql.ACS_ROWS_ALL, params)
        if len(parties) == 1:
            return await self._all(sql.ACS_ROWS_OF_PARTY, {**params, "party": parties[0]})
        per_party = [
            [r[0] for r in await self._all(sql.ACS_SEQS_OF_PARTY, {**params, "party": party})]
            for party in parties
        ]
        seqs: list[int] = []
        for seq in heapq.merge(*per_party):
            if not seqs or seqs[-1] != seq:
                seqs.append(seq)
                if len(seqs) == limit:
                    break
        if not seqs:
            return []
        return await self._all(sql.ACS_ROWS_BY_SEQ.format(marks=", ".join("?" * len(seqs))), tuple(seqs))

    async def moved_contracts(self, offset: int, parties: list[str] | None) -> list[tuple]:
        """The contracts that had moved by `offset` and are not archived there, with their latest reassignment
        event at or before it (`sql.ACS_MOVED`'s columns), in event order. Few: most contracts never move."""
        if offset <= 0:
            return []
        if parties is None:
            return await self._all(sql.ACS_MOVED.format(parties=""), {"offset": offset})
        return await self._all(
            sql.ACS_MOVED.format(parties=sql.ACS_MOVED_OF_PARTIES),
            {"offset": offset, "parties": orjson.dumps(parties).decode()},
        )

    async def contract_moves(self, contract_id: str) -> tuple[str | None, str | None]:
        """(the synchronizer it was created on if it has moved since, the reassignment it is in flight in)."""
        row = await self._one(sql.CONTRACT_MOVES, (contract_id,))
        return (None, None) if row is None else (row[0], row[1])

    async def count_active_contracts(
        self, offset: int, parties: list[str] | None, *, after_seq: int, cap: int
    ) -> int:
        """How many contracts active at `offset` (after `after_seq`) have one of `parties` (or anyone, for None)
        as a stakeholder, counted from the indexes up to `cap`."""
        params = {"offset": offset, "after": after_seq, "cap": cap}
        if parties is None:
            rows = await self._all(sql.ACS_COUNT_ALL, params)
        else:
            rows = await self._all(
                sql.ACS_COUNT_OF_PARTIES, {**params, "parties": orjson.dumps(parties).decode()}
            )
        return rows[0][0]

    async def count_stakeholder_rows(self, parties: list[str], *, after_seq: int, cap: int) -> int:
        """How many contracts (after `after_seq`, archived or not) have one of `parties` as a stakeholder, counted
        from the stakeholder index alone up to `cap`: a bound of `count_active_contracts` that reads no contract."""
        rows = await self._all(
            sql.ACS_COUNT_STAKEHOLDER_ROWS,
            {"parties": orjson.dumps(parties).decode(), "after": after_seq, "cap": cap},
        )
        return rows[0][0]

    # --- updates and completions

    async def updates(self, begin_exclusive: int, end_inclusive: int, limit: int) -> list[UpdateRow]:
        rows = await self._all(sql.UPDATES_RANGE, (begin_exclusive, end_inclusive, limit))
        return [UpdateRow.from_sql(r) for r in rows]

    async def updates_descending(
        self, end_inclusive: int, begin_exclusive: int, limit: int
    ) -> list[UpdateRow]:
        """The latest `limit` updates at or before `end_inclusive` and after `begin_exclusive`, latest first."""
        rows = await self._all(sql.UPDATES_RANGE_DESCENDING, (begin_exclusive, end_inclusive, limit))
        return [UpdateRow.from_sql(r) for r in rows]

    async def update_at(self, offset: int) -> UpdateRow | None:
        row = await self._one(sql.UPDATE_AT_OFFSET, (offset,))
        return None if row is None else UpdateRow.from_sql(row)

    async def update_by_id(self, update_id: str) -> UpdateRow | None:
        row = await self._one(sql.UPDATE_BY_ID, (update_id,))
        return None if row is None else UpdateRow.from_sql(row)

    async def completions(self, begin_exclusive: int, user_id: str, limit: int) -> list[CompletionRow]:
        rows = await self._all(sql.COMPLETIONS_RANGE, (begin_exclusive, user_id, limit))
        return [
            CompletionRow(
                offset=r[0],
                user_id=r[1],
                command_id=r[2],
                act_as=tuple(orjson.loads(r[4])),
                submission_id=r[5],
                update_id=r[6],
                record_time=parse_timestamp(r[7]),
                synchronizer_id=r[8],
                dedup_period=orjson.loads(r[9]),
                status=None if r[10] is None else orjson.loads(r[10]),
            )
            for r in rows
        ]

    # --- users and parties

    async def user(self, user_id: str) -> UserRow | None:
        row = await self._one(sql.USER, (user_id,))
        if row is None:
            return None
        return await self._user_row(row)

    async def _user_row(self, row) -> UserRow:
        rights = await self._all(sql.RIGHTS_OF_USER, (row[0],))
        return UserRow(
            id=row[0],
            primary_party=row[1],
            is_deactivated=bool(row[2]),
            annotations=orjson.loads(row[3]),
            resource_version=row[4],
            identity_provider_id=row[5],
            primary_party_authentication=bool(row[6]),
            rights=tuple((kind, party or None) for kind, party in rights),
        )

    async def users(self, after_id: str, limit: int) -> list[UserRow]:
        return [await self._user_row(r) for r in await self._all(sql.USERS_PAGE, (after_id, limit))]

    async def idp(self, identity_provider_id: str) -> IdpRow | None:
        row = await self._one(sql.IDP, (identity_provider_id,))
        return None if row is None else IdpRow(row[0], bool(row[1]), *row[2:])

    async def idps(self) -> list[IdpRow]:
        return [IdpRow(r[0], bool(r[1]), *r[2:]) for r in await self._all(sql.IDPS)]

    async def party(self, party: str) -> PartyRow | None:
        row = await self._one(sql.PARTY, (party,))
        return None if row is None else PartyRow(row[0], orjson.loads(row[1]), row[2], row[3])

    async def parties(self, after: str, limit: int, prefix: str = "") -> list[PartyRow]:
        pattern = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        rows = await self._all(sql.PARTIES_PAGE, (after, pattern, limit))
        return [PartyRow(r[0], orjson.loads(r[1]), r[2], r[3]) for r in rows]
