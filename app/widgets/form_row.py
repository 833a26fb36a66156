"""A labelled line of a form: the label in a fixed column, the field (or fields) beside it."""

from __future__ import annotations

from textual.containers import Horizontal
from textual.widget import Widget
from textual.widgets import Label

LABEL_WIDTH = 12


def field_row(label: str, *widgets: Widget, id: str | None = None, group: bool = False) -> Horizontal:
    """`group` starts a group of lines (a blank line above it)."""
    return Horizontal(
        Label(label, classes="field-label"),
        *widgets,
        id=id,
        classes="field-row group" if group else "field-row",
    )
