"""Option lists that page only once they are laid out.

Textual's `OptionList` works out its lines when it is first given a size; a page key that arrives before (a list
filled a moment ago, the palette's among them) looked up a line that does not exist yet and raised `KeyError`,
ending the app. Before the list is laid out there is no page to move by, so the key does nothing. A `Select`'s
list of choices is such a list too, laid out only once it opens: `PagedSelect` is a `Select` with one."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.widgets import OptionList, Select
from textual.widgets._select import SelectCurrent, SelectOverlay


def laid_out(options: OptionList) -> bool:
    """The line of the highlighted option (or of the first) is known."""
    return (options.highlighted or 0) in options._index_to_line


class PagedOptionList(OptionList):
    def _move_page(self, direction) -> None:
        if laid_out(self):
            super()._move_page(direction)


class _PagedSelectOverlay(SelectOverlay):
    def _move_page(self, direction) -> None:
        if laid_out(self):
            super()._move_page(direction)


class PagedSelect(Select[Any]):
    """A `Select` whose closed list ignores page keys (Textual's raised `KeyError` for them)."""

    def compose(self) -> ComposeResult:
        # Select.compose, with the overlay that pages only once laid out
        yield SelectCurrent(self.prompt)
        yield _PagedSelectOverlay(type_to_search=self._type_to_search).data_bind(compact=Select.compact)


__all__ = ["PagedOptionList", "PagedSelect", "laid_out"]
