"""The widths of a table's columns on a screen of a given width: each as wide as its widest value when they all
fit, else the widest cut first, down to a bound they share, so that no column runs off the screen's edge (where it
would be cut without a mark) and a short column is never squeezed to make room for a long one.

The cells are then cut to their column's width with `app.cut`, which marks each cut with `…`."""

from __future__ import annotations

from collections.abc import Sequence

from app.cut import cells


def wanted_widths(labels: Sequence[str], rows: Sequence[Sequence[str]]) -> list[int]:
    """The cells each column needs to show its label and every value whole."""
    return [max([cells(label), *(cells(row[i]) for row in rows)]) for i, label in enumerate(labels)]


def fit_widths(wanted: Sequence[int], room: int, least: Sequence[int]) -> list[int]:
    """Widths of columns wanting `wanted` cells within `room` cells: all as wanted when they fit; else every column
    wider than a common bound is cut to it (the largest bound that fits), none below its `least` (nor above what
    it wants). When even the least do not fit, the least (the table then scrolls across)."""
    floor = [min(w, lo) for w, lo in zip(wanted, least, strict=True)]
    if sum(wanted) <= room:
        return list(wanted)
    if sum(floor) >= room:
        return floor

    def used(bound: int) -> int:
        return sum(max(lo, min(w, bound)) for w, lo in zip(wanted, floor, strict=True))

    low, high = 0, max(wanted)  # used(low) <= room < used(high)
    while high - low > 1:
        middle = (low + high) // 2
        if used(middle) <= room:
            low = middle
        else:
            high = middle
    widths = [max(lo, min(w, low)) for w, lo in zip(wanted, floor, strict=True)]
    # the cells a bound one lower left over go to the first columns still cut, one each
    spare = room - sum(widths)
    for i, (width, w) in enumerate(zip(widths, wanted, strict=True)):
        if spare <= 0:
            break
        if width < w:
            widths[i] += 1
            spare -= 1
    return widths
