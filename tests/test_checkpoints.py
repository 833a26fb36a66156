"""WAL checkpoints run in their own thread after group commits; the writer's connection does not checkpoint early."""

from __future__ import annotations

import os
import threading

from participant.store.checkpoints import WRITER_AUTOCHECKPOINT, Checkpointer
from participant.store.writer import open_write_connection

ROWS = 50
ROW_BYTES = 3000
ROUNDS = 200


def test_the_writers_connection_leaves_checkpoints_to_the_thread(tmp_path):
    conn = open_write_connection(str(tmp_path / "db"))
    try:
        assert conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == WRITER_AUTOCHECKPOINT
    finally:
        conn.close()


def test_a_poke_copies_what_was_committed_into_the_database_file(tmp_path):
    path = str(tmp_path / "db")
    writer = open_write_connection(path)
    writer.execute("CREATE TABLE t (x TEXT)")
    for _ in range(ROWS):
        writer.execute("INSERT INTO t VALUES (?)", ("x" * ROW_BYTES,))
    # Committed, but only in the WAL: the database file has not grown.
    assert os.path.getsize(path) < ROWS * ROW_BYTES
    checkpointer = Checkpointer(path, min_interval_s=0.01)
    checkpointer.start()
    pause = threading.Event()
    try:
        for _ in range(ROUNDS):  # bounded: a checkpoint of a few dozen pages takes milliseconds
            checkpointer.poke()
            pause.wait(0.02)
            if os.path.getsize(path) >= ROWS * ROW_BYTES:
                break
        assert os.path.getsize(path) >= ROWS * ROW_BYTES
        assert writer.execute("SELECT count(*) FROM t").fetchone()[0] == ROWS
    finally:
        checkpointer.stop()
        writer.close()


def test_stop_without_a_poke_ends_the_thread(tmp_path):
    checkpointer = Checkpointer(str(tmp_path / "db"))
    checkpointer.start()
    checkpointer.stop()
    checkpointer.stop()  # twice is harmless
