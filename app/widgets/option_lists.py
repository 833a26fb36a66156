"""Option lists that page only once they are laid out.

Textual's `OptionList` works out its lines when it is first given a size; a page key that arrives before (a list
filled a moment ago, the palette's among them) looked up a line that does not exist yet and raised `KeyError`,
ending the app. Before the list is laid out there is no page to move by, so the key does nothing."""

from __future__ import annotations

from textual.widgets import OptionList


def laid_out(options: OptionList) -> bool:
    """The line of the highlighted option (or of the first) is known."""
    return (options.highlighted or 0) in options._index_to_line


class PagedOptionList(OptionList):
    def _move_page(self, direction) -> None:
        if laid_out(self):
            super()._move_page(direction)


__all__ = ["PagedOptionList", "laid_out"]
