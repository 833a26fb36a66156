"""The inputs of a typed form (`app.compose.form`): one per field, by its type. Party completes from the known
parties (a short name stands for the one party with it, and what it stands for is shown); ContractId completes
from the active contracts of its template (or takes a pasted id); Optional has a `some` toggle; a List and a map
add, move and remove their items; a variant chooses its constructor, then shows that constructor's form; an enum
is a choice; Bool a checkbox. Every input writes into the form's node as it is typed, and shows its problem under
it once it has text (or once the form is marked, after a refused submit).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Button, Checkbox, Input, Label, Select, Static

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
from app.daml import party_hint, short_party
from app.widgets.completing_input import CompletingInput
from app.widgets.keys import FieldInput
from app.widgets.untrusted_text import plain

NAME_WIDTH = 16


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


def _party_label(party: str) -> Content:
    return Content.assemble(plain(party_hint(party), "bold"), plain(f"  {short_party(party)}", "dim"))


class TypedForm(Vertical):
    """The inputs of one `ValueForm`."""

    DEFAULT_CSS = f"""
    TypedForm {{ height: auto; }}
    TypedForm .tf-row {{ height: auto; }}
    TypedForm .tf-name {{ width: {NAME_WIDTH}; color: $text-muted; }}
    TypedForm .tf-type {{ width: auto; color: $text-muted; margin-left: 1; text-style: dim; }}
    TypedForm FieldWidget > FieldWidget {{ padding-left: 2; }}
    TypedForm .tf-problem {{ color: $error; margin-left: {NAME_WIDTH}; height: auto; }}
    TypedForm .tf-note {{ color: $text-muted; margin-left: {NAME_WIDTH}; height: auto; }}
    TypedForm .tf-row.-invalid > .tf-name {{ color: $error; text-style: bold; }}
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

    def compose(self) -> ComposeResult:
        yield from body_of(self.form.node, self.form.root)

    def changed(self) -> None:
        self.touched = True
        self.post_message(self.Changed(self))

    async def reload(self) -> None:
        """Show the form's node anew (after it was loaded from JSON)."""
        await self.remove_children()
        await self.mount_all(list(body_of(self.form.node, self.form.root)))

    def mark(self, problems: list[ValueProblem]) -> None:
        """Show `problems` at their fields (and every later problem as it is typed)."""
        self.marking = True
        by_path = {p.path: p.message for p in problems}
        shown_at = self._innermost()
        for field in self.query(FieldWidget):
            field.show_problem(by_path.get(field.path) if shown_at[field.path] is field else None)

    def _innermost(self) -> dict[str, FieldWidget]:
        """The field shown for each path: an Optional's value shares its path, and is the one that is typed."""
        return {field.path: field for field in self.query(FieldWidget)}

    def unmark(self) -> None:
        self.marking = False
        for field in self.query(FieldWidget):
            field.show_problem(field.own_problem())

    def focus_path(self, path: str) -> bool:
        field = self._innermost().get(path)
        if field is not None:
            field.focus_input()
        return field is not None


def body_of(node: Node, path: str) -> list[Widget]:
    """The widgets of a node shown without a row of its own: a record's fields (the form's root)."""
    if isinstance(node, RecordNode):
        return [field_widget(child, name, join(path, name)) for name, child in node.fields.items()]
    return [field_widget(node, "value", path)]


def field_widget(node: Node, name: str, path: str, trailing: tuple[Widget, ...] = ()) -> Widget:
    if isinstance(node, TextNode):
        return TextField(node, name, path, trailing)
    if isinstance(node, BoolNode):
        return BoolField(node, name, path, trailing)
    if isinstance(node, EnumNode):
        return EnumField(node, name, path, trailing)
    if isinstance(node, OptionalNode):
        return OptionalField(node, name, path, trailing)
    if isinstance(node, ListNode):
        return ListField(node, name, path, trailing)
    if isinstance(node, MapNode):
        return MapField(node, name, path, trailing)
    if isinstance(node, VariantNode):
        return VariantField(node, name, path, trailing)
    if isinstance(node, RecordNode):
        return RecordField(node, name, path, trailing)
    if isinstance(node, RawNode):
        return RawField(node, name, path, trailing)
    assert isinstance(node, UnitNode)
    return UnitField(node, name, path, trailing)


class FieldWidget(Vertical):
    """One field: a row (its name, its input, its type, `trailing` buttons), its problem, and what is under it."""

    DEFAULT_CSS = "FieldWidget { height: auto; }"

    def __init__(self, node: Node, name: str, path: str, trailing: tuple[Widget, ...] = ()) -> None:
        super().__init__(classes="tf-field")
        self.node = node
        self.field_name = name
        self.path = path
        self.trailing = trailing

    def control(self) -> Widget | None:
        """The input of the row (None: the row has only the name and the type)."""
        return None

    def compose(self) -> ComposeResult:
        control = self.control()
        with Horizontal(classes="tf-row"):
            yield Label(plain(self.field_name), classes="tf-name")
            if control is not None:
                yield control
            yield Label(plain(self.node.type.shown), classes="tf-type")
            yield from self.trailing
        yield from self.below()

    def below(self) -> ComposeResult:
        yield from ()

    @property
    def typed_form(self) -> TypedForm | None:
        for ancestor in self.ancestors:
            if isinstance(ancestor, TypedForm):
                return ancestor
        return None

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
        rows = self.query_children(".tf-row")
        if rows:
            rows.first().set_class(bool(message), "-invalid")

    def note(self, text: str) -> None:
        self._message("tf-note", text)

    def _message(self, kind: str, text: str) -> None:
        """A line under the row, made when first needed (most fields never have one: fewer widgets to lay out)."""
        found = self.query_children(f".{kind}")
        if found:
            line = found.first(Static)
            line.update(plain(text))
            line.display = bool(text)
        elif text and self.is_mounted and self.is_attached:
            rows = self.query_children(".tf-row")
            line = Static(plain(text), classes=kind)
            if rows:
                self.mount(line, after=rows.first())
            else:
                self.mount(line)

    def focus_input(self) -> None:
        control = self.query(".tf-row > *").exclude(".tf-name").exclude(".tf-type").first()
        control.focus()
        self.call_after_refresh(self.scroll_visible)


class TextField(FieldWidget):
    node: TextNode

    def control(self) -> Widget:
        t = self.node.type
        if isinstance(t, Scalar) and t.kind == "PARTY":
            return CompletingInput(
                self._parties, label=_party_label, placeholder=_placeholder(self.node), value=self.node.text
            )
        if isinstance(t, ContractIdT) and t.template is not None:
            template = str(t.template)
            return CompletingInput(
                lambda: self._contracts(template),
                label=self._contract_label,
                placeholder=_placeholder(self.node),
                value=self.node.text,
            )
        free = isinstance(t, Scalar) and t.kind == "TEXT"
        return FieldInput(self.node.text, placeholder=_placeholder(self.node), compact=True, free_text=free)

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
        return Content.assemble(plain(contract_id[:16] + "…", "bold"), plain(f"  {shown}", "dim"))

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

    @on(Input.Changed)
    def _typed(self, event: Input.Changed) -> None:
        event.stop()
        self.node.text = event.value
        self._show_party()
        self.changed()


class BoolField(FieldWidget):
    node: BoolNode

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

    def control(self) -> Widget:
        options = [(name, name) for name in self.node.type.constructors]
        return Select(options, value=self.node.constructor, allow_blank=False, compact=True)

    @on(Select.Changed)
    def _chosen(self, event: Select.Changed) -> None:
        event.stop()
        self.node.constructor = str(event.value)
        self.changed()


class UnitField(FieldWidget):
    def control(self) -> Widget:
        return Label("()")


class RawField(FieldWidget):
    node: RawNode

    def control(self) -> Widget:
        return FieldInput(
            self.node.text, placeholder=f"JSON: {self.node.type.why}", compact=True, free_text=True
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
    """A field with fields under it, rebuilt when its shape changes (an item added, a constructor chosen)."""

    def below(self) -> ComposeResult:
        # the fields under it are its own children (no container between): nesting costs layout passes
        yield from self.children_widgets()

    def children_widgets(self) -> list[Widget]:
        return []

    def child_fields(self) -> list[FieldWidget]:
        return [w for w in self.children if isinstance(w, FieldWidget)]

    async def rebuild(self, focus: int | None = None) -> None:
        await self.remove_children(self.child_fields())
        await self.mount_all(self.children_widgets())
        if focus is not None:
            fields = self.child_fields()
            if 0 <= focus < len(fields):
                fields[focus].focus_input()
        self.changed()


class RecordField(_Container):
    node: RecordNode

    def children_widgets(self) -> list[Widget]:
        return [field_widget(child, name, join(self.path, name)) for name, child in self.node.fields.items()]


class OptionalField(_Container):
    node: OptionalNode

    def control(self) -> Widget:
        return Checkbox("some" if self.node.present else "none", self.node.present, compact=True)

    def children_widgets(self) -> list[Widget]:
        return [field_widget(self.node.child, "value", self.path)] if self.node.present else []

    @on(Checkbox.Changed)
    async def _toggled(self, event: Checkbox.Changed) -> None:
        if event.checkbox.parent is not self.query_one(".tf-row"):
            return  # a Bool of the value under it
        event.stop()
        self.node.present = event.value
        event.checkbox.label = "some" if event.value else "none"
        await self.rebuild()


def _buttons(*specs: tuple[str, str, str]) -> tuple[Widget, ...]:
    """(label, action name, tooltip) each: small buttons on an item's row."""
    return tuple(
        Button(label, name=action, tooltip=tip, compact=True, classes="tf-button")
        for label, action, tip in specs
    )


ITEM_BUTTONS = (("↑", "up", "move up"), ("↓", "down", "move down"), ("✕", "remove", "remove"))


class ListField(_Container):
    node: ListNode

    def control(self) -> Widget:
        return Button("+ add", name="add", compact=True, classes="tf-button")

    def children_widgets(self) -> list[Widget]:
        return [
            field_widget(item, f"[{i}]", f"{self.path}[{i}]", _buttons(*ITEM_BUTTONS))
            for i, item in enumerate(self.node.items)
        ]

    @on(Button.Pressed, ".tf-button")
    async def _pressed(self, event: Button.Pressed) -> None:
        row = event.button.parent
        owner = row.parent if row is not None else None
        if owner is self:
            event.stop()
            self.node.add()
            await self.rebuild(focus=self._item_count() - 1)
            return
        if not isinstance(owner, FieldWidget) or owner.parent is not self:
            return  # a button of a list under an item
        event.stop()
        index = self.child_fields().index(owner)
        await self._item_action(str(event.button.name), index)

    def _item_count(self) -> int:
        return len(self.node.items)

    async def _item_action(self, action: str, index: int) -> None:
        if action == "remove":
            self.node.remove(index)
            await self.rebuild(focus=min(index, self._item_count() - 1))
        elif action in ("up", "down"):
            target = self.node.move(index, -1 if action == "up" else 1)
            await self.rebuild(focus=target)


class MapField(ListField):
    node: MapNode  # type: ignore[assignment]

    def children_widgets(self) -> list[Widget]:
        widgets: list[Widget] = []
        for i, (key, value) in enumerate(self.node.rows):
            widgets.append(_MapRow(key, value, f"[{i}]", f"{self.path}[{i}]", _buttons(*ITEM_BUTTONS)))
        return widgets

    def _item_count(self) -> int:
        return len(self.node.rows)


class _MapRow(_Container):
    """One key/value row of a map: its key's and its value's fields under the row's index."""

    def __init__(self, key: Node, value: Node, name: str, path: str, trailing: tuple[Widget, ...]) -> None:
        super().__init__(value, name, path, trailing)
        self.key_node = key

    def compose(self) -> ComposeResult:
        with Horizontal(classes="tf-row"):
            yield Label(plain(self.field_name), classes="tf-name")
            yield from self.trailing
        yield from self.below()

    def children_widgets(self) -> list[Widget]:
        return [
            field_widget(self.key_node, "key", f"{self.path}.key"),
            field_widget(self.node, "value", f"{self.path}.value"),
        ]

    def focus_input(self) -> None:
        fields = self.child_fields()
        if fields:
            fields[0].focus_input()


class VariantField(_Container):
    node: VariantNode

    def control(self) -> Widget:
        options = [(name, name) for name, _ in self.node.type.constructors]
        return Select(options, value=self.node.constructor, allow_blank=False, compact=True)

    def children_widgets(self) -> list[Widget]:
        payload = self.node.payload
        if payload is None or isinstance(payload, UnitNode):
            return []
        path = join(self.path, self.node.constructor)
        if isinstance(payload, RecordNode):
            return [field_widget(child, name, join(path, name)) for name, child in payload.fields.items()]
        return [field_widget(payload, self.node.constructor, path)]

    @on(Select.Changed)
    async def _chosen(self, event: Select.Changed) -> None:
        if event.select.parent is not self.query_one(".tf-row"):
            return  # a choice of the payload under it
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
        return f"a number, at most {t.scale} decimals"
    if isinstance(t, ContractIdT):
        return "a contract id (↓ lists the active ones)"
    return ""
