"""What `serve` writes beside the database is readable by its owner only: the database, its WAL and shared-memory
files, the directory made for them, and the generated secret, which is kept out of the database. A database from a
version that kept the secret in `meta` is upgraded: the same secret moves to the file, so its tokens stay valid."""

from __future__ import annotations

import sqlite3
import stat
from pathlib import Path

import pytest

from participant.auth import mint_token
from participant.store.schema import MIGRATIONS
from tests.conftest import start_server
from tests.test_cli import cli, get, mint

pytestmark = pytest.mark.usefixtures("umask_022")

OLD_SECRET = "an-old-secret-kept-in-meta-" + "x" * 24


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def meta(db: Path) -> dict[str, str]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return dict(conn.execute("SELECT key, value FROM meta"))
    finally:
        conn.close()


def version_6_database_with_secret(db: Path) -> None:
    """A database as versions before 7 left it after `serve` generated a secret (created with the umask's mode)."""
    conn = sqlite3.connect(db, isolation_level=None)
    for version, script in enumerate(MIGRATIONS[:6], start=1):
        conn.executescript(f"BEGIN; {script} PRAGMA user_version = {version}; COMMIT;")
    conn.execute("INSERT INTO meta VALUES ('hs256_secret', ?)", (OLD_SECRET,))
    conn.close()


def test_serve_keeps_the_database_and_the_generated_secret_private(tmp_path):
    db = tmp_path / "made-by-serve" / "ledger.db"
    server = start_server(db)  # no auth option: a secret is generated
    try:
        secret_file = db.with_name("ledger.db.secret")
        for path in (db, Path(f"{db}-wal"), Path(f"{db}-shm"), secret_file):
            assert mode(path) == 0o600, path
        assert mode(db.parent) == 0o700
        assert "hs256_secret" not in meta(db)
        assert "namespace" in meta(db)  # the rest of meta is there
        secret = secret_file.read_text().strip()
        admin = mint_token(hs256_secret=secret, user_id="participant_admin")
        assert get(server, "/v2/users", admin).status_code == 200
        assert mint("--db", str(db), "--user", "participant_admin")
    finally:
        server.stop()


def test_an_old_database_gives_its_secret_to_the_file_and_its_tokens_stay_valid(tmp_path):
    db = tmp_path / "ledger.db"
    version_6_database_with_secret(db)
    assert mode(db) == 0o644
    old_token = mint("--db", str(db), "--user", "participant_admin")  # read from meta: not upgraded yet
    server = start_server(db)
    try:
        assert get(server, "/v2/users", old_token).status_code == 200
        assert db.with_name("ledger.db.secret").read_text().strip() == OLD_SECRET
        assert mode(db.with_name("ledger.db.secret")) == 0o600
        assert "hs256_secret" not in meta(db)
        for path in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
            assert mode(path) == 0o600, path  # they held the secret
        new_token = mint("--db", str(db), "--user", "participant_admin")
        assert get(server, "/v2/users", new_token).status_code == 200
    finally:
        server.stop()
    for path in (db, Path(f"{db}-wal")):  # deleted with secure_delete: not left behind in a free page
        assert not path.exists() or OLD_SECRET.encode() not in path.read_bytes()


def test_a_secret_file_that_disagrees_with_the_database_is_not_overwritten(tmp_path):
    db = tmp_path / "ledger.db"
    version_6_database_with_secret(db)
    other = db.with_name("ledger.db.secret")
    other.write_text("another-secret\n")
    r = cli("serve", "--db", str(db), "--port", "0", "--quiet", timeout=60)
    assert r.returncode == 2
    assert "holds another secret" in r.stderr and str(other) in r.stderr
    assert other.read_text() == "another-secret\n"
    assert meta(db)["hs256_secret"] == OLD_SECRET


def test_a_secret_file_that_cannot_be_read_is_an_error_not_a_traceback(tmp_path):
    db = tmp_path / "ledger.db"
    db.with_name("ledger.db.secret").mkdir()  # in the way, and unreadable as a file
    r = cli("serve", "--db", str(db), "--port", "0", "--quiet", timeout=60)
    assert r.returncode == 2 and r.stderr.startswith("error: cannot keep the secret in"), r.stderr
    r = cli("token", "--db", str(db), "--user", "participant_admin")
    assert r.returncode == 2 and r.stderr.startswith("error: cannot read the secret file"), r.stderr
