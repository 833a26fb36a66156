"""WAL checkpoints in a thread of their own, so that group commits never wait for one.

SQLite's automatic checkpoint runs inside the COMMIT that pushes the WAL past its threshold: that commit then
copies about a thousand pages into the database file and syncs it, and every submission of its batch (and of the
batch queued behind it) waits the whole time. Here the writer's connection checkpoints only as a last resort
(`WRITER_AUTOCHECKPOINT`, when this thread falls far behind); after each group commit the writer pokes this thread,
which runs a PASSIVE checkpoint (one that never blocks the writer nor readers) at most every `MIN_INTERVAL_S`.

Durability does not depend on checkpoints: a commit is durable once its WAL frames are synced (synchronous=FULL).
"""

from __future__ import annotations

import logging
import sqlite3
import threading

from participant.store import sql

log = logging.getLogger(__name__)

MIN_INTERVAL_S = 0.1
# Pages (of 4 KB) the WAL may hold before the writer's own connection checkpoints after all; SQLite's default is
# 1,000, which a dozen group commits reach. Under a steady load the WAL starts over only then: a passive checkpoint
# leaves it in use while commits keep coming. By then this thread has copied all but the last moments' pages, so the
# writer's checkpoint is short, and the WAL file stays at about 40 MB.
WRITER_AUTOCHECKPOINT = 10_000


class Checkpointer:
    """A thread with its own connection that checkpoints the WAL when poked, at most every `MIN_INTERVAL_S`."""

    def __init__(self, path: str, min_interval_s: float = MIN_INTERVAL_S) -> None:
        self._path = path
        self._min_interval_s = min_interval_s
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        conn = sqlite3.connect(self._path, isolation_level=None, check_same_thread=False)
        try:
            for pragma in sql.READ_PRAGMAS:
                conn.execute(pragma)
        except BaseException:
            conn.close()
            raise
        self._thread = threading.Thread(target=self._run, args=(conn,), name="ledger-checkpoint", daemon=True)
        self._thread.start()

    def poke(self) -> None:
        """Something was committed (any thread)."""
        self._wake.set()

    def stop(self) -> None:
        if self._thread is not None:
            self._stop.set()
            self._wake.set()
            self._thread.join()
            self._thread = None

    def _run(self, conn: sqlite3.Connection) -> None:
        try:
            while True:
                self._wake.wait()
                self._wake.clear()
                if self._stop.is_set():
                    return
                try:
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                except sqlite3.Error:  # the next poke tries again; the writer's own checkpoint is the backstop
                    log.warning("WAL checkpoint failed", exc_info=True)
                if self._stop.wait(self._min_interval_s):
                    return
        finally:
            conn.close()
