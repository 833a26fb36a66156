"""Text too long for its room, cut so that it shows it was cut: the one rule of every truncation the app draws.

A cut value must never read as another value: `amount=938.91` cut to `amount=9` reads as nine. So whatever cuts
text (a table cell, a column header, the status line, a tree label, an id shortened for a message, the screen's
edge over a wide table) cuts through this module, and the cut is marked with `…` where the text goes on: at the end
(`keep="start"`, the usual reading) or at the start (`keep="end"`, where the end says more, as in a long path).

Widths are terminal cells, not characters: a CJK character takes two, a combining accent none.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Literal

MARK = "…"

Keep = Literal["start", "end"]

# Zero-width joiners and spaces, word joiners and the byte-order mark: no cell of their own, as terminals draw them.
_ZERO_WIDTH = frozenset([*range(0x200B, 0x2010), *range(0x2060, 0x2065), 0xFEFF])


def char_cells(character: str) -> int:
    """The terminal cells one character takes: 2 for wide East Asian characters, 0 for combining marks."""
    code = ord(character)
    if code < 0x300:  # Latin, the common case: one cell
        return 1
    if code in _ZERO_WIDTH or unicodedata.combining(character) or unicodedata.category(character) == "Me":
        return 0
    return 2 if unicodedata.east_asian_width(character) in ("W", "F") else 1


def cells(text: str) -> int:
    """The terminal cells `text` takes."""
    if _one_cell_each(text):
        return len(text)
    return sum(char_cells(character) for character in text)


_ONE_CELL: dict[str, bool] = {}  # characters met so far: whether each takes one cell (most do: "…", "—", "é")


# Characters sure to take one cell each: printable Latin, general punctuation ("…", "—"), arrows and mathematical
# operators, box drawing and geometric shapes ("▲"), braille (the spinner). Text of these alone is measured by len.
_SURELY_ONE_CELL = re.compile(
    "[^\x20-\x7e\u00a0-\u02ff\u2010-\u2027\u2030-\u205e\u2190-\u22ff\u2500-\u25fc\u2800-\u28ff]"
)


def surely_one_cell_each(text: str) -> bool:
    """Whether every character of `text` is one of those sure to take one cell, printable (no control character),
    as Rich measures them too: a regular expression's scan, where measuring a line character by character costs
    some 70 µs for a table's line that holds a `…`."""
    return _SURELY_ONE_CELL.search(text) is None


def _one_cell_each(text: str) -> bool:
    """Whether every character of `text` takes one cell, so that a cell is a character (the common, fast case)."""
    if text.isascii() or _SURELY_ONE_CELL.search(text) is None:
        return True
    for character in set(text):
        one = _ONE_CELL.get(character)
        if one is None:
            one = _ONE_CELL[character] = char_cells(character) == 1
        if not one:
            return False
    return True


def _head(text: str, room: int) -> str:
    """The longest beginning of `text` that takes at most `room` cells."""
    used = 0
    for index, character in enumerate(text):
        used += char_cells(character)
        if used > room:
            return text[:index]
    return text


def _tail(text: str, room: int) -> str:
    """The longest end of `text` that takes at most `room` cells."""
    used = 0
    for index in range(len(text) - 1, -1, -1):
        used += char_cells(text[index])
        if used > room:
            return text[index + 1 :]
    return text


def cut(text: str, width: int, *, keep: Keep = "start") -> str:
    """`text` in at most `width` cells: whole when it fits, else its start and `…` (or `…` and its end)."""
    if width <= 0:
        return ""
    if _one_cell_each(text):
        if len(text) <= width:
            return text
        return text[: width - 1] + MARK if keep == "start" else MARK + text[len(text) - width + 1 :]
    if cells(text) <= width:
        return text
    return _head(text, width - 1) + MARK if keep == "start" else MARK + _tail(text, width - 1)


def fit(text: str, width: int, *, right: bool = False, keep: Keep = "start") -> str:
    """`text` in exactly `width` cells: cut as `cut` cuts it, else padded (on the left when `right`)."""
    if len(text) <= width and _one_cell_each(text):  # fits as it is: padded (the common case, one pass)
        return text.rjust(width) if right else text.ljust(width)
    shown = cut(text, width, keep=keep)
    padding = " " * (width - cells(shown))
    return padding + shown if right else shown + padding


def shorten(text: str, keep: int) -> str:
    """An identifier by its first `keep` characters and `…`, or whole when that would save nothing (the mark
    takes the place of one character): ``00a1b2c3d4…`` for a contract id."""
    return text if len(text) <= keep + 1 else text[:keep] + MARK


def edges_cut(line: str, start: int, width: int) -> tuple[bool, bool]:
    """Whether the window of `width` cells from cell `start` of `line` cuts through text at its left edge and at
    its right edge: a character seen at the edge with another just past it (a blank on either side is no cut)."""
    if _one_cell_each(line):
        left = 0 < start < len(line) and line[start - 1] != " " and line[start] != " "
        end = start + width
        right = 0 < end < len(line) and line[end - 1] != " " and line[end] != " "
        return left, right
    positions: list[tuple[int, str]] = []  # (the cell each character starts at, the character)
    at = 0
    for character in line:
        positions.append((at, character))
        at += char_cells(character)
    return _cut_at(positions, start), _cut_at(positions, start + width)


def _cut_at(positions: list[tuple[int, str]], edge: int) -> bool:
    """Whether an edge at cell `edge` falls inside text: the characters on both sides of it are not blank."""
    before = after = " "
    for at, character in positions:
        if at < edge:
            before = character
        else:
            after = character
            break
    else:
        return False
    return edge > 0 and before != " " and after != " "


def window(line: str, start: int, width: int) -> str:
    """What a window of `width` cells from cell `start` shows of a one-line `line` (padded to `width`), each edge
    that cuts through text marked `…`: a table wider than the screen, scrolled across."""
    if _one_cell_each(line):
        shown = line[start : start + width]
        left, right = edges_cut(line, start, width)
        if left and shown:
            shown = MARK + shown[1:]
        if right and len(shown) == width:
            shown = shown[:-1] + MARK
        return shown.ljust(width)
    shown = _head(_cut_cells(line, start), width)
    left, right = edges_cut(line, start, width)
    if left and shown:
        shown = MARK + _cut_cells(shown, 1)
    if right and shown:
        shown = _head(shown, width - 1) + MARK
    return shown + " " * (width - cells(shown))


def _cut_cells(text: str, count: int) -> str:
    """`text` without its first `count` cells (a wide character split by the cut goes too)."""
    used = 0
    for index, character in enumerate(text):
        if used >= count:
            return text[index:]
        used += char_cells(character)
    return ""
