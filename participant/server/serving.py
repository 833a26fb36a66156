"""A running `ledger-participant serve` as other processes see it.

- One server per database: an OS lock on `<db>.lock`, held for the server's life and let go by the OS however the
  process ends, and `<db>.serving.json` (who holds it, where it serves), written once the server is ready and
  removed when it stops. A `serving.json` whose lock nobody holds was left by a killed server and is replaced.
- The port file (`--port-file`, as Canton's `http-ledger-api.port-file`): the bound port, once the server is ready.
- Standard input as a lifeline (`--exit-on-stdin-eof`): a parent holding the other end of a pipe takes the server
  down with it, whichever way the parent ends.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import threading
from collections.abc import Callable
from pathlib import Path

import uvicorn
from filelock import FileLock, Timeout

from participant.store.private_files import private_dir

log = logging.getLogger("participant")

BACKLOG = 2048  # connections made before the server is ready wait in the socket's queue


def write_atomically(path: Path, text: str) -> None:
    """Readers see the whole file or none of it."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


class DatabaseInUse(Exception):
    """Another server holds the database; `info` is its `serving.json` (empty while it is still starting)."""

    def __init__(self, info: dict) -> None:
        super().__init__(info)
        self.info = info


class DatabaseClaim:
    """This process's claim on a database file: taken before the database is opened, held until the process ends."""

    def __init__(self, db: Path) -> None:
        real = db.resolve()
        self.lock_path = real.with_name(real.name + ".lock")
        self.info_path = real.with_name(real.name + ".serving.json")
        self._lock = FileLock(self.lock_path)
        self._announced = False

    def acquire(self) -> None:
        """Raises `DatabaseInUse` when another server holds the database."""
        private_dir(self.lock_path.parent)
        try:
            self._lock.acquire(blocking=False)
        except Timeout:
            raise DatabaseInUse(self.holder()) from None
        # Whatever is there now was left by a server that no longer holds the lock.
        self.info_path.unlink(missing_ok=True)

    def holder(self) -> dict:
        try:
            info = json.loads(self.info_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return info if isinstance(info, dict) else {}

    def announce(self, info: dict) -> None:
        write_atomically(self.info_path, json.dumps(info) + "\n")
        self._announced = True

    def withdraw(self) -> None:
        """Remove `serving.json` while the lock is still held, so that a successor's is never the one removed."""
        if self._announced:
            self.info_path.unlink(missing_ok=True)
            self._announced = False

    def release(self) -> None:
        self.withdraw()
        if self._lock.is_locked:
            self._lock.release()


def listen(host: str, port: int) -> socket.socket:
    """A listening socket: its port is known (`--port 0` included) before the database is opened and seeded, and
    clients that connect meanwhile wait in the backlog instead of being refused."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(BACKLOG)
    except BaseException:
        sock.close()
        raise
    return sock


class Server(uvicorn.Server):
    """uvicorn's server with three hooks: `on_started` once it accepts connections, `on_exiting` when it starts to
    stop (before it waits for the requests in flight), `on_stopping` when it has answered them, while a signal that
    stopped it is still held back."""

    def __init__(
        self,
        config: uvicorn.Config,
        on_started: Callable[[], None],
        on_stopping: Callable[[], None],
        on_exiting: Callable[[], None] = lambda: None,
    ) -> None:
        super().__init__(config)
        self._on_started = on_started
        self._on_stopping = on_stopping
        self._on_exiting = on_exiting

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        if self.started and not self.should_exit:
            self._on_started()

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        self._on_exiting()
        try:
            await super().shutdown(sockets=sockets)
        finally:
            self._on_stopping()


def stop_at_stdin_eof(server: uvicorn.Server, claim: DatabaseClaim) -> None:
    """Stop the server gracefully once standard input reaches end of file (or is closed).

    Its `serving.json` goes at once, before the requests in flight are answered: the parent does not wait for this
    process, and a ledger-tui started right after it must not take the URL of a server that is going away (it waits
    for the lock instead)."""

    def watch() -> None:
        # os.read on the descriptor, not sys.stdin: a thread blocked in a buffered reader's read holds its lock,
        # which the interpreter would then wait for at exit.
        with contextlib.suppress(OSError):
            while os.read(0, 65536):
                pass
        log.info("standard input closed: stopping")
        claim.withdraw()
        server.should_exit = True

    threading.Thread(target=watch, name="stdin-eof", daemon=True).start()
