"""Views: the ordered list of rows the table shows (offset, diff against the offset viewed before, template and
text filters, sort), materialized in a temporary table so that any window of it is an indexed read."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import orjson

from app.snapshot.records import ACTIVE, UNASSIGNED, Move
from app.snapshot.spec import ViewSpec
from app.snapshot.store import Store, first_value

T = TypeVar("T")

# diff status of a row against the offset viewed before: the same state, a contract not there before, one gone
# since (its state there, shown for comparison), or the same contract in another state (moved between synchronizers)
SAME, ADDED, REMOVED, CHANGED = 0, 1, 2, 3
STATUS_NAMES = ("", "added", "removed", "changed")
QUICK_VIEW_ABOVE = 50_000  # from this many contracts on, a rebuilt view shows its first rows before the rest
FIRST_ROWS = 200

BUILTIN_SORTS = {
    "contract": "d.cid",
    "template": "(SELECT text FROM strings WHERE id = c.template)",
    "signatories": "(SELECT text FROM strings WHERE id = c.signatories)",
    "observers": "(SELECT text FROM strings WHERE id = c.observers)",
    "created_at": "d.created_at",
    "offset": "c.created_offset",
    "synchronizer": "(SELECT text FROM strings WHERE id = c.synchronizer)",
    "counter": "c.counter",
    "arrival": "c.seq",
}


@dataclass
class Row:
    position: int  # 0-based position in the view
    status: int  # SAME, ADDED, REMOVED or CHANGED
    contract_id: str
    template_id: str
    created_offset: int
    archived_offset: int | None
    kind: int
    signatories: list[str]
    observers: list[str]
    synchronizer: str
    counter: int | None
    created_at: str
    workflow_id: str
    payload: Any
    move: Move | None = None  # incomplete rows: the reassignment they are half of
    moved_on: bool = False  # the state ended at `archived_offset` by a reassignment, not by an archive

    @property
    def in_flight(self) -> bool:
        """Unassigned and not yet assigned: the half of a move this participant has seen."""
        return self.move is not None and self.kind == UNASSIGNED

    def location(self, name: Callable[[str], str]) -> str | None:
        """Where a contract that has moved is, in words (`name` renders a synchronizer id); None if it never moved."""
        if self.in_flight:
            assert self.move is not None
            return (
                f"in flight from {name(self.move.source)} to {name(self.move.target)} "
                f"since offset {self.created_offset}"
            )
        if self.counter:
            return f"on {name(self.synchronizer)} since offset {self.created_offset}"
        return None

    def as_json(self) -> dict[str, Any]:
        """The row as exported: the fields of the create event a reader needs, named as on the wire."""
        return {
            "contractId": self.contract_id,
            "templateId": self.template_id,
            "createArgument": self.payload,
            "signatories": self.signatories,
            "observers": self.observers,
            "createdAt": self.created_at,
            "offset": self.created_offset,
            "archivedAtOffset": self.archived_offset,
            "synchronizerId": self.synchronizer,
            "reassignmentCounter": self.counter,
            "workflowId": self.workflow_id,
            "status": STATUS_NAMES[self.status],
            "kind": ("active", "incomplete unassigned", "incomplete assigned")[self.kind],
        }


class ViewCancelled(Exception):
    """A view build was abandoned for a newer one."""


class Views:
    """The current view over a store, and the other reads of it. Its face: `build_view` (and `cancel_view` to abandon
    one being built), `view_count`, `view_removed` and `view_contracts`, `window`, `position_of`, `rows_around`,
    `first_changed`; lookups that do not depend on the view (`latest`, `incomplete`, `ids_with_prefix`, `templates`,
    `template_ids`, `sample_payloads`, `count`); and for what writes a view out, `in_worker` and `windows`. The view
    is the store's to invalidate: a change to the cache drops it (`Store.when_changed`), and it is built again on request."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._view: ViewSpec | None = None
        self._view_count = 0
        self._view_removed = 0  # rows of the view that are not in the state: contracts gone, shown struck out
        self._view_last_seq = 0  # the view holds every matching row up to this seq (default order only)
        self._cancel = threading.Event()
        store.when_changed(self._store_changed)

    def _store_changed(self, emptied: bool) -> None:
        # in the store's worker thread, right after the change
        self._view = None
        if emptied:
            self._view_count = 0
            self._view_removed = 0
            self._view_last_seq = 0
            self._store.db.execute("DROP TABLE IF EXISTS temp.view")

    def cancel_view(self) -> None:
        """Abandon a view being built (a newer one supersedes it)."""
        self._cancel.set()

    async def in_worker(self, fn: Callable[..., T], *args: Any) -> T:
        """`fn(*args)` in the store's worker thread, in order with every other read and write: where `windows`
        is iterated."""
        return await self._store.run(fn, *args)

    def windows(self, size: int) -> Iterator[list[Row]]:
        """The current view's rows, `size` at a time, in order (in the worker thread: `in_worker`)."""
        for start in range(0, self._view_count, size):
            yield self._window(start, size)

    def _where(self, spec: ViewSpec) -> tuple[str, str, dict[str, Any]]:
        """(WHERE clause, status expression, parameters) of a view.

        The rows are the state at `offset`, whatever path filled the cache: one row per contract (its state then).
        Marked against `previous`, the comparison is by contract, not by row: a contract in both states under
        another row (it moved between synchronizers) is CHANGED, shown once in its state here; one only here is
        ADDED; one only at `previous` is REMOVED, its state there shown for comparison."""
        o, p = spec.offset, spec.previous
        params: dict[str, Any] = {"o": o}
        visible = _visible("c", "o")
        status = str(SAME)
        where = visible
        if p is not None and p != o and self._store.interval.covers(p):
            params["p"] = p
            before = _visible("c", "p")
            status = (
                f"CASE WHEN NOT {visible} THEN {REMOVED} WHEN {before} THEN {SAME} "
                f"WHEN {_other_state('p')} THEN {CHANGED} ELSE {ADDED} END"
            )
            where = f"({visible} OR ({before} AND NOT {_other_state('o')}))"
        if spec.templates:
            ids = [i for t in spec.templates if (i := self._store.string_id(t)) is not None] or [-1]
            where += f" AND c.template IN ({','.join(str(i) for i in ids)})"
        if spec.text:
            params["text"] = (
                "%" + spec.text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            )
            where += " AND d.search LIKE :text ESCAPE '\\'"
        return where, status, params

    def _order(self, spec: ViewSpec) -> str:
        direction = "DESC" if spec.descending else "ASC"
        if spec.sort.startswith("payload."):
            path = "$." + ".".join(f'"{part}"' for part in spec.sort[len("payload.") :].split("."))
            expr = f"json_extract(d.payload, '{path}')"
            if self._numeric(expr):
                expr = f"CAST({expr} AS REAL)"
        else:
            expr = BUILTIN_SORTS.get(spec.sort, "c.seq")
        return f"{expr} {direction}, c.seq {direction}"

    def _numeric(self, expr: str) -> bool:
        values = [v for (v,) in self._store.db.execute(f"SELECT {expr} FROM details d LIMIT 200")]
        values = [v for v in values if v is not None]
        if not values:
            return False
        for v in values:
            if isinstance(v, int | float):
                continue
            try:
                float(v)
            except (TypeError, ValueError):
                return False
        return True

    async def build_view(self, spec: ViewSpec, first: Callable[[list[Row]], None] | None = None) -> int:
        """Materialize the view; returns its row count. Cheap when only new rows need appending.

        Rebuilding a large view (a new sort or filter over hundreds of thousands of rows) takes a while; with
        `first` given, its first rows are found first, with an ORDER BY … LIMIT that SQLite answers in a fraction
        of that time, and handed to `first` (on the event loop) while the rest is built."""
        self._cancel.clear()
        loop = asyncio.get_running_loop()
        return await self._store.run(self._build_view, spec, first, loop)

    def _build_view(
        self,
        spec: ViewSpec,
        first: Callable[[list[Row]], None] | None = None,
        loop: asyncio.AbstractEventLoop | None = None,
    ) -> int:
        db = self._store.db
        incremental = (
            self._view == spec
            and spec.sort == "arrival"
            and not spec.descending
            and spec.previous in (None, spec.offset)
        )
        if spec.previous is not None:
            self._store.ensure_id_index()  # the comparison finds a contract's other state by its id
        where, status, params = self._where(spec)
        if incremental:
            params["last"] = self._view_last_seq
            db.execute(
                f"INSERT INTO temp.view (seq, status) SELECT c.seq, {status} FROM contracts c "
                f"JOIN details d USING (seq) WHERE c.seq > :last AND {where} ORDER BY c.seq",
                params,
            )
        else:
            if first is not None and loop is not None and self._large():
                rows = self._first_rows(spec, where, status, params)
                loop.call_soon_threadsafe(first, rows)
            db.execute("DROP TABLE IF EXISTS temp.view")
            db.execute(
                "CREATE TEMP TABLE view (pos INTEGER PRIMARY KEY, seq INTEGER NOT NULL, status INTEGER)"
            )
            cancel = self._cancel
            db.set_progress_handler(lambda: 1 if cancel.is_set() else 0, 10_000)
            try:
                db.execute(
                    f"INSERT INTO temp.view (seq, status) SELECT c.seq, {status} FROM contracts c "
                    f"JOIN details d USING (seq) WHERE {where} ORDER BY {self._order(spec)}",
                    params,
                )
            except sqlite3.OperationalError as e:
                if "interrupted" in str(e):
                    raise ViewCancelled() from None
                raise
            finally:
                db.set_progress_handler(None, 0)
        self._view = spec
        self._view_last_seq = first_value(db.execute("SELECT max(seq) FROM contracts").fetchone()) or 0
        self._view_count = first_value(db.execute("SELECT max(pos) FROM temp.view").fetchone()) or 0
        self._view_removed = (
            first_value(db.execute(f"SELECT count(*) FROM temp.view WHERE status = {REMOVED}").fetchone())
            or 0
            if "p" in params
            else 0
        )
        return self._view_count

    def _large(self) -> bool:
        return (
            first_value(self._store.db.execute("SELECT max(seq) FROM contracts").fetchone()) or 0
        ) >= QUICK_VIEW_ABOVE

    def _first_rows(self, spec: ViewSpec, where: str, status: str, params: dict[str, Any]) -> list[Row]:
        """The first FIRST_ROWS rows the view will have (same order, ties broken by arrival)."""
        found = self._store.db.execute(
            f"SELECT c.seq, {status} FROM contracts c JOIN details d USING (seq) WHERE {where} "
            f"ORDER BY {self._order(spec)} LIMIT {FIRST_ROWS}",
            params,
        ).fetchall()
        by_seq = {seq: (position, st) for position, (seq, st) in enumerate(found)}
        if not by_seq:
            return []
        rows = self._store.db.execute(
            f"SELECT c.seq, {ROW_COLUMNS} FROM contracts c JOIN details d USING (seq) {ROW_JOINS} "
            f"WHERE c.seq IN ({','.join('?' * len(by_seq))})",
            list(by_seq),
        ).fetchall()
        out = [_row(by_seq[seq][0], by_seq[seq][1], rest) for seq, *rest in rows]
        return sorted(out, key=lambda r: r.position)

    @property
    def view_count(self) -> int:
        """The rows of the current view, the struck-out comparison rows included."""
        return self._view_count

    @property
    def view_removed(self) -> int:
        """The rows of the current view that are not in its state: contracts gone since the offset compared
        with (REMOVED), shown for comparison."""
        return self._view_removed

    @property
    def view_contracts(self) -> int:
        """The contracts of the current view's state (its rows less the comparison rows)."""
        return self._view_count - self._view_removed

    async def window(self, start: int, count: int) -> list[Row]:
        """Rows `start` .. `start + count - 1` (0-based) of the current view: before the writes and builds still
        waiting (the screen waits for them; the caller knows which view it asked, as the table's generation)."""
        return await self._store.run_first(self._window, start, count)

    def _window(self, start: int, count: int) -> list[Row]:
        if self._view is None:
            return []
        rows = self._store.db.execute(
            f"SELECT v.pos, v.status, {ROW_COLUMNS} FROM temp.view v JOIN contracts c ON c.seq = v.seq "
            f"JOIN details d ON d.seq = v.seq {ROW_JOINS} WHERE v.pos BETWEEN ? AND ? ORDER BY v.pos",
            (start + 1, start + count),
        ).fetchall()
        return [_row(pos - 1, status, rest) for pos, status, *rest in rows]

    async def latest(self, contract_id: str) -> Row | None:
        """A contract's latest state in the cache (where it is, its counter, the move it is half of), if held."""

        def find() -> Row | None:
            seq = self._store.seq_of(contract_id)
            if seq is None:
                return None
            columns = self._store.db.execute(
                f"SELECT {ROW_COLUMNS} FROM contracts c JOIN details d USING (seq) "
                f"{ROW_JOINS} WHERE c.seq = ?",
                (seq,),
            ).fetchone()
            return _row(0, SAME, columns)

        return await self._store.run(find)

    async def incomplete(self, offset: int) -> list[Row]:
        """The incomplete entries at `offset` (contracts unassigned and not yet assigned, or the reverse), in
        arrival order, with the reassignment each is half of."""

        def find() -> list[Row]:
            rows = self._store.db.execute(
                f"SELECT {ROW_COLUMNS} FROM contracts c JOIN details d USING (seq) {ROW_JOINS} "
                f"WHERE c.kind != {ACTIVE} AND c.created_offset <= ? "
                f"AND (c.archived_offset IS NULL OR c.archived_offset > ?) ORDER BY c.seq",
                (offset, offset),
            ).fetchall()
            return [_row(i, SAME, rest) for i, rest in enumerate(rows)]

        return await self._store.run(find)

    async def position_of(self, contract_id: str) -> int | None:
        """Where a contract is in the current view (0-based), if it is there: found before the writes and builds
        still waiting, as `window` reads the rows (the screen waits for it; while a snapshot is read, a find
        queued behind its batches waited for all of them, and its position is one of the view the table shows)."""
        return await self._store.run_first(self._position_of, contract_id)

    async def rows_around(
        self, contract_id: str, before: int, after: int
    ) -> tuple[int, int, list[Row]] | None:
        """Where a contract is in the current view (`position_of`), the position of the first row read and the rows
        from `before` above it to `after` below it (`window`), if it is there: in one turn of the store's worker,
        where a find then a read of its rows waited twice for the batch being stored while a snapshot is read."""

        def find() -> tuple[int, int, list[Row]] | None:
            position = self._position_of(contract_id)
            if position is None:
                return None
            start = max(0, position - before)
            return position, start, self._window(start, position + after - start)

        return await self._store.run_first(find)

    def _position_of(self, contract_id: str) -> int | None:
        if self._view is None:
            return None
        found = None
        for seq in self._store.seqs_of(
            contract_id
        ):  # its latest state in view, one shown for comparison if no other
            if self._view.sort == "arrival":
                pos = self._bisect(seq, self._view.descending)
            else:
                pos = first_value(
                    self._store.db.execute("SELECT pos FROM temp.view WHERE seq = ?", (seq,)).fetchone()
                )
            if pos is None:
                continue
            status = first_value(
                self._store.db.execute("SELECT status FROM temp.view WHERE pos = ?", (pos,)).fetchone()
            )
            if status != REMOVED:
                return pos - 1
            found = found if found is not None else pos - 1
        return found

    def _bisect(self, seq: int, descending: bool) -> int | None:
        """The view position of `seq` in arrival order, where positions follow seq: a few lookups by position
        instead of a scan of the view (about 100 ms with a million rows)."""
        lo, hi = 1, self._view_count
        while lo <= hi:
            mid = (lo + hi) // 2
            found = first_value(
                self._store.db.execute("SELECT seq FROM temp.view WHERE pos = ?", (mid,)).fetchone()
            )
            if found is None:
                return None
            if found == seq:
                return mid
            if (found < seq) != descending:
                lo = mid + 1
            else:
                hi = mid - 1
        return None

    async def first_changed(self) -> int | None:
        """The position of the first row marked added or removed in the current view."""
        if self._view is None:
            return None
        return await self._store.run(
            lambda: _none_or_pos(
                self._store.db.execute(f"SELECT min(pos) FROM temp.view WHERE status != {SAME}").fetchone()
            )
        )

    async def ids_with_prefix(self, prefix: str, limit: int) -> list[str]:
        """Up to `limit` contract ids of the cache that start with `prefix` (to expand an id typed short)."""

        def find() -> list[str]:
            rows = self._store.db.execute(
                "SELECT DISTINCT cid FROM details WHERE cid LIKE ? ESCAPE '\\' LIMIT ?",
                (prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%", limit),
            ).fetchall()
            return [row[0] for row in rows]

        return await self._store.run(find)

    async def template_ids(self) -> list[str]:
        """The templates of the contracts the cache holds, at any offset (what a view of it may show)."""
        return await self._store.template_ids()

    async def templates(self, offset: int) -> list[tuple[str, int]]:
        """Template ids active at `offset`, with their contract counts, most frequent first."""

        def count() -> list[tuple[str, int]]:
            return self._store.db.execute(
                "SELECT t.text, n FROM (SELECT template, count(*) AS n FROM contracts c WHERE c.created_offset <= ? "
                "AND (c.archived_offset IS NULL OR c.archived_offset > ?) GROUP BY template) "
                "JOIN strings t ON t.id = template ORDER BY n DESC, t.text",
                (offset, offset),
            ).fetchall()

        return await self._store.run(count)

    async def sample_payloads(self, template_id: str, limit: int = 50) -> list[Any]:
        """Some payloads of a template (to choose its telling columns, or a skeleton for a new contract)."""

        def sample() -> list[Any]:
            sid = self._store.string_id(template_id)
            if sid is None:
                return []
            return [
                orjson.loads(p)
                for (p,) in self._store.db.execute(
                    "SELECT d.payload FROM contracts c JOIN details d USING (seq) WHERE c.template = ? "
                    "ORDER BY c.seq DESC LIMIT ?",
                    (sid, limit),
                )
            ]

        return await self._store.run(sample)

    async def count(self) -> int:
        return await self._store.run(
            lambda: first_value(self._store.db.execute("SELECT count(*) FROM contracts").fetchone()) or 0
        )


ROW_COLUMNS = (
    "d.cid, t.text, c.created_offset, c.archived_offset, c.kind, s.text, o.text, y.text, c.counter, "
    "d.created_at, d.workflow_id, d.payload, m.reassignment_id, m.source, m.target, m.submitter, "
    "e.seq IS NOT NULL"
)
ROW_JOINS = (
    "JOIN strings t ON t.id = c.template JOIN strings s ON s.id = c.signatories "
    "JOIN strings o ON o.id = c.observers JOIN strings y ON y.id = c.synchronizer "
    "LEFT JOIN moves m ON m.seq = c.seq LEFT JOIN moved_on e ON e.seq = c.seq"
)


def _visible(alias: str, offset: str) -> str:
    """The condition that the row `alias` is a contract's state at the offset named `:offset`."""
    return (
        f"({alias}.created_offset <= :{offset} "
        f"AND ({alias}.archived_offset IS NULL OR {alias}.archived_offset > :{offset}))"
    )


def _other_state(offset: str) -> str:
    """The condition that the contract of row `c` (`d` its details) has another row, its state at `:offset`.
    Evaluated only for the rows that differ between the two offsets, through the index by contract id."""
    return (
        "EXISTS (SELECT 1 FROM contracts x JOIN details dx ON dx.seq = x.seq WHERE x.cid_key = c.cid_key "
        f"AND x.seq != c.seq AND dx.cid = d.cid AND {_visible('x', offset)})"
    )


def _row(position: int, status: int, columns: Sequence[Any]) -> Row:
    (
        cid,
        template,
        created,
        archived,
        kind,
        sigs,
        obs,
        sync,
        counter,
        created_at,
        workflow_id,
        payload,
        reassignment_id,
        source,
        target,
        submitter,
        moved_on,
    ) = columns
    move = None if reassignment_id is None else Move(reassignment_id, source, target, submitter)
    return Row(
        position,
        status,
        cid,
        template,
        created,
        archived,
        kind,
        orjson.loads(sigs),
        orjson.loads(obs),
        sync,
        counter,
        created_at,
        workflow_id,
        orjson.loads(payload),
        move,
        bool(moved_on),
    )


def _none_or_pos(row: tuple | None) -> int | None:
    value = first_value(row)
    return None if value is None else value - 1
