"""Files only their owner may read: the command history, the snapshot caches, the logs, the exports, and the
bundled participant's database, secret and log (see README, "What is stored where").

Modes are given when a file is created (0600, directories 0700), never by a chmod afterwards, so no other local
user can open it in between. A umask only takes bits away from these modes, so they hold whatever the umask is.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

PRIVATE_FILE = 0o600
PRIVATE_DIR = 0o700


def private_dir(path: Path) -> Path:
    """Create `path` and its missing parents, each 0700; directories that exist are left as they are."""
    missing: list[Path] = []
    here = path
    while not here.exists():
        missing.append(here)
        here = here.parent
    for directory in reversed(missing):
        with contextlib.suppress(FileExistsError):  # made meanwhile by another process
            directory.mkdir(mode=PRIVATE_DIR)
    return path


def private_opener(path: str, flags: int) -> int:
    """An `opener` for `open()` that creates the file 0600. One of ours left readable by others (by a version that
    did not make it private) is made private as it is opened."""
    fd = os.open(path, flags, PRIVATE_FILE)
    try:
        if os.name == "posix" and os.fstat(fd).st_mode & 0o077:  # elsewhere, modes are not permissions
            os.fchmod(fd, PRIVATE_FILE)
    except BaseException:
        os.close(fd)
        raise
    return fd


def create_private_file(path: Path) -> None:
    """Create `path` empty and 0600; it must not exist. (SQLite then gives the journal, WAL and shared-memory files
    of a database made in it the same mode.)"""
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE))


@contextlib.contextmanager
def private_replacement(
    path: Path, *, overwrite: bool = True, binary: bool = False, newline: str | None = None
) -> Iterator[IO[Any]]:
    """A file to write (text in UTF-8, or bytes) that becomes `path` whole, 0600, when the block ends without an exception (and is
    removed otherwise): readers see the old file or the new one, never a part. With `overwrite` False, a `path`
    that exists by then is left alone and FileExistsError raised."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE)
    try:
        out = os.fdopen(fd, "wb") if binary else os.fdopen(fd, "w", encoding="utf-8", newline=newline)
        with out:
            yield out
        if overwrite:
            os.replace(tmp, path)
        else:
            os.link(tmp, path)  # fails if `path` exists, where a rename would replace it
    finally:
        tmp.unlink(missing_ok=True)
