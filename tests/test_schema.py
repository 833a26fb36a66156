"""The schema migrates forward at start, and migrated rows read as if written by the current version."""

from __future__ import annotations

import logging
import sqlite3

import orjson
import pytest

from participant.store import schema, sql
from participant.store.batch import _multi_row
from participant.store.rows import CONTRACT_COLUMNS, UPDATE_COLUMNS, acs_event_json
from participant.store.schema import MIGRATIONS, SCHEMA_VERSION, NewerSchemaError, migrate
from participant.store.store import Store, connect

V1_CONTRACT = (
    1,
    "00" + "ab" * 32 + "ca12" + "1220" + "cd" * 32,
    "pkg:Iou:Iou",
    "model-tests",
    '{"issuer":"A::1220","owner":"B::1220","currency":"CHF é\\"","amount":"1.0000000000","observers":[]}',
    '["A::1220","B::1220"]',
    '["C::1220"]',
    None,
    None,
    "2026-01-02T03:04:05.123Z",
    "global::1220",
    0,
    "wf",
    7,
    0,
    None,
    None,
)


def plan(conn: sqlite3.Connection, statement: str, params) -> str:
    return " ".join(row[3] for row in conn.execute(f"EXPLAIN QUERY PLAN {statement}", params))


def v1_database(path) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.executescript(f"BEGIN; {MIGRATIONS[0]} PRAGMA user_version = 1; COMMIT;")
    conn.execute(f"INSERT INTO contracts VALUES ({', '.join('?' * len(V1_CONTRACT))})", V1_CONTRACT)
    conn.close()


async def test_a_version_1_database_is_migrated_and_its_contracts_render_as_new_ones(tmp_path):
    db = tmp_path / "old.db"
    v1_database(db)
    async with Store(db):
        pass
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    (migrated,) = conn.execute("SELECT acs_event FROM contracts").fetchone()
    conn.close()
    (_, cid, tid, pkg, argument, sig, obs, key, key_hash, created_at, _, _, _, offset, node_id, _, _) = (
        V1_CONTRACT
    )
    fresh = acs_event_json(
        offset=offset,
        node_id=node_id,
        contract_id=cid,
        template_id=tid,
        key=key,
        key_hash=key_hash or "",
        argument=argument,
        signatories=sig,
        observers=obs,
        created_at=created_at,
        package_name=pkg,
    )
    assert orjson.loads("{" + migrated + "}") == orjson.loads("{" + fresh + "}")
    assert orjson.loads("{" + migrated + "}")["representativePackageId"] == "pkg"


async def test_a_newer_schema_is_refused(tmp_path):
    db = tmp_path / "new.db"
    sqlite3.connect(db).execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn = await connect(db)
    try:
        with pytest.raises(NewerSchemaError):
            await migrate(conn)
    finally:
        await conn.close()


async def test_one_update_is_found_through_an_index(tmp_path):
    db = tmp_path / "ledger.db"
    async with Store(db):
        pass
    conn = sqlite3.connect(db)
    try:
        for statement in (sql.UPDATE_AT_OFFSET, sql.UPDATE_BY_ID):
            found = plan(conn, statement, ("x",))
            assert found.startswith("SEARCH updates USING"), found
    finally:
        conn.close()


async def test_contracts_are_found_by_id_through_the_id_index(tmp_path):
    db = tmp_path / "ledger.db"
    async with Store(db):
        pass
    conn = sqlite3.connect(db)
    try:
        cid = V1_CONTRACT[1]
        for statement, params in (
            (sql.ACTIVE_CONTRACT, (cid,)),
            (sql.CONTRACT_BY_ID, (cid,)),
            (sql.CONTRACT_MOVES, (cid,)),
            (sql.REASSIGN_CONTRACT, ("s", 1, None, 2, cid)),
        ):
            found = plan(conn, statement, params)
            assert (
                found.startswith("SEARCH contracts USING") and "INDEX contracts_by_id (<expr>=?)" in found
            ), found
        for statement, rows in (
            (sql.ARCHIVE_CONTRACT, [(5, 0, cid), (5, 1, cid + "00")]),
            (sql.INSERT_REASSIGNMENT_EVENT, [(5, 0, "unassign", "r", cid, cid, cid, "s", "t", "p", 1)] * 2),
        ):
            [(many, params)] = list(_multi_row(statement, rows))
            found = plan(conn, many, params)
            assert "INDEX contracts_by_id (<expr>=?)" in found and "SCAN contracts" not in found, found
    finally:
        conn.close()


async def test_a_version_5_database_keeps_its_rows_and_finds_them_by_id_after_migration(
    tmp_path, caplog, monkeypatch
):
    monkeypatch.setattr(schema, "FREE_BYTES_WORTH_SAYING", 1)  # the rebuilt tables' old pages: a few here
    db = tmp_path / "v5.db"
    conn = sqlite3.connect(db, isolation_level=None)
    for version, script in enumerate(MIGRATIONS[:5], start=1):
        conn.executescript(f"BEGIN; {script} PRAGMA user_version = {version}; COMMIT;")
    conn.execute(
        f"INSERT INTO contracts ({CONTRACT_COLUMNS}) VALUES ({', '.join('?' * len(V1_CONTRACT))})",
        V1_CONTRACT,
    )
    update = (
        7,
        "1220" + "ef" * 32,
        "transaction",
        "cmd",
        "wf",
        "Alice",
        "sub",
        "[]",
        "2026-01-02T03:04:05Z",
        "2026-01-02T03:04:05Z",
        "global::1220",
        None,
        "[" + "0," * 20_000 + "0]",  # pages enough that the rebuild frees more than later steps take
    )
    conn.execute(f"INSERT INTO updates ({UPDATE_COLUMNS}) VALUES ({', '.join('?' * len(update))})", update)
    before = conn.execute("SELECT * FROM contracts").fetchall()
    conn.close()
    with caplog.at_level(logging.INFO, logger=schema.log.name):
        async with Store(db):
            pass
    said = caplog.text
    assert "upgrading the database from schema 5 to" in said
    assert "MB of free pages in the file" in said and "`ledger-participant compact`" in said
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("SELECT * FROM contracts").fetchall() == before
        assert conn.execute(sql.CONTRACT_BY_ID, (V1_CONTRACT[1],)).fetchone()[:2] == (1, V1_CONTRACT[1])
        assert conn.execute(sql.UPDATE_BY_ID, (update[1],)).fetchone()[:2] == (7, update[1])
        with pytest.raises(sqlite3.IntegrityError):  # still one row per id
            conn.execute(
                f"INSERT INTO contracts ({CONTRACT_COLUMNS}) VALUES ({', '.join('?' * len(V1_CONTRACT))})",
                (2, *V1_CONTRACT[1:]),
            )
    finally:
        conn.close()


async def test_deduplication_reads_a_changes_completions_through_the_command_index(tmp_path):
    db = tmp_path / "ledger.db"
    async with Store(db):
        pass
    conn = sqlite3.connect(db)
    try:
        key = '["Alice",["Alice::1220"],"cmd-1"]'
        for statement, params in (
            (sql.LATEST_COMPLETION, (key,)),
            (sql.latest_completions(2), (key, key + "x")),
        ):
            found = plan(conn, statement, params)
            assert found.startswith("SEARCH completions USING INDEX completions_by_command"), found
    finally:
        conn.close()


def _completion(offset: int, user: str, command_id: str, status: str | None = None) -> tuple:
    act_as = ["Alice::1220"]
    key = orjson.dumps([user, act_as, command_id]).decode()
    return (
        offset,
        user,
        command_id,
        key,
        orjson.dumps(act_as).decode(),
        f"sub-{offset}",
        f"upd-{offset}",
        "2026-01-02T03:04:05Z",
        "global::1220",
        "{}",
        status,
    )


async def test_a_version_4_databases_completions_are_found_by_their_change_after_migration(tmp_path):
    db = tmp_path / "v4.db"
    conn = sqlite3.connect(db, isolation_level=None)
    for version, script in enumerate(MIGRATIONS[:4], start=1):
        conn.executescript(f"BEGIN; {script} PRAGMA user_version = {version}; COMMIT;")
    rows = [
        _completion(1, "Alice", "cmd-1"),
        _completion(2, "Bob", "cmd-1"),
        _completion(3, "Alice", "cmd-1"),
        _completion(4, "Alice", "cmd-1", status='{"code":10}'),
        _completion(5, "Alice", "cmd-2"),
    ]
    conn.executemany(
        f"INSERT INTO completions ({sql.COMPLETION_COLUMNS}) VALUES ({', '.join('?' * 11)})", rows
    )
    conn.close()
    async with Store(db):
        pass
    conn = sqlite3.connect(db)
    try:
        alice_1, bob_1, alice_2, nobody = (
            rows[0][3],
            rows[1][3],
            rows[4][3],
            rows[0][3].replace("cmd-1", "cmd-3"),
        )
        assert conn.execute(sql.LATEST_COMPLETION, (alice_1,)).fetchall() == [
            (3, "sub-3", "2026-01-02T03:04:05Z")
        ]
        assert conn.execute(sql.LATEST_COMPLETION, (nobody,)).fetchall() == []
        found = conn.execute(sql.latest_completions(4), (alice_1, bob_1, alice_2, nobody)).fetchall()
        assert sorted(found) == sorted(
            [
                (alice_1, 3, "sub-3", "2026-01-02T03:04:05Z"),
                (bob_1, 2, "sub-2", "2026-01-02T03:04:05Z"),
                (alice_2, 5, "sub-5", "2026-01-02T03:04:05Z"),
            ]
        )
        indexes = {
            name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE tbl_name = 'completions'")
        }
        assert "completions_by_command" in indexes and "completions_by_change" not in indexes
    finally:
        conn.close()
