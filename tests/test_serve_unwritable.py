"""`ledger-participant serve` refuses a database it could not write before it serves anything (exit 2, one line
saying why), although its write process starts beside the server and meets the database only later: a read-only
file, a directory that cannot be made, a file that is not SQLite. Each on real files."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import start_server
from tests.test_cli import cli

SERVE = ("--port", "0", "--hs256-secret", "a secret")  # a secret given: nothing but the server reads the file


def refused(db: Path, *, says: str) -> None:
    r = cli("serve", "--db", str(db), *SERVE, timeout=30)  # raises TimeoutExpired if it serves
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith("error: ") and says in r.stderr, r.stderr
    assert "Traceback" not in r.stderr, r.stderr


@pytest.fixture
def read_only(tmp_path) -> Iterator[Path]:
    """A participant's database, served once (its identity stored: a later start writes nothing until asked to),
    that this process may not write: mode 0444, and for root, to whom modes are no bar, the immutable attribute
    (taken off again, or the temporary directory could not be removed)."""
    db = tmp_path / "ledger.db"
    start_server(db, *SERVE[2:]).stop()
    db.chmod(0o444)
    immutable = os.geteuid() == 0
    if immutable:
        chattr = shutil.which("chattr")
        if chattr is None or subprocess.run([chattr, "+i", str(db)], capture_output=True).returncode != 0:
            pytest.skip("running as root, and the file cannot be made immutable here")
    try:
        yield db
    finally:
        if immutable:
            subprocess.run(["chattr", "-i", str(db)], check=True)


def test_a_read_only_database_is_refused(read_only):
    before = read_only.read_bytes()
    refused(read_only, says=f"cannot open {read_only} for writing: attempt to write a readonly database")
    assert read_only.read_bytes() == before


def test_a_database_in_a_directory_that_cannot_be_made_is_refused(tmp_path):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the database's directory would be")
    refused(blocker / "ledger.db", says=f"cannot open {blocker / 'ledger.db'}: ")
    assert blocker.read_text().startswith("a file where")


def test_a_file_that_is_not_sqlite_is_refused_with_any_authentication(tmp_path):
    db = tmp_path / "notes.db"
    db.write_bytes(b"this is not a SQLite database, only some text " * 4)
    refused(db, says=f"{db} is not a participant database (file is not a database)")
    assert db.read_bytes().startswith(b"this is not")
