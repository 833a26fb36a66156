"""Where the cursor and the screen go in a table of `count` rows that shows `page` of them under a header line: the
arithmetic every windowed table shares (`app.widgets.windowed_table`), apart from Textual so that it is tested
alone. Positions count rows from 0; `top` is the position of the row on the first line under the header."""

from __future__ import annotations

from collections.abc import Callable


def clamp(position: int, count: int) -> int:
    """`position` moved into the rows 0 .. count - 1; 0 when there are none (the cursor's place in an empty table)."""
    return max(0, min(count - 1, position))


def top_showing(cursor: int, top: int, page: int) -> int:
    """The top row that shows `cursor` on screen: `top` when it does already, else the nearest one (the cursor on
    the first line when it is above the screen, on the last when below)."""
    if cursor < top:
        return cursor
    if cursor >= top + page:
        return cursor - page + 1
    return top


def paged(cursor: int, top: float, direction: int, page: int, count: int) -> tuple[int, float]:
    """The cursor and the top row after a page up (`direction` -1) or down (+1): both move a page, the cursor never
    past either end. The top is not bounded below the last page here: the scroll bounds it."""
    return clamp(cursor + direction * page, count), max(0, top + direction * page)


def centred_top(position: int, page: int) -> int:
    """The top row that shows `position` in the middle of the screen."""
    return max(0, position - page // 2)


def row_under(line: int, top: int, count: int) -> int | None:
    """The position of the row drawn on `line` of the table (line 0 is the header), None where there is none."""
    if line < 1:
        return None
    position = top + line - 1
    return position if position < count else None


def rows_on_screen(start: int, end: int, top: int, page: int) -> tuple[int, int] | None:
    """The lines (first, past the last; 0 is the first under the header) that show rows start .. end - 1, or None
    when none of them is on screen."""
    first, last = max(start, top), min(end, top + page)
    return (first - top, last - top) if first < last else None


def spans_to_read(
    top: int, page: int, count: int, missing: Callable[[int], bool], near: int, far: int
) -> list[tuple[int, int]]:
    """The runs of rows (start, past the end) to ask for so that a table scrolled to `top` need not wait for rows
    when it moves on by a page: nothing while every row on screen and `near` pages beyond it on either side is here
    (or asked for); otherwise each run of `missing` rows within `far` pages beyond the screen, those on screen first,
    then those below it (where paging goes), then those above."""
    screen = (top, min(count, top + page))
    if not any(missing(p) for p in range(max(0, top - near * page), min(count, top + page + near * page))):
        return []
    below = (screen[1], min(count, screen[1] + far * page))
    above = (max(0, top - far * page), top)
    return [run for start, end in (screen, below, above) for run in missing_runs(start, end, missing)]


def missing_runs(start: int, end: int, missing: Callable[[int], bool]) -> list[tuple[int, int]]:
    """The runs (start, past the end) of positions in start .. end - 1 for which `missing` holds."""
    runs: list[tuple[int, int]] = []
    run_start: int | None = None
    for p in range(start, end):
        if missing(p):
            if run_start is None:
                run_start = p
        elif run_start is not None:
            runs.append((run_start, p))
            run_start = None
    if run_start is not None:
        runs.append((run_start, end))
    return runs
