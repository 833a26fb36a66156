"""The schema migrates forward at start, and migrated rows read as if written by the current version."""

from __future__ import annotations

import sqlite3

import orjson
import pytest

from participant.store import sql
from participant.store.rows import acs_event_json
from participant.store.schema import MIGRATIONS, SCHEMA_VERSION, NewerSchemaError, migrate
from participant.store.store import Store, connect

V1_CONTRACT = (
    1, "00" + "ab" * 32 + "ca12" + "1220" + "cd" * 32, "pkg:Iou:Iou", "model-tests",
    '{"issuer":"A::1220","owner":"B::1220","currency":"CHF é\\"","amount":"1.0000000000","observers":[]}',
    '["A::1220","B::1220"]', '["C::1220"]', None, None, "2026-01-02T03:04:05.123Z", "global::1220", 0, "wf", 7, 0,
    None, None)


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
    (_, cid, tid, pkg, argument, sig, obs, key, key_hash, created_at, _, _, _, offset, node_id, _, _) = V1_CONTRACT
    fresh = acs_event_json(offset=offset, node_id=node_id, contract_id=cid, template_id=tid, key=key,
                           key_hash=key_hash or "", argument=argument, signatories=sig, observers=obs,
                           created_at=created_at, package_name=pkg)
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
            plan = " ".join(row[3] for row in conn.execute(f"EXPLAIN QUERY PLAN {statement}", ("x",)))
            assert plan.startswith("SEARCH updates USING"), plan
    finally:
        conn.close()
