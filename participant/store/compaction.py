"""Compaction: give the disk back the pages that pruning and schema upgrades left free in the file.

SQLite reuses free pages for new rows but never shrinks the file by itself; VACUUM rewrites it without them. It is
one transaction: interrupted, or short of disk space, it leaves the database as it was. It needs the file to
itself, so the caller makes sure no server holds the database.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from participant.store.fetch import fetch_value
from participant.store.schema import NotADatabase
from participant.store.store import connect


class CompactError(ValueError):
    pass


@dataclass(frozen=True)
class Compaction:
    bytes_before: int
    bytes_after: int
    free_pages: int
    """Free pages found before; 0: nothing was rewritten."""
    seconds: float


async def compact(path: Path | str, starting: Callable[[int, int], None] | None = None) -> Compaction:
    """VACUUM the database at `path` when it has free pages (calling `starting` with the file's size and their
    number first), then empty its WAL. A file that is not a participant database is refused untouched."""
    path = Path(path)
    if not path.is_file():
        raise CompactError(f"no database at {path}")
    before = path.stat().st_size
    reader = await connect(path, read_only=True)  # opening it to write would make an empty file a database
    try:
        version = await fetch_value(reader, "PRAGMA user_version")
        free = await fetch_value(reader, "PRAGMA freelist_count")
    except sqlite3.DatabaseError as e:
        raise NotADatabase(f"{path} is not a participant database ({e})") from None
    finally:
        await reader.close()
    if version == 0:
        raise CompactError(f"{path} is not a participant database (it has no ledger schema)")
    if not free:
        return Compaction(before, before, 0, 0.0)
    if starting is not None:
        starting(before, free)
    started = time.perf_counter()
    conn = await connect(path)
    try:
        try:
            await conn.execute("VACUUM")
        except sqlite3.OperationalError as e:
            raise CompactError(f"VACUUM failed, the database is unchanged: {e}") from None
        await conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        await conn.close()
    return Compaction(before, path.stat().st_size, free, time.perf_counter() - started)
