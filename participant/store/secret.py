"""The HS256 secret `serve` generates when it is given no auth option.

It lives in `<db>.secret`, created 0600, beside the database, which holds no secret: a database may be copied,
shared or read by other tools, and SQLite's files are not where a key belongs. Schema versions before 7 kept it in
the database's `meta` table; the upgrade to 7 (`schema.MIGRATIONS`) moves it here, unchanged, so that the tokens
already signed with it stay valid.
"""

from __future__ import annotations

import secrets
from pathlib import Path

from participant.store.private_files import write_new_private_file

META_KEY = "hs256_secret"  # where schema versions before 7 kept it


class SecretConflict(Exception):
    """`<db>.secret` holds another secret than the one the database held."""


def secret_path(db: Path) -> Path:
    return db.with_name(db.name + ".secret")


def read_secret(db: Path) -> str | None:
    """The generated secret of `db`, or None if there is none (yet)."""
    try:
        return secret_path(db).read_text(encoding="utf-8").strip() or None
    except FileNotFoundError:
        return None


def generated_secret(db: Path) -> str:
    """The secret of `db`, generated on first use."""
    write_new_private_file(secret_path(db), secrets.token_urlsafe(32) + "\n")  # loses to one made meanwhile
    secret = read_secret(db)
    assert secret is not None, "the secret file was just written"
    return secret


def keep_secret(db: Path, secret: str) -> None:
    """Make `secret` the one in `<db>.secret` (for the upgrade of a database that held it); the file may already
    hold it, written by an upgrade that was interrupted before it committed."""
    write_new_private_file(secret_path(db), secret + "\n")
    if read_secret(db) != secret:
        raise SecretConflict(
            f"{secret_path(db)} holds another secret than the one kept in {db}; tokens were signed with the "
            f"database's: remove {secret_path(db)} to keep using it"
        )
