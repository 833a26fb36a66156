"""The inputs of a typed form (`app.compose.form`): one per field, by its type. Party completes from the known
parties (a short name stands for the one party with it, and what it stands for is shown); ContractId completes
from the active contracts of its template (or takes a pasted id, or the unique beginning of one the
workspace's cache holds); Optional has a `some` toggle; a List and a map
add, move and remove their items; a variant chooses its constructor, then shows that constructor's form; an enum
is a choice; Bool a checkbox. Every input writes into the form's node as it is typed, and shows its problem under
it once it has text (or once the form is marked, after a refused submit).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Protocol

from textual import events, on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.widget import AwaitMount, Widget
from textual.widgets import Button, Checkbox, Input, Label, Select, Static
from textual.worker import Worker

from app.compose.form import (
    BoolNode,
    EnumNode,
    ListNode,
    MapNode,
    Node,
    OptionalNode,
    RawNode,
    RecordNode,
    TextNode,
    UnitNode,
    ValueForm,
    ValueProblem,
    VariantNode,
    join,
)
from app.compose.types import ContractIdT, NumericT, Scalar
from app.counting import count
from app.cut import cells, fit, shorten
from app.daml import looks_like_contract_id, party_hint, short_id, short_party
from app.ids import Expansion, could_begin_contract_id
from app.widgets.completing_input import CompletingInput
from app.widgets.keys import FieldInput
from app.widgets.option_lists import PagedSelect
from app.widgets.untrusted_text import plain

NAME_WIDTH = 16  # the names' column: a longer name is cut (`…`), the full path of the focused row is shown
FIRST_ROWS = 32  # mounted with the form: about what is seen first
BATCH_ROWS = 16  # then this many after each paint (each batch holds the loop for one layout)

ButtonSpec = tuple[str, str, str]  # label, action name, tooltip
ITEM_BUTTONS: tuple[ButtonSpec, ...] = (
    ("↑", "up", "move up"),
    ("↓", "down", "move down"),
    ("✕", "remove", "remove"),
)


def _buttons(*specs: ButtonSpec) -> tuple[Button, ...]:
    """Small buttons on a row (their style classes given up front: each class set after costs a style pass)."""
    return tuple(
        Button(label, name=action, tooltip=tip, compact=True, classes="tf-button -style-default")
        for label, action, tip in specs
    )


class Sources(Protocol):
    """Where completion comes from: the known parties, the active contracts of a template."""

    def parties(self) -> list[str]: ...

    def contract_ids(self, template: str) -> list[str]:
        """Ids of the active contracts of template `<package id>:Module:Entity` (as read so far)."""
        ...

    def contract_label(self, contract_id: str) -> str: ...

    def want_contracts(self, template: str) -> None:
        """Read the active contracts of `<package id>:Module:Entity` for completion (open lists refresh)."""
        ...

    async def expand_contract_id(self, typed: str) -> Expansion:
        """A beginning of a contract id expanded among the contracts the workspace's cache holds."""
        ...


def _party_label(party: str) -> Content:
    return Content.assemble(plain(party_hint(party), "bold"), plain(f"  {short_party(party)}", "dim"))


class TypedForm(Vertical):
    """The inputs of one `ValueForm`: one row per field, every row a child of this one container at its depth's
    indentation (a record's fields, a list's items, a variant's payload are rows under its row, not widgets
    nested in it: a deep value lays out as a flat list of fixed-height rows)."""

    DEFAULT_CSS = f"""
    TypedForm {{ height: auto; }}
    TypedForm > .tf-row {{ height: 1; }}
    TypedForm .tf-name {{ width: {NAME_WIDTH}; color: $text-muted; }}
    TypedForm .tf-type {{ width: auto; color: $text-muted; margin-left: 1; text-style: dim; }}
    TypedForm > .tf-problem {{ color: $error; margin-left: {NAME_WIDTH}; height: auto; }}
    TypedForm > .tf-note {{ color: $text-muted; margin-left: {NAME_WIDTH}; height: auto; }}
    TypedForm > .tf-row.-invalid > .tf-name {{ color: $error; text-style: bold; }}
    TypedForm > .tf-row:focus-within {{ background-tint: $foreground 4%; }}
    TypedForm > .tf-row:focus-within > .tf-name {{ text-style: bold reverse; }}
    TypedForm Input {{ width: 1fr; }}
    TypedForm CompletingInput {{ width: 1fr; }}
    TypedForm Select {{ width: 1fr; }}
    TypedForm Button {{ min-width: 3; margin-left: 1; }}
    TypedForm Checkbox {{ width: auto; }}
    """

    @dataclass
    class Changed(Message):
        """The user changed the value (the preview follows)."""

        typed_form: TypedForm

        @property
        def control(self) -> TypedForm:
            return self.typed_form

    def __init__(
        self, form: ValueForm, sources: Sources, *, built_for: str = "", id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self.form = form
        self.built_for = built_for  # what the form is of: a template, a choice (rebuilt when it changes)
        self.sources = sources
        self.touched = False  # changed by the user since it was built or loaded
        self.marking = False  # every problem shown, not only those of fields with text
        self._pending: list[Widget] = []  # rows still to mount
        self._mounting: Worker[None] | None = None

    def compose(self) -> ComposeResult:
        yield from self._start(rows_of(body_of(self.form.node, self.form.root)))

    def _start(self, rows: list[Widget]) -> list[Widget]:
        """The first screenful of `rows`, to mount now; the rest are mounted a few at a time after the first
        paint, so that a large value never holds the event loop (a key typed meanwhile is handled in between)."""
        self._pending = rows[FIRST_ROWS:]
        if self._pending:
            self._mounting = self.run_worker(
                self._mount_pending(), group="typed-form-rows", exit_on_error=False
            )
        return rows[:FIRST_ROWS]

    async def _mount_pending(self) -> None:
        while self._pending:
            await self._painted()  # what is mounted is shown before more is
            if not self.is_attached:
                return
            batch, self._pending = self._pending[:BATCH_ROWS], self._pending[BATCH_ROWS:]
            await self.mount_all(batch)

    async def _painted(self) -> None:
        painted = asyncio.Event()
        self.call_after_refresh(painted.set)
        await painted.wait()

    async def settled(self) -> None:
        """Every row mounted (before rows are replaced: a container's rows may still be on their way)."""
        if self._mounting is not None:
            await self._mounting.wait()

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """The items the focus is in show their buttons (made only then: most items are never moved)."""
        row = next((a for a in event.widget.ancestors_with_self if isinstance(a, FieldWidget)), None)
        while row is not None:
            row.show_buttons()
            row = row.parent_field

    def changed(self) -> None:
        self.touched = True
        self.post_message(self.Changed(self))

    async def reload(self) -> None:
        """Show the form's node anew (after it was loaded from JSON)."""
        if self._mounting is not None:
            self._pending = []
            await self._mounting.wait()
        await self.remove_children()
        await self.mount_all(self._start(rows_of(body_of(self.form.node, self.form.root))))

    def mark(self, problems: list[ValueProblem]) -> None:
        """Show `problems` at their fields (and every later problem as it is typed)."""
        self.marking = True
        by_path = {p.path: p.message for p in problems}
        shown_at = self._innermost()
        for field in self.query_children(FieldWidget):
            field.show_problem(by_path.get(field.path) if shown_at[field.path] is field else None)

    def _innermost(self) -> dict[str, FieldWidget]:
        """The field shown for each path: an Optional's value shares its path, and is the one that is typed."""
        return {field.path: field for field in self.query_children(FieldWidget)}

    def unmark(self) -> None:
        self.marking = False
        for field in self.query_children(FieldWidget):
            field.show_problem(field.own_problem())

    def first_control(self) -> Widget | None:
        """The first input of the form (None: it has none, as a choice without arguments)."""
        for field in self.query_children(FieldWidget):
            if field.HAS_INPUT:
                return field if not field.opened else field.input_widget()
        return None

    def focus_path(self, path: str) -> bool:
        field = self._innermost().get(path)
        if field is not None:
            field.focus_input()
        return field is not None


def body_of(node: Node, path: str) -> list[FieldWidget]:
    """The fields of a node shown without a row of its own: a record's fields (the form's root)."""
    if isinstance(node, RecordNode):
        return [field_widget(child, name, join(path, name), 0) for name, child in node.fields.items()]
    return [field_widget(node, "value", path, 0)]


def rows_of(fields: list[FieldWidget]) -> list[Widget]:
    """The rows of `fields` and of everything under them, in the order they are shown."""
    return [row for field in fields for row in field.rows()]


def field_widget(
    node: Node, name: str, path: str, depth: int, buttons: tuple[ButtonSpec, ...] = ()
) -> FieldWidget:
    kind: type[FieldWidget]
    if isinstance(node, TextNode):
        kind = TextField
    elif isinstance(node, BoolNode):
        kind = BoolField
    elif isinstance(node, EnumNode):
        kind = EnumField
    elif isinstance(node, OptionalNode):
        kind = OptionalField
    elif isinstance(node, MapNode):
        kind = MapField
    elif isinstance(node, ListNode):
        kind = ListField
    elif isinstance(node, VariantNode):
        kind = VariantField
    elif isinstance(node, RecordNode):
        kind = RecordField
    elif isinstance(node, RawNode):
        kind = RawField
    else:
        assert isinstance(node, UnitNode)
        kind = UnitField
    return kind(node, name, path, depth, buttons)


class FieldWidget(Horizontal):
    """One field's row: its name, its input, its type, `trailing` buttons. Its problem (or note) is a line of the
    form's under the row, made when first needed; the fields under it (`under`) are rows of the form's after it.

    A row is closed until the focus comes to it: one widget that draws the line (name, value, type) itself. Made
    open, its widgets are mounted and the focus goes on into its input: a form of a hundred fields lays out a
    hundred widgets, not five hundred, and most rows are never opened."""

    HAS_INPUT = False  # whether the row has an input of its own (then, closed, it takes the focus for it)

    def __init__(
        self, node: Node, name: str, path: str, depth: int = 0, buttons: tuple[ButtonSpec, ...] = ()
    ) -> None:
        super().__init__(classes="tf-row")
        self.opened = False
        self.can_focus = self.HAS_INPUT
        self._control: Widget | None = None
        self._for_input: set[int] = set()
        self._opening: AwaitMount | None = None
        self._kept: list[events.Key] = []
        self.node = node
        self.field_name = name
        self.path = path
        self.depth = depth
        self.buttons = (
            buttons  # (label, action, tooltip) of the buttons on the row, made once it has the focus
        )
        self.trailing: tuple[Widget, ...] = ()
        self.under: list[FieldWidget] = []
        self.parent_field: FieldWidget | None = None
        self._lines: dict[str, Static] = {}
        if depth:
            self.styles.padding = (0, 0, 0, 2 * depth)

    def control(self) -> Widget | None:
        """The input of the row (None: the row has only the name and the type)."""
        return None

    def summary(self) -> tuple[str, bool]:
        """What the closed row shows where its input goes, and whether that is a placeholder."""
        return "", False

    def compose(self) -> ComposeResult:
        return iter(())  # closed: `render` draws the line

    def parts(self) -> list[Widget]:
        """The widgets of the open row."""
        self._control = self.control()
        name = Label(plain(fit(self.field_name, NAME_WIDTH - 1)), classes="tf-name")
        shown = [self._control] if self._control is not None else []
        return [name, *shown, Label(plain(self.node.type.shown), classes="tf-type")]

    def open(self) -> AwaitMount | None:
        """Mount the row's widgets (once); await the answer for them to be there."""
        if self.opened:
            return self._opening
        self.opened = True
        self.can_focus = False
        self._opening = self.mount_all(self.parts())
        return self._opening

    def render(self) -> Content:
        if self.opened:
            return Content("")
        kind = self.node.type.shown
        text, placeholder = self.summary()
        room = max(0, self.content_size.width - NAME_WIDTH - cells(kind) - 1)
        invalid = self.has_class("-invalid")
        return Content.assemble(
            plain(fit(self.field_name, NAME_WIDTH - 1) + " ", "bold red" if invalid else "dim"),
            plain(fit(text, room), "dim italic" if placeholder else ""),
            plain(" " + kind, "dim"),
        )

    def input_widget(self) -> Widget | None:
        """The widget that takes the keys of the open row's input (a completing input's own field)."""
        control = self._control
        if isinstance(control, CompletingInput):
            return control.input
        if control is not None and control.can_focus:
            return control
        return self.control_widget()

    def on_focus(self) -> None:
        # closed, the row took the focus for its input: open it, and hand the focus on once its widgets are there
        # (the keys sent to the row meanwhile are kept, then follow: `on_key`)
        self.open()
        self.call_after_refresh(self._hand_on, 20)

    def _hand_on(self, tries: int) -> None:
        if not self.is_attached or self.screen.focused is not self:
            return  # removed, or the focus went elsewhere meanwhile
        target = self.input_widget()
        if target is None:
            return
        if not target.is_mounted and tries > 0:
            self.call_after_refresh(self._hand_on, tries - 1)
            return
        self.screen.set_focus(target, scroll_visible=False)
        kept, self._kept = self._kept, []
        for key in kept:
            self.app.post_message(events.Key(key.key, key.character))

    def _forward_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key):
            self._for_input.add(id(event))  # sent to the row itself (not bubbling up from its input)
        super()._forward_event(event)

    def on_key(self, event: events.Key) -> None:
        if id(event) not in self._for_input:
            return  # a key of the input's, on its way up to the bindings
        self._for_input.discard(id(event))
        event.stop()
        event.prevent_default()
        if self.screen.focused is self:  # its input is on its way (`_hand_on` sends the key there)
            self._kept.append(event)
        else:  # the focus went on into the input: the key follows it
            self.app.post_message(events.Key(event.key, event.character))

    def show_buttons(self) -> None:
        if self.buttons and not self.trailing:
            self.open()
            self.trailing = _buttons(*self.buttons)
            self.mount_all(self.trailing)

    def rows(self) -> list[Widget]:
        """This row and the rows of the fields under it, in order."""
        self.under = self.fields_under()
        for field in self.under:
            field.parent_field = self
        return [self, *rows_of(self.under)]

    def fields_under(self) -> list[FieldWidget]:
        return []

    def shown(self) -> list[Widget]:
        """Every widget of the form's that shows this field: its row, its lines, those of the fields under it."""
        return [self, *self._lines.values(), *(w for field in self.under for w in field.shown())]

    def holds_focus(self) -> bool:
        return self.has_focus_within or any(field.holds_focus() for field in self.under)

    @property
    def typed_form(self) -> TypedForm | None:
        return self.parent if isinstance(self.parent, TypedForm) else None

    def changed(self) -> None:
        self.show_problem(self.own_problem())
        form = self.typed_form
        if form is not None:
            form.changed()

    def own_problem(self) -> str | None:
        """The problem of this field's own value (not of what is under it), to show now."""
        return None

    def show_problem(self, message: str | None) -> None:
        self._message("tf-problem", f"⚠ {message}" if message else "")
        if self.has_class("-invalid") != bool(message):
            self.set_class(bool(message), "-invalid")
            self.refresh()  # a closed row draws its name in the colour of a problem

    def note(self, text: str) -> None:
        self._message("tf-note", text)

    def line(self, kind: str) -> Static | None:
        """The `tf-problem` or `tf-note` line under the row, if one was made."""
        return self._lines.get(kind)

    def _message(self, kind: str, text: str) -> None:
        """A line under the row, made when first needed (most fields never have one: fewer widgets to lay out)."""
        line = self._lines.get(kind)
        if line is not None:
            line.update(plain(text))
            line.display = bool(text)
            return
        form = self.typed_form
        if text and form is not None and self.is_attached:
            line = Static(plain(text), classes=kind)
            if self.depth:
                line.styles.padding = (0, 0, 0, 2 * self.depth)
            anchor = self._lines.get("tf-problem", self) if kind == "tf-note" else self
            self._lines[kind] = line
            form.mount(line, after=anchor)

    def control_widget(self) -> Widget | None:
        """The focusable widget of the row's input (None: the row has none of its own)."""
        controls = [
            c for c in self.children if not c.has_class("tf-name", "tf-type") and c not in self.trailing
        ]
        return next((c for c in controls for c in [c, *c.query("*")] if c.focusable), None)

    def focus_input(self) -> None:
        if not self.opened and self.HAS_INPUT:
            self.focus(scroll_visible=False)  # it opens, and the focus goes on into its input
            self.call_after_refresh(self.scroll_visible)
            return
        control = self.input_widget()
        if control is not None:
            control.focus()
            self.call_after_refresh(self.scroll_visible)
        elif self.under:
            self.under[0].focus_input()

    @on(Button.Pressed, ".tf-button")
    async def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        action = str(event.button.name)
        if action == "add" and isinstance(self, ListField):
            await self.add_item()
        elif isinstance(self.parent_field, ListField):
            await self.parent_field.item_action(action, self.parent_field.under.index(self))


class TextField(FieldWidget):
    node: TextNode
    HAS_INPUT = True

    def summary(self) -> tuple[str, bool]:
        return (self.node.text, False) if self.node.text else (_placeholder(self.node), True)

    def control(self) -> Widget:
        t = self.node.type
        if isinstance(t, Scalar) and t.kind == "PARTY":
            return CompletingInput(
                self._parties,
                label=_party_label,
                placeholder=_placeholder(self.node),
                value=self.node.text,
                select_on_focus=False,
            )
        if isinstance(t, ContractIdT) and t.template is not None:
            template = str(t.template)
            return CompletingInput(
                lambda: self._contracts(template),
                label=self._contract_label,
                placeholder=_placeholder(self.node),
                value=self.node.text,
                select_on_focus=False,
            )
        free = isinstance(t, Scalar) and t.kind == "TEXT"
        return FieldInput(
            self.node.text,
            placeholder=_placeholder(self.node),
            compact=True,
            free_text=free,
            select_on_focus=False,  # typing into a filled field goes on from its end, as in an editor
        )

    def on_mount(self) -> None:
        t = self.node.type
        if isinstance(t, ContractIdT) and t.template is not None:
            form = self.typed_form
            if form is not None:
                form.sources.want_contracts(str(t.template))
        self.show_problem(self.own_problem())
        self._show_party()

    def _parties(self) -> list[str]:
        form = self.typed_form
        return form.sources.parties() if form is not None else []

    def _contracts(self, template: str) -> list[str]:
        form = self.typed_form
        return form.sources.contract_ids(template) if form is not None else []

    def _contract_label(self, contract_id: str) -> Content:
        form = self.typed_form
        shown = form.sources.contract_label(contract_id) if form is not None else ""
        return Content.assemble(plain(shorten(contract_id, 16), "bold"), plain(f"  {shown}", "dim"))

    def own_problem(self) -> str | None:
        form = self.typed_form
        if not self.node.text.strip() and not (form is not None and form.marking):
            return None
        return self.node.problem()

    def _show_party(self) -> None:
        t = self.node.type
        if isinstance(t, Scalar) and t.kind == "PARTY":
            text = self.node.text.strip()
            party = self.node.context.party(text) if text else None
            self.note(f"= {short_party(party)}" if party and party != text else "")

    def _show_contract(self) -> None:
        if not isinstance(self.node.type, ContractIdT):
            return
        text = self.node.text.strip()
        full = self.node.context.contract(text) if text else None
        self.note(f"= {short_id(full, 24)}" if full and full != text else "")

    @on(Input.Changed)
    def _typed(self, event: Input.Changed) -> None:
        event.stop()
        self.node.text = event.value
        self._show_party()
        self._show_contract()
        self.changed()
        text = event.value.strip()
        if (
            isinstance(self.node.type, ContractIdT)
            and could_begin_contract_id(text)
            and not looks_like_contract_id(text)
        ):
            self.run_worker(
                self._expand(text), group=f"expand-{id(self)}", exclusive=True, exit_on_error=False
            )

    async def _expand(self, text: str) -> None:
        """Look the beginning typed up in the cache; the value and its problem follow once it is found."""
        form = self.typed_form
        if form is None:
            return
        found = await form.sources.expand_contract_id(text)
        context = self.node.context
        if found.problem:
            context.contract_problems[text] = found.problem
        elif looks_like_contract_id(found.value):
            context.contracts[text] = found.value
        if self.node.text.strip() == text and self.is_attached:
            self._show_contract()
            self.changed()


class BoolField(FieldWidget):
    node: BoolNode
    HAS_INPUT = True

    def summary(self) -> tuple[str, bool]:
        return ("☑ true" if self.node.value else "☐ false"), False

    def control(self) -> Widget:
        return Checkbox("true" if self.node.value else "false", self.node.value, compact=True)

    @on(Checkbox.Changed)
    def _toggled(self, event: Checkbox.Changed) -> None:
        event.stop()
        self.node.value = event.value
        event.checkbox.label = "true" if event.value else "false"
        self.changed()


class EnumField(FieldWidget):
    node: EnumNode
    HAS_INPUT = True

    def summary(self) -> tuple[str, bool]:
        return f"{self.node.constructor} ▾", False

    def control(self) -> Widget:
        options = [(name, name) for name in self.node.type.constructors]
        return PagedSelect(options, value=self.node.constructor, allow_blank=False, compact=True)

    @on(Select.Changed)
    def _chosen(self, event: Select.Changed) -> None:
        event.stop()
        self.node.constructor = str(event.value)
        self.changed()


class UnitField(FieldWidget):
    def summary(self) -> tuple[str, bool]:
        return "()", False

    def control(self) -> Widget:
        return Label("()")


class RawField(FieldWidget):
    node: RawNode
    HAS_INPUT = True

    def summary(self) -> tuple[str, bool]:
        return (self.node.text, False) if self.node.text else (f"JSON: {self.node.type.why}", True)

    def control(self) -> Widget:
        return FieldInput(
            self.node.text,
            placeholder=f"JSON: {self.node.type.why}",
            compact=True,
            free_text=True,
            select_on_focus=False,
        )

    def on_mount(self) -> None:
        self.show_problem(self.own_problem())

    def own_problem(self) -> str | None:
        form = self.typed_form
        if not self.node.text.strip() and not (form is not None and form.marking):
            return None
        return self.node.value()[1]

    @on(Input.Changed)
    def _typed(self, event: Input.Changed) -> None:
        event.stop()
        self.node.text = event.value
        self.changed()


class _Container(FieldWidget):
    """A field with fields under it, whose rows are rebuilt when its shape changes (an item added, a constructor
    chosen)."""

    async def rebuild(self, focus: int | None = None) -> None:
        form = self.typed_form
        if form is None:
            return
        await form.settled()
        old = [w for field in self.under for w in field.shown()]
        if old:
            await form.remove_children(old)
        rows = self.rows()[1:]
        if rows:
            anchor = [self, *self._lines.values()][-1]
            await form.mount_all(rows, after=anchor)
        if focus is not None and 0 <= focus < len(self.under):
            self.under[focus].focus_input()
        self.changed()


class RecordField(_Container):
    node: RecordNode

    def fields_under(self) -> list[FieldWidget]:
        return [
            field_widget(child, name, join(self.path, name), self.depth + 1)
            for name, child in self.node.fields.items()
        ]


class OptionalField(_Container):
    node: OptionalNode
    HAS_INPUT = True

    def summary(self) -> tuple[str, bool]:
        return ("☑ some" if self.node.present else "☐ none"), False

    def control(self) -> Widget:
        return Checkbox("some" if self.node.present else "none", self.node.present, compact=True)

    def fields_under(self) -> list[FieldWidget]:
        if not self.node.present:
            return []
        return [field_widget(self.node.child, "value", self.path, self.depth + 1)]

    @on(Checkbox.Changed)
    async def _toggled(self, event: Checkbox.Changed) -> None:
        event.stop()
        self.node.present = event.value
        event.checkbox.label = "some" if event.value else "none"
        await self.rebuild()


class ListField(_Container):
    node: ListNode
    HAS_INPUT = True

    def summary(self) -> tuple[str, bool]:
        return "+ add", False

    def control(self) -> Widget:
        return _buttons(("+ add", "add", "add an item"))[0]

    def fields_under(self) -> list[FieldWidget]:
        return [
            field_widget(item, f"[{i}]", f"{self.path}[{i}]", self.depth + 1, ITEM_BUTTONS)
            for i, item in enumerate(self.node.items)
        ]

    def _item_count(self) -> int:
        return len(self.node.items)

    async def add_item(self) -> None:
        self.node.add()
        await self.rebuild(focus=self._item_count() - 1)

    async def item_action(self, action: str, index: int) -> None:
        if action == "remove":
            self.node.remove(index)
            await self.rebuild(focus=min(index, self._item_count() - 1))
        elif action in ("up", "down"):
            target = self.node.move(index, -1 if action == "up" else 1)
            await self.rebuild(focus=target)


class MapField(ListField):
    node: MapNode  # type: ignore[assignment]

    def fields_under(self) -> list[FieldWidget]:
        rows: list[FieldWidget] = []
        for i, (key, value) in enumerate(self.node.rows):
            rows.append(_MapRow(key, value, f"[{i}]", f"{self.path}[{i}]", self.depth + 1, ITEM_BUTTONS))
        return rows

    def _item_count(self) -> int:
        return len(self.node.rows)


class _MapRow(_Container):
    """One key/value row of a map: its key's and its value's fields under the row's index."""

    def __init__(
        self, key: Node, value: Node, name: str, path: str, depth: int, buttons: tuple[ButtonSpec, ...]
    ) -> None:
        super().__init__(value, name, path, depth, buttons)
        self.key_node = key

    def parts(self) -> list[Widget]:
        return [Label(plain(self.field_name), classes="tf-name")]

    def render(self) -> Content:
        return Content("") if self.opened else plain(self.field_name, "dim")

    def fields_under(self) -> list[FieldWidget]:
        return [
            field_widget(self.key_node, "key", f"{self.path}.key", self.depth + 1),
            field_widget(self.node, "value", f"{self.path}.value", self.depth + 1),
        ]

    def focus_input(self) -> None:
        if self.under:
            self.under[0].focus_input()


class VariantField(_Container):
    node: VariantNode
    HAS_INPUT = True

    def summary(self) -> tuple[str, bool]:
        return f"{self.node.constructor} ▾", False

    def control(self) -> Widget:
        options = [(name, name) for name, _ in self.node.type.constructors]
        return PagedSelect(options, value=self.node.constructor, allow_blank=False, compact=True)

    def fields_under(self) -> list[FieldWidget]:
        payload = self.node.payload
        if payload is None or isinstance(payload, UnitNode):
            return []
        path = join(self.path, self.node.constructor)
        if isinstance(payload, RecordNode):
            return [
                field_widget(child, name, join(path, name), self.depth + 1)
                for name, child in payload.fields.items()
            ]
        return [field_widget(payload, self.node.constructor, path, self.depth + 1)]

    @on(Select.Changed)
    async def _chosen(self, event: Select.Changed) -> None:
        event.stop()
        if str(event.value) == self.node.constructor:
            return
        self.node.constructor = str(event.value)
        await self.rebuild()


def _placeholder(node: TextNode) -> str:
    t = node.type
    if isinstance(t, Scalar):
        return {
            "PARTY": "Alice, or a party id (↓ lists the known parties)",
            "INT64": "a whole number",
            "DATE": "YYYY-MM-DD",
            "TIMESTAMP": "2030-01-31T12:00:00Z",
            "TEXT": "",
        }.get(t.kind, "")
    if isinstance(t, NumericT):
        return f"a number, at most {count(t.scale, 'decimal')}"
    if isinstance(t, ContractIdT):
        return "a contract id (↓ lists the active ones)"
    return ""
