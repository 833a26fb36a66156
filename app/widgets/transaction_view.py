"""A transaction in LEDGER_EFFECTS shape: its header fields, and its events as a tree in which each exercise holds
the events it caused (node ids in (nodeId, lastDescendantNodeId]). The open key (or enter on a contract id) opens
any contract of it in the inspector."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.visual import VisualType
from textual.widgets import Static
from textual.widgets.tree import TreeNode

from app import daml_values as dv
from app.client.errors import LedgerApiError, NotFound
from app.daml import template_name
from app.untrusted import visible
from app.widgets.contract_details import error_line
from app.widgets.untrusted_text import escaped
from app.widgets.value_tree import MUTED, NAME, TYPE, ValueNode, ValueTree
from participant.api import ArchivedEvent, CreatedEvent, Event, ExercisedEvent, JsTransaction

THIS = "  ◀ this contract"


def event_node_id(event: Event) -> int:
    inner = event.created_event or event.exercised_event or event.archived_event
    return inner.node_id if inner is not None else 0


def nest(events: list[Event]) -> list[tuple[Event, list]]:
    """The events as a forest: each exercise with the events whose node ids fall within its range, in node order.
    Events without a range (created and archived events, ACS_DELTA shapes) are leaves of it."""
    roots: list[tuple[Event, list]] = []
    stack: list[tuple[int, list]] = []  # (last descendant, children list)
    for event in sorted(events, key=event_node_id):
        node_id = event_node_id(event)
        while stack and node_id > stack[-1][0]:
            stack.pop()
        entry: tuple[Event, list] = (event, [])
        (stack[-1][1] if stack else roots).append(entry)
        exercised = event.exercised_event
        if exercised is not None and exercised.last_descendant_node_id > node_id:
            stack.append((exercised.last_descendant_node_id, entry[1]))
    return roots


def _parties_label(name: str, names: list[str]):
    def label(full: bool, expanded: bool) -> Text:
        text = Text.assemble((name, NAME), ": ")
        if not names:
            text.append("—", style=MUTED)
        for i, p in enumerate(names):
            text.append(", " if i else "")
            text.append(dv.show_party(p, full), style="cyan")
        return text

    return label


def _contract(cid: str, focus: str, full: bool) -> Text:
    text = Text(dv.show_contract_id(cid, full), style="magenta")
    if cid == focus:
        text.append(THIS, style="bold")
    return text


class TransactionTree(ValueTree):
    DEFAULT_CSS = """
    TransactionTree { height: 1fr; }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__("events", id=id, classes=classes)
        self.set_reactive(ValueTree.show_root, False)
        self.focus_contract = ""

    def show(self, transaction: JsTransaction, focus_contract: str) -> None:
        self.clear()
        self.focus_contract = focus_contract
        for event, children in nest(transaction.events):
            self._add_event(self.root, event, children)
        self.root.expand()
        self.move_cursor_to_line(0)

    def _add_event(self, parent: TreeNode[ValueNode], event: Event, children: list) -> None:
        if event.exercised_event is not None:
            self._exercised(parent, event.exercised_event, children)
        elif event.created_event is not None:
            self._created(parent, event.created_event)
        elif event.archived_event is not None:
            self._archived(parent, event.archived_event)

    def _created(self, parent: TreeNode[ValueNode], created: CreatedEvent) -> None:
        focus = self.focus_contract

        def label(full: bool, expanded: bool) -> Text:
            text = Text.assemble(
                ("Created ", "bold green"),
                (template_name(created.template_id), "bold"),
                "  ",
                _contract(created.contract_id, focus, full),
                (f"  node {created.node_id}", MUTED),
            )
            if not expanded:
                text.append("  " + dv.preview(created.create_argument, full_ids=full), style=MUTED)
            return text

        node = self.add_node(parent, label, open_id=created.contract_id, expand=created.contract_id == focus)
        types = self.types
        self.add_value(
            node,
            "createArgument",
            created.create_argument,
            unfold=1,
            type_=types.template_type(created.template_id) if types else None,
        )
        if created.contract_key is not None:
            key_type = types.key_type(created.template_id) if types else None
            self.add_value(node, "contractKey", created.contract_key, type_=key_type)
        self.add_node(node, _parties_label("signatories", created.signatories), leaf=True)
        self.add_node(node, _parties_label("observers", created.observers), leaf=True)
        self.add_node(node, _parties_label("witnesses", created.witness_parties), leaf=True)

    def _exercised(self, parent: TreeNode[ValueNode], exercised: ExercisedEvent, children: list) -> None:
        focus = self.focus_contract
        types = self.types
        choice = (
            types.choice(exercised.template_id, exercised.interface_id or "", exercised.choice)
            if types
            else None
        )

        def label(full: bool, expanded: bool) -> Text:
            text = Text.assemble(
                ("Exercised ", "bold yellow"),
                (exercised.choice, "bold"),
                " on ",
                (template_name(exercised.interface_id or exercised.template_id), "bold"),
                "  ",
                _contract(exercised.contract_id, focus, full),
                "  by ",
            )
            for i, p in enumerate(exercised.acting_parties):
                text.append(", " if i else "")
                text.append(dv.show_party(p, full), style="cyan")
            text.append(
                "  consuming" if exercised.consuming else "  non-consuming",
                style="red" if exercised.consuming else MUTED,
            )
            text.append(f"  node {exercised.node_id}", style=MUTED)
            if choice is not None and types is not None:
                text.append(f"  → {types.show(choice.return_type)}", style=TYPE)
            return text

        node = self.add_node(parent, label, open_id=exercised.contract_id, expand=True)
        argument_type, result_type = (choice.argument_type, choice.return_type) if choice else (None, None)
        self.add_value(node, "choiceArgument", exercised.choice_argument, unfold=1, type_=argument_type)
        self.add_value(node, "exerciseResult", exercised.exercise_result, unfold=1, type_=result_type)
        self.add_node(node, _parties_label("witnesses", exercised.witness_parties), leaf=True)
        for event, grandchildren in children:
            self._add_event(node, event, grandchildren)

    def _archived(self, parent: TreeNode[ValueNode], archived: ArchivedEvent) -> None:
        focus = self.focus_contract

        def label(full: bool, expanded: bool) -> Text:
            return Text.assemble(
                ("Archived ", "bold red"),
                (template_name(archived.template_id), "bold"),
                "  ",
                _contract(archived.contract_id, focus, full),
                (f"  node {archived.node_id}", MUTED),
            )

        node = self.add_node(parent, label, open_id=archived.contract_id)
        self.add_node(node, _parties_label("witnesses", archived.witness_parties), leaf=True)

    def open_contract(self, contract_id: str) -> None:
        if contract_id == self.focus_contract:
            self.notify("That is the contract in view: escape goes back to it.", timeout=3)
            return
        super().open_contract(contract_id)


def header(transaction: JsTransaction, *, full: bool) -> Table:
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style=MUTED, no_wrap=True)
    grid.add_column(overflow="fold")
    grid.add_column(style=MUTED, no_wrap=True)
    grid.add_column(overflow="fold")

    def ident(value: str | None) -> Text:
        if not value:
            return Text("—", style=MUTED)
        return Text(value if full else dv.short_contract_id(value))

    command = (
        Text(transaction.command_id)
        if transaction.command_id
        else Text("— (shown only to the submitting parties)", style=MUTED)
    )
    trace = transaction.trace_context.traceparent if transaction.trace_context else None
    rows = [
        ("offset", Text(str(transaction.offset), style="bold"), "update id", ident(transaction.update_id)),
        ("effective at", Text(transaction.effective_at), "command id", command),
        (
            "record time",
            Text(transaction.record_time),
            "workflow id",
            Text(transaction.workflow_id) if transaction.workflow_id else Text("—", style=MUTED),
        ),
        ("synchronizer", ident(transaction.synchronizer_id), "events", Text(str(len(transaction.events)))),
    ]
    if trace or transaction.external_transaction_hash or transaction.paid_traffic_cost is not None:
        rows.append(
            ("traceparent", Text(trace or "—"), "external hash", ident(transaction.external_transaction_hash))
        )
    if transaction.paid_traffic_cost is not None:
        rows.append(("paid traffic", Text(str(transaction.paid_traffic_cost)), "", Text("")))
    for row in rows:
        grid.add_row(
            *(escaped(cell) if isinstance(cell, Text) else cell for cell in row)
        )  # ids, times and the workflow id come from the participant
    return grid


def failure_message(error: LedgerApiError, offset: int, pruned: int) -> Group:
    """Why the update at `offset` cannot be shown; `pruned`: the participant's pruning offset (0: not pruned)."""
    words = error.hint
    if pruned >= offset:
        words = (
            f"This participant has pruned its history up to offset {pruned}: the transaction at offset "
            f"{offset} is gone. Contracts still active keep their create event."
        )
    elif isinstance(error, NotFound):
        words = f"No event of the update at offset {offset} is visible to the parties this user can read."
    return Group(
        Text(f"Cannot read the update at offset {offset}", style="bold red"),
        Text(),
        error_line(error),
        Text(visible(words or ""), style=MUTED),
        Text(),
        Text("r reloads · escape goes back to the contract", style=MUTED),
    )


class TransactionView(Vertical):
    """A transaction's header and event tree, or a message in their place (loading, not found, an error)."""

    DEFAULT_CSS = """
    TransactionView { height: 1fr; }
    TransactionView #tx-header { height: auto; padding: 0 1; margin-bottom: 1; }
    TransactionView #tx-message { height: auto; padding: 1 2; }
    TransactionView .hidden { display: none; }
    """

    def __init__(self, title: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.title = title
        self.transaction: JsTransaction | None = None
        self.full_ids = False

    def compose(self) -> ComposeResult:
        yield Static("", id="tx-message")
        yield Static("", id="tx-header", classes="hidden")
        yield TransactionTree(id="tx-tree", classes="hidden")

    @property
    def transaction_tree(self) -> TransactionTree:
        return self.query_one(TransactionTree)

    def show_message(self, message: VisualType) -> None:
        self.transaction = None
        self.query_one("#tx-message", Static).update(message)
        self.query_one("#tx-message").remove_class("hidden")
        self.query_one("#tx-header").add_class("hidden")
        self.transaction_tree.add_class("hidden")

    def show(self, transaction: JsTransaction, focus_contract: str) -> None:
        self.transaction = transaction
        self.query_one("#tx-message").add_class("hidden")
        head = self.query_one("#tx-header", Static)
        head.update(header(transaction, full=self.full_ids))
        head.border_title = self.title
        head.remove_class("hidden")
        tree = self.transaction_tree
        tree.remove_class("hidden")
        tree.full_ids = self.full_ids
        tree.show(transaction, focus_contract)

    def set_full_ids(self, full: bool) -> None:
        self.full_ids = full
        self.transaction_tree.full_ids = full
        if self.transaction is not None:
            self.query_one("#tx-header", Static).update(header(self.transaction, full=full))
