"""Small modal dialogs: a line of input, one choice from a list, several choices from a list."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.suggester import SuggestFromList
from textual.widgets import Button, Input, Label, OptionList, SelectionList
from textual.widgets.option_list import Option

from app.screens.dismissal import DismissesOnlyItself
from app.widgets.keys import FieldInput, KeyFooter
from app.widgets.option_lists import PagedOptionList
from app.widgets.untrusted_text import plain

T = TypeVar("T")

DIALOG_CSS = """
{name} {{
    align: center middle;
    background: $background 60%;
}}
{name} > Vertical {{
    width: 80%;
    max-width: 110;
    height: auto;
    max-height: 85%;
    border: thick $primary;
    background: $surface;
    padding: 1 2;
}}
{name} .dialog-title {{ text-style: bold; margin-bottom: 1; width: 1fr; }}
{name} .dialog-hint {{ color: $text-muted; margin-top: 1; width: 1fr; }}
{name} .dialog-error {{ color: $error; }}
"""


class PromptDialog(ModalScreen[str | None], DismissesOnlyItself):
    """Ask for one line. `validate` returns an error message or None; the dialog stays until it passes."""

    DEFAULT_CSS = DIALOG_CSS.format(name="PromptDialog")
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(
        self,
        title: str,
        *,
        value: str = "",
        placeholder: str = "",
        hint: str = "",
        validate: Callable[[str], str | None] | None = None,
        suggestions: Sequence[str] = (),
        select_on_focus: bool = True,
    ) -> None:
        """`select_on_focus`: typing replaces `value` (else it is a beginning, typed on)."""
        super().__init__()
        self.select_on_focus = select_on_focus
        self.title_text = title
        self.value = value
        self.suggestions = list(suggestions)
        self.placeholder = placeholder
        self.hint = hint
        self.validate_value = validate

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(plain(self.title_text), classes="dialog-title")
            suggester = SuggestFromList(self.suggestions, case_sensitive=False) if self.suggestions else None
            yield FieldInput(
                self.value,
                placeholder=self.placeholder,
                id="prompt-input",
                suggester=suggester,
                select_on_focus=self.select_on_focus,
            )
            yield Label("", classes="dialog-error", id="prompt-error")
            if self.hint:
                yield Label(plain(self.hint), classes="dialog-hint")
        yield KeyFooter()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        value = event.value.strip()
        problem = self.validate_value(value) if self.validate_value else None
        if problem:
            self.query_one("#prompt-error", Label).update(plain(problem))
            return
        self.dismiss(value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ChoiceDialog(ModalScreen[T | None], DismissesOnlyItself, Generic[T]):
    """Pick one of `choices` ((label, value) pairs)."""

    DEFAULT_CSS = (
        DIALOG_CSS.format(name="ChoiceDialog") + "ChoiceDialog OptionList { height: auto; max-height: 24; }"
    )
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(
        self, title: str, choices: Sequence[tuple[str, T]], *, hint: str = "", selected: T | None = None
    ) -> None:
        super().__init__()
        self.title_text = title
        self.choices = list(choices)
        self.hint = hint
        self.selected = selected

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(plain(self.title_text), classes="dialog-title")
            yield PagedOptionList(
                *[Option(plain(label), id=str(i)) for i, (label, _) in enumerate(self.choices)], id="choices"
            )
            if self.hint:
                yield Label(plain(self.hint), classes="dialog-hint")
        yield KeyFooter()

    def on_mount(self) -> None:
        found = self.query(OptionList)
        if not found:  # closed before it finished mounting (a key that arrived first): nothing to highlight
            return
        options = found.first()
        for i, (_, value) in enumerate(self.choices):
            if value == self.selected:
                options.highlighted = i
                break

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.choices[int(event.option.id or 0)][1])

    def action_cancel(self) -> None:
        self.dismiss(None)


class MultiChoiceDialog(ModalScreen[list[T] | None], DismissesOnlyItself, Generic[T]):
    """Pick any number of `choices` (label, value, selected). Enter confirms, space toggles."""

    DEFAULT_CSS = (
        DIALOG_CSS.format(name="MultiChoiceDialog")
        + "MultiChoiceDialog SelectionList { height: auto; max-height: 24; }"
    )
    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("enter", "confirm", "Apply", priority=True),
        Binding("a", "all", "All"),
        Binding("n", "none", "None"),
    ]

    def __init__(self, title: str, choices: Sequence[tuple[str, T, bool]], *, hint: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.choices = list(choices)
        self.hint = hint or "space toggles, enter applies"

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(plain(self.title_text), classes="dialog-title")
            yield SelectionList[int](
                *[(plain(label), i, on) for i, (label, _, on) in enumerate(self.choices)]
            )
            yield Label(plain(self.hint), classes="dialog-hint")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Apply", variant="primary", id="apply")
        yield KeyFooter()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_confirm()

    def action_confirm(self) -> None:
        chosen = self.query_one(SelectionList).selected
        self.dismiss([self.choices[i][1] for i in sorted(chosen)])

    def action_all(self) -> None:
        self.query_one(SelectionList).select_all()

    def action_none(self) -> None:
        self.query_one(SelectionList).deselect_all()

    def action_cancel(self) -> None:
        self.dismiss(None)
