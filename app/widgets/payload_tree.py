"""The Daml values of one contract as a tree: its create argument, its key and its interface views."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rich.text import Text

from app.daml import template_name
from app.widgets.value_tree import MUTED, NAME, ValueTree
from participant.api import CreatedEvent

if TYPE_CHECKING:
    from app.value_types import ValueType

UNFOLD = 3  # levels of the create argument shown unfolded at first


class PayloadTree(ValueTree):
    DEFAULT_CSS = """
    PayloadTree { border: round $panel-lighten-2; border-title-color: $text-muted; }
    PayloadTree:focus { border: round $accent; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("payload", id=id)
        self.set_reactive(ValueTree.show_root, False)
        self.border_title = "Payload"

    def show(
        self,
        event: CreatedEvent,
        *,
        argument_type: ValueType | None = None,
        key_type: ValueType | None = None,
        view_types: Mapping[str, ValueType] | None = None,
    ) -> None:
        """`event`'s values, each typed when its type is given (`view_types`: by interface id); `types` (set
        beforehand) resolves them."""
        self.clear()
        self.add_value(self.root, "createArgument", event.create_argument, unfold=UNFOLD, type_=argument_type)
        if event.contract_key is not None:
            self.add_value(self.root, "contractKey", event.contract_key, unfold=1, type_=key_type)
        for view in event.interface_views:
            self._add_view(
                view.interface_id,
                view.view_value,
                view.view_status.code,
                view.view_status.message,
                (view_types or {}).get(view.interface_id),
            )
        self.root.expand()
        self.move_cursor_to_line(0)

    def _add_view(
        self, interface_id: str, value: Any, code: int, message: str, type_: ValueType | None
    ) -> None:
        name = f"view {template_name(interface_id)}"
        if code == 0:
            self.add_value(self.root, name, value, unfold=1, type_=type_)
            return
        self.add_node(
            self.root,
            lambda full, expanded: Text.assemble(
                (name, NAME), (f": not computed (status {code}) {message}", MUTED)
            ),
            leaf=True,
        )

    @property
    def payload(self) -> Any:
        for node in self.root.children:
            if node.data is not None and node.data.name == "createArgument":
                return node.data.value
        return None
