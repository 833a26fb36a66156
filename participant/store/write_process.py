"""The write process: the only connection that writes, in a process of its own.

The writer (`participant.store.writer`) interprets submissions on the event loop and sends each group commit here
as a list of statements; this process runs them as one transaction and answers once it is durable. In a thread of
the server's process, the commit's Python work (binding every value of every row) would hold the interpreter lock
the event loop needs, and the loop would wait its turn after each statement; here it runs on the other core.

The conversation, over the process's standard input and output: each message is a 4-byte big-endian length and a
pickle. The process answers `None` once its connection is open and has shown it may write (or the error that
prevented it), then, for each list of `(statement, params)` it reads, `None` when the transaction is committed and
synced, or the error that rolled it back. Anything else it would print goes to standard error. It ends at the end of its input, which also
comes when the server dies however it dies:
a transaction it was writing then either commits whole or not at all, as SQLite makes it, and nobody was told
either way. Interrupts and termination signals are left to the server, which closes the process's input once
everything it was given is written.

After answering each commit, the process checkpoints: a PASSIVE checkpoint (one that never waits for readers)
copies the commit's pages from the WAL into the database file and syncs it, so the WAL starts over at the next
commit instead of growing. In a thread beside the commits, or in bigger, rarer steps, the checkpoint's sync of the
database file stalled the next commit's sync of the WAL on the same file system for 10 to 45 ms (measured on ext4), the group commit's whole batch waiting; done here, right after the answer, its cost goes into the
time the event loop spends building the next batch. Durability does not depend on it: a commit is durable once its
WAL frames are synced (synchronous=FULL).

    python -m participant.store.write_process DB
"""

from __future__ import annotations

import logging
import os
import pickle
import signal
import sqlite3
import sys
from collections.abc import Sequence
from typing import BinaryIO

from participant.store import pragmas

log = logging.getLogger(__name__)

HEADER_BYTES = 4
# SQLite's own checkpoint, inside a COMMIT, only as a last resort: while a long read keeps a snapshot, the passive
# checkpoints cannot copy what came after it, and the WAL grows. Pages of 4 KB: about 40 MB.
WRITER_AUTOCHECKPOINT = 10_000

Statements = list[tuple[str, Sequence]]


def open_write_connection(path: str) -> sqlite3.Connection:
    """The only connection that writes (settings: `pragmas.READ_PRAGMAS`, `pragmas.WRITE_PRAGMAS`), once it has
    shown it may write (`prove_writable`)."""
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    try:
        for pragma in pragmas.READ_PRAGMAS + pragmas.WRITE_PRAGMAS:
            conn.execute(pragma)
        conn.execute(f"PRAGMA wal_autocheckpoint = {WRITER_AUTOCHECKPOINT}")
        prove_writable(conn)
    except BaseException:
        conn.close()
        raise
    return conn


def prove_writable(conn: sqlite3.Connection) -> None:
    """Write, and roll back: SQLite opens a file it may not write (a read-only file, one on a read-only file
    system) read-only without a word, and in WAL mode even takes the write lock; it says so at the first write.
    Nothing reaches the file (the change stays in the connection's cache until the rollback drops it)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute("CREATE TABLE write_probe (x)")
    finally:
        conn.execute("ROLLBACK")


def write_transaction(conn: sqlite3.Connection, statements: Statements) -> None:
    """All or nothing."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        for statement, params in statements:
            conn.execute(statement, params)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def checkpoint(conn: sqlite3.Connection) -> None:
    try:
        conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
    except sqlite3.Error:  # the next commit's checkpoint tries again
        log.warning("WAL checkpoint failed", exc_info=True)


def frame(message: object) -> bytes:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    return len(data).to_bytes(HEADER_BYTES, "big") + data


def _describe(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"


def serve(path: str, requests: BinaryIO, replies: BinaryIO) -> None:
    def answer(message: object) -> None:
        replies.write(frame(message))
        replies.flush()

    try:
        conn = open_write_connection(path)
    except Exception as e:
        answer(_describe(e))
        return
    try:
        answer(None)
        while len(header := requests.read(HEADER_BYTES)) == HEADER_BYTES:
            size = int.from_bytes(header, "big")
            body = requests.read(size)
            if len(body) < size:
                break
            try:
                write_transaction(conn, pickle.loads(body))
                error = None
            except Exception as e:  # rolled back: nothing of the transaction is stored
                error = _describe(e)
            answer(error)
            if error is None:
                checkpoint(conn)
    except BrokenPipeError:  # the server is gone
        pass
    finally:
        conn.close()


def main(argv: list[str] | None = None) -> None:
    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_IGN)
    [path] = argv if argv is not None else sys.argv[1:]
    replies = os.fdopen(os.dup(sys.stdout.fileno()), "wb")  # the answers keep the real standard output
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # and whatever else is printed goes to standard error
    serve(path, sys.stdin.buffer, replies)


if __name__ == "__main__":
    main()
