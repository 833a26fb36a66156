"""The write process: the only connection that writes, in a process of its own.

The writer (`participant.store.writer`) interprets submissions on the event loop and sends each group commit here
as a list of statements; this process runs them as one transaction and answers once it is durable. In a thread of
the server's process, the commit's Python work (binding every value of every row) would hold the interpreter lock
the event loop needs, and the loop would wait its turn after each statement; here it runs on the other core.

The conversation, over two pipes whose descriptors the writer passes: each message is a 4-byte big-endian length
and a pickle. The process answers `None` once its connection is open (or the error that prevented it), then, for
each list of `(statement, params)` it reads, `None` when the transaction is committed and synced, or the error that
rolled it back. It ends when its request pipe closes, which also happens when the server dies however it dies:
a transaction it was writing then either commits whole or not at all, as SQLite makes it, and nobody was told
either way. Interrupts and termination signals are left to the server, which closes the pipe once everything it
was given is written.

After answering each commit, the process checkpoints: a PASSIVE checkpoint (one that never waits for readers)
copies the commit's pages from the WAL into the database file and syncs it, so the WAL starts over at the next
commit instead of growing. In a thread beside the commits, or in bigger, rarer steps, the checkpoint's sync of the
database file stalled the next commit's sync of the WAL on the same file system (ext4 orders one behind the other)
for 10 to 45 ms, the group commit's whole batch waiting; done here, right after the answer, its cost goes into the
time the event loop spends building the next batch. Durability does not depend on it: a commit is durable once its
WAL frames are synced (synchronous=FULL).

    python -m participant.store.write_process DB REQUEST_FD REPLY_FD
"""

from __future__ import annotations

import logging
import os
import pickle
import signal
import sqlite3
import sys

from participant.store import pragmas

log = logging.getLogger(__name__)

HEADER_BYTES = 4
# SQLite's own checkpoint, inside a COMMIT, only as a last resort: while a long read keeps a snapshot, the passive
# checkpoints cannot copy what came after it, and the WAL grows. Pages of 4 KB: about 40 MB.
WRITER_AUTOCHECKPOINT = 10_000

Statements = list[tuple[str, list]]


def open_write_connection(path: str) -> sqlite3.Connection:
    """The only connection that writes (settings: `pragmas.READ_PRAGMAS`, `pragmas.WRITE_PRAGMAS`)."""
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    try:
        for pragma in pragmas.READ_PRAGMAS + pragmas.WRITE_PRAGMAS:
            conn.execute(pragma)
        conn.execute(f"PRAGMA wal_autocheckpoint = {WRITER_AUTOCHECKPOINT}")
    except BaseException:
        conn.close()
        raise
    return conn


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


def _read_exactly(fd: int, n: int) -> bytes | None:
    """`n` bytes, or None at the end of the pipe."""
    chunks = []
    while n:
        chunk = os.read(fd, min(n, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _describe(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"


def serve(path: str, requests: int, replies: int) -> None:
    try:
        conn = open_write_connection(path)
    except Exception as e:
        _write_all(replies, frame(_describe(e)))
        return
    try:
        _write_all(replies, frame(None))
        while (header := _read_exactly(requests, HEADER_BYTES)) is not None:
            body = _read_exactly(requests, int.from_bytes(header, "big"))
            if body is None:
                break
            try:
                write_transaction(conn, pickle.loads(body))
                answer = None
            except Exception as e:  # rolled back: nothing of the transaction is stored
                answer = _describe(e)
            _write_all(replies, frame(answer))
            if answer is None:
                checkpoint(conn)
    except BrokenPipeError:  # the server is gone
        pass
    finally:
        conn.close()


def main(argv: list[str] | None = None) -> None:
    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_IGN)
    path, requests, replies = argv if argv is not None else sys.argv[1:]
    serve(path, int(requests), int(replies))


if __name__ == "__main__":
    main()
