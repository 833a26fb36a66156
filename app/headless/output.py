"""What the headless commands print: one JSON document per line, or with `--table` a plain table of chosen columns.

Text from the participant is untrusted: a table cell shows control characters escaped (`visible`), and JSON has the
characters that would act on a terminal (DEL, C1, bidi overrides) written as JSON escapes (`json_safe`): the same
JSON value. The JSON check runs over a whole batch's bytes at once; most batches hold none.

A table's column widths come from its first rows (up to `SAMPLE`), so that a long listing starts printing at once
and memory stays flat; a longer value later on widens its own cell only."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, BinaryIO

import orjson

from app.untrusted import json_safe, visible

SAMPLE = 200
# in UTF-8: DEL, the C1 controls, and U+2028-U+202E and U+2066-U+2069 (what json_safe escapes beyond JSON's own)
_UNSAFE_UTF8 = re.compile(rb"\x7f|\xc2[\x80-\x9f]|\xe2\x80[\xa8-\xae]|\xe2\x81[\xa6-\xa9]")
Column = tuple[str, Callable[[Any], Any]]  # heading, and how a row's value is found in a document


class Output:
    def __init__(
        self, stream: BinaryIO, *, table: Sequence[Column] | None = None, live: bool = False
    ) -> None:
        self.stream = stream
        self.columns = list(table) if table is not None else None
        self.live = live  # flush every line: a reader (`head`, a pipe) sees each update as it arrives
        self._pending: list[list[str]] = []
        self._widths: list[int] | None = None

    def emit(self, document: Any) -> None:
        if self.columns is None:
            self.stream.write(_safe(orjson.dumps(document) + b"\n"))
        else:
            self._row([_cell(get(document)) for _, get in self.columns])
        if self.live:
            self.flush()

    def emit_raw(self, documents: Sequence[Any]) -> None:
        """Many documents at once (a batch of a snapshot): one write."""
        if self.columns is None:
            self.stream.write(_safe(b"".join(orjson.dumps(d) + b"\n" for d in documents)))
        else:
            for d in documents:
                self._row([_cell(get(d)) for _, get in self.columns])

    def _row(self, cells: list[str]) -> None:
        if self._widths is None:
            self._pending.append(cells)
            if len(self._pending) >= SAMPLE or self.live:
                self._settle()
            return
        self._write(cells)

    def _settle(self) -> None:
        assert self.columns is not None
        headings = [h for h, _ in self.columns]
        self._widths = [max([len(h), *(len(r[i]) for r in self._pending)]) for i, h in enumerate(headings)]
        self._write(headings)
        for cells in self._pending:
            self._write(cells)
        self._pending = []

    def _write(self, cells: list[str]) -> None:
        assert self._widths is not None
        line = "  ".join(c.ljust(w) for c, w in zip(cells, self._widths, strict=True)).rstrip()
        self.stream.write(line.encode() + b"\n")

    def flush(self) -> None:
        self.stream.flush()

    def close(self) -> None:
        if self.columns is not None and self._widths is None:
            self._settle()
        self.flush()


def _safe(lines: bytes) -> bytes:
    # nearly always ASCII (ids, numbers, most payload text): two scans at memory speed rather than the pattern's
    if (lines.isascii() and b"\x7f" not in lines) or _UNSAFE_UTF8.search(lines) is None:
        return lines
    return json_safe(lines.decode()).encode()


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, list | tuple):
        return ",".join(_cell(v) for v in value) or "-"
    return visible(str(value))
