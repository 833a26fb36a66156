"""The contracts a session read, kept for the next session of the same participant and user: its cache file, not
deleted at the exit but kept under a name made of the two, with what the next session needs to show its rows at
once (marked as the last session's, not current) and to bring them up to date from the offset they were read at
(the updates since, not another snapshot).

Kept only when the cache holds a whole snapshot of the user's own parties (what a start shows first), and used
only by a session of the same participant and the same user: the name says which, and the file says it again
(a name made of a hash is checked against what it was made of). Once connected, the participant has the last word:
the rows are brought up to date only when it names the same user with the same parties, else they are dropped."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlite3

KEPT_TABLE = "kept_for_next_session"


@dataclass(frozen=True)
class KeptKey:
    """Whose rows: the participant (its URL, or the bundled participant's database) and the user acting."""

    participant: str
    user: str

    def path(self, directory: Path) -> Path:
        digest = hashlib.sha256(json.dumps([self.participant, self.user]).encode()).hexdigest()[:24]
        return directory / f"kept-{digest}.db"


@dataclass(frozen=True)
class Whose:
    """Whose rows a cache file holds: the key, and the participant's id, user id and parties as the participant
    named them (a later session uses the rows only when it names the same), and the offset viewed."""

    key: KeptKey
    participant_id: str
    user_id: str | None
    parties: list[str] | None
    viewed: int


@dataclass(frozen=True)
class Kept:
    """A kept cache file: whose it is, and the offsets it covers (`whose.viewed` within them)."""

    path: Path
    whose: Whose
    lo: int
    hi: int


KEPT_AT_MOST = 3  # files, the most recently kept: each may hold a whole ACS (a million contracts take a GB)

COLUMNS = "participant, user, participant_id, user_id, parties, viewed, lo, hi"


def find_kept(directory: Path, key: KeptKey) -> Kept | None:
    """The file kept for `key` in `directory`, if there is one that is readable and says it is `key`'s."""
    import sqlite3  # not before the first frame, which asks only whether there is a file (`KeptKey.path`)

    path = key.path(directory)
    if not path.is_file():
        return None
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            row = db.execute(f"SELECT {COLUMNS} FROM {KEPT_TABLE}").fetchone()
        finally:
            db.close()
    except sqlite3.Error:
        return None
    if row is None or (row[0], row[1]) != (key.participant, key.user):
        return None
    _, _, participant_id, user_id, parties, viewed, lo, hi = row
    return Kept(path, Whose(key, participant_id, user_id, json.loads(parties), viewed), lo, hi)


def describe(whose: Whose, lo: int, hi: int) -> Callable[[sqlite3.Connection], None]:
    """What `Store.keep` writes into the file: the key and what the next session checks it against."""

    def write(db: sqlite3.Connection) -> None:
        db.execute(f"DROP TABLE IF EXISTS {KEPT_TABLE}")
        db.execute(f"CREATE TABLE {KEPT_TABLE} ({COLUMNS})")
        key = whose.key
        db.execute(
            f"INSERT INTO {KEPT_TABLE} VALUES (?,?,?,?,?,?,?,?)",
            (
                key.participant,
                key.user,
                whose.participant_id,
                whose.user_id,
                json.dumps(whose.parties),
                whose.viewed,
                lo,
                hi,
            ),
        )

    return write


def forget_the_oldest(directory: Path, at_most: int = KEPT_AT_MOST) -> None:
    """Delete the kept files beyond the `at_most` most recently kept (of other participants or users)."""
    kept = sorted(directory.glob("kept-*.db"), key=lambda p: p.stat().st_mtime, reverse=True)
    for path in kept[at_most:]:
        path.unlink(missing_ok=True)
