"""How a submission ended: the transaction's events as a tree (created, exercised with choice and result, archived;
enter opens a contract in the inspector), or the rejection with Canton's error id, category, cause and what to do."""

from __future__ import annotations

import time

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.timer import Timer
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from app.client import errors
from app.client.errors import LedgerApiError, category_words
from app.cut import shorten
from app.daml import party_hint, scalar, short_id, summary, template_name
from app.messages import OpenContract
from app.untrusted import visible
from app.widgets.untrusted_text import visible_lines
from participant.api import ArchivedEvent, CreatedEvent, ExercisedEvent, JsTransaction

ID_SHOWN = 20  # characters of a contract id on a line: enough to tell them apart


def event_lines(transaction: JsTransaction) -> list[tuple[Content, str]]:
    """(line, contract id) for each event, indented under the exercise it belongs to (ledger-effects node ids)."""
    lines: list[tuple[Content, str]] = []
    open_until: list[int] = []  # last descendant node id of each enclosing exercise
    for event in transaction.events:
        value = event.value
        node = getattr(value, "node_id", 0)
        while open_until and node > open_until[-1]:
            open_until.pop()
        indent = "  " * len(open_until)
        cid = value.contract_id
        more = indent + "    "
        if isinstance(value, CreatedEvent):
            line = Content.assemble(
                indent,
                ("+ created   ", "bold green"),
                (short_id(cid, ID_SHOWN), "bold"),
                f"  {visible(template_name(value.template_id))}\n",
                (more + visible(summary(value.create_argument, 80)), "dim"),
            )
        elif isinstance(value, ExercisedEvent):
            kind = "consuming" if value.consuming else "non-consuming"
            by = ", ".join(party_hint(p) for p in value.acting_parties)
            line = Content.assemble(
                indent,
                ("⚡ exercised ", "bold yellow"),
                (visible(value.choice), "bold"),
                " on ",
                short_id(cid, ID_SHOWN),
                f"  {visible(template_name(value.template_id))}\n",
                (f"{more}{kind}, by {visible(by)}", "dim"),
            )
            if value.exercise_result not in (None, {}):
                line += Content.assemble(("  → ", "dim"), (visible(scalar(value.exercise_result)), "cyan"))
            open_until.append(value.last_descendant_node_id)
        elif isinstance(value, ArchivedEvent):
            line = Content.assemble(
                indent,
                ("- archived  ", "bold red"),
                short_id(cid, ID_SHOWN),
                f"  {visible(template_name(value.template_id))}",
            )
        else:
            continue
        lines.append((line, cid))
    return lines


def failure_text(error: LedgerApiError, command_id: str, context: str = "") -> Content:
    """A rejection or a failure to get an answer, in the words a user needs, with what to do next; `context` is
    what the composer knows that may explain it."""
    parts: list[str | tuple[str, str]] = []
    if isinstance(error, errors.StatusError) and error.canton is not None:
        canton = error.canton
        parts += [("✗ Rejected: ", "bold red"), (visible(canton.code), "bold"), f"  (HTTP {error.status})\n"]
        words = category_words(canton.error_category)
        if canton.error_category >= 0:  # -1: the participant hides security errors' details
            parts.append(
                (f"category {canton.error_category}" + (f" · {words}" if words else "") + "\n", "dim")
            )
        parts += [("cause: ", "bold"), f"{visible_lines(canton.cause)}\n"]
        if error.hint:
            parts += [("\nwhat it means: ", "bold"), f"{visible(error.hint)}\n"]
        if context:
            parts += [("\nhere: ", "bold"), f"{visible(context)}\n"]
        ids = [
            f"{k} {visible(v)}"
            for k, v in (("correlation id", canton.correlation_id), ("trace id", canton.trace_id))
            if v
        ]
        if ids:
            parts.append(("\n" + " · ".join(ids) + "\n", "dim"))
        again = "Nothing was changed on the ledger. Fix the command and submit again (ctrl+s)."
    elif isinstance(error, errors.StatusError):
        parts += [
            ("✗ Rejected: ", "bold red"),
            (f"HTTP {error.status}\n", "bold"),
            f"{visible(error.message)}\n",
        ]
        for extra in (error.hint, context):
            if extra:
                parts.append(f"\n{visible(extra)}\n")
        again = "Fix the command and submit again (ctrl+s)."
    else:
        parts += [(f"✗ {visible(error.title)}\n", "bold red"), f"{visible(error.message)}\n"]
        if error.hint:
            parts.append(f"{visible(error.hint)}\n")
        again = (
            "The outcome is unknown: the command may have run. Submitting again with the same commandId is "
            "safe, the participant runs a command id at most once (ctrl+s)."
        )
    parts += [
        "\n",
        (f"commandId {visible(command_id)}\n", "dim"),
        ("Everything you typed is kept. ", "bold"),
        again,
    ]
    return Content.assemble(*parts)


def failure_context(error: LedgerApiError, outside_rights: list[str]) -> str:
    """What the composer knows that explains a failure better than its code alone."""
    if not isinstance(error, errors.StatusError):
        return ""
    if error.status == 403 and outside_rights:
        return (
            f"the command acts or reads as {', '.join(party_hint(p) for p in outside_rights)}, which the "
            "user's rights do not include"
        )
    if error.code == "DUPLICATE_COMMAND":
        return "ctrl+n gives the form a fresh commandId: submitting then runs the command once more"
    return ""


class TransactionResult(VerticalScroll):
    DEFAULT_CSS = """
    TransactionResult { height: 1fr; }
    TransactionResult > #result-head { height: auto; padding: 0 1; }
    TransactionResult > OptionList { height: auto; border: blank; display: none; }
    TransactionResult.-events > OptionList { display: block; }
    TransactionResult.-failed > #result-head { border-left: thick $error; }
    TransactionResult.-ok > #result-head { border-left: thick $success; }
    TransactionResult.-earlier { opacity: 70%; }
    TransactionResult.-earlier > #result-head { border-left: thick $panel; }
    """

    BINDINGS = [
        Binding("y", "copy_id", "Copy id", id="composer.copy_id"),
    ]

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id)
        self._progress: Timer | None = None
        self._head = Content("")
        self._ids: list[str] = []
        self.contract_ids: list[str] = []  # of the last transaction, in event order (created ones first)

    def compose(self) -> ComposeResult:
        yield Static("Submit a command (ctrl+s): its transaction appears here.", id="result-head")
        yield OptionList(id="result-events")

    def _state(self, name: str) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
        for state in ("-ok", "-failed", "-events", "-earlier"):
            self.remove_class(state)
        if name:
            self.add_class(name)

    def show_progress(self, text: str) -> None:
        """`text` and the time since, until the outcome is shown."""
        self._state("")
        started = time.monotonic()
        head = self.query_one("#result-head", Static)

        def tick() -> None:
            head.update(
                Content.assemble(("⋯ ", "bold cyan"), text, (f"  {time.monotonic() - started:.1f} s", "dim"))
            )

        tick()
        self._progress = self.set_interval(0.2, tick)

    def show_transaction(self, transaction: JsTransaction) -> None:
        lines = event_lines(transaction)
        self._ids = [cid for _, cid in lines]
        created = [e.value.contract_id for e in transaction.events if isinstance(e.value, CreatedEvent)]
        self.contract_ids = created
        counts = {
            kind: sum(isinstance(e.value, cls) for e in transaction.events)
            for kind, cls in (
                ("created", CreatedEvent),
                ("exercised", ExercisedEvent),
                ("archived", ArchivedEvent),
            )
        }
        head = Content.assemble(
            ("✓ Committed ", "bold green"),
            f"at offset {transaction.offset}",
            (
                f"  · update {short_id(transaction.update_id, 16)} · effective {transaction.effective_at}\n",
                "dim",
            ),
            ", ".join(f"{n} {kind}" for kind, n in counts.items() if n)
            or "no events visible to these parties",
            ("   enter opens a contract · y copies its id", "dim"),
        )
        self._show_head(head)
        options = self.query_one(OptionList)
        options.set_options(Option(line) for line, _ in lines)
        self._state("-ok")
        self.add_class("-events")
        if lines:
            options.highlighted = next((i for i, cid in enumerate(self._ids) if cid in created), 0)

    def show_failure(self, error: LedgerApiError, command_id: str, context: str = "") -> None:
        self._state("")
        self._ids = []
        self.contract_ids = []
        self._show_head(failure_text(error, command_id, context))
        self._state("-failed")

    def _show_head(self, head: Content) -> None:
        self._head = head
        self.query_one("#result-head", Static).update(head)
        self.scroll_home(animate=False)  # an outcome is read from its first line

    def mark_earlier(self) -> None:
        """The form holds another command now: what is shown is said to be an earlier command's outcome."""
        if not (self.has_class("-ok") or self.has_class("-failed")) or self.has_class("-earlier"):
            return
        self.add_class("-earlier")
        self.query_one("#result-head", Static).update(
            Content.assemble(
                ("Earlier command", "bold"), (" (the form holds another now)\n", "dim"), self._head
            )
        )

    def focus_events(self) -> None:
        """Focus the events, the outcome's head kept in view: Textual's scroll on focus centred the list, or
        not, depending on whether the list was laid out yet (on a short pane, the head out of view or not)."""
        if self.has_class("-events"):
            self.query_one(OptionList).focus(scroll_visible=False)

    def _selected_id(self) -> str | None:
        index = self.query_one(OptionList).highlighted
        return self._ids[index] if index is not None and index < len(self._ids) else None

    @on(OptionList.OptionSelected)
    def _open(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option_index < len(self._ids):
            self.post_message(OpenContract(self._ids[event.option_index]))

    def action_copy_id(self) -> None:
        cid = self._selected_id()
        if cid:
            self.app.copy_to_clipboard(cid)
            self.notify(f"Copied {shorten(cid, 16)} to the clipboard.", timeout=3)
