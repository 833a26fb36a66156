"""Files only their owner may read: the generated secret, and the database with its WAL and shared-memory files.

Modes are given at creation (`O_CREAT | O_EXCL` with 0600, directories 0700), never fixed with a chmod afterwards,
so that there is no moment when another local user could open the file. A umask can only take bits away from
these modes, so they hold whatever the user's umask is.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

PRIVATE_FILE = 0o600
PRIVATE_DIR = 0o700


def private_dir(path: Path) -> None:
    """Create `path` and its missing parents, each 0700; directories that exist are left as they are."""
    missing: list[Path] = []
    while not path.exists():
        missing.append(path)
        path = path.parent
    for directory in reversed(missing):
        try:
            directory.mkdir(mode=PRIVATE_DIR)
        except FileExistsError:
            pass


def create_private_file(path: Path) -> bool:
    """Create `path` empty and 0600 unless it exists; True if this call created it."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE))
    except FileExistsError:
        return False
    return True


def write_new_private_file(path: Path, text: str) -> bool:
    """Write `text` to `path`, 0600, unless `path` exists; True if this call wrote it. Readers see the whole text or
    no file: it is written under another name first, then linked to `path` (which fails if another process made
    one meanwhile)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        try:
            os.link(tmp, path)
        except FileExistsError:
            return False
        return True
    finally:
        tmp.unlink(missing_ok=True)
