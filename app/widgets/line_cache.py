"""Lines a table has drawn, kept so that a repaint of a line already drawn costs a dict lookup.

Bounded to a few screens: when full it starts afresh rather than track which line was used last (a repaint redraws
at most a screen, so the lines on screen are back at the next one)."""

from __future__ import annotations

from collections.abc import Hashable

from textual.strip import Strip

CAPACITY = 400


class LineCache:
    def __init__(self, capacity: int = CAPACITY) -> None:
        self.capacity = capacity
        self._lines: dict[Hashable, Strip] = {}

    def get(self, key: Hashable) -> Strip | None:
        return self._lines.get(key)

    def put(self, key: Hashable, strip: Strip) -> Strip:
        if len(self._lines) >= self.capacity:
            self._lines.clear()
        self._lines[key] = strip
        return strip

    def clear(self) -> None:
        self._lines.clear()

    def __len__(self) -> int:
        return len(self._lines)
