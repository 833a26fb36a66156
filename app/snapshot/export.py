"""Exporting the contracts of a view's state (JSON lines or CSV), ledger text neutralised."""

from __future__ import annotations

import csv
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import orjson

from app.private_files import private_replacement
from app.snapshot.views import REMOVED, Row, Views
from app.untrusted import csv_cell, json_safe


class Export:
    """Writing the current view of `views` out (`write`)."""

    def __init__(self, views: Views) -> None:
        self._views = views

    async def write(
        self,
        path: Path,
        fmt: str,
        columns: Sequence[tuple[str, Callable[[Row], Any]]],
        on_progress: Callable[[int], None] | None = None,
        *,
        overwrite: bool = False,
    ) -> int:
        """Write the contracts of the current view's state to `path` as JSON lines ("jsonl") or CSV ("csv") with
        `columns`; returns the number of rows written. The rows shown only for comparison (REMOVED: gone since the
        offset compared with) are not part of the state and are left out. Streams through the view, a window at a
        time, into a private temporary file that then becomes `path`; unless `overwrite`, a `path` that exists by
        then is kept and FileExistsError raised. Ledger text is neutralised (`untrusted.csv_cell`,
        `untrusted.json_safe`)."""
        return await self._views.in_worker(self._write, path, fmt, list(columns), on_progress, overwrite)

    def _write(
        self,
        path: Path,
        fmt: str,
        columns: list[tuple[str, Callable[[Row], Any]]],
        on_progress: Callable[[int], None] | None,
        overwrite: bool,
    ) -> int:
        written = 0
        with private_replacement(path, overwrite=overwrite, newline="") as out:
            writer = csv.writer(out) if fmt == "csv" else None
            if writer is not None:
                writer.writerow([csv_cell(name) for name, _ in columns])
            for window in self._views.windows(2000):
                for row in window:
                    if row.status == REMOVED:
                        continue
                    if writer is not None:
                        writer.writerow([_cell(get(row)) for _, get in columns])
                    else:
                        out.write(json_safe(orjson.dumps(row.as_json()).decode()))
                        out.write("\n")
                    written += 1
                if on_progress is not None:
                    on_progress(written)
        return written


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list | dict):
        return csv_cell(json_safe(orjson.dumps(value).decode()))
    return csv_cell(value if isinstance(value, str) else str(value))
