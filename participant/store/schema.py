"""The database schema, versioned with `PRAGMA user_version` and migrated forward at start."""

from __future__ import annotations

import logging
import os
import sqlite3
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import aiosqlite

from participant.store.fetch import fetch_all, fetch_value
from participant.store.private_files import PRIVATE_FILE
from participant.store.secret import META_KEY, keep_secret

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Step:
    """A migration that also changes something outside the database: `before` runs first, and must be safe to run
    again (after a crash, the step starts over); `script` then runs as the step's transaction."""

    before: Callable[[aiosqlite.Connection], Awaitable[None]]
    script: str


async def _database_file(conn: aiosqlite.Connection) -> Path:
    rows = await fetch_all(conn, "PRAGMA database_list")
    return Path(next(file for _, name, file in rows if name == "main"))


async def _secret_out_of_meta(conn: aiosqlite.Connection) -> None:
    """Write the generated secret the database holds to `<db>.secret` (see `participant.store.secret`) and make
    the database's files private: they held the secret. The script then deletes it with secure_delete on, which
    overwrites the deleted bytes instead of leaving them in a free page."""
    rows = await fetch_all(conn, "SELECT value FROM meta WHERE key = ?", (META_KEY,))
    if not rows:
        return
    db = await _database_file(conn)
    keep_secret(db, rows[0][0])
    for suffix in ("", "-wal", "-shm"):
        try:
            os.chmod(f"{db}{suffix}", PRIVATE_FILE)
        except FileNotFoundError:
            pass
    await conn.execute("PRAGMA secure_delete = ON")


# Each entry migrates from version i to i + 1. Never edit a released entry: append a new one.
MIGRATIONS: list[str | Step] = [
    """
    CREATE TABLE meta (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );

    -- One row per committed update; the offset is the update's position on the ledger.
    CREATE TABLE updates (
        "offset"        INTEGER PRIMARY KEY,
        update_id       TEXT NOT NULL UNIQUE,
        kind            TEXT NOT NULL,          -- 'transaction' | 'reassignment'
        command_id      TEXT NOT NULL,
        workflow_id     TEXT NOT NULL,
        user_id         TEXT NOT NULL,
        submission_id   TEXT NOT NULL,
        act_as          TEXT NOT NULL,          -- JSON array
        record_time     TEXT NOT NULL,
        effective_at    TEXT NOT NULL,
        synchronizer_id TEXT NOT NULL,
        trace_context   TEXT,                   -- JSON object or NULL
        body            TEXT NOT NULL           -- JSON: the nodes (transactions) or events (reassignments)
    );

    -- Every contract ever created and not yet pruned; seq is activation order.
    CREATE TABLE contracts (
        seq                  INTEGER PRIMARY KEY,
        contract_id          TEXT NOT NULL UNIQUE,
        template_id          TEXT NOT NULL,     -- packageId:Module:Entity
        package_name         TEXT NOT NULL,
        argument             TEXT NOT NULL,     -- JSON, output encoding
        signatories          TEXT NOT NULL,     -- JSON array
        observers            TEXT NOT NULL,     -- JSON array
        contract_key         TEXT,              -- JSON or NULL
        key_hash             TEXT,              -- NULL when the template has no key
        created_at           TEXT NOT NULL,
        synchronizer_id      TEXT NOT NULL,
        reassignment_counter INTEGER NOT NULL DEFAULT 0,
        workflow_id          TEXT NOT NULL,
        create_offset        INTEGER NOT NULL,
        create_node_id       INTEGER NOT NULL,
        archive_offset       INTEGER,
        archive_node_id      INTEGER
    );
    CREATE INDEX contracts_by_create_offset ON contracts (create_offset);
    CREATE INDEX contracts_by_archive_offset ON contracts (archive_offset) WHERE archive_offset IS NOT NULL;
    CREATE UNIQUE INDEX contracts_active_key ON contracts (package_name, template_id, key_hash)
        WHERE archive_offset IS NULL AND key_hash IS NOT NULL;

    -- Serves party filters: which contracts a party is a stakeholder of, in activation order.
    CREATE TABLE stakeholders (
        party TEXT NOT NULL,
        seq   INTEGER NOT NULL,
        PRIMARY KEY (party, seq)
    ) WITHOUT ROWID;

    -- Successful submissions, for the completion stream and command deduplication.
    CREATE TABLE completions (
        "offset"      INTEGER PRIMARY KEY,
        user_id       TEXT NOT NULL,
        command_id    TEXT NOT NULL,
        change_key    TEXT NOT NULL,            -- user id, sorted actAs and command id, as one string
        act_as        TEXT NOT NULL,            -- JSON array
        submission_id TEXT NOT NULL,
        update_id     TEXT NOT NULL,
        record_time   TEXT NOT NULL,
        synchronizer_id TEXT NOT NULL,
        dedup_period  TEXT NOT NULL             -- JSON: the DeduplicationPeriod as submitted
    );
    CREATE INDEX completions_by_change ON completions (change_key, "offset");

    CREATE TABLE parties (
        party               TEXT PRIMARY KEY,
        annotations         TEXT NOT NULL DEFAULT '{}',
        resource_version    INTEGER NOT NULL DEFAULT 0,
        identity_provider_id TEXT NOT NULL DEFAULT ''
    );

    CREATE TABLE users (
        id                   TEXT PRIMARY KEY,
        primary_party        TEXT NOT NULL DEFAULT '',
        is_deactivated       INTEGER NOT NULL DEFAULT 0,
        annotations          TEXT NOT NULL DEFAULT '{}',
        resource_version     INTEGER NOT NULL DEFAULT 0,
        identity_provider_id TEXT NOT NULL DEFAULT '',
        primary_party_authentication INTEGER NOT NULL DEFAULT 0
    );

    CREATE TABLE user_rights (
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        kind    TEXT NOT NULL,
        party   TEXT NOT NULL DEFAULT '',       -- '' for rights without a party
        PRIMARY KEY (user_id, kind, party)
    ) WITHOUT ROWID;
    """,
    # 2: each contract's created event as the ACS prints it, rendered once when it is written, so that snapshots
    # read one column instead of thirteen and splice it in (see `rows.acs_event_json`, which this must equal).
    """
    ALTER TABLE contracts ADD COLUMN acs_event TEXT;
    UPDATE contracts SET acs_event =
        '"offset":' || create_offset || ',"nodeId":' || create_node_id
        || ',"contractId":' || json_quote(contract_id) || ',"templateId":' || json_quote(template_id)
        || ',"contractKey":' || COALESCE(contract_key, 'null')
        || ',"contractKeyHash":' || json_quote(COALESCE(key_hash, ''))
        || ',"createArgument":' || argument || ',"signatories":' || signatories || ',"observers":' || observers
        || ',"createdAt":' || json_quote(created_at) || ',"packageName":' || json_quote(package_name)
        || ',"representativePackageId":' || json_quote(substr(template_id, 1, instr(template_id, ':') - 1))
        || ',"acsDelta":true';
    """,
    # 3: reassignment. A contract lives on one synchronizer at a time; its row carries where it is now
    # (`synchronizer_id`, `reassignment_counter`), where it was created (`origin_synchronizer`, NULL when it never
    # moved), the reassignment it is in flight in (`in_flight`, NULL when assigned) and the offset of its first
    # unassignment (`moved_offset`): contracts that never moved (NULL) keep the ACS fast path, the others are read
    # from their reassignment events. Completions also record failures (`status`, NULL for a success), which
    # never count as duplicates.
    """
    ALTER TABLE contracts ADD COLUMN moved_offset INTEGER;
    ALTER TABLE contracts ADD COLUMN in_flight TEXT;
    ALTER TABLE contracts ADD COLUMN origin_synchronizer TEXT;
    CREATE INDEX contracts_moved ON contracts (moved_offset) WHERE moved_offset IS NOT NULL;

    CREATE TABLE reassignment_events (
        seq             INTEGER PRIMARY KEY,    -- order of the events
        "offset"        INTEGER NOT NULL,
        node_id         INTEGER NOT NULL,
        kind            TEXT NOT NULL,          -- 'unassign' | 'assign'
        reassignment_id TEXT NOT NULL,
        contract_seq    INTEGER NOT NULL,
        contract_id     TEXT NOT NULL,
        source          TEXT NOT NULL,
        target          TEXT NOT NULL,
        submitter       TEXT NOT NULL,
        counter         INTEGER NOT NULL
    );
    CREATE INDEX reassignment_events_of_contract ON reassignment_events (contract_seq, seq);
    CREATE INDEX reassignment_events_by_id ON reassignment_events (reassignment_id);

    ALTER TABLE completions ADD COLUMN status TEXT;
    """,
    # 4: identity provider configs (`/v2/idps`). Users and parties name theirs in `identity_provider_id` ('' is the
    # default provider, which has no row); their `resource_version` now grows with every update.
    """
    CREATE TABLE identity_provider_configs (
        identity_provider_id TEXT PRIMARY KEY,
        is_deactivated       INTEGER NOT NULL DEFAULT 0,
        jwks_url             TEXT NOT NULL,
        issuer               TEXT NOT NULL UNIQUE,
        audience             TEXT NOT NULL DEFAULT ''
    );
    """,
    # 5: deduplication finds a change's completions by its command id (the last member of the change key, see
    # `sql.LATEST_COMPLETION`) instead of the whole key. The key repeats the user and the parties, so its index took
    # three times the bytes, and every group commit wrote about two pages of it per submission where this index
    # takes one.
    """
    CREATE INDEX completions_by_command ON completions (command_id, "offset");
    DROP INDEX completions_by_change;
    """,
    # 6: contracts and updates are found by id through an index on the id's last characters first (`sql.by_id`):
    # the participant mints ids that end with the time they were minted, so that the entries of a group commit
    # land together at the end of the index, where the UNIQUE constraints' indexes took a random page per id. SQLite
    # cannot drop a column's UNIQUE constraint, so both tables are rebuilt (rows, rowids and order unchanged).
    """
    CREATE TABLE contracts_6 (
        seq                  INTEGER PRIMARY KEY,
        contract_id          TEXT NOT NULL,
        template_id          TEXT NOT NULL,
        package_name         TEXT NOT NULL,
        argument             TEXT NOT NULL,
        signatories          TEXT NOT NULL,
        observers            TEXT NOT NULL,
        contract_key         TEXT,
        key_hash             TEXT,
        created_at           TEXT NOT NULL,
        synchronizer_id      TEXT NOT NULL,
        reassignment_counter INTEGER NOT NULL DEFAULT 0,
        workflow_id          TEXT NOT NULL,
        create_offset        INTEGER NOT NULL,
        create_node_id       INTEGER NOT NULL,
        archive_offset       INTEGER,
        archive_node_id      INTEGER,
        acs_event            TEXT,
        moved_offset         INTEGER,
        in_flight            TEXT,
        origin_synchronizer  TEXT
    );
    INSERT INTO contracts_6 SELECT seq, contract_id, template_id, package_name, argument, signatories, observers,
        contract_key, key_hash, created_at, synchronizer_id, reassignment_counter, workflow_id, create_offset,
        create_node_id, archive_offset, archive_node_id, acs_event, moved_offset, in_flight, origin_synchronizer
        FROM contracts ORDER BY seq;
    DROP TABLE contracts;
    ALTER TABLE contracts_6 RENAME TO contracts;
    CREATE UNIQUE INDEX contracts_by_id ON contracts (substr(contract_id, -12), contract_id);
    CREATE INDEX contracts_by_create_offset ON contracts (create_offset);
    CREATE INDEX contracts_by_archive_offset ON contracts (archive_offset) WHERE archive_offset IS NOT NULL;
    CREATE UNIQUE INDEX contracts_active_key ON contracts (package_name, template_id, key_hash)
        WHERE archive_offset IS NULL AND key_hash IS NOT NULL;
    CREATE INDEX contracts_moved ON contracts (moved_offset) WHERE moved_offset IS NOT NULL;

    CREATE TABLE updates_6 (
        "offset"        INTEGER PRIMARY KEY,
        update_id       TEXT NOT NULL,
        kind            TEXT NOT NULL,
        command_id      TEXT NOT NULL,
        workflow_id     TEXT NOT NULL,
        user_id         TEXT NOT NULL,
        submission_id   TEXT NOT NULL,
        act_as          TEXT NOT NULL,
        record_time     TEXT NOT NULL,
        effective_at    TEXT NOT NULL,
        synchronizer_id TEXT NOT NULL,
        trace_context   TEXT,
        body            TEXT NOT NULL
    );
    INSERT INTO updates_6 SELECT "offset", update_id, kind, command_id, workflow_id, user_id, submission_id, act_as,
        record_time, effective_at, synchronizer_id, trace_context, body FROM updates ORDER BY "offset";
    DROP TABLE updates;
    ALTER TABLE updates_6 RENAME TO updates;
    CREATE UNIQUE INDEX updates_by_id ON updates (substr(update_id, -12), update_id);
    """,
    # 7: the HS256 secret `serve` generates moves from `meta` to `<db>.secret`, a file only its owner may read.
    Step(before=_secret_out_of_meta, script=f"DELETE FROM meta WHERE key = '{META_KEY}';"),
]

SCHEMA_VERSION = len(MIGRATIONS)
FREE_BYTES_WORTH_SAYING = 64 * 2**20  # an upgrade that frees less leaves nothing worth a compaction


class NewerSchemaError(RuntimeError):
    pass


class NotADatabase(Exception):
    """The file exists but is not a participant's SQLite database."""


async def migrate(conn: aiosqlite.Connection) -> None:
    """Bring the database to SCHEMA_VERSION; each step is one atomic transaction."""
    try:
        version = await fetch_value(conn, "PRAGMA user_version")
    except sqlite3.DatabaseError as e:
        raise NotADatabase(f"not a participant database ({e})") from None
    if version > SCHEMA_VERSION:
        raise NewerSchemaError(
            f"database schema version {version} is newer than this program's ({SCHEMA_VERSION}); upgrade ledger-tui"
        )
    if 0 < version < SCHEMA_VERSION:
        log.info(
            "upgrading the database from schema %d to %d; tables may be rebuilt, which takes minutes on a "
            "large database",
            version,
            SCHEMA_VERSION,
        )
    for target in range(version + 1, SCHEMA_VERSION + 1):
        script = MIGRATIONS[target - 1]
        if isinstance(script, Step):
            await script.before(conn)
            script = script.script
        # executescript commits first; BEGIN makes the step and its version bump one transaction.
        await conn.executescript(f"BEGIN IMMEDIATE;\n{script}\nPRAGMA user_version = {target};\nCOMMIT;")
    if 0 < version < SCHEMA_VERSION:
        free = await fetch_value(conn, "PRAGMA freelist_count")
        page = await fetch_value(conn, "PRAGMA page_size")
        if free * page >= FREE_BYTES_WORTH_SAYING:
            log.info(
                "the upgrade left %d MB of free pages in the file, reused for new rows; with the server "
                "stopped, `ledger-participant compact` gives them back to the disk",
                free * page // 2**20,
            )
