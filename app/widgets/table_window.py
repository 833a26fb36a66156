"""One line of a table (or a tree) wider than the screen, seen through the screen: the columns scrolled into view, and `…` at
an edge of the screen that cuts through a value (`app.cut`'s rule), so that `amount=938.91` never shows as
`amount=9` at the right edge of a narrow terminal."""

from __future__ import annotations

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from app.cut import MARK, edges_cut, surely_one_cell_each, window


def window_line(line: str, scroll_x: int, width: int, style: Style) -> Strip:
    """`line`, drawn in one style, seen from cell `scroll_x` through `width` cells."""
    if surely_one_cell_each(line) or cell_len(line) == len(line):
        # one cell per character, as almost always: one segment, cut by slicing (a strip of several segments costs
        # Textual several times more to crop, divide and style on every repaint)
        return Strip([Segment(window(line, scroll_x, width), style)], width)
    return window_segments([Segment(line, style)], scroll_x, width, style)


def window_segments(segments: list[Segment], scroll_x: int, width: int, fill: Style) -> Strip:
    """A line of styled segments seen from cell `scroll_x` through `width` cells."""
    strip = Strip(segments).crop(scroll_x, scroll_x + width).extend_cell_length(width, fill)
    return mark_cut_edges(strip, "".join(segment.text for segment in segments), scroll_x, width)


def mark_cut_edges(strip: Strip, line: str, scroll_x: int, width: int) -> Strip:
    """`strip`, the `width` cells of `line` from cell `scroll_x`, with `…` in the first or last cell where that
    edge cuts through text; a mark keeps the style of the cell it replaces (its colours, a link's meta)."""
    left, right = edges_cut(line, scroll_x, width)
    if not (left or right) or width < 2:
        return strip
    shown = list(strip)
    if left:
        first = Strip(shown).crop(0, 1)
        shown = [Segment(MARK, _style_of(first)), *Strip(shown).crop(1, width)]
    if right:
        last = Strip(shown).crop(width - 1, width)
        shown = [*Strip(shown).crop(0, width - 1), Segment(MARK, _style_of(last))]
    return Strip(shown, width)


def _style_of(cell: Strip) -> Style | None:
    return next((segment.style for segment in cell if segment.text), None)
