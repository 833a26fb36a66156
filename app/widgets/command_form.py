"""The composer's form: kind, template, contract, choice, the JSON arguments, the parties, the command id and the
advanced options. It holds text as typed (`CommandForm`), shows the fields the kind uses, and points at problems."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Collapsible, Input, Label, Select, Static, TextArea

from app.commands import DEDUPLICATION, KINDS, CommandForm, Problem
from app.daml import party_hint
from app.widgets.completing_input import CompletingInput
from app.widgets.json_editor import JsonEditor

KIND_HINTS = {
    "CreateAndExercise": "create, then exercise a choice on it: one transaction",
    "Create": "create a contract",
    "Exercise": "a choice on an active contract",
    "ExerciseByKey": "a choice on the contract with a key",
}
DEDUPLICATION_LABELS = {"none": "participant default", "duration": "duration (seconds)", "offset": "since offset"}

# wire field name -> the widget that holds it (problems point there)
FIELD_WIDGETS = {
    "templateId": "#template", "contractId": "#contract-id", "contractKey": "#contract-key",
    "createArguments": "#create-arguments", "choice": "#choice", "choiceArgument": "#choice-argument",
    "actAs": "#act-as", "readAs": "#read-as", "commandId": "#command-id", "deduplicationPeriod": "#dedup-value",
    "minLedgerTimeAbs": "#min-abs", "minLedgerTimeRel": "#min-rel", "disclosedContracts": "#disclosed",
}
ADVANCED = {"deduplicationPeriod", "minLedgerTimeAbs", "minLedgerTimeRel", "disclosedContracts"}


def _row(label: str, *widgets: Widget, id: str | None = None, group: bool = False) -> Horizontal:
    """A labelled line; `group` starts a group of lines (a blank line above)."""
    return Horizontal(Label(label, classes="field-label"), *widgets, classes="field-row group" if group else
                      "field-row", id=id)


class CommandEditor(VerticalScroll):
    DEFAULT_CSS = """
    CommandEditor { padding: 0 1; }
    CommandEditor .field-row { height: auto; }
    CommandEditor .field-row.group { margin-top: 1; }
    CommandEditor .field-label { width: 12; color: $text-muted; padding-top: 0; }
    CommandEditor .field-row.-invalid > .field-label { color: $error; text-style: bold; }
    CommandEditor Input { width: 1fr; }
    CommandEditor #kind { width: 24; }
    CommandEditor #kind-hint, CommandEditor #choice-hint, CommandEditor #parties-note {
        width: 1fr; color: $text-muted; margin-left: 2; height: auto;
    }
    CommandEditor #parties-note { margin: 0 0 0 12; }
    CommandEditor #parties-note.-warning { color: $warning; }
    CommandEditor #choice-hint { margin: 0 0 0 12; }
    CommandEditor JsonEditor { margin-top: 1; }
    CommandEditor #dedup { width: 26; }
    CommandEditor Collapsible { padding: 0; border: none; margin-top: 1; }
    CommandEditor Collapsible > Contents { padding: 1 0 0 0; }
    """

    @dataclass
    class Edited(Message):
        """Something in the form changed (the preview follows)."""

    @dataclass
    class TemplateChosen(Message):
        template: str

    @dataclass
    class ChoiceChosen(Message):
        choice: str

    def __init__(self, *, templates: Callable[[], Sequence[str]], choices: Callable[[], Sequence[str]],
                 parties: Callable[[], Sequence[str]], id: str | None = None) -> None:
        super().__init__(id=id)
        self._templates = templates
        self._choices = choices
        self._parties = parties
        self._loading = False

    def compose(self) -> ComposeResult:
        yield _row("kind", Select([(k, k) for k in KINDS], allow_blank=False, compact=True, id="kind"),
                   Static(KIND_HINTS[KINDS[0]], id="kind-hint"))
        yield _row("template", CompletingInput(self._templates, id="template",
                                               placeholder="#package-name:Module:Entity (↓ lists those seen)"))
        yield _row("contract id", Input(placeholder="00… the contract to exercise on", compact=True,
                                        id="contract-id"), id="contract-row")
        yield JsonEditor("contractKey", "contractKey", rows=4, id="contract-key")
        yield JsonEditor("createArguments", "createArguments", rows=10, id="create-arguments")
        yield _row("choice", CompletingInput(self._choices, id="choice",
                                             placeholder="a choice of the template (↓ lists those seen, and Archive)"),
                   id="choice-row", group=True)
        yield Static("", id="choice-hint")
        yield JsonEditor("choiceArgument", "choiceArgument", empty={}, rows=5, id="choice-argument")
        yield _row("actAs", CompletingInput(self._parties, separated=True, describe=party_hint, id="act-as",
                                            placeholder="parties to act as, comma-separated"), group=True)
        yield _row("readAs", CompletingInput(self._parties, separated=True, describe=party_hint, id="read-as",
                                             placeholder="extra parties whose contracts the command may read"))
        yield Static("", id="parties-note")
        yield _row("commandId", Input(compact=True, id="command-id"))
        with Collapsible(title="Advanced: userId, workflowId, deduplication, ledger time, synchronizer, "
                               "packages, disclosed contracts", id="advanced"):
            yield _row("userId", Input(compact=True, id="user-id", placeholder="the token's user"), group=True)
            yield _row("workflowId", Input(compact=True, id="workflow-id"))
            yield _row("dedup", Select([(DEDUPLICATION_LABELS[d], d) for d in DEDUPLICATION], allow_blank=False,
                                       compact=True, id="dedup"),
                       Input(compact=True, id="dedup-value", placeholder="seconds, or an offset"))
            yield _row("minLedgerAbs", Input(compact=True, id="min-abs", placeholder="2030-01-01T00:00:00Z"))
            yield _row("minLedgerRel", Input(compact=True, id="min-rel", placeholder="seconds"))
            yield _row("synchronizer", Select([], prompt="the participant chooses", compact=True,
                                              id="synchronizer"))
            yield _row("packages", Input(compact=True, id="package-preference",
                                         placeholder="packageIdSelectionPreference: package ids, comma-separated"))
            yield _row("submissionId", Input(compact=True, id="submission-id",
                                             placeholder="generated by the participant when empty"))
            yield JsonEditor("disclosedContracts", "disclosedContracts", empty=[], rows=4, id="disclosed")

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
    def kind(self) -> str:
        return str(self.query_one("#kind", Select).value)

    def state(self) -> CommandForm:
        synchronizer = self.query_one("#synchronizer", Select).value
        return CommandForm(
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
            user_id=self._input("#user-id").value,
            workflow_id=self._input("#workflow-id").value,
            deduplication=str(self.query_one("#dedup", Select).value),
            deduplication_value=self._input("#dedup-value").value,
            min_ledger_time_abs=self._input("#min-abs").value,
            min_ledger_time_rel=self._input("#min-rel").value,
            disclosed_contracts=self._editor("#disclosed").text,
            synchronizer_id="" if synchronizer is Select.NULL else str(synchronizer),
            package_preference=self._input("#package-preference").value,
            submission_id=self._input("#submission-id").value,
        )

    def load(self, form: CommandForm) -> None:
        """Show `form` as is (a recalled command, a prefill)."""
        self._loading = True
        try:
            self.query_one("#kind", Select).value = form.kind
            self._show_kind(form.kind)
            self._completing("#template").value = form.template_id
            self._input("#contract-id").value = form.contract_id
            self._completing("#choice").value = form.choice
            self._editor("#create-arguments").set_text(form.create_arguments)
            self._editor("#choice-argument").set_text(form.choice_argument)
            self._editor("#contract-key").set_text(form.contract_key)
            self._completing("#act-as").value = form.act_as
            self._completing("#read-as").value = form.read_as
            self._input("#command-id").value = form.command_id
            self._input("#user-id").value = form.user_id
            self._input("#workflow-id").value = form.workflow_id
            self.query_one("#dedup", Select).value = form.deduplication
            self._input("#dedup-value").value = form.deduplication_value
            self._input("#min-abs").value = form.min_ledger_time_abs
            self._input("#min-rel").value = form.min_ledger_time_rel
            self._editor("#disclosed").set_text(form.disclosed_contracts)
            self._set_synchronizer(form.synchronizer_id)
            self._input("#package-preference").value = form.package_preference
            self._input("#submission-id").value = form.submission_id
            advanced = any([form.user_id, form.workflow_id, form.deduplication != "none", form.min_ledger_time_abs,
                            form.min_ledger_time_rel, form.disclosed_contracts.strip(), form.synchronizer_id,
                            form.package_preference, form.submission_id])
            if advanced:
                self.query_one(Collapsible).collapsed = False
        finally:
            self._loading = False
        self.post_message(self.Edited())

    def set_kind(self, kind: str) -> None:
        self.query_one("#kind", Select).value = kind
        self._show_kind(kind)

    def set_command_id(self, command_id: str) -> None:
        self._input("#command-id").value = command_id

    def set_synchronizers(self, options: Sequence[tuple[str, str]]) -> None:
        select = self.query_one("#synchronizer", Select)
        current = select.value
        select.set_options(options)
        if current is not Select.NULL and any(v == current for _, v in options):
            select.value = current

    def _set_synchronizer(self, synchronizer_id: str) -> None:
        select = self.query_one("#synchronizer", Select)
        if not synchronizer_id:
            select.clear()
            return
        options = [(label, value) for label, value in select._options if value is not Select.NULL]
        if all(value != synchronizer_id for _, value in options):
            select.set_options([*options, (synchronizer_id, synchronizer_id)])
        select.value = synchronizer_id

    def _show_kind(self, kind: str) -> None:
        form = CommandForm(kind=kind)
        self.query_one("#contract-row").display = kind == "Exercise"
        self.query_one("#contract-key").display = kind == "ExerciseByKey"
        self.query_one("#create-arguments").display = form.uses_create_arguments
        for selector in ("#choice-row", "#choice-hint", "#choice-argument"):
            self.query_one(selector).display = form.uses_choice
        self.query_one("#kind-hint", Static).update(KIND_HINTS.get(kind, ""))

    def editor(self, field_name: str) -> JsonEditor | None:
        selector = FIELD_WIDGETS.get(field_name, "")
        found = self.query(selector) if selector else None
        return found.first() if found and isinstance(found.first(), JsonEditor) else None

    def json_editors(self) -> list[JsonEditor]:
        return [e for e in self.query(JsonEditor) if e.display]

    def set_choice_hint(self, text: str) -> None:
        self.query_one("#choice-hint", Static).update(text)

    def set_parties_note(self, text: str, warning: bool = False) -> None:
        note = self.query_one("#parties-note", Static)
        note.update(text)
        note.set_class(warning, "-warning")

    # --- problems -----------------------------------------------------------------------------------------------

    def mark(self, problems: Sequence[Problem]) -> None:
        """Colour the labels of the fields with a problem (JSON editors colour themselves)."""
        bad = {FIELD_WIDGETS.get(p.field) for p in problems}
        for selector in set(FIELD_WIDGETS.values()):
            widget = self.query(selector).first()
            row = widget.parent if widget is not None else None
            if isinstance(row, Horizontal) and row.has_class("field-row"):
                row.set_class(selector in bad, "-invalid")

    def focus_problem(self, problem: Problem) -> None:
        if problem.field in ADVANCED:
            self.query_one(Collapsible).collapsed = False
        selector = FIELD_WIDGETS.get(problem.field)
        if selector is None:
            return
        widget = self.query_one(selector)
        if isinstance(widget, JsonEditor):
            widget.go_to_problem()
        else:
            widget.focus()
        widget.scroll_visible()

    # --- events -------------------------------------------------------------------------------------------------

    @on(Select.Changed, "#kind")
    def _kind_changed(self, event: Select.Changed) -> None:
        self._show_kind(str(event.value))

    @on(Input.Changed)
    @on(TextArea.Changed)
    @on(Select.Changed)
    def _edited(self) -> None:
        if not self._loading:
            self.post_message(self.Edited())

    @on(CompletingInput.Committed, "#template")
    def _template_committed(self, event: CompletingInput.Committed) -> None:
        event.stop()
        if event.value.strip():
            self.post_message(self.TemplateChosen(event.value.strip()))

    @on(CompletingInput.Committed, "#choice")
    def _choice_committed(self, event: CompletingInput.Committed) -> None:
        event.stop()
        if event.value.strip():
            self.post_message(self.ChoiceChosen(event.value.strip()))
