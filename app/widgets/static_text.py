"""A `Static`'s text replaced at the least cost: Textual's `Static.update` lays the whole screen out each time (the
widget's height may follow its text), which a text updated as the user types (a note, the preview's head) paid
at every key."""

from __future__ import annotations

from typing import cast

from textual.content import Content
from textual.css.styles import RulesMap
from textual.visual import visualize
from textual.widgets import Static


def show(static: Static, content: Content) -> None:
    """Put `content` in `static`: nothing when it reads and is styled the same, a repaint when it takes as many lines
    at the widget's width, a layout only when its size may change."""
    old = static.content
    if isinstance(old, Content) and old.plain == content.plain and old.spans == content.spans:
        return
    static.update(content, layout=_may_resize(static, content))


def _may_resize(static: Static, content: Content) -> bool:
    styles = static.styles
    width = static.content_region.width
    if not static.is_mounted or width <= 0 or (styles.width is not None and styles.width.is_auto):
        return True  # not laid out yet, or sized by its text's width
    if styles.height is None or not styles.height.is_auto:
        return False  # its height is set: its text never changes its size
    rules = cast("RulesMap", styles)  # a widget's styles, as Textual's own widgets give them
    before = static.visual.get_height(rules, width)
    return visualize(static, content, markup=False).get_height(rules, width) != before
