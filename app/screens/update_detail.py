"""One update opened from the transactions screen: a transaction with the inspector's transaction view (header,
and the events as an exercise tree in LEDGER_EFFECTS shape), or what a reassignment or topology event says. `o` (or
enter on a contract id) opens a contract it touched in the inspector; escape goes back to the list."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding

from app.client import errors, event_format, update_format
from app.client.ledger import LEDGER_EFFECTS
from app.daml import template_name
from app.daml_values import show_contract_id, show_party
from app.messages import OpenContract
from app.screens.base import LedgerScreen
from app.untrusted import visible
from app.update_rows import TRANSACTION, UpdateRow
from app.widgets.keys import KeyFooter
from app.widgets.status_bar import StatusBar
from app.widgets.transaction_view import TransactionView, failure_message


class UpdateScreen(LedgerScreen):
    BINDINGS = [
        Binding("escape", "back", "Back", id="update.back"),
        Binding("o", "open_contract", "Open contract", id="update.open"),
        Binding("f", "full_ids", "Full ids", id="update.full"),
        Binding("r", "reload", "Reload", id="update.reload"),
    ]

    def __init__(self, row: UpdateRow) -> None:
        super().__init__()
        self.row = row
        self.full_ids = False

    def compose(self) -> ComposeResult:
        yield StatusBar(mode=self.app.current_mode, crumb=f"Offset {self.row.offset}")
        yield TransactionView(f"Update at offset {self.row.offset}", id="update-view")
        yield KeyFooter()

    @property
    def view(self) -> TransactionView:
        return self.query_one(TransactionView)

    def on_mount(self) -> None:
        self._load()

    @work(exclusive=True, group="update-load", exit_on_error=False)
    async def _load(self) -> None:
        row = self.row
        if row.kind != TRANSACTION:
            self.view.show_message(_summary(row, full=self.full_ids))
            return
        self.view.show_message(Text(f"Reading the transaction at offset {row.offset} …", style="dim"))
        session = self.ledger_app.session
        fmt = update_format(event_format(session.identity.readable()), LEDGER_EFFECTS)
        try:
            update = await session.client.update_at(row.offset, fmt)
        except errors.LedgerApiError as e:
            pruned = 0
            if isinstance(e, errors.NotFound):
                try:
                    pruned = await session.client.pruned_offset()
                except errors.LedgerApiError:
                    pass
            self.view.show_message(failure_message(e, row.offset, pruned))
            return
        if update.transaction is None:
            self.view.show_message(_summary(row, full=self.full_ids))
            return
        transaction = update.transaction.value
        self.ledger_app.workspace.learned.note_transaction(transaction)
        self.view.set_full_ids(self.full_ids)
        self.view.show(transaction, "")
        self.view.transaction_tree.focus()

    def action_open_contract(self) -> None:
        """A reassignment's or a topology event's contract (a transaction's tree opens the one under its cursor)."""
        if self.row.contracts:
            self.post_message(OpenContract(self.row.contracts[0]))

    def action_back(self) -> None:
        self.dismiss()

    def action_reload(self) -> None:
        self._load()

    def action_full_ids(self) -> None:
        self.full_ids = not self.full_ids
        if self.view.transaction is None and self.row.kind != TRANSACTION:
            self.view.show_message(
                _summary(self.row, full=self.full_ids)
            )  # its ids, as a transaction's header
        else:
            self.view.set_full_ids(self.full_ids)


def _summary(row: UpdateRow, *, full: bool) -> Group:
    """What the list knows of an update that is not a transaction (a reassignment, a topology event): its ids short
    (`Alice::1220…`) as in a transaction's header, whole when `full`."""

    def ident(value: str) -> str:
        return visible(show_contract_id(value, full))

    def party(value: str) -> str:
        return visible(show_party(value, full))

    lines = [Text(f"{row.kind.capitalize()} at offset {row.offset}", style="bold")]
    lines.append(Text(f"update id {ident(row.update_id)} · record time {visible(row.record_time)}"))
    if row.submitter:
        lines.append(Text(f"submitter {party(row.submitter)}"))
    for template in row.templates:
        lines.append(Text(f"template {visible(template_name(template))}"))
    for contract in row.contracts:
        lines.append(Text(f"contract {ident(contract)}"))
    if row.parties:
        lines.append(Text(f"parties {', '.join(party(p) for p in sorted(row.parties))}"))
    lines += [Text(), Text("o opens the contract · escape goes back to the list", style="dim")]
    return Group(*lines)


__all__ = ["UpdateScreen"]
