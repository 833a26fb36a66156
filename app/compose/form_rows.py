"""The rows of a typed form (`app.compose.form`), with no UI: one row per field, flat, in the order shown, each at
its depth (a record's fields, a list's items, a variant's payload are rows under their row). The model owns what
each row shows while closed (its summary), its problem and its note, and which rows take the focus; the widget
(`app.widgets.typed_form`) draws the rows in view and makes the widgets of the one row with the focus.

What is typed lives in the form's nodes: a row holds no value of its own, so a row scrolled away and back, or
made anew when its container's shape changes, shows what its node holds.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

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
from app.daml import short_id, short_party

LineKind = Literal["row", "problem", "note"]


class FormRow:
    """One field's row: its node, name and path; the rows of the fields under it; its problem and note as shown.
    A map's entry is a row of its own (`key_node` and its value `node`), with its key's and value's rows under it."""

    def __init__(
        self,
        node: Node,
        name: str,
        path: str,
        depth: int,
        *,
        parent: FormRow | None = None,
        key_node: Node | None = None,
    ) -> None:
        self.node = node
        self.name = name
        self.path = path
        self.depth = depth
        self.parent = parent
        self.key_node = key_node
        self.under: list[FormRow] = []
        self.problem: str | None = None  # shown on the line under the row
        self.note = ""  # what a short name or a beginning of an id stands for, on the line under the row

    def __repr__(self) -> str:
        return f"FormRow({self.path!r})"

    @property
    def is_entry(self) -> bool:
        """A map's key/value entry (its key and its value are rows under it)."""
        return self.key_node is not None

    @property
    def is_item(self) -> bool:
        """An item of a list or a map: it moves up and down and is removed (its row has buttons for it)."""
        return self.parent is not None and isinstance(self.parent.node, ListNode | MapNode)

    @property
    def has_input(self) -> bool:
        """Whether the row has an input of its own (a map's entry has only its key's and value's)."""
        if self.is_entry:
            return False
        return not isinstance(self.node, RecordNode | UnitNode)

    @property
    def takes_focus(self) -> bool:
        """A stop of tab: a row with an input, or an item (its buttons)."""
        return self.has_input or self.is_item

    @property
    def type_shown(self) -> str:
        return "" if self.is_entry else self.node.type.shown

    def summary(self) -> tuple[str, bool]:
        """What the closed row shows where its input goes, and whether that is a placeholder."""
        node = self.node
        if self.is_entry or isinstance(node, RecordNode):
            return "", False
        if isinstance(node, TextNode):
            return (node.text, False) if node.text else (placeholder(node), True)
        if isinstance(node, RawNode):
            return (node.text, False) if node.text else (f"JSON: {node.type.why}", True)
        if isinstance(node, BoolNode):
            return ("☑ true" if node.value else "☐ false"), False
        if isinstance(node, OptionalNode):
            return ("☑ some" if node.present else "☐ none"), False
        if isinstance(node, EnumNode | VariantNode):
            return f"{node.constructor} ▾", False
        if isinstance(node, ListNode | MapNode):
            return "+ add", False
        return "()", False

    def fields_under(self) -> list[FormRow]:
        """The rows of the fields under this one, made anew from the nodes."""
        node, depth = self.node, self.depth + 1
        if self.is_entry:
            assert self.key_node is not None
            return [
                FormRow(self.key_node, "key", f"{self.path}.key", depth, parent=self),
                FormRow(node, "value", f"{self.path}.value", depth, parent=self),
            ]
        if isinstance(node, RecordNode):
            return [
                FormRow(child, name, join(self.path, name), depth, parent=self)
                for name, child in node.fields.items()
            ]
        if isinstance(node, OptionalNode):
            return [FormRow(node.child, "value", self.path, depth, parent=self)] if node.present else []
        if isinstance(node, MapNode):
            return [
                FormRow(value, f"[{i}]", f"{self.path}[{i}]", depth, parent=self, key_node=key)
                for i, (key, value) in enumerate(node.rows)
            ]
        if isinstance(node, ListNode):
            return [
                FormRow(item, f"[{i}]", f"{self.path}[{i}]", depth, parent=self)
                for i, item in enumerate(node.items)
            ]
        if isinstance(node, VariantNode):
            payload = node.payload
            if payload is None or isinstance(payload, UnitNode):
                return []
            path = join(self.path, node.constructor)
            if isinstance(payload, RecordNode):
                return [
                    FormRow(child, name, join(path, name), depth, parent=self)
                    for name, child in payload.fields.items()
                ]
            return [FormRow(payload, node.constructor, path, depth, parent=self)]
        return []

    def own_problem(self, marking: bool) -> str | None:
        """The problem of this row's own value (not of the rows under it) to show: once it has text, or always
        when the form is `marking` (after a refused submit)."""
        node = self.node
        if self.is_entry:
            return None
        if isinstance(node, TextNode):
            return node.problem() if node.text.strip() or marking else None
        if isinstance(node, RawNode):
            return node.value()[1] if node.text.strip() or marking else None
        return None

    def own_note(self) -> str:
        """What a short party name or a contract id's beginning typed stands for."""
        node = self.node
        if self.is_entry or not isinstance(node, TextNode):
            return ""
        text = node.text.strip()
        if not text:
            return ""
        t = node.type
        if isinstance(t, Scalar) and t.kind == "PARTY":
            party = node.context.party(text)
            return f"= {short_party(party)}" if party and party != text else ""
        if isinstance(t, ContractIdT):
            full = node.context.contract(text)
            return f"= {short_id(full, 24)}" if full and full != text else ""
        return ""

    def walk(self) -> Iterator[FormRow]:
        """This row and every row under it, in the order shown."""
        yield self
        for row in self.under:
            yield from row.walk()


class FormRows:
    """Every row of a `ValueForm`, in the order shown, and the lines they take: a row's own, then its problem's and
    its note's when it has them."""

    def __init__(self, form: ValueForm) -> None:
        self.form = form
        self.marking = False  # every problem shown, not only those of rows with text
        self.roots: list[FormRow] = []
        self.rows: list[FormRow] = []
        self.lines: list[tuple[FormRow, LineKind]] = []
        self._line_of: dict[int, int] = {}  # id of a row -> the line of its own
        self.build()

    def build(self) -> None:
        """The rows anew, from the form's node (it was loaded from JSON, or is new)."""
        node, root = self.form.node, self.form.root
        if isinstance(node, RecordNode):
            self.roots = [FormRow(child, name, join(root, name), 0) for name, child in node.fields.items()]
        else:
            self.roots = [FormRow(node, "value", root, 0)]
        for row in self.roots:
            self._grow(row)
        self._flatten()

    def _grow(self, row: FormRow) -> None:
        row.under = row.fields_under()
        row.problem = row.own_problem(self.marking)
        row.note = row.own_note()
        for child in row.under:
            self._grow(child)

    def _flatten(self) -> None:
        self.rows = [r for root in self.roots for r in root.walk()]
        self.lay_out()

    def lay_out(self) -> None:
        """The lines again (a problem or a note came or went)."""
        lines: list[tuple[FormRow, LineKind]] = []
        line_of: dict[int, int] = {}
        for row in self.rows:
            line_of[id(row)] = len(lines)
            lines.append((row, "row"))
            if row.problem:
                lines.append((row, "problem"))
            if row.note:
                lines.append((row, "note"))
        self.lines, self._line_of = lines, line_of

    def reshape(self, row: FormRow) -> None:
        """The rows under `row` made anew (an item added, moved or removed, an Optional toggled, a constructor
        chosen): their values are in the nodes."""
        self._grow(row)
        self._flatten()

    def line_of(self, row: FormRow) -> int | None:
        return self._line_of.get(id(row))

    def index(self, row: FormRow) -> int:
        return self.rows.index(row)

    def holds(self, row: FormRow) -> bool:
        return id(row) in self._line_of

    def find(self, path: str) -> FormRow | None:
        """The row shown for `path`: an Optional's value shares its path, and is the one that is typed (the last)."""
        found = None
        for row in self.rows:
            if row.path == path:
                found = row
        return found

    def outermost(self, path: str) -> FormRow | None:
        """The first row with `path`: an Optional itself rather than its value."""
        return next((row for row in self.rows if row.path == path), None)

    def landing(self, row: FormRow) -> FormRow | None:
        """Where the focus goes for `row`: its input, else the first input under it (a record's first field, a
        map entry's key), else its buttons (an item with no input anywhere)."""
        return next((r for r in row.walk() if r.has_input), row if row.takes_focus else None)

    def first_stop(self) -> FormRow | None:
        """The first row with an input (None: the value has none, as a choice without arguments)."""
        return next((row for row in self.rows if row.has_input), None)

    def step(self, row: FormRow | None, direction: int) -> FormRow | None:
        """The next (1) or previous (-1) row that takes the focus after `row` (None: from the edge in)."""
        stops = [r for r in self.rows if r.takes_focus]
        if not stops:
            return None
        if row is None or not self.holds(row):
            return stops[0] if direction > 0 else stops[-1]
        position = self.index(row)
        ahead = (
            (r for r in self.rows[position + 1 :] if r.takes_focus)
            if direction > 0
            else (r for r in reversed(self.rows[:position]) if r.takes_focus)
        )
        return next(ahead, None)

    def refresh(self, row: FormRow) -> bool:
        """`row`'s problem and note again, after its value changed; whether its lines changed in number."""
        before = (bool(row.problem), bool(row.note))
        row.problem = row.own_problem(self.marking)
        row.note = row.own_note()
        if (bool(row.problem), bool(row.note)) != before:
            self.lay_out()
            return True
        return False

    def mark(self, problems: list[ValueProblem]) -> None:
        """Show `problems` at their rows (and every later problem as it is typed)."""
        self.marking = True
        by_path = {p.path: p.message for p in problems}
        innermost = {row.path: row for row in self.rows}
        for row in self.rows:
            row.problem = by_path.get(row.path) if innermost[row.path] is row else None
        self.lay_out()

    def unmark(self) -> None:
        self.marking = False
        for row in self.rows:
            row.problem = row.own_problem(False)
        self.lay_out()


def placeholder(node: TextNode) -> str:
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
