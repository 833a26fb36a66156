"""Every SQL statement the participant runs, in one place."""

import functools

from participant.store.rows import CONTRACT_COLUMNS, UPDATE_COLUMNS


def by_id(column: str, param: str) -> str:
    """`column = param`, through the id index: contracts and updates are indexed by the last characters of their id
    (the time it was minted, see `IdGenerator`) and then the whole id (schema 6), so that a group commit adds to the
    end of the index instead of one random page per id. SQLite uses an index on an expression only where a query
    states that expression, and the `+` keeps SQLite from replacing the column by the parameter in that expression
    (constant propagation), which leaves nothing for the index to search by."""
    return f"substr({column}, -12) = substr({param}, -12) AND +{column} = {param}"


# Not archived, in flight or not (the last column: the reassignment it is in flight in, or NULL).
ACTIVE_CONTRACT = f"SELECT {CONTRACT_COLUMNS}, in_flight FROM contracts WHERE {by_id('contract_id', '?1')} AND archive_offset IS NULL"
ACTIVE_CONTRACT_BY_KEY = (
    f"SELECT {CONTRACT_COLUMNS} FROM contracts "
    "WHERE template_id = ? AND key_hash = ? AND archive_offset IS NULL"
)
CONTRACT_BY_ID = f"SELECT {CONTRACT_COLUMNS} FROM contracts WHERE {by_id('contract_id', '?1')}"
# Successes only: a failed submission never makes a later one a duplicate.
# A change key is the JSON array [userId, actAs, commandId] (`committer.change_key`); the index is on the command
# id alone (schema migration 5), which these take from the key.
LATEST_COMPLETION = (
    'SELECT "offset", submission_id, record_time FROM completions '
    "WHERE command_id = json_extract(?1, '$[2]') AND change_key = ?1 AND status IS NULL "
    'ORDER BY "offset" DESC LIMIT 1'
)

# SQLite returns the bare columns of the row that holds the MAX. `commands` are `json_extract(?N, '$[2]')` of the
# same numbered parameters as `marks` (see `latest_completions`).
LATEST_COMPLETIONS = (
    'SELECT change_key, MAX("offset"), submission_id, record_time FROM completions '
    "WHERE command_id IN ({commands}) AND change_key IN ({marks}) AND status IS NULL GROUP BY change_key"
)


@functools.lru_cache(maxsize=512)
def latest_completions(count: int) -> str:
    """LATEST_COMPLETIONS for `count` change keys, bound as ?1 .. ?count."""
    numbers = range(1, count + 1)
    return LATEST_COMPLETIONS.format(
        commands=", ".join(f"json_extract(?{n}, '$[2]')" for n in numbers),
        marks=", ".join(f"?{n}" for n in numbers),
    )


INSERT_UPDATE = f"INSERT INTO updates ({UPDATE_COLUMNS}) VALUES ({', '.join('?' * 13)})"
INSERT_CONTRACT = f"INSERT INTO contracts ({CONTRACT_COLUMNS}, acs_event) VALUES ({', '.join('?' * 18)})"
INSERT_STAKEHOLDER = "INSERT INTO stakeholders (party, seq) VALUES (?, ?)"
ARCHIVE_CONTRACT = (
    f"UPDATE contracts SET archive_offset = ?1, archive_node_id = ?2 WHERE {by_id('contract_id', '?3')}"
)
COMPLETION_COLUMNS = (
    '"offset", user_id, command_id, change_key, act_as, submission_id, update_id, record_time, '
    "synchronizer_id, dedup_period, status"
)
INSERT_COMPLETION = f"INSERT INTO completions ({COMPLETION_COLUMNS}) VALUES ({', '.join('?' * 11)})"

# Reassignment
REASSIGNMENT_EVENT_COLUMNS = (
    '"offset", node_id, kind, reassignment_id, contract_seq, contract_id, source, target, submitter, counter'
)
INSERT_REASSIGNMENT_EVENT = (
    f"INSERT INTO reassignment_events ({REASSIGNMENT_EVENT_COLUMNS}) "
    f"VALUES (?, ?, ?, ?, (SELECT seq FROM contracts WHERE {by_id('contract_id', '?')}), ?, ?, ?, ?, ?)"
)
# The state a reassignment leaves a contract in. SET reads the old values: the origin is kept from the first move.
REASSIGN_CONTRACT = (
    "UPDATE contracts SET origin_synchronizer = COALESCE(origin_synchronizer, synchronizer_id), "
    "synchronizer_id = ?1, reassignment_counter = ?2, in_flight = ?3, moved_offset = COALESCE(moved_offset, ?4) "
    f"WHERE {by_id('contract_id', '?5')}"
)
REASSIGNMENT_BY_ID = (
    "SELECT kind, contract_id, source, target, submitter, counter FROM reassignment_events "
    "WHERE reassignment_id = ? ORDER BY seq"
)
CONTRACT_MOVES = f"SELECT origin_synchronizer, in_flight FROM contracts WHERE {by_id('contract_id', '?1')}"

# The pruning offset counts: pruned up to the end, the updates table is empty, and the next offset must still
# come after every offset a client has seen.
LEDGER_END = (
    'SELECT MAX(COALESCE((SELECT MAX("offset") FROM updates), 0), '
    "COALESCE((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'pruned_offset'), 0))"
)
NEXT_SEQ = "SELECT COALESCE(MAX(seq), 0) + 1 FROM contracts"
GET_META = "SELECT value FROM meta WHERE key = ?"
SET_META = (
    "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value"
)

# "Active at offset N": created at or before N, not archived at or before N. Activation order is seq.
# Contracts that moved before the offset are left to `ACS_MOVED` (the fast path is for those that never did).
_ACTIVE_AT = (
    "create_offset <= :offset AND (archive_offset IS NULL OR archive_offset > :offset) "
    "AND (moved_offset IS NULL OR moved_offset > :offset) AND seq > :after"
)
# Party filters walk the stakeholder index of each party in seq order; the caller merges the parties.
ACS_SEQS_OF_PARTY = (
    "SELECT s.seq FROM stakeholders s JOIN contracts c ON c.seq = s.seq "
    "WHERE s.party = :party AND s.seq > :after AND c.create_offset <= :offset "
    "AND (c.archive_offset IS NULL OR c.archive_offset > :offset) "
    "AND (c.moved_offset IS NULL OR c.moved_offset > :offset) ORDER BY s.seq LIMIT :limit"
)


# The ACS hot path reads only what an entry shows, in this order (participant.projection.shaping.AcsRenderer unpacks it).
# A contract on the fast path that moved later is read as it was before: on its origin, with counter 0.
def _acs_row_columns(p: str) -> str:
    return (
        f"{p}seq, {p}workflow_id, {p}signatories, {p}observers, {p}template_id, {p}package_name, {p}acs_event, "
        f"COALESCE({p}origin_synchronizer, {p}synchronizer_id), "
        f"CASE WHEN {p}moved_offset IS NULL THEN {p}reassignment_counter ELSE 0 END"
    )


ACS_ROW_COLUMNS = _acs_row_columns("")
_ACS_ROW_COLUMNS_C = _acs_row_columns("c.")
_ACTIVE_AT_C = (
    "c.create_offset <= :offset AND (c.archive_offset IS NULL OR c.archive_offset > :offset) "
    "AND (c.moved_offset IS NULL OR c.moved_offset > :offset)"
)
ACS_ROWS_ALL = f"SELECT {ACS_ROW_COLUMNS} FROM contracts WHERE {_ACTIVE_AT} ORDER BY seq LIMIT :limit"
# One party: its stakeholder index in seq order, joined to the contract rows, in one statement.
ACS_ROWS_OF_PARTY = (
    f"SELECT {_ACS_ROW_COLUMNS_C} FROM stakeholders s JOIN contracts c ON c.seq = s.seq "
    f"WHERE s.party = :party AND s.seq > :after AND {_ACTIVE_AT_C} ORDER BY s.seq LIMIT :limit"
)
ACS_ROWS_BY_SEQ = "SELECT " + ACS_ROW_COLUMNS + " FROM contracts WHERE seq IN ({marks}) ORDER BY seq"
# One party's entries when they all show the same request members (the party as witness, no blob, no views):
# rendered whole here, as bytes, with the caller's printf format (`shaping.AcsRenderer.entry_format`), so that no
# row is worked on in Python. json_quote escapes exactly as orjson does; the arguments are the columns of
# `ACS_ROW_COLUMNS` that the entry shows.
ACS_ENTRIES_OF_PARTY = (
    "SELECT c.seq, CAST(printf(:format, json_quote(c.workflow_id), c.acs_event, "
    "json_quote(COALESCE(c.origin_synchronizer, c.synchronizer_id)), "
    "CASE WHEN c.moved_offset IS NULL THEN c.reassignment_counter ELSE 0 END, c.seq) AS BLOB) "
    "FROM stakeholders s JOIN contracts c ON c.seq = s.seq "
    f"WHERE s.party = :party AND s.seq > :after AND {_ACTIVE_AT_C} ORDER BY s.seq LIMIT :limit"
)
# How many contracts a snapshot may show, capped: decides a list answer's 413 before anything is sent.
ACS_COUNT_ALL = f"SELECT COUNT(*) FROM (SELECT 1 FROM contracts WHERE {_ACTIVE_AT} LIMIT :cap)"
ACS_COUNT_OF_PARTIES = (
    "SELECT COUNT(*) FROM (SELECT DISTINCT s.seq FROM stakeholders s JOIN contracts c ON c.seq = s.seq "
    f"WHERE s.party IN (SELECT value FROM json_each(:parties)) AND s.seq > :after AND {_ACTIVE_AT_C} LIMIT :cap)"
)

# A looser bound, from the stakeholder index alone (archived contracts too): enough when it is under the limit.
ACS_COUNT_STAKEHOLDER_ROWS = (
    "SELECT COUNT(*) FROM (SELECT DISTINCT seq FROM stakeholders "
    "WHERE party IN (SELECT value FROM json_each(:parties)) AND seq > :after LIMIT :cap)"
)

# Read from the index of contracts that moved (the few), never from all of a party's contracts.
# Contracts that had moved by the offset and are not archived there, each with its latest reassignment event
# at or before it (an assignment: active on its target; an unassignment: in flight), and for those in flight
# the offset and node of their latest activation (their last assignment, or none: their create).
ACS_MOVED = (
    f'SELECT {_ACS_ROW_COLUMNS_C}, e.seq, e.kind, e."offset", e.node_id, e.reassignment_id, e.source, e.target, '
    "e.submitter, e.counter, c.create_offset, c.create_node_id, "
    "(SELECT a.\"offset\" || ':' || a.node_id FROM reassignment_events a WHERE a.contract_seq = c.seq "
    "AND a.kind = 'assign' AND a.seq < e.seq ORDER BY a.seq DESC LIMIT 1) "
    "FROM contracts c INDEXED BY contracts_moved JOIN reassignment_events e ON e.contract_seq = c.seq "
    "WHERE c.moved_offset IS NOT NULL AND c.moved_offset <= :offset AND c.create_offset <= :offset "
    "AND (c.archive_offset IS NULL OR c.archive_offset > :offset) "
    "AND e.seq = (SELECT MAX(m.seq) FROM reassignment_events m WHERE m.contract_seq = c.seq "
    'AND m."offset" <= :offset) {parties} ORDER BY e.seq'
)
ACS_MOVED_OF_PARTIES = (
    "AND EXISTS (SELECT 1 FROM stakeholders s WHERE s.seq = c.seq "
    "AND s.party IN (SELECT value FROM json_each(:parties)))"
)

UPDATES_RANGE = (
    f'SELECT {UPDATE_COLUMNS} FROM updates WHERE "offset" > ? AND "offset" <= ? ORDER BY "offset" LIMIT ?'
)
UPDATES_RANGE_DESCENDING = f'SELECT {UPDATE_COLUMNS} FROM updates WHERE "offset" > ? AND "offset" <= ? ORDER BY "offset" DESC LIMIT ?'
UPDATE_AT_OFFSET = f'SELECT {UPDATE_COLUMNS} FROM updates WHERE "offset" = ?'
UPDATE_BY_ID = f"SELECT {UPDATE_COLUMNS} FROM updates WHERE {by_id('update_id', '?1')}"
COMPLETIONS_RANGE = f'SELECT {COMPLETION_COLUMNS} FROM completions WHERE "offset" > ? AND user_id = ? ORDER BY "offset" LIMIT ?'

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
UPDATE_USER = (
    "UPDATE users SET primary_party = ?, is_deactivated = ?, annotations = ?, resource_version = ?, "
    "primary_party_authentication = ? WHERE id = ?"
)
UPDATE_USER_IDP = "UPDATE users SET identity_provider_id = ?, resource_version = ? WHERE id = ?"
UPDATE_PARTY = "UPDATE parties SET annotations = ?, resource_version = ? WHERE party = ?"

# Identity provider configs
IDP_COLUMNS = "identity_provider_id, is_deactivated, jwks_url, issuer, audience"
IDP = f"SELECT {IDP_COLUMNS} FROM identity_provider_configs WHERE identity_provider_id = ?"
IDP_BY_ISSUER = f"SELECT {IDP_COLUMNS} FROM identity_provider_configs WHERE issuer = ?"
IDPS = f"SELECT {IDP_COLUMNS} FROM identity_provider_configs ORDER BY identity_provider_id"
INSERT_IDP = f"INSERT INTO identity_provider_configs ({IDP_COLUMNS}) VALUES (?, ?, ?, ?, ?)"
UPDATE_IDP = (
    "UPDATE identity_provider_configs SET is_deactivated = ?, jwks_url = ?, issuer = ?, audience = ? "
    "WHERE identity_provider_id = ?"
)
DELETE_IDP = "DELETE FROM identity_provider_configs WHERE identity_provider_id = ?"
IDP_IN_USE = (
    "SELECT id FROM users WHERE identity_provider_id = :idp "
    "UNION ALL SELECT party FROM parties WHERE identity_provider_id = :idp LIMIT 1"
)

# Pruning
PRUNE_UPDATES = 'DELETE FROM updates WHERE "offset" <= ?'
PRUNE_COMPLETIONS = 'DELETE FROM completions WHERE "offset" <= ?'
PRUNE_STAKEHOLDERS = (
    "DELETE FROM stakeholders WHERE seq IN (SELECT seq FROM contracts WHERE archive_offset <= ?)"
)
PRUNE_CONTRACTS = "DELETE FROM contracts WHERE archive_offset <= ?"
# Reassignment events go with their pruned contracts; of a contract still there, every event at or before the
# pruning offset but its latest one there (which says where the contract is, or that it is in flight).
PRUNE_REASSIGNMENT_EVENTS_OF_CONTRACTS = "DELETE FROM reassignment_events WHERE contract_seq IN (SELECT seq FROM contracts WHERE archive_offset <= ?)"
PRUNE_REASSIGNMENT_EVENTS = (
    'DELETE FROM reassignment_events WHERE "offset" <= :up_to AND seq < (SELECT MAX(m.seq) FROM '
    'reassignment_events m WHERE m.contract_seq = reassignment_events.contract_seq AND m."offset" <= :up_to)'
)

# Daml-LF packages (schema 8)
PACKAGE_COLUMNS = (
    "package_id, name, version, lf_version, templates, interfaces, dar_hash, is_main, uploaded_at"
)
PACKAGES = f"SELECT {PACKAGE_COLUMNS} FROM packages ORDER BY uploaded_at, package_id"
PACKAGE_PAYLOAD = "SELECT payload FROM packages WHERE package_id = ?"
PACKAGE_IDS_OF_NAME_VERSION = "SELECT package_id FROM packages WHERE name = ? AND version = ?"
PACKAGE_EXISTS = "SELECT 1 FROM packages WHERE package_id = ?"
DAR_EXISTS = "SELECT 1 FROM dars WHERE dar_hash = ?"
DAR_HASHES = "SELECT dar_hash FROM dars"
INSERT_DAR = "INSERT INTO dars (dar_hash, name, main_package_id, uploaded_at) VALUES (?, ?, ?, ?)"
INSERT_PACKAGE = (
    f"INSERT INTO packages ({PACKAGE_COLUMNS}, payload) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (package_id) DO NOTHING"
)
