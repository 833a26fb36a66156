"""Every SQL statement the participant runs, in one place."""

from participant.store.rows import CONTRACT_COLUMNS, UPDATE_COLUMNS

BUSY_TIMEOUT_MS = 10_000
# Every connection's settings; the writer's alone also sets the journal and sync modes (WRITE_PRAGMAS).
READ_PRAGMAS = (f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}", "PRAGMA foreign_keys = ON")
WRITE_PRAGMAS = ("PRAGMA journal_mode = WAL", "PRAGMA synchronous = FULL")

ACTIVE_CONTRACT = f"SELECT {CONTRACT_COLUMNS} FROM contracts WHERE contract_id = ? AND archive_offset IS NULL"
ACTIVE_CONTRACT_BY_KEY = (
    f"SELECT {CONTRACT_COLUMNS} FROM contracts "
    "WHERE template_id = ? AND key_hash = ? AND archive_offset IS NULL"
)
CONTRACT_BY_ID = f"SELECT {CONTRACT_COLUMNS} FROM contracts WHERE contract_id = ?"
LATEST_COMPLETION = (
    'SELECT "offset", submission_id, record_time FROM completions WHERE change_key = ? '
    'ORDER BY "offset" DESC LIMIT 1'
)

# SQLite returns the bare columns of the row that holds the MAX.
LATEST_COMPLETIONS = (
    'SELECT change_key, MAX("offset"), submission_id, record_time FROM completions '
    "WHERE change_key IN ({marks}) GROUP BY change_key"
)

INSERT_UPDATE = f"INSERT INTO updates ({UPDATE_COLUMNS}) VALUES ({', '.join('?' * 13)})"
INSERT_CONTRACT = f"INSERT INTO contracts ({CONTRACT_COLUMNS}, acs_event) VALUES ({', '.join('?' * 18)})"
INSERT_STAKEHOLDER = "INSERT INTO stakeholders (party, seq) VALUES (?, ?)"
ARCHIVE_CONTRACT = "UPDATE contracts SET archive_offset = ?, archive_node_id = ? WHERE contract_id = ?"
COMPLETION_COLUMNS = (
    '"offset", user_id, command_id, change_key, act_as, submission_id, update_id, record_time, '
    "synchronizer_id, dedup_period"
)
INSERT_COMPLETION = f"INSERT INTO completions ({COMPLETION_COLUMNS}) VALUES ({', '.join('?' * 10)})"

LEDGER_END = 'SELECT COALESCE(MAX("offset"), 0) FROM updates'
NEXT_SEQ = "SELECT COALESCE(MAX(seq), 0) + 1 FROM contracts"
GET_META = "SELECT value FROM meta WHERE key = ?"
SET_META = "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value"

# "Active at offset N": created at or before N, not archived at or before N. Activation order is seq.
_ACTIVE_AT = "create_offset <= :offset AND (archive_offset IS NULL OR archive_offset > :offset) AND seq > :after"
# Party filters walk the stakeholder index of each party in seq order; the caller merges the parties.
ACS_SEQS_OF_PARTY = (
    "SELECT s.seq FROM stakeholders s JOIN contracts c ON c.seq = s.seq "
    "WHERE s.party = :party AND s.seq > :after AND c.create_offset <= :offset "
    "AND (c.archive_offset IS NULL OR c.archive_offset > :offset) ORDER BY s.seq LIMIT :limit"
)

# The ACS hot path reads only what an entry shows, in this order (participant.shaping.AcsRenderer unpacks it).
ACS_ROW_COLUMNS = (
    "seq, workflow_id, signatories, observers, template_id, package_name, acs_event, synchronizer_id, "
    "reassignment_counter"
)
_ACS_ROW_COLUMNS_C = ", ".join("c." + c.strip() for c in ACS_ROW_COLUMNS.split(","))
_ACTIVE_AT_C = "c.create_offset <= :offset AND (c.archive_offset IS NULL OR c.archive_offset > :offset)"
ACS_ROWS_ALL = f"SELECT {ACS_ROW_COLUMNS} FROM contracts WHERE {_ACTIVE_AT} ORDER BY seq LIMIT :limit"
# One party: its stakeholder index in seq order, joined to the contract rows, in one statement.
ACS_ROWS_OF_PARTY = (
    f"SELECT {_ACS_ROW_COLUMNS_C} FROM stakeholders s JOIN contracts c ON c.seq = s.seq "
    f"WHERE s.party = :party AND s.seq > :after AND {_ACTIVE_AT_C} ORDER BY s.seq LIMIT :limit"
)
ACS_ROWS_BY_SEQ = "SELECT " + ACS_ROW_COLUMNS + " FROM contracts WHERE seq IN ({marks}) ORDER BY seq"
# How many contracts a snapshot may show, capped: decides a list answer's 413 before anything is sent.
ACS_COUNT_ALL = f"SELECT COUNT(*) FROM (SELECT 1 FROM contracts WHERE {_ACTIVE_AT} LIMIT :cap)"
ACS_COUNT_OF_PARTIES = (
    "SELECT COUNT(*) FROM (SELECT DISTINCT s.seq FROM stakeholders s JOIN contracts c ON c.seq = s.seq "
    f"WHERE s.party IN (SELECT value FROM json_each(:parties)) AND s.seq > :after AND {_ACTIVE_AT_C} LIMIT :cap)"
)

UPDATES_RANGE = (
    f'SELECT {UPDATE_COLUMNS} FROM updates WHERE "offset" > ? AND "offset" <= ? ORDER BY "offset" LIMIT ?'
)
UPDATE_AT_OFFSET = f'SELECT {UPDATE_COLUMNS} FROM updates WHERE "offset" = ?'
UPDATE_BY_ID = f"SELECT {UPDATE_COLUMNS} FROM updates WHERE update_id = ?"  # the UNIQUE constraint's index
COMPLETIONS_RANGE = (
    f'SELECT {COMPLETION_COLUMNS} FROM completions WHERE "offset" > ? AND user_id = ? ORDER BY "offset" LIMIT ?'
)

# Users, rights and parties
USER = (
    "SELECT id, primary_party, is_deactivated, annotations, resource_version, identity_provider_id, "
    "primary_party_authentication FROM users WHERE id = ?"
)
USERS_PAGE = (
    "SELECT id, primary_party, is_deactivated, annotations, resource_version, identity_provider_id, "
    "primary_party_authentication FROM users WHERE id > ? ORDER BY id LIMIT ?"
)
RIGHTS_OF_USER = "SELECT kind, party FROM user_rights WHERE user_id = ? ORDER BY kind, party"
INSERT_USER = (
    "INSERT INTO users (id, primary_party, is_deactivated, annotations, resource_version, identity_provider_id, "
    "primary_party_authentication) VALUES (?, ?, ?, ?, 0, ?, ?)"
)
DELETE_USER = "DELETE FROM users WHERE id = ?"
DELETE_RIGHTS_OF_USER = "DELETE FROM user_rights WHERE user_id = ?"
INSERT_RIGHT = "INSERT OR IGNORE INTO user_rights (user_id, kind, party) VALUES (?, ?, ?)"
DELETE_RIGHT = "DELETE FROM user_rights WHERE user_id = ? AND kind = ? AND party = ?"
PARTY = "SELECT party, annotations, resource_version, identity_provider_id FROM parties WHERE party = ?"
PARTIES_PAGE = (
    "SELECT party, annotations, resource_version, identity_provider_id FROM parties "
    "WHERE party > ? AND party LIKE ? ESCAPE '\\' ORDER BY party LIMIT ?"
)
INSERT_PARTY = "INSERT INTO parties (party, annotations, identity_provider_id) VALUES (?, ?, ?)"

# Pruning
PRUNE_UPDATES = 'DELETE FROM updates WHERE "offset" <= ?'
PRUNE_COMPLETIONS = 'DELETE FROM completions WHERE "offset" <= ?'
PRUNE_STAKEHOLDERS = (
    "DELETE FROM stakeholders WHERE seq IN (SELECT seq FROM contracts WHERE archive_offset <= ?)"
)
PRUNE_CONTRACTS = "DELETE FROM contracts WHERE archive_offset <= ?"
