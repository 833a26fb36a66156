"""The composer's history: every submitted command with its outcome, one JSON line each, in the data directory.

Each entry is appended with a single `write` on a file opened with O_APPEND, so two ledger-tui processes appending
at once interleave whole lines, never parts of them. The file keeps the last `keep` entries: once it holds a tenth
more, it is rewritten (to a temporary file, then renamed over) with the newest `keep`. Lines that cannot be read
(a crash mid-write, an edit by hand) are skipped.

Each line says its `format`: a line without one is of format 1 (before it was written) and reads as format 2; a
line of a later format, written by a newer ledger-tui, is skipped rather than misread.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from app.client import errors
from app.compose.commands import CommandForm
from app.private_files import private_dir, private_opener, private_replacement

KEEP = 500
FORMAT = 2  # 2: the line says its format (1: lines without one)


@dataclass
class HistoryEntry:
    form: CommandForm
    at: str = ""  # ISO-8601 UTC
    participant: str = ""
    user: str = ""
    ok: bool = False
    update_id: str = ""
    offset: int | None = None
    error: str = ""  # Canton's error id, an HTTP status or a transport failure

    @classmethod
    def now(cls, form: CommandForm, **kw: Any) -> HistoryEntry:
        at = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
        return cls(form=form, at=at, **kw)

    def to_json(self) -> bytes:
        return orjson.dumps(
            {
                "format": FORMAT,
                "at": self.at,
                "participant": self.participant,
                "user": self.user,
                "ok": self.ok,
                "updateId": self.update_id,
                "offset": self.offset,
                "error": self.error,
                "form": self.form.to_dict(),
            }
        )

    @classmethod
    def from_json(cls, data: Any) -> HistoryEntry | None:
        if not isinstance(data, dict) or not isinstance(data.get("form"), dict):
            return None
        version = data.get("format", 1)
        if not isinstance(version, int) or isinstance(version, bool) or version > FORMAT:
            return None
        offset = data.get("offset")

        def text(key: str) -> str:
            value = data.get(key)
            return value if isinstance(value, str) else ""

        return cls(
            form=CommandForm.from_dict(data["form"]),
            at=text("at"),
            participant=text("participant"),
            user=text("user"),
            ok=data.get("ok") is True,
            update_id=text("updateId"),
            offset=offset if isinstance(offset, int) else None,
            error=text("error"),
        )

    @property
    def outcome(self) -> str:
        if self.ok:
            return f"offset {self.offset}" if self.offset is not None else "ok"
        return self.error or "failed"


def error_id(error: errors.LedgerApiError) -> str:
    """What the history says of a failure: Canton's error id, else the HTTP status, else the kind of failure."""
    if isinstance(error, errors.StatusError):
        return error.code or f"HTTP {error.status}"
    return error.title


class History:
    def __init__(self, path: Path, keep: int = KEEP) -> None:
        self.path = path
        self.keep = keep
        self._lines: int | None = None  # counted on the first append

    def load(self) -> list[HistoryEntry]:
        """The entries, newest first."""
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return []
        lines = raw.splitlines()
        entries = []
        for line in lines:
            try:
                entry = HistoryEntry.from_json(orjson.loads(line))
            except orjson.JSONDecodeError:
                continue
            if entry is not None:
                entries.append(entry)
        self._lines = len(lines)
        return entries[::-1][: self.keep]

    def append(self, entry: HistoryEntry) -> None:
        private_dir(self.path.parent)
        fd = private_opener(str(self.path), os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        try:
            os.write(fd, entry.to_json() + b"\n")
        finally:
            os.close(fd)
        if self._lines is None:
            self._lines = self._count()
        else:
            self._lines += 1
        if self._lines > self.keep + max(1, self.keep // 10):
            self._trim()

    def _count(self) -> int:
        try:
            with self.path.open("rb") as f:
                return sum(1 for _ in f)
        except FileNotFoundError:
            return 0

    def _trim(self) -> None:
        lines = self.path.read_bytes().splitlines()[-self.keep :]
        with private_replacement(self.path, binary=True) as out:
            out.write(b"".join(line + b"\n" for line in lines))
        self._lines = len(lines)
