"""The contracts a session read, kept for the next session of the same participant and user: its cache file, not
deleted at the exit but kept under a name made of the two, with what the next session needs to show its rows at
once (marked as the last session's, not current) and to bring them up to date from the offset they were read at
(the updates since, not another snapshot).

Kept only when the cache holds a whole snapshot of the user's own parties (what a start shows first), and used
only by a session of the same participant and the same user: the name says which, and the file says it again
(a name made of a hash is checked against what it was made of). Once connected, the participant has the last word:
the rows are brought up to date only when it names the same user with the same parties, else they are dropped.

Bounded: a file is kept whole only up to `KEPT_WHOLE_AT_MOST` bytes (about 60,000 contracts); a larger one keeps only
the first `KEPT_FIRST_ROWS` contracts of the offset viewed, in arrival order, and how many there were: a start
shows them at once as it shows a whole file's (the first screens of the same view), and reads a new snapshot
rather than the updates since, which a part of the contracts cannot be brought up to date by. A million contracts
took a GB of the user's home for each of three files, and a start drew its first rows from one only after
ordering the million (seconds), later than the participant's own first page would have come."""

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
    """A kept cache file: whose it is, and the offsets it covers (`whose.viewed` within them); `first_of`, when it
    holds only the first contracts of the offset viewed, how many that offset had (None: the whole snapshot)."""

    path: Path
    whose: Whose
    lo: int
    hi: int
    first_of: int | None = None


KEPT_AT_MOST = 3  # files, the most recently kept
KEPT_WHOLE_AT_MOST = 64 * 1024 * 1024  # bytes of a file kept whole (about 1 KB a contract)
KEPT_FIRST_ROWS = 1_000  # contracts of a larger one kept: 25 screens of 40 rows, under a MB

COLUMNS = "participant, user, participant_id, user_id, parties, viewed, lo, hi, first_of"


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
    _, _, participant_id, user_id, parties, viewed, lo, hi, first_of = row
    return Kept(path, Whose(key, participant_id, user_id, json.loads(parties), viewed), lo, hi, first_of)


def kept_whole(path: Path) -> bool:
    """The cache file at `path` is small enough to be kept whole (else only its first rows are)."""
    return path.stat().st_size <= KEPT_WHOLE_AT_MOST


def describe(whose: Whose, lo: int, hi: int) -> Callable[[sqlite3.Connection, int | None], None]:
    """What `Store.keep` (and `Store.keep_first`, with the number of contracts the first rows are of) writes into
    the file: the key and what the next session checks it against."""

    def write(db: sqlite3.Connection, first_of: int | None = None) -> None:
        db.execute(f"DROP TABLE IF EXISTS {KEPT_TABLE}")
        db.execute(f"CREATE TABLE {KEPT_TABLE} ({COLUMNS})")
        key = whose.key
        db.execute(
            f"INSERT INTO {KEPT_TABLE} VALUES (?,?,?,?,?,?,?,?,?)",
            (
                key.participant,
                key.user,
                whose.participant_id,
                whose.user_id,
                json.dumps(whose.parties),
                whose.viewed,
                lo,
                hi,
                first_of,
            ),
        )

    return write


def forget_the_oldest(directory: Path, at_most: int = KEPT_AT_MOST) -> None:
    """Delete the kept files beyond the `at_most` most recently kept (of other participants or users)."""
    kept = sorted(directory.glob("kept-*.db"), key=lambda p: p.stat().st_mtime, reverse=True)
    for path in kept[at_most:]:
        path.unlink(missing_ok=True)
