"""What the contracts screen says of what it shows, as plain text (the screen shows it through `plain`: the ledger's
text never reaches the terminal raw): the scope chosen, the count of the rows in view, what the struck-out rows
are, a row's details, the banner while the ledger end is ahead."""

from __future__ import annotations

from collections.abc import Sequence

from app.counting import count as counted
from app.cut import shorten
from app.daml import party_hint, template_name
from app.snapshot import ADDED, CHANGED, REMOVED, Row
from app.widgets.contract_table import row_mark


def scope(parties: Sequence[str] | None, templates: frozenset[str]) -> str:
    if parties is None:
        who = "all parties"
    elif not parties:
        who = "no parties"
    else:
        who = ", ".join(party_hint(p) for p in parties[:4]) + (" …" if len(parties) > 4 else "")
    what = "all templates" if not templates else ", ".join(template_name(t) for t in sorted(templates))
    return f"{who} · {what}"


def struck_out(offset: int | None, previous: int | None) -> str:
    """What the struck-out rows are: contracts of the offset viewed before, not of this one. Stepped forward they
    are gone since; stepped back they are not yet created here (they came after)."""
    if previous is not None and offset is not None and offset < previous:
        return f"not yet created at {offset}, active at {previous}"
    return f"gone since {previous}"


def count(
    rows: int,
    gone: int,
    *,
    text: str,
    offset: int | None,
    previous: int | None,
    unshown_sort: str | None,
    descending: bool,
    first_of: int | None = None,
) -> str:
    """What the `rows` in view are: the contracts of the state, and apart the `gone` struck-out comparison rows;
    `unshown_sort`, the payload field the rows are ordered by when no column shows it; `first_of`, the contracts
    of the state when the rows are only the first of them (all the last session kept)."""
    said = counted(rows - gone, "contract")
    if first_of is not None and first_of > rows:
        said = f"the first {rows - gone:,} of {counted(first_of, 'contract')}"
    if text:
        said += f" matching “{text}”"
    if gone:
        said += f" · {gone:,} {struck_out(offset, previous)}, shown struck out"
    if unshown_sort is not None:  # said here, as a column's header would say it
        said += f" · by {unshown_sort} {'▼' if descending else '▲'}"
    return said


def row_detail(row: Row, offset: int | None, previous: int | None) -> str:
    """The line under the table for the row at the cursor: its template, where and when, and how it compares."""
    parts = [template_name(row.template_id), f"created at offset {row.created_offset}"]
    location = row.location(party_hint)
    if row.in_flight:
        assert row.move is not None
        parts[1] = f"{location} (reassignment {shorten(row.move.reassignment_id, 16)}; 4 to complete it)"
    elif location:  # a state that an assignment began
        parts[1] = location
    if row.archived_offset is not None:
        parts.append(f"{'moved on' if row.moved_on else 'archived'} at offset {row.archived_offset}")
    if row.status == ADDED:
        parts.insert(0, f"+ active here, not at offset {previous}")
    elif row.status == REMOVED and offset is not None and row.created_offset > offset:
        parts.insert(0, f"- not yet created at offset {offset}: active at {previous} (for comparison)")
    elif row.status == CHANGED:
        parts.insert(0, f"{row_mark(row)} elsewhere at offset {previous} (moved between synchronizers)")
    elif row.status == REMOVED:
        parts.insert(0, f"- active at offset {previous}, not here (shown for comparison)")
    if row.workflow_id:
        parts.append(f"workflow {row.workflow_id}")
    return " · ".join(parts)


def behind_the_end(offset: int, end: int) -> str:
    return (
        f"Viewing offset {offset}; the ledger end is {end}, {counted(end - offset, 'offset')} later. "
        "Press e to view the ledger end."
    )


def reading(loaded: int, form: str, seconds: float) -> str:
    rate = loaded / max(0.001, seconds)
    return f"reading: {counted(loaded, 'contract')} ({form}, {rate:,.0f}/s) · escape cancels"


def no_parties(can_switch_user: bool) -> str:
    if can_switch_user:
        return (
            "This user can read no party's contracts. Press p to choose parties, or U to act as another user."
        )
    return "This user can read no party's contracts. Press p to choose parties."
