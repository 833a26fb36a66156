"""A tree of Daml values: records, variants, lists and maps that fold and unfold, scalars as people read them,
parties and contract ids short until asked for in full. Enter on a contract id opens it in the inspector.

Children are added when a node is first unfolded, and long lists a hundred at a time, so a payload with ten
thousand entries costs what is on screen, not what is in it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson
from rich.style import Style
from rich.text import Text
from textual import on
from textual.binding import Binding
from textual.reactive import reactive
from textual.strip import Strip
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from app import daml_values as dv
from app.cut import cut
from app.messages import OpenContract
from app.untrusted import visible
from app.widgets.table_window import mark_cut_edges
from app.widgets.untrusted_text import escaped

if TYPE_CHECKING:
    from app.value_types import ValueType, ValueTypes

CHUNK = 100
EXPAND_ALL_BUDGET = 5_000  # nodes `e` adds at most; deeper parts stay folded

STYLES: dict[str, str] = {
    dv.PARTY: "cyan",
    dv.CONTRACT_ID: "magenta",
    dv.NUMERIC: "green",
    dv.INT64: "green",
    dv.TEXT: "yellow",
    dv.BOOL: "blue",
    dv.DATE: "bright_blue",
    dv.TIMESTAMP: "bright_blue",
    dv.NONE: "dim italic",
    dv.UNIT: "dim",
    dv.VARIANT: "bold",
}
NAME = "bold"
MUTED = "dim"
TYPE = "dim italic"

LabelFn = Callable[[bool, bool], Text]
"""Renders a node's label from (full ids, expanded)."""


@dataclass
class ValueNode:
    """What a node of the tree stands for. Value nodes have `value`; other nodes (events, headings) a `label`."""

    name: str = ""
    value: Any = None
    label: LabelFn | None = None
    populated: bool = False
    open_id: str | None = None
    """The contract enter opens on this node."""
    more_from: int | None = None
    """For a "… more" node: the position of the first entry it stands for."""
    entries: list[tuple[str, Any]] | None = None
    type: ValueType | None = None
    """The value's Daml type, when the packages tell it."""
    type_text: str = ""
    entry_types: list[ValueType | None] | None = None

    @property
    def is_value(self) -> bool:
        return self.label is None and self.more_from is None


def value_label(name: str, value: Any, *, full_ids: bool, expanded: bool, type_text: str = "") -> Text:
    """A value's line: names, texts and tags are the participant's, so their control characters are written out.
    `type_text`: the value's type, when known (it says what the value's shape only suggests)."""
    kind = dv.kind_of(value)
    text = Text(no_wrap=True)
    if name:
        text.append(visible(name), style=NAME)
    container = kind in dv.CONTAINERS and bool(dv.entries(value))
    if not container:
        if name:
            text.append(": ")
        text.append(visible(dv.scalar_text(value, full_ids=full_ids)), style=STYLES.get(kind, ""))
    elif kind == dv.VARIANT:
        if name:
            text.append(": ")
        text.append(visible(value["tag"]), style=STYLES[dv.VARIANT])
        if not expanded:
            text.append(" " + visible(dv.preview(value["value"], full_ids=full_ids)), style=MUTED)
    elif expanded:
        text.append(f"  {dv.summary(value)}", style=MUTED)
    else:
        text.append("  " + visible(dv.preview(value, full_ids=full_ids)), style=MUTED)
    if type_text:
        text.append(f"  : {visible(type_text)}", style=TYPE)
        return text
    note = dv.note(value)
    if note:
        text.append(f"  ({visible(note)})", style=MUTED)
    return text


class ValueTree(Tree[ValueNode]):
    """A tree whose nodes are Daml values (and, in subclasses, other things with their own labels)."""

    BINDINGS = [
        Binding("o", "open_node", "Open contract", id="tree.open", show=False),
        Binding("c", "copy_node", "Copy value", id="tree.copy"),
        Binding("e", "expand_all", "Unfold all", id="tree.expand", show=False),
    ]

    DEFAULT_CSS = """
    ValueTree { background: $surface; scrollbar-gutter: stable; }
    ValueTree:focus { background-tint: $foreground 3%; }
    """

    full_ids: reactive[bool] = reactive(False)
    """Show parties and contract ids in full."""

    def __init__(self, label: str = "", *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(
            label, ValueNode(label=lambda full, expanded: Text(label, style=NAME)), id=id, classes=classes
        )
        self.set_reactive(ValueTree.guide_depth, 3)
        self.types: ValueTypes | None = None
        """The packages' types, when read: values given a type show it, and their children theirs."""

    def _render_line(self, y: int, x1: int, x2: int, base_style: Style) -> Strip:
        # Textual's Tree crops a line wider than the tree at its edges; a value cut there is marked `…` (app.cut)
        strip = super()._render_line(y, x1, x2, base_style)
        if x1 == 0 and self.virtual_size.width <= x2:
            return strip  # every line whole in view, as almost always
        whole = super()._render_line(
            y, 0, max(self.virtual_size.width, x2), base_style
        )  # from the line cache
        return mark_cut_edges(strip, whole.text, x1, x2 - x1)

    # --- building ---------------------------------------------------------------------------------------------

    def add_value(
        self,
        parent: TreeNode[ValueNode],
        name: str,
        value: Any,
        *,
        unfold: int = 0,
        type_: ValueType | None = None,
    ) -> TreeNode[ValueNode]:
        """Add `value` under `parent`; unfold its first `unfold` levels. `type_`: its Daml type, when known."""
        data = ValueNode(name=name, value=value)
        if type_ is not None and self.types is not None:
            data.type, data.type_text = type_, self.types.show(type_)
        if dv.kind_of(value) == dv.CONTRACT_ID:
            data.open_id = value
        if not dv.is_container(value):
            data.populated = True
            return parent.add_leaf(name, data)
        node = parent.add(name, data)
        if unfold > 0:
            self.populate(node, unfold=unfold - 1)
            node.expand()
        return node

    def add_node(
        self,
        parent: TreeNode[ValueNode],
        label: LabelFn,
        *,
        open_id: str | None = None,
        leaf: bool = False,
        expand: bool = False,
    ) -> TreeNode[ValueNode]:
        """A node that is not a value (an event, a heading), labelled by `label`."""
        data = ValueNode(label=label, open_id=open_id, populated=True)
        if leaf:
            return parent.add_leaf("", data)
        return parent.add("", data, expand=expand)

    def populate(self, node: TreeNode[ValueNode], *, unfold: int = 0) -> None:
        """Add the children of a value node (once), the first CHUNK of a long container."""
        data = node.data
        if data is None or data.populated or not data.is_value:
            return
        data.populated = True
        typed = self.types.entries(data.value, data.type) if data.type is not None and self.types else None
        if typed is None:
            data.entries = dv.entries(data.value)
        else:
            data.entries = [(entry.name, entry.value) for entry in typed]
            data.entry_types = [entry.type for entry in typed]
        self._add_entries(node, 0, unfold=unfold)

    def _add_entries(self, node: TreeNode[ValueNode], start: int, *, unfold: int = 0) -> None:
        assert node.data is not None and node.data.entries is not None
        entries, types = node.data.entries, node.data.entry_types
        stop = min(len(entries), start + CHUNK)
        for i in range(start, stop):
            name, value = entries[i]
            self.add_value(node, name, value, unfold=unfold, type_=types[i] if types is not None else None)
        if stop < len(entries):
            rest = len(entries) - stop

            def more(full: bool, expanded: bool) -> Text:
                return Text(f"… {rest:,} more (enter shows the next {min(rest, CHUNK)})", style=MUTED)

            node.add_leaf("", ValueNode(more_from=stop, populated=True, label=more))

    @on(Tree.NodeExpanded)
    def _populate_on_expand(self, event: Tree.NodeExpanded[ValueNode]) -> None:
        self.populate(event.node)

    @on(Tree.NodeSelected)
    def _selected(self, event: Tree.NodeSelected[ValueNode]) -> None:
        data = event.node.data
        if data is None:
            return
        if data.more_from is not None:
            event.stop()
            parent = event.node.parent
            start = data.more_from
            event.node.remove()
            if parent is not None:
                self._add_entries(parent, start)
        elif data.open_id is not None and not event.node.allow_expand:
            event.stop()
            self.open_contract(data.open_id)

    def open_contract(self, contract_id: str) -> None:
        self.post_message(OpenContract(contract_id))

    # --- labels ---------------------------------------------------------------------------------------------------

    def render_label(self, node: TreeNode[ValueNode], base_style: Style, style: Style) -> Text:
        data = node.data
        if data is None:
            return super().render_label(node, base_style, style)
        expanded = node.is_expanded
        if data.label is not None:
            label = escaped(data.label(self.full_ids, expanded))  # events and headings quote ids and names
        else:
            label = value_label(
                data.name, data.value, full_ids=self.full_ids, expanded=expanded, type_text=data.type_text
            )
        label.stylize(style)
        if node.allow_expand:
            icon = self.ICON_NODE_EXPANDED if expanded else self.ICON_NODE
            return Text.assemble((icon, base_style + Style(dim=True)), label)
        return label

    def process_label(self, label: str | Text) -> Text:
        # node labels are names from the ledger (a map's keys among them): never markup
        return Text(visible(label), no_wrap=True) if isinstance(label, str) else label

    def watch_full_ids(self) -> None:
        # labels are rendered from the nodes' data, but the Tree caches rendered lines and the widest line's width
        self._invalidate()

    # --- actions --------------------------------------------------------------------------------------------------

    def action_open_node(self) -> None:
        node = self.cursor_node
        if node is not None and node.data is not None and node.data.open_id is not None:
            self.open_contract(node.data.open_id)
        else:
            self.notify("No contract id here: put the cursor on one (or on an event of one).", timeout=3)

    def action_copy_node(self) -> None:
        node = self.cursor_node
        if node is None or node.data is None:
            return
        data = node.data
        if data.is_value:
            value = data.value
            text = value if isinstance(value, str) else orjson.dumps(value).decode()
        elif data.open_id is not None:
            text = data.open_id
        else:
            text = data.label(True, False).plain if data.label else ""
        self.app.copy_to_clipboard(text)
        self.notify(f"Copied {cut(visible(text), 40)}", timeout=3, markup=False)  # the ledger's text

    def action_expand_all(self) -> None:
        """Unfold everything under the cursor (all of the tree from its top), or fold it back if it is unfolded."""
        node = self.cursor_node or self.root
        if _unfolded(node):
            node.collapse_all()
            if node is not self.root or self.show_root:
                node.expand()
            return
        budget = [EXPAND_ALL_BUDGET]
        self._unfold(node, budget)
        node.expand_all()

    def _unfold(self, node: TreeNode[ValueNode], budget: list[int]) -> None:
        if budget[0] <= 0:
            return
        self.populate(node)
        budget[0] -= len(node.children)
        for child in node.children:
            if child.allow_expand:
                self._unfold(child, budget)


def _unfolded(node: TreeNode[ValueNode]) -> bool:
    """Whether every container under `node` (and `node` itself) shows its children."""
    if node.allow_expand and not node.is_expanded:
        return False
    return all(_unfolded(child) for child in node.children)
