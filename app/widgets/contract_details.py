"""Every field of a contract's create event and, once archived, of its archive event, as a list of labelled lines;
and what each of the participant's two lookups answered."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from app import daml_values as dv
from app.client.contracts import ContractLookup
from app.client.errors import LedgerApiError, NotFound, StatusError
from app.counting import count
from app.daml import party_hint, template_name
from app.untrusted import visible
from app.widgets.untrusted_text import escaped

LABEL = "dim"
HEADING = "bold underline"


@dataclass(frozen=True)
class Signature:
    """What the contract's package says of its template: its choices (`app.value_types.ChoiceLine`) and the
    interfaces it implements (their names)."""

    choices: Sequence
    interfaces: Sequence[str]


def parties(names: Iterable[str], full: bool) -> Text:
    names = list(names)
    if not names:
        return Text("—", style=LABEL)
    text = Text()
    for i, p in enumerate(names):
        if i:
            text.append(", ")
        text.append(visible(dv.show_party(p, full)), style="cyan")
    return text


def ident(value: str | None, full: bool, style: str = "") -> Text:
    if not value:
        return Text("—", style=LABEL)
    return Text(visible(value if full else dv.short_contract_id(value)), style=style)


def error_line(error: LedgerApiError) -> Text:
    if isinstance(error, StatusError) and error.canton is not None:
        return Text.assemble((visible(error.canton.code), "bold red"), f" {visible(error.canton.cause)}")
    return Text(visible(error.message), style="red")


def blob_size(blob: str) -> int | None:
    try:
        return len(base64.b64decode(blob, validate=True))
    except (binascii.Error, ValueError):
        return None


class ContractDetails(Static):
    """Shows a `ContractLookup`; `full_ids` shows parties and ids in full."""

    DEFAULT_CSS = """
    ContractDetails { padding: 0 1; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.lookup: ContractLookup | None = None
        self.choices: list[str] = []
        self.full_ids = False
        self.where: Text | None = None  # where it is now, when it moved since its creation
        self.signature: Signature | None = None  # None: the template's package is not read (yet)

    def show(
        self,
        lookup: ContractLookup,
        *,
        choices: Iterable[str] = (),
        full_ids: bool | None = None,
        where: Text | None = None,
        signature: Signature | None = None,
    ) -> None:
        self.lookup = lookup
        self.choices = sorted(choices)
        self.where = where
        if signature is not None:
            self.signature = signature
        if full_ids is not None:
            self.full_ids = full_ids
        self.update(self._render_lookup())

    def set_full_ids(self, full: bool) -> None:
        self.full_ids = full
        if self.lookup is not None:
            self.update(self._render_lookup())

    def _render_lookup(self) -> Group:
        assert self.lookup is not None
        lookup = self.lookup
        full = self.full_ids
        event = lookup.event
        parts: list = []
        if event is None:
            return Group(Text("No create event to show.", style=LABEL))

        contract = _grid(full)
        contract.add_row("contract id", ident(event.contract_id, full, "magenta"))
        contract.add_row("template", Text(template_name(event.template_id), style="bold"))
        contract.add_row("package name", Text(event.package_name or "—"))
        contract.add_row("package id", ident(event.template_id.split(":", 1)[0], full))
        rep = event.representative_package_id
        same = rep == event.template_id.split(":", 1)[0]
        contract.add_row(
            "representative pkg",
            Text("the template's package", style=LABEL) if same and rep else ident(rep, full),
        )
        signature = self.signature
        if signature is None:
            contract.add_row(
                "choices seen",
                Text(", ".join(self.choices), style="bold")
                if self.choices
                else Text("none in the transactions read so far", style=LABEL),
            )
        else:
            contract.add_row(
                "implements",
                Text(visible(", ".join(signature.interfaces)))
                if signature.interfaces
                else Text("no interface", style=LABEL),
            )
        parts += [Text("Contract", style=HEADING), contract, Text()]
        if signature is not None:
            parts += [Text("Choices (x exercises one)", style=HEADING), _choices(signature.choices), Text()]

        created = _grid(full)
        real = lookup.created is not None
        if real:
            created.add_row("offset", Text(f"{event.offset}  (node {event.node_id})", style="bold"))
        else:
            created.add_row("offset", Text("not known: contract-by-id does not report it", style=LABEL))
        created.add_row("created at", Text(event.created_at or "—"))
        created.add_row("synchronizer", ident(lookup.synchronizer_id, full))
        created.add_row("signatories", parties(event.signatories, full))
        created.add_row("observers", parties(event.observers, full))
        created.add_row("witnesses", parties(event.witness_parties, full))
        if real:
            created.add_row("acs delta", Text(str(event.acs_delta).lower()))
        if event.contract_key is not None:
            created.add_row("contract key", Text(dv.preview(event.contract_key, full_ids=full)))
            created.add_row("key hash", Text(event.contract_key_hash or "—"))
        views = event.interface_views
        created.add_row(
            "interface views",
            Text(
                ", ".join(template_name(v.interface_id) for v in views) if views else "none (i asks for one)",
                style="" if views else LABEL,
            ),
        )
        blob = lookup.blob
        size = blob_size(blob) if blob else None
        created.add_row(
            "created event blob",
            Text(
                f"present, {count(size, 'byte')} (b copies it)"
                if size is not None
                else "present"
                if blob
                else "absent",
                style="" if blob else LABEL,
            ),
        )
        parts += [Text("Created", style=HEADING), created, Text()]
        if self.where is not None:
            moved = _grid(full)
            moved.add_row("now", self.where)
            parts += [Text("Moved", style=HEADING), moved, Text()]

        if lookup.archived is not None:
            archived = lookup.archived
            grid = _grid(full)
            grid.add_row("offset", Text(f"{archived.offset}  (node {archived.node_id})", style="bold red"))
            grid.add_row("synchronizer", ident(lookup.archive_synchronizer_id, full))
            grid.add_row("witnesses", parties(archived.witness_parties, full))
            if archived.template_id != event.template_id:
                grid.add_row("choice's template", Text(template_name(archived.template_id)))
            if archived.implemented_interfaces:
                grid.add_row(
                    "interfaces", Text(", ".join(template_name(i) for i in archived.implemented_interfaces))
                )
            parts += [Text("Archived", style=HEADING), grid, Text()]

        sources = _grid(full)
        sources.add_row(
            "contract-by-id",
            _source(lookup.by_id is not None, lookup.by_id_error, served=lookup.by_id_served),
        )
        sources.add_row("events-by-contract-id", _source(lookup.created is not None, lookup.events_error))
        parts += [Text("Lookups", style=HEADING), sources]
        return Group(*parts)


def _choices(choices: Sequence) -> Table | Text:
    """One line per choice: its name, whether it consumes the contract, its argument's fields and its result."""
    if not choices:
        return Text("none", style=LABEL)
    table = Table.grid(padding=(0, 1))
    table.add_column(no_wrap=True)
    table.add_column()
    for choice in choices:
        name = Text(visible(choice.name), style="bold")
        if choice.interface_id:
            name.append(f" ({template_name(choice.interface_id)})", style=LABEL)
        table.add_row(
            name,
            Text.assemble(
                ("consuming" if choice.consuming else "nonconsuming", "red" if choice.consuming else LABEL),
                f"  {visible(choice.argument)}",
                (f" → {visible(choice.result)}", "italic"),
            ),
        )
    return table


def _grid(full_ids: bool) -> Table:
    """Labels and values; a value wraps between words, and a word too long for its line ends in "…" (ids in full
    are folded: showing them whole is what was asked)."""
    table = Table.grid(padding=(0, 2))
    table.add_column(style=LABEL, no_wrap=True, min_width=20)
    table.add_column(overflow="fold" if full_ids else "ellipsis")
    return table


def _source(found: bool, error: LedgerApiError | None, *, served: bool = True) -> Text:
    if not served:
        return Text("not served by this participant (3.4)", style=LABEL)
    if found:
        return Text("found", style="green")
    if error is not None:
        return error_line(error)
    return Text("—", style=LABEL)


def not_found(lookup: ContractLookup, parties: list[str] | None) -> Group:
    """Why no contract is shown, in Canton's words and in plain ones (`parties`: who asked; None for any party)."""
    failures = lookup.failures
    missing = bool(failures) and all(isinstance(e, NotFound) for e in failures)
    title = "Contract not found" if missing else "Cannot look up the contract"
    lines: list = [Text.assemble((title, "bold red"), f"  {visible(lookup.contract_id)}"), Text()]
    if lookup.by_id_error is not None:
        lines.append(Text.assemble(("contract-by-id         ", "dim"), error_line(lookup.by_id_error)))
    elif not lookup.by_id_served:
        lines.append(
            Text.assemble(("contract-by-id         ", "dim"), ("not served by this participant (3.4)", "dim"))
        )
    if lookup.events_error is not None:
        lines.append(Text.assemble(("events-by-contract-id  ", "dim"), error_line(lookup.events_error)))
    lines.append(Text())
    if missing:
        who = "any party" if parties is None else visible(", ".join(party_hint(p) for p in parties))
        pruned = (
            f" This participant is pruned up to offset {lookup.pruned_offset}; the events of contracts "
            "archived before it are gone."
            if lookup.pruned_offset
            else ""
        )
        lines.append(
            Text(
                f"No contract with this id is visible to {who} on this participant. Either it does not exist here, "
                "or none of its stakeholders (signatories and observers) is a party this user can read, or it was "
                f"archived and then pruned.{pruned}"
            )
        )
    else:
        for e in failures:
            if e.hint:
                lines.append(Text(visible(e.hint)))
    lines.append(Text())
    lines.append(Text("r tries again · U acts as another user · escape goes back", style="dim"))
    return Group(*lines)


def banner(lookup: ContractLookup | None, contract_id: str, full: bool) -> Text:
    """One line: the template, the id, and whether the contract is active or archived (and since when)."""
    line = Text(no_wrap=True, overflow="ellipsis")
    event = lookup.event if lookup else None
    if event is not None:
        line.append(template_name(event.template_id), style="bold")
        line.append("  ")
    line.append(dv.show_contract_id(contract_id, full), style="magenta")
    line.append("  ")
    if lookup is None:
        line.append("looking it up…", style="dim")
    elif event is None:
        line.append("not found", style="bold red")
    elif lookup.archived is not None:
        line.append(f"✕ Archived at offset {lookup.archived.offset}", style="bold red")
        line.append(f"  created at offset {event.offset}", style="dim")
    elif lookup.active:
        line.append("● Active", style="bold green")
        line.append(f"  created at offset {event.offset}, not archived", style="dim")
    else:
        line.append("? whether it is archived is not known: its events were not found", style="bold yellow")
    return escaped(line)
