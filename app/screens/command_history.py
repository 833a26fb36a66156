"""The commands submitted from the composer, newest first: enter recalls one into the form as it was, `r` recalls it
with a fresh commandId to run it again."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from app.compose.commands import split_list, summary
from app.compose.history import HistoryEntry
from app.cut import cut
from app.daml import party_hint
from app.screens.dialogs import DIALOG_CSS
from app.screens.dismissal import DismissesOnlyItself
from app.untrusted import visible
from app.widgets.keys import FieldInput, KeyFooter
from app.widgets.option_lists import PagedOptionList
from app.widgets.untrusted_text import escaped, plain


def _line(entry: HistoryEntry) -> Content:
    mark = ("✓ ", "bold green") if entry.ok else ("✗ ", "bold red")
    who = ", ".join(party_hint(p) for p in split_list(entry.form.act_as)) or "?"
    # one line of what was typed and what the participant answered: its control characters written out
    return escaped(
        Content.assemble(
            mark,
            (entry.at.replace("T", " ").removesuffix("Z"), "dim"),
            "  ",
            (summary(entry.form), "bold"),
            f"  as {who}  ",
            (entry.outcome, "green" if entry.ok else "red"),
        )
    )


def _details(entry: HistoryEntry) -> Content:
    form = entry.form
    rows = [("commandId", form.command_id), ("template", form.template_id)]
    if form.kind == "Exercise":
        rows.append(("contract", form.contract_id))
    if form.uses_choice:
        rows.append(("choice", form.choice))
    rows += [
        ("actAs", form.act_as),
        ("readAs", form.read_as),
        ("participant", entry.participant),
        ("user", entry.user),
    ]
    if entry.update_id:
        rows.append(("update", entry.update_id))
    parts: list[str | tuple[str, str]] = []
    for name, value in rows:
        if value:
            parts += [(f"{name:<12}", "dim"), f"{visible(value)}\n"]
    for name, text, used in (
        ("createArgs", form.create_arguments, form.uses_create_arguments),
        ("contractKey", form.contract_key, form.kind == "ExerciseByKey"),
        ("choiceArg", form.choice_argument, form.uses_choice),
    ):
        flat = " ".join(text.split())
        if used and flat:
            parts += [(f"{name:<12}", "dim"), cut(visible(flat), 240) + "\n"]
    return Content.assemble(*parts)


def _matches(entry: HistoryEntry, words: list[str]) -> bool:
    form = entry.form
    text = " ".join(
        [summary(form), form.template_id, form.command_id, form.act_as, entry.outcome, entry.at, entry.user]
    ).casefold()
    return all(w in text for w in words)


class HistoryDialog(ModalScreen[tuple[HistoryEntry, bool] | None], DismissesOnlyItself):
    DEFAULT_CSS = (
        DIALOG_CSS.format(name="HistoryDialog")
        + """
    HistoryDialog > Vertical { max-width: 150; width: 95%; }
    HistoryDialog OptionList { height: auto; max-height: 20; }
    HistoryDialog #history-details { height: auto; max-height: 12; margin-top: 1; padding: 0 1;
                                     background: $boost; }
    HistoryDialog #history-filter { margin-bottom: 1; }
    """
    )
    BINDINGS = [
        Binding("escape", "cancel", "Close", id="history.close"),
        Binding("enter", "recall", "Recall", id="history.recall", priority=True),
        Binding("r", "resubmit", "Recall with a fresh commandId", id="history.resubmit"),
        Binding("slash", "filter", "Filter", id="history.filter"),
        Binding("down", "move(1)", show=False),
        Binding("up", "move(-1)", show=False),
    ]

    def __init__(self, entries: list[HistoryEntry]) -> None:
        super().__init__()
        self.all_entries = entries
        self.entries = entries  # those shown (the filter's matches)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(plain(f"Command history ({len(self.entries)}, newest first)"), classes="dialog-title")
            yield FieldInput(
                free_text=True,
                placeholder="/ filters: template, choice, party, commandId, outcome…",
                compact=True,
                id="history-filter",
            )
            yield PagedOptionList(*[Option(_line(e)) for e in self.entries], id="history-list")
            yield Static("", id="history-details")
            yield Label(
                "enter recalls the command as it was · r recalls it with a fresh commandId (to run it "
                "again) · / filters · escape closes",
                classes="dialog-hint",
            )
        yield KeyFooter()

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        if self.entries:
            options.highlighted = 0
        options.focus()

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option_index < len(self.entries):
            self.query_one("#history-details", Static).update(_details(self.entries[event.option_index]))

    def action_filter(self) -> None:
        self.query_one("#history-filter", Input).focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        words = event.value.casefold().split()
        self.entries = [e for e in self.all_entries if _matches(e, words)]
        options = self.query_one(OptionList)
        options.set_options(Option(_line(e)) for e in self.entries)
        if self.entries:
            options.highlighted = 0
        else:
            self.query_one("#history-details", Static).update("no command matches")

    def action_move(self, step: int) -> None:
        """Up and down move through the list while typing a filter."""
        options = self.query_one(OptionList)
        if options.option_count:
            current = options.highlighted if options.highlighted is not None else -step
            options.highlighted = max(0, min(options.option_count - 1, current + step))

    def _chosen(self) -> HistoryEntry | None:
        index = self.query_one(OptionList).highlighted
        return self.entries[index] if index is not None and index < len(self.entries) else None

    def action_recall(self) -> None:
        entry = self._chosen()
        if entry is not None:
            self.dismiss((entry, False))

    def action_resubmit(self) -> None:
        entry = self._chosen()
        if entry is not None:
            self.dismiss((entry, True))

    def action_cancel(self) -> None:
        self.dismiss(None)
