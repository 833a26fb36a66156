"""A virtual size that only repaints, for widgets that never scroll their own content by layout.

Textual's `Widget.virtual_size` is a reactive that asks for a layout of the whole screen when it changes. An `Input`
sets it to its text's width at every key (it scrolls its text within it), and a widget of auto height has it set
again after each layout that changed its height, which then asks for a second layout: in a form, each key typed laid
the composer screen out once or twice. Where nothing is laid out from the virtual size (an input sized by its
container, a widget or a container that does not scroll: its scrolling container lays it out by its height), a
class given `virtual_size = repaint_only()` keeps the value, as Textual reads it, and only repaints."""

from __future__ import annotations

from textual.geometry import Size
from textual.reactive import Reactive


def repaint_only() -> Reactive[Size]:
    return Reactive(Size(0, 0), repaint=True, layout=False)
