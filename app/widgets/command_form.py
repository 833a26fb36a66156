"""The composer's form: kind, template, contract, choice, the arguments, the parties, the command id and the
advanced options. It holds text as typed (`CommandForm`), shows the fields the kind uses, points at problems, and
completes from the catalog: templates and choices seen, a payload to start a create from, a choice's last argument.

Once the participant's packages are read, every template of every package completes, and a template's create
arguments and a choice's argument get a typed form (`TypedForm`) built from their signatures; the JSON editor is
the other view of the same value (`toggle_view` switches, keeping what was typed). Without a signature (packages
not read yet, a package the bundled participant defines in Python) the JSON editors are as they were."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import events, on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input, Select, Static, TextArea
from textual.worker import Worker, WorkerState, get_current_worker

from app.catalog import Catalog
from app.client.errors import LedgerApiError
from app.compose.commands import (
    KINDS,
    CommandForm,
    Problem,
    as_actor,
    default_user_id,
    parse_json,
    pretty_json,
    resolve_parties,
    split_list,
)
from app.compose.form import FormContext, ValueForm, ValueProblem
from app.compose.types import TypeResolver
from app.cut import cells, cut
from app.daml import package_name_ref, party_hint, short_id, short_party, template_name
from app.ids import Expansion
from app.widgets.command_advanced import FIELDS as ADVANCED_FIELDS
from app.widgets.command_advanced import AdvancedOptions
from app.widgets.completing_input import CompletingInput
from app.widgets.form_row import LABEL_WIDTH, field_row
from app.widgets.json_editor import JsonEditor
from app.widgets.key_hold import key_hold
from app.widgets.keys import FieldInput
from app.widgets.option_lists import PagedSelect
from app.widgets.static_text import show
from app.widgets.typed_form import RowEditor, TypedForm
from app.widgets.untrusted_text import plain
from app.widgets.virtual_size import repaint_only

if TYPE_CHECKING:
    from app.packages import PackageCatalog, TemplateSignature
    from app.session import Session
    from participant.api import CreatedEvent

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


def cut_template_ref(ref: str, width: int) -> str:
    """A `#package-name:Module.Path:Entity` in `width` cells: whole when it fits, else cut from the left of its
    module path, as the contracts table cuts its template column, so that the package and the entity stay
    (`#splice-amulet:…Round:OpenMiningRound`); from the left of the whole when even the entity does not fit."""
    if cells(ref) <= width:
        return ref
    package, separator, name = ref.partition(":")
    head = package + separator
    entity = name.rsplit(":", 1)[-1]
    if separator and cells(head) + cells(entity) + 1 <= width:
        return head + cut(name, width - cells(head), keep="end")
    return cut(ref, width, keep="end")


def _cut_choice(choice: str, width: int) -> str:
    """A choice's name cut from its left: its end tells it from the template's other choices (`…Rules_Transfer`)."""
    return cut(choice, width, keep="end")


def _party_label(party: str) -> Content:
    return Content.assemble(plain(party_hint(party), "bold"), plain(f"  {short_party(party)}", "dim"))


class FormHolder(Vertical):
    """Where a typed form goes: sized by the form, scrolled by the editor around it."""

    virtual_size = repaint_only()


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
    CommandEditor .typed-holder {{ height: auto; margin-top: 1; display: none; }}
    CommandEditor .typed-holder.-shown {{ display: block; }}
    CommandEditor .typed-title {{ height: 1; }}
    /* one line: the whole list is one ↓ away in the field, and the form keeps the room */
    CommandEditor #choice-hint {{ height: 1; text-wrap: nowrap; text-overflow: ellipsis; }}
    CommandEditor #focus-path {{ dock: bottom; height: 1; padding: 0 1; background: $panel; display: none; }}
    CommandEditor #focus-path.-shown {{ display: block; }}
    """

    @dataclass
    class Edited(Message):
        """Something in the form changed (the preview follows)."""

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id)
        self.catalog: Catalog | None = None  # set once connected; completion waits for it
        self.packages: PackageCatalog | None = None  # set once the participant's packages are read
        self.form_view = True  # typed forms shown where there are signatures (False: the JSON editors)
        self._loading = False
        self._own_party = ""
        self._contracts: dict[str, list[CreatedEvent]] = {}  # template ref -> its active contracts, read
        self._contract_labels: dict[str, str] = {}
        self._reading: set[str] = set()
        # where the focus goes once the forms are built ("template", "choice"), and where it was then (a focus
        # moved meanwhile, by a click, stays where it was moved)
        self._landing: str | None = None
        self._left: Widget | None = None

    def compose(self) -> ComposeResult:
        yield field_row(
            "kind",
            PagedSelect([(k, k) for k in KINDS], allow_blank=False, compact=True, id="kind"),
            Static(KIND_HINTS[KINDS[0]], id="kind-hint"),
        )
        yield field_row(
            "template",
            CompletingInput(
                self.templates,
                fit=cut_template_ref,
                id="template",
                placeholder="#package-name:Module:Entity (↓ lists every template known)",
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
        yield FormHolder(id="create-form", classes="typed-holder")
        yield field_row(
            "choice",
            CompletingInput(
                self.choices,
                fit=_cut_choice,
                id="choice",
                placeholder="a choice of the template (↓ lists its choices known, and Archive)",
            ),
            id="choice-row",
            group=True,
        )
        yield Static("", id="choice-hint", classes="note -empty")
        yield JsonEditor("choiceArgument", "choiceArgument", empty={}, rows=5, id="choice-argument")
        yield FormHolder(id="choice-form", classes="typed-holder")
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
        yield Static("", id="focus-path")  # the full path of the typed form's row in focus

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
            create_arguments=self._argument_text("createArguments"),
            choice_argument=self._argument_text("choiceArgument"),
            contract_key=self._editor("#contract-key").text,
            act_as=self._completing("#act-as").value,
            read_as=self._completing("#read-as").value,
            command_id=self._input("#command-id").value,
        )
        interface = self._interface_of(form.template_id, form.choice) if form.kind == "Exercise" else None
        if interface is not None:
            form.template_id = interface  # an interface's choice is exercised through the interface's id
        return self.advanced.read(form)

    def load(self, form: CommandForm) -> None:
        """Show `form` as is (a recalled command, a prefill). Typed forms are built again, from its arguments."""
        self._loading = True
        for field_name in ("createArguments", "choiceArgument"):
            typed = self._typed(field_name)
            if typed is not None:
                typed.built_for = ""  # stale: `offer_forms` fills a new one from the JSON loaded below
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
        self.offer_forms()
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
        for selector in ("#choice-row", "#choice-hint"):
            self.query_one(selector).display = form.uses_choice
        self._show_views()
        self.query_one("#kind-hint", Static).update(plain(KIND_HINTS.get(kind, "")))

    def _note(self, selector: str, text: str, *, warning: bool = False) -> None:
        note = self.query_one(selector, Static)
        show(note, plain(text))  # quotes choice names and parties seen on the ledger
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
        seen = self.catalog.template_refs() if self.catalog else []
        return sorted({*seen, *self._package_templates()})

    def _package_templates(self) -> list[str]:
        """Every template of every package read, in the `#package-name:Module:Entity` form."""
        if self.packages is None:
            return []
        return [
            f"#{package.name}:{name}"
            for package in self.packages.packages.values()
            for name in package.templates
        ]

    def choices(self) -> list[str]:
        template = self._completing("#template").value.strip()
        signature = self._signature
        if signature is not None and signature[0] == template:
            return [name for name, _ in self._signature_choices(signature[1])]
        return self.catalog.choices_for(template) if self.catalog and template else []

    def parties(self) -> list[str]:
        return self.catalog.parties() if self.catalog else []

    def acting_parties(self) -> list[str]:
        return resolve_parties(split_list(self._completing("#act-as").value), self.parties())

    def show_choices(self) -> None:
        """Under the choice: the template's choices (from its signature), or those seen exercised on it."""
        template = self._completing("#template").value.strip()
        signature = self._signature
        if signature is not None and signature[0] == template:
            choices = self._signature_choices(signature[1])
            own = [name for name, via in choices if via is None]
            inherited = [f"{name} ({template_name(via)})" for name, via in choices if via is not None]
            self._note(
                "#choice-hint",
                "choices: "
                + ", ".join(own)
                + ("; of its interfaces: " + ", ".join(inherited) if inherited else ""),
            )
        else:
            seen = self.choices()[:-1]
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
                field.relist()

    def offer_argument(self, choice: str) -> None:
        """Start the choice argument as it was last exercised (unless the user wrote one)."""
        editor = self._editor("#choice-argument")
        self.offer_forms()
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
            failures = getattr(self.app, "failures", None)  # the app's (`app.screens.host.FailuresFace`)
            if failures is not None:
                failures.worker_failed(event.worker)

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
        typed = self._typed("createArguments")
        if typed is not None and not typed.touched and not typed.has_focus_within:
            typed.form.load(payload)
            await typed.reload()

    # --- typed forms --------------------------------------------------------------------------------------------

    _signature: tuple[str, TemplateSignature] | None = None  # the template's signature, by the id typed
    contract_expander: Callable[[str], Awaitable[Expansion]] | None = None
    """A contract id's beginning expanded among the contracts held (the screen's, which knows where they are)."""

    def _holder(self, field_name: str) -> Vertical:
        return self.query_one("#create-form" if field_name == "createArguments" else "#choice-form", Vertical)

    def _typed(self, field_name: str) -> TypedForm | None:
        found = self._holder(field_name).query(TypedForm)
        return found.first() if found else None

    def _json_editor_of(self, field_name: str) -> JsonEditor:
        return self._editor("#create-arguments" if field_name == "createArguments" else "#choice-argument")

    def _argument_text(self, field_name: str) -> str:
        typed = self._typed(field_name)
        if typed is not None and self.form_view:
            return pretty_json(typed.form.to_json())
        return self._json_editor_of(field_name).text

    def typed_problems(self) -> list[Problem]:
        """The problems of the typed forms in view, with their paths."""
        if not self.form_view:
            return []
        out = []
        for field_name in self._argument_fields():
            typed = self._typed(field_name)
            if typed is not None:
                out += [Problem(field_name, p.message, path=p.path) for p in typed.form.problems()]
        return out

    def _argument_fields(self) -> list[str]:
        """The arguments the kind sends: a form kept for another kind has no say in this command."""
        form = CommandForm(kind=self.kind)
        return [
            name
            for name, used in (
                ("createArguments", form.uses_create_arguments),
                ("choiceArgument", form.uses_choice),
            )
            if used
        ]

    def _show_views(self) -> None:
        form = self.state() if self.is_mounted else CommandForm()
        for field_name, used in (
            ("createArguments", form.uses_create_arguments),
            ("choiceArgument", form.uses_choice),
        ):
            typed = self._typed(field_name) is not None
            self._holder(field_name).set_class(used and typed and self.form_view, "-shown")
            self._json_editor_of(field_name).display = used and not (typed and self.form_view)

    async def toggle_view(self) -> str | None:
        """Switch the arguments between their typed forms and the JSON editors, keeping what was typed; None when
        there is no typed form to switch to, else what was done (a JSON that does not fit the form says where)."""
        forms = [(f, t) for f in ("createArguments", "choiceArgument") if (t := self._typed(f)) is not None]
        if not forms:
            return None
        if self.form_view:
            for field_name, typed in forms:
                self._json_editor_of(field_name).set_text(pretty_json(typed.form.to_json()))
            self.form_view = False
            self._show_views()
            self._json_editor_of(forms[0][0]).area.focus()
            return "The JSON of the form: edit it here; F2 takes it back into the form."
        loaded = []
        for field_name, typed in forms:
            value, problem = parse_json(self._json_editor_of(field_name).text, field_name, empty=None)
            if problem is not None:
                return f"Not valid JSON: {problem}. Fix it to go back to the form."
            loaded.append((typed, value))
        misfits = []
        for typed, value in loaded:
            if value is not None:
                misfits += typed.form.load(value)
                await typed.reload()
        self.form_view = True
        self._show_views()
        self.post_message(self.Edited())
        if misfits:
            return f"Back to the form; what did not fit: {misfits[0]}" + (
                f" (and {len(misfits) - 1} more)" if len(misfits) > 1 else ""
            )
        return "Back to the form."

    def _signature_choices(self, template: TemplateSignature) -> list[tuple[str, str | None]]:
        """The template's choices (None) and its interfaces' (with the interface's `#package-name:Module:Entity`);
        a name the template has (Archive) is the template's."""
        choices: list[tuple[str, str | None]] = [(c.name, None) for c in template.choices]
        names = {name for name, _ in choices}
        if self.packages is not None:
            for ref in template.implements:
                package = self.packages.package(ref.package_id)
                interface = package.interfaces.get(ref.qualified_name) if package is not None else None
                if interface is None or package is None:
                    continue
                for choice in interface.choices:
                    if choice.name not in names:
                        names.add(choice.name)
                        choices.append((choice.name, f"#{package.name}:{ref.qualified_name}"))
        return choices

    def _interface_of(self, template_id: str, choice: str) -> str | None:
        """The interface `choice` is exercised through (its id is the command's templateId), when it is one of
        the template's interfaces' choices."""
        signature = self._signature
        if signature is None or signature[0] != template_id.strip():
            return None
        return dict(self._signature_choices(signature[1])).get(choice.strip())

    def offer_forms(self) -> None:
        """(Re)build the typed forms for the template and choice typed, when their signatures are known."""
        if self.packages is not None and self.is_mounted:
            self._build_forms(
                self._completing("#template").value.strip(), self._completing("#choice").value.strip()
            )
        elif self._landing is not None:
            self.call_after_refresh(self._land)  # no form to wait for

    # --- where the focus goes (docs/architecture.md, "The composer's focus") ------------------------------------

    def focus_when_built(self, after: str) -> None:
        """Hold the keys until the forms are built, then focus the first field to fill `after` the template (or a
        prefill, a recall: "template"), or the choice ("choice"): the keys typed meanwhile go there, in order."""
        self._landing, self._left = after, self.screen.focused
        key_hold(self).hold(self)
        self.offer_forms()

    def _land(self) -> None:
        after, self._landing = self._landing, None
        left, self._left = self._left, None
        focused = self.screen.focused
        # not when the focus was moved meanwhile (a click; a dialog is up)
        moved = self.app.screen is not self.screen or (
            focused is not None and focused is not left and left is not None and left.is_attached
        )
        if after is not None and not moved:
            # a callback on the app: the keys held go on after it (`KeyHold.release`)
            self._focus_in_view(self.first_field(after))
        key_hold(self).release(self)

    def _focus_in_view(self, target: Widget) -> None:
        """Focus `target` and scroll it into view once laid out (it may have just been built), in one scroll.
        Textual's own, on focus, and a second after the refresh were two animations to different places, the
        one started last winning: where the form stopped depended on the machine's speed."""
        target.focus(scroll_visible=False)
        self.call_after_refresh(self._centre_if_hidden, target)

    def _centre_if_hidden(self, target: Widget) -> None:
        """Textual's rule for a focused widget, centred when not wholly in view (unless the focus moved on), but
        at once: a scroll after it (a typed form's to the row it opens, `TypedForm._show`) starts from its end
        rather than from a point of an animation."""
        screen = self.screen
        if target.has_focus_within and not screen.can_view_entire(target):
            screen.scroll_to_center(target, animate=False, origin_visible=True, immediate=True)

    def first_field(self, after: str) -> Widget:
        """The first field still to fill: after a choice, its argument's; else the next of template, create
        arguments, contract id (or key), choice, choice argument; the parties when an argument has no field."""
        form = self.state()
        if after != "choice":
            if not form.template_id.strip():
                return self._completing("#template")
            if form.uses_create_arguments:
                return self._argument_field("createArguments")
            if form.kind == "Exercise" and not form.contract_id.strip():
                return self._input("#contract-id")
            if form.kind == "ExerciseByKey" and not form.contract_key.strip():
                return self._editor("#contract-key").area
            if not form.choice.strip():
                return self._completing("#choice")
        return self._argument_field("choiceArgument")

    def _argument_field(self, field_name: str) -> Widget:
        typed = self._typed(field_name)
        if typed is not None and self.form_view:
            first = typed.first_control()
            return first if first is not None else self._completing("#act-as")
        return self._json_editor_of(field_name).area

    @work(exclusive=True, group="composer-forms", exit_on_error=False)
    async def _build_forms(self, template_id: str, choice: str) -> None:
        try:
            await self._build_forms_now(template_id, choice)
        finally:
            if not get_current_worker().is_cancelled:  # a newer build lands instead
                self._land()

    async def _build_forms_now(self, template_id: str, choice: str) -> None:
        packages = self.packages
        assert packages is not None
        signature = await packages.template(template_id) if template_id.count(":") >= 2 else None
        self._signature = (template_id, signature) if signature is not None else None
        resolver = TypeResolver(packages.packages)
        context = FormContext(self.parties)
        wanted: dict[str, tuple[str, ValueForm] | None] = {"createArguments": None, "choiceArgument": None}
        if signature is not None:
            wanted["createArguments"] = (
                f"{signature.ref}",
                ValueForm(resolver.template_arguments(signature), "createArguments", context),
            )
            argument = self._choice_argument_type(signature, choice)
            if argument is not None:
                wanted["choiceArgument"] = (
                    f"{signature.ref}/{choice}",
                    ValueForm(resolver.of(argument), "choiceArgument", context),
                )
        for field_name, target in wanted.items():
            await self._install(field_name, target)
        self._show_views()
        self.show_choices()
        self.post_message(self.Edited())

    def _choice_argument_type(self, template: TemplateSignature, choice: str):
        found = template.choice(choice)
        if found is None and self.packages is not None:
            for ref in template.implements:
                package = self.packages.package(ref.package_id)
                interface = package.interfaces.get(ref.qualified_name) if package is not None else None
                found = interface.choice(choice) if interface is not None else None
                if found is not None:
                    break
        return found.argument_type if found is not None else None

    async def _install(self, field_name: str, target: tuple[str, ValueForm] | None) -> None:
        holder = self._holder(field_name)
        current = self._typed(field_name)
        if target is None:
            if current is not None:
                await holder.remove_children()
            return
        key, form = target
        if current is not None and current.built_for == key:
            return  # the same template (or choice): keep what was typed
        value, problem = parse_json(self._json_editor_of(field_name).text, field_name, empty=None)
        if value is not None and problem is None:
            form.load(value)  # a prefill, a recalled command, a payload to start from
        await holder.remove_children()
        title = Static(
            plain(f"{field_name}  {form.type.shown}  (F2: JSON)"), classes="typed-title json-title"
        )
        typed = TypedForm(form, self, built_for=key, id=f"{holder.id}-typed")
        await holder.mount_all([title, typed])

    # --- sources of a typed form's completion (`typed_form.Sources`)

    def contract_ids(self, template: str) -> list[str]:
        return [c.contract_id for c in self._contracts.get(self._contract_ref(template), [])]

    def contract_label(self, contract_id: str) -> str:
        return self._contract_labels.get(contract_id, "")

    async def expand_contract_id(self, typed: str) -> Expansion:
        if self.contract_expander is None:
            return Expansion(typed, typed)
        return await self.contract_expander(typed)

    def want_contracts(self, template: str) -> None:
        ref = self._contract_ref(template)
        if ref not in self._contracts and ref not in self._reading and self.catalog is not None:
            self._reading.add(ref)
            self._read_contracts(ref)

    def _contract_ref(self, template: str) -> str:
        """``<package id>:Module:Entity`` as ``#package-name:Module:Entity`` (any version's contracts)."""
        package = self.packages.package(template.split(":", 1)[0]) if self.packages is not None else None
        return package_name_ref(template, package.name if package is not None else None)

    @work(group="composer-contracts", exit_on_error=False)
    async def _read_contracts(self, ref: str) -> None:
        assert self.catalog is not None
        try:
            found = await self.catalog.active_contracts(ref)
        except LedgerApiError:
            found = []  # completion is a help: a pasted id still works
        finally:
            self._reading.discard(ref)
        self._contracts[ref] = found
        for created in found:
            self._contract_labels[created.contract_id] = _payload_summary(created)
        for field in self.query(CompletingInput):
            field.relist()  # the field in focus offers them (unless its list was closed with escape)

    def forget_contracts(self) -> None:
        """After a submit: the active contracts changed."""
        self._contracts.clear()

    # --- problems -----------------------------------------------------------------------------------------------

    def mark(self, problems: Sequence[Problem]) -> None:
        """Colour the labels of the fields with a problem (JSON editors colour themselves; typed forms show each
        problem under its field)."""
        for field_name in ("createArguments", "choiceArgument"):
            typed = self._typed(field_name)
            if typed is not None:
                mine = [ValueProblem(p.path, p.message) for p in problems if p.field == field_name and p.path]
                if problems:
                    typed.mark(mine)
                else:
                    typed.unmark()
        bad = {FIELD_WIDGETS.get(p.field) for p in problems if not p.path}
        for selector in set(FIELD_WIDGETS.values()):
            row = self.query_one(selector).parent
            if isinstance(row, Horizontal) and row.has_class("field-row"):
                row.set_class(selector in bad, "-invalid")

    def focus_problem(self, problem: Problem) -> None:
        if problem.field in ADVANCED_FIELDS:
            self.advanced.collapsed = False
        typed = self._typed(problem.field) if problem.path else None
        if typed is not None and typed.focus_path(problem.path):
            return
        selector = FIELD_WIDGETS.get(problem.field)
        if selector is None:
            return
        widget = self.query_one(selector)
        if isinstance(widget, JsonEditor):
            widget.go_to_problem(scroll_visible=False)
            self.call_after_refresh(self._centre_if_hidden, widget)
        else:
            self._focus_in_view(widget)

    # --- events -------------------------------------------------------------------------------------------------

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """The focused row of a typed form: its whole path and type on the line at the bottom (its name in the
        form may be cut, and says nothing of the records it is in)."""
        widget = event.widget
        editor = next((a for a in widget.ancestors_with_self if isinstance(a, RowEditor)), None)
        row = (
            editor.row if editor is not None else (widget.current if isinstance(widget, TypedForm) else None)
        )
        line = self.query_one("#focus-path", Static)
        line.set_class(row is not None, "-shown")
        if row is not None:
            kind = row.type_shown
            room = max(8, self.size.width - cells(kind) - 4)
            line.update(
                Content.assemble(plain(cut(row.path, room, keep="end"), "bold"), plain(f"  {kind}", "dim"))
            )

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

    @on(TypedForm.Changed)
    def _typed_changed(self, event: TypedForm.Changed) -> None:
        event.stop()
        if not self._loading:
            self.post_message(self.Edited())

    @on(CompletingInput.Committed, "#template")
    def _template_committed(self, event: CompletingInput.Committed) -> None:
        event.stop()
        self.show_choices()
        if event.left or not event.value.strip():
            self.offer_forms()
        else:  # chosen: on to what it needs next, once its form is there
            self.focus_when_built("template")
        self.offer_skeleton()

    @on(CompletingInput.Committed, "#choice")
    def _choice_committed(self, event: CompletingInput.Committed) -> None:
        event.stop()
        if event.value.strip():
            self.offer_argument(event.value.strip())
            if not event.left:
                self.focus_when_built("choice")


def _payload_summary(created: CreatedEvent) -> str:
    """A contract's first values, to tell it apart in a list of ids."""
    argument = created.create_argument
    if not isinstance(argument, dict):
        return ""
    shown = []
    for name, value in list(argument.items())[:3]:
        text = party_hint(value) if isinstance(value, str) else pretty_json(value).replace("\n", " ")
        shown.append(f"{name}={cut(text, 24)}")
    return " ".join(shown)
