"""`?`: what the current screen is for, its keys and the app's, and what each screen does."""

from __future__ import annotations

from typing import cast

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, Markdown

from app.screens.dismissal import DismissesOnlyItself
from app.screens.host import LedgerHost

OVERVIEW = """\
### Screens

- **1 Contracts**: the active contracts at any offset, by party and template; history step by step, filter, sort,
  export.
- **2 Compose**: build a command (CreateAndExercise, Create, Exercise, ExerciseByKey), preview the request, submit
  it and read the transaction.
- **3 Requests**: every HTTP request of this session with its bodies; copy any as curl.
- **4 Reassign**: move a contract to another synchronizer (unassign, then assign), follow each step to its
  outcome, complete the moves in flight.
- **5 Packages**: the participant's Daml packages, their templates, interfaces and data types with their
  signatures; start a Create of a template or show its contracts.
- **6 Transactions**: the updates the parties see, newest first, paged as you scroll; `f` follows the ledger live;
  filter, go to an offset or update id, open a transaction and the contracts it touched.
- **7 Parties & users**: the participant's parties and users with their rights; an administrator allocates
  parties, creates users, grants and revokes rights, deletes users.
- **Inspector** (enter on a contract, ctrl+o, or paste a contract id): the create and archive events, the payload,
  the transactions behind it.

`?` opens this help from anywhere but a field whose text may hold a `?` (the JSON editors and the `/` filters), where
it is typed; F1 opens the help from there too. The footer shows each screen's most used keys; this list has them all.
ctrl+p opens the command palette, which reaches every action of every screen. Keys can be remapped in the config
file (`ledger-tui --paths` shows where), by the ids listed here.
"""


class HelpScreen(ModalScreen[None], DismissesOnlyItself):
    DEFAULT_CSS = """
    HelpScreen { align: center middle; background: $background 60%; }
    HelpScreen > VerticalScroll { width: 90%; max-width: 120; height: 90%; border: thick $primary;
                                  background: $surface; padding: 0 2; }
    """
    BINDINGS = [Binding("escape,q,question_mark,f1", "close", "Close")]

    def __init__(self, screen: Screen) -> None:
        super().__init__()
        self.for_screen = screen

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Markdown(self._text())
        yield Footer()

    def _text(self) -> str:
        screen = self.for_screen
        title = getattr(screen, "TITLE_TEXT", "") or type(screen).__name__.removesuffix("Screen")
        parts = [f"## {title}", getattr(screen, "HELP", "") or ""]
        parts.append("### Keys on this screen\n")
        parts.append(self._table(getattr(screen, "BINDINGS", [])))
        parts.append("### Keys everywhere\n")
        parts.append(self._table(self.app.BINDINGS))
        parts.append(OVERVIEW)
        return "\n\n".join(parts)

    def _table(self, bindings) -> str:
        lines = []
        for b in bindings:
            if not isinstance(b, Binding) or not b.description:
                continue
            key = cast(LedgerHost, self.app).palette.key_names(b)
            said = f" ({b.tooltip})" if b.tooltip else ""  # who may use it, where the footer may hide it
            lines.append(f"- `{key}` **{b.description}**{said}" + (f" · {b.id}" if b.id else ""))
        return "\n".join(lines)

    def action_close(self) -> None:
        self.dismiss(None)
