"""A one-line input that completes from a list: the best prefix match inline (right arrow takes it) and every match
in a dropdown under it (up and down choose, enter takes). Escape closes the list until down asks for it again or
the field is left: typing on goes into the field, with the inline completion only, and what the program learns
meanwhile (the ledger read) never opens it again. With `separated`, it completes the last of several
comma-separated items (parties).

Each match takes one line of the list, cut with `…` when the list is too narrow for it (`fit`: how a candidate is
cut; by default its end goes); the highlighted match, when cut, is shown whole on a line of its own under the list
(over it when the list opens upwards), across the screen."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from textual import events, on
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import ScrollableContainer, Vertical
from textual.content import Content
from textual.message import Message
from textual.suggester import Suggester
from textual.widget import Widget
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from app.cut import MARK, cut
from app.widgets.keys import FieldInput
from app.widgets.untrusted_text import escaped, plain

MAX_LISTED = 32  # with nothing typed yet: the list scrolls, ten lines at a time
LIST_LINES = 8  # the options the list shows at once at most (its height, 10, less its border)
LIST_BORDER = 2  # the lines of the list's height that are its border's
LIST_CHROME = (
    4  # the cells of the list's width that are not its options': its border and each option's padding
)
_LAST_ITEM = re.compile(r"^(?P<head>.*[,\s])?(?P<token>[^,\s]*)$", re.S)


def _cut_content(label: Content, width: int) -> Content:
    """`label` in at most `width` cells, marked `…` where it is cut (an option wrapped to a second line would read
    as another option)."""
    if label.cell_length <= width:
        return label
    return Content.assemble(label.truncate(max(width - 1, 0)), MARK)


def _free_rows(screen: Widget) -> tuple[int, int]:
    """The rows of `screen` between the bars docked at its top and bottom (the status line, the footer): the
    first, and the one past the last."""
    top, bottom = 0, screen.size.height
    for bar in screen.children:
        if not bar.display:
            continue
        if bar.styles.dock == "top":
            top = max(top, bar.region.bottom)
        elif bar.styles.dock == "bottom":
            bottom = min(bottom, bar.region.y)
    return top, bottom


def _cut_end(candidate: str, width: int) -> str:
    return cut(candidate, width)


def _split(value: str, separated: bool) -> tuple[str, str]:
    """(what comes before the item being typed, the item being typed)."""
    if not separated:
        return "", value
    m = _LAST_ITEM.match(value)
    return (m.group("head") or "", m.group("token")) if m else ("", value)


class _PrefixSuggester(Suggester):
    def __init__(self, owner: CompletingInput) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self.owner = owner

    async def get_suggestion(self, value: str) -> str | None:
        head, token = _split(value, self.owner.separated)
        if not token:
            return None
        folded = token.casefold()
        candidates = self.owner.candidates()
        if token in candidates:
            return None  # complete already: a longer name that starts with it is one ↓ away in the list
        for candidate in candidates:
            if candidate.casefold().startswith(folded) and len(candidate) > len(token):
                return value + candidate[len(token) :]
        return None


class _Field(FieldInput):
    """The input of a `CompletingInput`. Enter is taken here, before the input's own enter (submit)."""

    def __init__(self, owner: CompletingInput, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.owner = owner

    async def _on_key(self, event: events.Key) -> None:
        if event.key != "enter":
            return  # Input's own handling (and the bindings after it)
        self.owner.take_or_commit()
        event.stop()
        event.prevent_default()


class CompletingInput(Vertical):
    DEFAULT_CSS = """
    CompletingInput { height: auto; width: 1fr; }
    CompletingInput > OptionList {
        display: none; height: auto; max-height: 10; width: 1fr;
        overlay: screen; constrain: none inside;
        border: tall $border-blurred; background: $surface; padding: 0;
    }
    CompletingInput > OptionList > .option-list--option { padding: 0 1; }
    CompletingInput.-open > OptionList { display: block; }
    /* the gutter kept: a list cut to fit its room without the scroll bar wrapped each long match when it showed */
    CompletingInput > OptionList { scrollbar-gutter: stable; }
    CompletingInput > .completion-whole {
        display: none; overlay: screen; constrain: none inside; height: 1; text-wrap: nowrap; text-overflow: ellipsis;
        background: $panel; color: $text; padding: 0 1;
    }
    CompletingInput.-open > .completion-whole.-shown { display: block; }
    """

    BINDINGS = [
        Binding("down", "move(1)", "Next match", show=False),
        Binding("up", "move(-1)", "Previous match", show=False),
        Binding("escape", "close", "Close the list", show=False),
    ]

    @dataclass
    class Committed(Message):
        """The user took a value: enter, a pick from the list, or leaving the field after changing it (`left`: the
        focus is elsewhere already, and stays there)."""

        completing: CompletingInput
        value: str
        left: bool = False

        @property
        def control(self) -> CompletingInput:
            return self.completing

    def __init__(
        self,
        candidates: Callable[[], Sequence[str]],
        *,
        value: str = "",
        placeholder: str = "",
        separated: bool = False,
        label: Callable[[str], Content] | None = None,
        fit: Callable[[str, int], str] = _cut_end,
        select_on_focus: bool = True,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.candidates = candidates
        self.separated = separated
        self.label = label
        self.fit = fit
        self._shown: list[str] = []
        self._cut: list[bool] = []  # whether each match shown is cut in the list
        self._committed = value
        self._dismissed = False  # escape closed the list: typing on does not bring it back, ↓ does
        # made here, not in compose: it can take the focus as soon as this is mounted (a form row opening)
        self._field = _Field(
            self,
            value,
            placeholder=placeholder,
            suggester=_PrefixSuggester(self),
            compact=True,
            select_on_focus=select_on_focus,
        )

    def compose(self) -> ComposeResult:
        yield self._field

    def _options(self) -> OptionList:
        """The dropdown, made the first time it opens (a form has many of these inputs, few ever open a list)."""
        found = self.query_children(OptionList)
        if found:
            return found.first()
        options = OptionList()
        options.can_focus = False  # a click on a match must not take the focus from the input
        self.mount(options, Static(classes="completion-whole"))
        # the field moves when what holds it scrolls (a focus scrolls it into view, animated): the list follows
        for holder in self.ancestors:
            if isinstance(holder, ScrollableContainer):
                self.watch(holder, "scroll_y", self._moved, init=False)
        return options

    @property
    def input(self) -> _Field:
        return self._field

    @property
    def value(self) -> str:
        return self.input.value

    @value.setter
    def value(self, text: str) -> None:
        """Set by the program (recall, prefill): committed as is, no list opened."""
        self._committed = text
        self.input.value = text
        self._close()

    def focus(self, scroll_visible: bool = True) -> CompletingInput:
        self.input.focus(scroll_visible)
        return self

    # --- the list -----------------------------------------------------------------------------------------------

    def matches(self) -> list[str]:
        head, token = _split(self.value, self.separated)
        taken = set(re.split(r"[,\s]+", head)) if self.separated else set()
        needle = token.strip().casefold()
        candidates = [c for c in self.candidates() if c not in taken]
        if not needle:
            return candidates[:MAX_LISTED]
        starts = [c for c in candidates if c.casefold().startswith(needle)]
        inside = [c for c in candidates if needle in c.casefold() and c not in starts]
        return starts + inside

    def relist(self) -> None:
        """The candidates changed (the ledger was read meanwhile): an open list shows the matches anew, keeping the
        highlight where the user left it (none stays none: enter keeps taking what is typed); a list the user closed
        with escape stays closed, and a field without a list gets one only as its focus would open it."""
        if not self.input.has_focus or self._dismissed:
            return
        was_open = self.is_open
        options = self._options() if was_open else None
        index = options.highlighted if options is not None else None
        kept = self._shown[index] if index is not None and index < len(self._shown) else None
        self.refresh_matches(force=was_open, highlight=False)
        if kept is not None and kept in self._shown:
            self._highlight(self._shown.index(kept))

    def refresh_matches(self, force: bool = False, highlight: bool = True) -> None:
        """Show the matches of what is typed; unless `force`d, not when it already names a candidate. Without
        `highlight` (the list shown as the field gets the focus) none is highlighted: ↓ goes to the first."""
        if not self.input.has_focus or (self._dismissed and not force):
            self._close()
            return
        self._dismissed = False
        shown = self.matches()
        _, token = _split(self.value, self.separated)
        if not force and token and token in self.candidates():
            shown = []
        if not shown and not self.query_children(OptionList):
            self._shown = []
            self._close()
            return
        options = self._options()
        if shown != self._shown:
            self._shown = shown
            labels = [escaped(self.label(c)) if self.label else plain(c) for c in shown]
            inner = self._size_list(options, labels)
            self._cut = [label.cell_length > inner for label in labels]
            options.set_options(
                Option(
                    _cut_content(label, inner)
                    if self.label or label.cell_length <= inner
                    else plain(self.fit(candidate, inner))
                )
                for candidate, label in zip(shown, labels, strict=True)
            )
        self.set_class(bool(shown), "-open")
        if shown:
            # placed now, and again once the screen is laid out: a focus that scrolled the field into view (a tab
            # down to it) has not moved it on screen yet
            self._place_list()
            self.call_after_refresh(self._place_list)
        if not highlight:
            self._highlight(None)
        elif shown and options.highlighted is None:
            self._highlight(0)
        else:
            self._show_whole()

    def _highlight(self, index: int | None) -> None:
        self._options().highlighted = index
        self._show_whole()

    def _whole_line(self) -> Static:
        return self.query_children(".completion-whole").only_one(Static)

    def _show_whole(self) -> None:
        """The highlighted match whole, on its line by the list, when the list shows it cut."""
        if not self.query_children(OptionList):
            return
        index = self._options().highlighted
        whole = self._whole_line()
        cut_off = index is not None and index < len(self._cut) and self._cut[index]
        whole.set_class(cut_off, "-shown")
        if index is not None and cut_off:
            shown = self.label(self._shown[index]) if self.label else plain(self._shown[index])
            whole.update(escaped(shown) if self.label else shown)
            self._place_list()

    def _size_list(self, options: OptionList, labels: list[Content]) -> int:
        """Make the list as wide as its widest label needs, from the field's width up to the screen's right edge
        (it lies over what is beside the field: a field squeezed by a long name and type would otherwise list ids
        in 16 to 20 columns, each wrapped); the cells left for a label."""
        # the scroll bar's gutter is kept (`scrollbar-gutter: stable`): the list may be placed shorter than its
        # matches (a field low on the screen), and the bar then shows whatever their number
        chrome = LIST_CHROME + options.styles.scrollbar_size_vertical
        widest = max((label.cell_length for label in labels), default=0) + chrome
        room = self.screen.size.width - self.region.x if self.region.width else self.screen.size.width
        width = max(min(widest, room), min(self.region.width, room), chrome + 1)
        options.styles.width = width
        return width - chrome

    def _moved(self) -> None:
        if self.is_open:
            self.call_after_refresh(self._place_list)

    def _place_list(self) -> None:
        """The list under the field, as tall as the room between the field and the screen's docked bars (the
        footer, the status line) allows, or above the field when there is more room there: it scrolls within
        itself. (Kept to the screen alone, a list under a field low on the screen was pushed up over the field
        and the footer.)"""
        field = self.input.region
        if not (self.is_open and field.height):  # closed meanwhile, or not laid out yet
            return
        options, count = self._options(), len(self._shown)
        whole = self._whole_line()
        extra = 1 if whole.has_class("-shown") else 0  # the line of the highlighted match, whole
        top, bottom = _free_rows(self.screen)
        wanted = min(count, LIST_LINES) + LIST_BORDER
        below, above = bottom - field.bottom - extra, field.y - top - extra
        if below >= wanted or below >= above:
            height, shift = min(wanted, below), 0
            whole_y = max(height, LIST_BORDER + 1)  # under the list
        else:
            height = min(wanted, above)
            shift = -(height + field.height)  # from under the field to over it
            whole_y = shift - 1  # over the list
        options.styles.max_height = max(height, LIST_BORDER + 1)
        options.styles.offset = (0, shift)
        # across the screen from its left edge: the whole of a match the list (from the field on) cuts
        whole.styles.width = self.screen.size.width
        whole.styles.offset = (-self.region.x, whole_y)

    def _close(self) -> None:
        self.remove_class("-open")

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    def action_move(self, step: int) -> None:
        if not self.is_open:
            self.refresh_matches(force=True)
            return
        options = self._options()
        if options.option_count:
            current = options.highlighted if options.highlighted is not None else -1
            self._highlight((current + step) % options.option_count)

    def action_close(self) -> None:
        if not self.is_open:
            raise SkipAction()  # the next escape is the screen's: it leaves the field
        self._dismissed = True
        self._close()

    def _take(self, candidate: str) -> None:
        head, _ = _split(self.value, self.separated)
        text = head + candidate
        self._committed = text
        self.input.value = text
        self.input.cursor_position = len(text)
        self._close()
        self.post_message(self.Committed(self, text))

    # --- events -------------------------------------------------------------------------------------------------

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        self.refresh_matches()

    def take_or_commit(self) -> None:
        """Enter: the match highlighted in the list, else what is typed."""
        options = self._options() if self.is_open else None
        if options is not None and options.highlighted is not None and options.highlighted < len(self._shown):
            self._take(self._shown[options.highlighted])
            return
        self._committed = self.value
        self._close()
        self.post_message(self.Committed(self, self.value))

    @on(OptionList.OptionHighlighted)
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self._show_whole()

    @on(OptionList.OptionSelected)
    def _picked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option_index < len(self._shown):
            self._take(self._shown[event.option_index])

    def on_descendant_focus(self) -> None:
        self.refresh_matches(highlight=False)

    def on_descendant_blur(self) -> None:
        self._dismissed = False
        self._close()
        if self.value != self._committed:
            self._committed = self.value
            self.post_message(self.Committed(self, self.value, left=True))
