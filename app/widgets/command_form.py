"""The composer's form: kind, template, contract, choice, the JSON arguments, the parties, the command id and the
advanced options. It holds text as typed (`CommandForm`), shows the fields the kind uses, points at problems, and
completes from the catalog: templates and choices seen, a payload to start a create from, a choice's last argument."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Input, Select, Static, TextArea
from textual.worker import Worker, WorkerState

from app.catalog import Catalog
from app.client.errors import LedgerApiError
from app.compose.commands import (
    KINDS,
    CommandForm,
    Problem,
    as_actor,
    default_user_id,
    pretty_json,
    resolve_parties,
    split_list,
)
from app.daml import party_hint, short_id, short_party
from app.widgets.command_advanced import FIELDS as ADVANCED_FIELDS
from app.widgets.command_advanced import AdvancedOptions
from app.widgets.completing_input import CompletingInput
from app.widgets.form_row import LABEL_WIDTH, field_row
from app.widgets.json_editor import JsonEditor
from app.widgets.keys import FieldInput
from app.widgets.untrusted_text import plain

if TYPE_CHECKING:
    from app.session import Session

KIND_HINTS = {
    "CreateAndExercise": "create, then exercise on it: one transaction",
    "Create": "create a contract",
    "Exercise": "a choice on an active contract",
    "ExerciseByKey": "a choice on the contract with a key",
}

# wire field name -> the widget that holds it (problems point there)
FIELD_WIDGETS = {
    "templateId": "#template",
    "contractId": "#contract-id",
    "contractKey": "#contract-key",
    "createArguments": "#create-arguments",
    "choice": "#choice",
    "choiceArgument": "#choice-argument",
    "actAs": "#act-as",
    "readAs": "#read-as",
    "commandId": "#command-id",
    "deduplicationPeriod": "#dedup-value",
    "minLedgerTimeAbs": "#min-abs",
    "minLedgerTimeRel": "#min-rel",
    "disclosedContracts": "#disclosed",
}


def _party_label(party: str) -> Content:
    return Content.assemble(plain(party_hint(party), "bold"), plain(f"  {short_party(party)}", "dim"))


class CommandEditor(VerticalScroll):
    DEFAULT_CSS = f"""
    CommandEditor {{ padding: 0 1; }}
    CommandEditor .field-row {{ height: auto; }}
    CommandEditor .field-row.group {{ margin-top: 1; }}
    CommandEditor .field-label {{ width: {LABEL_WIDTH}; color: $text-muted; }}
    CommandEditor .field-row.-invalid > .field-label {{ color: $error; text-style: bold; }}
    CommandEditor Input {{ width: 1fr; }}
    CommandEditor #kind {{ width: 24; }}
    CommandEditor #kind-hint {{ width: 1fr; color: $text-muted; margin-left: 2; }}
    CommandEditor .note {{ color: $text-muted; margin-left: {LABEL_WIDTH}; height: auto; }}
    CommandEditor .note.-empty {{ display: none; }}
    CommandEditor .note.-warning {{ color: $warning; }}
    CommandEditor JsonEditor {{ margin-top: 1; }}
    """

    @dataclass
    class Edited(Message):
        """Something in the form changed (the preview follows)."""

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id)
        self.catalog: Catalog | None = None  # set once connected; completion waits for it
        self._loading = False
        self._own_party = ""

    def compose(self) -> ComposeResult:
        yield field_row(
            "kind",
            Select([(k, k) for k in KINDS], allow_blank=False, compact=True, id="kind"),
            Static(KIND_HINTS[KINDS[0]], id="kind-hint"),
        )
        yield field_row(
            "template",
            CompletingInput(
                self.templates, id="template", placeholder="#package-name:Module:Entity (↓ lists those seen)"
            ),
        )
        yield field_row(
            "contract id",
            FieldInput(
                placeholder="00… the contract to exercise the choice on", compact=True, id="contract-id"
            ),
            id="contract-row",
        )
        yield JsonEditor("contractKey", "contractKey", rows=4, id="contract-key")
        yield JsonEditor("createArguments", "createArguments", rows=10, id="create-arguments")
        yield field_row(
            "choice",
            CompletingInput(
                self.choices,
                id="choice",
                placeholder="a choice of the template (↓ lists those seen, and Archive)",
            ),
            id="choice-row",
            group=True,
        )
        yield Static("", id="choice-hint", classes="note -empty")
        yield JsonEditor("choiceArgument", "choiceArgument", empty={}, rows=5, id="choice-argument")
        yield field_row(
            "actAs",
            CompletingInput(
                self.parties,
                separated=True,
                label=_party_label,
                id="act-as",
                placeholder="parties to act as, comma-separated",
            ),
            group=True,
        )
        yield field_row(
            "readAs",
            CompletingInput(
                self.parties,
                separated=True,
                label=_party_label,
                id="read-as",
                placeholder="extra parties whose contracts the command may read",
            ),
        )
        yield Static("", id="parties-note", classes="note -empty")
        yield field_row("commandId", FieldInput(compact=True, id="command-id"))
        yield AdvancedOptions(id="advanced")

    def on_mount(self) -> None:
        self._show_kind(KINDS[0])

    # --- reading and filling ------------------------------------------------------------------------------------

    def _input(self, selector: str) -> Input:
        return self.query_one(selector, Input)

    def _completing(self, selector: str) -> CompletingInput:
        return self.query_one(selector, CompletingInput)

    def _editor(self, selector: str) -> JsonEditor:
        return self.query_one(selector, JsonEditor)

    @property
    def advanced(self) -> AdvancedOptions:
        return self.query_one(AdvancedOptions)

    @property
    def kind(self) -> str:
        return str(self.query_one("#kind", Select).value)

    def state(self) -> CommandForm:
        form = CommandForm(
            kind=self.kind,
            template_id=self._completing("#template").value,
            contract_id=self._input("#contract-id").value,
            choice=self._completing("#choice").value,
            create_arguments=self._editor("#create-arguments").text,
            choice_argument=self._editor("#choice-argument").text,
            contract_key=self._editor("#contract-key").text,
            act_as=self._completing("#act-as").value,
            read_as=self._completing("#read-as").value,
            command_id=self._input("#command-id").value,
        )
        return self.advanced.read(form)

    def load(self, form: CommandForm) -> None:
        """Show `form` as is (a recalled command, a prefill)."""
        self._loading = True
        try:
            self.set_kind(form.kind)
            self._completing("#template").value = form.template_id
            self._input("#contract-id").value = form.contract_id
            self._completing("#choice").value = form.choice
            self._editor("#create-arguments").set_text(form.create_arguments)
            self._editor("#choice-argument").set_text(form.choice_argument)
            self._editor("#contract-key").set_text(form.contract_key)
            self._completing("#act-as").value = form.act_as
            self._completing("#read-as").value = form.read_as
            self._input("#command-id").value = form.command_id
            self.advanced.show(form)
        finally:
            self._loading = False
        self.show_choices()
        self.post_message(self.Edited())

    def set_kind(self, kind: str) -> None:
        self.query_one("#kind", Select).value = kind
        self._show_kind(kind)

    def set_command_id(self, command_id: str) -> None:
        self._input("#command-id").value = command_id

    def adopt(self, session: Session, catalog: Catalog) -> None:
        """Complete from `catalog`; default to what the session's user is (its party, unless another was typed)."""
        self.catalog = catalog
        identity = session.identity
        own = (
            identity.primary_party
            if identity.primary_party in identity.act_as
            else (identity.act_as[0] if identity.act_as else "")
        )
        act_as = self._completing("#act-as")
        if not act_as.value.strip() or act_as.value == self._own_party:
            act_as.value = own
        self._own_party = own
        self._input("#user-id").placeholder = (
            f"the token's user ({identity.user_id})"
            if identity.user_id
            else f"no auth: sent as {default_user_id(identity)}"
        )
        self.advanced.set_synchronizers(
            [
                (f"{s.synchronizer_alias}  {short_id(s.synchronizer_id, 24)}", s.synchronizer_id)
                for s in session.synchronizers
            ]
        )
        self.show_choices()

    def _show_kind(self, kind: str) -> None:
        form = CommandForm(kind=kind)
        self.query_one("#contract-row").display = kind == "Exercise"
        self.query_one("#contract-key").display = kind == "ExerciseByKey"
        self.query_one("#create-arguments").display = form.uses_create_arguments
        for selector in ("#choice-row", "#choice-hint", "#choice-argument"):
            self.query_one(selector).display = form.uses_choice
        self.query_one("#kind-hint", Static).update(plain(KIND_HINTS.get(kind, "")))

    def _note(self, selector: str, text: str, *, warning: bool = False) -> None:
        note = self.query_one(selector, Static)
        note.update(plain(text))  # quotes choice names and parties seen on the ledger
        note.set_class(not text, "-empty")
        note.set_class(warning, "-warning")

    def note_outside_rights(self, parties: Sequence[str]) -> None:
        """Warn under the parties of those the user's rights do not cover."""
        self._note(
            "#parties-note",
            f"⚠ not in your rights: {', '.join(party_hint(p) for p in parties)} — the "
            "participant will likely refuse (403)"
            if parties
            else "",
            warning=bool(parties),
        )

    # --- completion ---------------------------------------------------------------------------------------------

    def templates(self) -> list[str]:
        return self.catalog.template_refs() if self.catalog else []

    def choices(self) -> list[str]:
        template = self._completing("#template").value.strip()
        return self.catalog.choices_for(template) if self.catalog and template else []

    def parties(self) -> list[str]:
        return self.catalog.parties() if self.catalog else []

    def acting_parties(self) -> list[str]:
        return resolve_parties(split_list(self._completing("#act-as").value), self.parties())

    def show_choices(self) -> None:
        """Under the choice: the choices seen exercised on the template."""
        seen = self.choices()[:-1]
        template = self._completing("#template").value.strip()
        self._note(
            "#choice-hint",
            ""
            if not template or self.catalog is None
            else ("seen exercised: " + ", ".join(seen) if seen else "none seen exercised yet")
            + "; and Archive",
        )
        for field in self.query(
            CompletingInput
        ):  # a list opened before the ledger was read: offer what is known now
            if field.is_open:
                field.refresh_matches(force=True)

    def offer_argument(self, choice: str) -> None:
        """Start the choice argument as it was last exercised (unless the user wrote one)."""
        editor = self._editor("#choice-argument")
        if self.catalog is None or not editor.replaceable:
            return
        sample = self.catalog.choice_argument(self._completing("#template").value, choice)
        if sample is not None:
            editor.set_text(pretty_json(sample), "as last exercised on the ledger", suggested=True)
        else:
            editor.set_text("", f"{choice} not seen exercised: write its argument")

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        # a widget's worker reports to the widget alone: the app says what failed, as for every worker
        if event.state == WorkerState.ERROR:
            failed = getattr(self.app, "worker_failed", None)
            if failed is not None:
                failed(event.worker)

    def offer_skeleton(self) -> None:
        """Start the create arguments from the newest contract of the template (unless the user wrote some)."""
        template = self._completing("#template").value.strip()
        if template and self.state().uses_create_arguments and self._editor("#create-arguments").replaceable:
            self._fill_skeleton(template)

    @work(exclusive=True, group="composer-skeleton", exit_on_error=False)
    async def _fill_skeleton(self, template: str) -> None:
        if self.catalog is None:
            return
        editor = self._editor("#create-arguments")
        try:
            created = await self.catalog.newest_contract(template)
        except LedgerApiError as e:
            editor.set_note(f"cannot read contracts of this template: {e.title}")
            return
        if not editor.replaceable or self._completing("#template").value.strip() != template:
            return  # the user moved on while it was read
        if created is None:
            editor.set_text("", "no active contract of this template visible: write its arguments")
            return
        act_as = self.acting_parties()
        payload = as_actor(created.create_argument, created.signatories, act_as)
        note = f"from {short_id(created.contract_id, 12)}, the newest"
        if payload != created.create_argument:
            note += f"; signatories → {party_hint(act_as[0])}"
        editor.set_text(pretty_json(payload), note, suggested=True)

    # --- problems -----------------------------------------------------------------------------------------------

    def mark(self, problems: Sequence[Problem]) -> None:
        """Colour the labels of the fields with a problem (JSON editors colour themselves)."""
        bad = {FIELD_WIDGETS.get(p.field) for p in problems}
        for selector in set(FIELD_WIDGETS.values()):
            row = self.query_one(selector).parent
            if isinstance(row, Horizontal) and row.has_class("field-row"):
                row.set_class(selector in bad, "-invalid")

    def focus_problem(self, problem: Problem) -> None:
        if problem.field in ADVANCED_FIELDS:
            self.advanced.collapsed = False
        selector = FIELD_WIDGETS.get(problem.field)
        if selector is None:
            return
        widget = self.query_one(selector)
        if isinstance(widget, JsonEditor):
            widget.go_to_problem()
        else:
            widget.focus()
        self.call_after_refresh(widget.scroll_visible)

    # --- events -------------------------------------------------------------------------------------------------

    @on(Select.Changed, "#kind")
    def _kind_changed(self, event: Select.Changed) -> None:
        self._show_kind(str(event.value))
        if not self._loading:
            self.offer_skeleton()

    @on(Input.Changed)
    @on(TextArea.Changed)
    @on(Select.Changed)
    def _edited(self) -> None:
        if not self._loading:
            self.post_message(self.Edited())

    @on(CompletingInput.Committed, "#template")
    def _template_committed(self, event: CompletingInput.Committed) -> None:
        event.stop()
        self.show_choices()
        self.offer_skeleton()

    @on(CompletingInput.Committed, "#choice")
    def _choice_committed(self, event: CompletingInput.Committed) -> None:
        event.stop()
        if event.value.strip():
            self.offer_argument(event.value.strip())
