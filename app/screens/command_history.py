"""The commands submitted from the composer, newest first: enter recalls one into the form as it was, `r` recalls it
with a fresh commandId to run it again."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Footer, Label, OptionList, Static
from textual.widgets.option_list import Option

from app.commands import split_list, summary
from app.daml import party_hint
from app.history import HistoryEntry
from app.screens.dialogs import DIALOG_CSS


def _line(entry: HistoryEntry) -> Content:
    mark = ("✓ ", "bold green") if entry.ok else ("✗ ", "bold red")
    who = ", ".join(party_hint(p) for p in split_list(entry.form.act_as)) or "?"
    return Content.assemble(mark, (entry.at.replace("T", " ").removesuffix("Z"), "dim"), "  ",
                            (summary(entry.form), "bold"), f"  as {who}  ",
                            (entry.outcome, "green" if entry.ok else "red"))


def _details(entry: HistoryEntry) -> Content:
    form = entry.form
    rows = [("commandId", form.command_id), ("template", form.template_id)]
    if form.kind == "Exercise":
        rows.append(("contract", form.contract_id))
    if form.uses_choice:
        rows.append(("choice", form.choice))
    rows += [("actAs", form.act_as), ("readAs", form.read_as), ("participant", entry.participant),
             ("user", entry.user)]
    if entry.update_id:
        rows.append(("update", entry.update_id))
    parts: list[str | tuple[str, str]] = []
    for name, value in rows:
        if value:
            parts += [(f"{name:<12}", "dim"), f"{value}\n"]
    arguments = form.create_arguments if form.uses_create_arguments else form.choice_argument
    if arguments.strip():
        text = " ".join(arguments.split())
        parts += [("arguments   ", "dim"), text[:300] + ("…" if len(text) > 300 else "")]
    return Content.assemble(*parts)


class HistoryDialog(ModalScreen[tuple[HistoryEntry, bool] | None]):
    DEFAULT_CSS = DIALOG_CSS.format(name="HistoryDialog") + """
    HistoryDialog > Vertical { max-width: 150; width: 95%; }
    HistoryDialog OptionList { height: auto; max-height: 20; }
    HistoryDialog #history-details { height: auto; max-height: 12; margin-top: 1; padding: 0 1;
                                     background: $boost; }
    """
    BINDINGS = [
        Binding("escape", "cancel", "Close", id="history.close"),
        Binding("enter", "recall", "Recall", id="history.recall", priority=True),
        Binding("r", "resubmit", "Recall with a fresh commandId", id="history.resubmit"),
    ]

    def __init__(self, entries: list[HistoryEntry]) -> None:
        super().__init__()
        self.entries = entries

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(f"Command history ({len(self.entries)}, newest first)", classes="dialog-title")
            yield OptionList(*[Option(_line(e)) for e in self.entries], id="history-list")
            yield Static("", id="history-details")
            yield Label("enter recalls the command as it was · r recalls it with a fresh commandId (to run it "
                        "again) · escape closes", classes="dialog-hint")
        yield Footer()

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        if self.entries:
            options.highlighted = 0
        options.focus()

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self.query_one("#history-details", Static).update(_details(self.entries[event.option_index]))

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
